// A parallel strategy and the one table of its keys (strategy_keys()), which drives parsing,
// defaults, JSON output, the search's pins, the cost-cache key, the Megatron-LM flags and the
// web page's schema. Adding a key: CONTRIBUTING.md, "Adding a strategy key".
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace paraplan {

enum class RecomputeGranularity { none, selective, full };
enum class RecomputeMethod { uniform, block };
// Megatron-LM --recompute-modules: the submodules selective recompute runs again (those
// Paraplan models; transformer_config.py also lists layernorm and others).
enum class RecomputeModule { core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts };
inline constexpr size_t kNumRecomputeModules = 7;
// Megatron-LM --offload-modules (with --fine-grained-activation-offloading): the submodules whose
// saved activations go to host memory during the forward pass and come back for the backward
// (transformer_config.py offload_modules; pipeline_parallel/fine_grained_activation_offload.py).
enum class OffloadModule {
  attn_norm,
  qkv_linear,
  core_attn,
  attn_proj,
  mlp_norm,
  expert_fc1,
  moe_act
};
inline constexpr size_t kNumOffloadModules = 7;
// Megatron-LM --cuda-graph-impl (transformer_config.py cuda_graph_impl): none, per-layer graphs
// of Megatron's own CudaGraphManager (local), or Transformer Engine's make_graphed_callables
// (transformer_engine).
enum class CudaGraphImpl { none, local, transformer_engine };
// What the graphs capture (Megatron-Bridge's and older Megatron-LM's --cuda-graph-scope, current
// Megatron-LM's --cuda-graph-modules; enums.py CudaGraphModule): parts of each layer, or with the
// local implementation the whole forward-backward (full_iteration, current Megatron-LM's
// --cuda-graph-impl full_iteration). An empty set captures whole layers.
enum class CudaGraphScope { attn, mlp, moe, moe_router, moe_preprocess, full_iteration };
inline constexpr size_t kNumCudaGraphScopes = 6;
// Transformer Engine's fp8 scaling recipes (Megatron-LM --fp8-recipe).
enum class Fp8Recipe { delayed, tensorwise, mxfp8, blockwise };
// Storage dtypes of gradients and optimizer state (Megatron-LM --main-grads-dtype,
// --main-params-dtype, --exp-avg-dtype, --exp-avg-sq-dtype), in the order of its choices.
enum class MainGradsDtype { fp32, bf16 };
enum class MainParamsDtype { fp32, fp16 };
enum class MomentDtype { fp32, fp16, bf16, fp8 };
// Megatron-LM --moe-token-dispatcher-type: all-gather over tensor x expert parallel, all-to-all
// over expert parallel, or the fused node-aware all-to-all (DeepEP/HybridEP).
enum class MoeDispatcher { allgather, alltoall, flex };
// Megatron-LM --moe-flex-dispatcher-backend (transformer_config.py moe_flex_dispatcher_backend,
// default deepep): the kernels of the flex dispatcher, DeepEP's normal kernels or NVIDIA's
// HybridEP (DeepEP's hybrid-ep branch: TMA, fewer SMs, multi-node NVLink).
enum class MoeFlexBackend { deepep, hybridep };
// Megatron-LM --cp-comm-type (Transformer Engine's context-parallel attention): K and V around a
// ring (p2p), all-to-all of the heads (a2a, as DeepSpeed Ulysses) or all-gathered K and V.
enum class CpCommType { p2p, a2a, allgather };
// Megatron-LM --cross-entropy-fusion-impl: the fused loss's kernel, Megatron-LM's own
// (fusions/fused_cross_entropy.py) or Transformer Engine's Triton kernel (te), which writes the
// gradient into the 16-bit logits in place.
enum class CrossEntropyFusionImpl { native, te };
// Megatron-LM --attention-backend (transformer/enums.py AttnBackend) for the fused attention:
// auto (Transformer Engine picks: cuDNN fused attention on Hopper and later), fused (cuDNN) or
// flash (the flash-attn package through Transformer Engine: NVTE_FLASH_ATTN=1,
// NVTE_FUSED_ATTN=0). auto and fused are priced alike.
enum class AttentionBackend { automatic, fused, flash };

std::string_view to_string(RecomputeGranularity granularity);
std::string_view to_string(RecomputeMethod method);
std::string_view to_string(Fp8Recipe recipe);
std::string_view to_string(MainGradsDtype dtype);
std::string_view to_string(MainParamsDtype dtype);
std::string_view to_string(MomentDtype dtype);
std::string_view to_string(MoeDispatcher dispatcher);
std::string_view to_string(MoeFlexBackend backend);
std::string_view to_string(CrossEntropyFusionImpl impl);
std::string_view to_string(AttentionBackend backend);

// Megatron-LM --recompute-granularity, --recompute-method, --recompute-num-layers.
struct Recompute {
  RecomputeGranularity granularity = RecomputeGranularity::none;
  RecomputeMethod method = RecomputeMethod::uniform;
  int64_t num_layers = 1;
  uint32_t modules = 1u << static_cast<unsigned>(RecomputeModule::core_attn);  // a bit each

  bool recomputes(RecomputeModule module) const {
    return granularity == RecomputeGranularity::selective &&
           (modules & (1u << static_cast<unsigned>(module))) != 0;
  }
  bool operator==(const Recompute&) const = default;
};

// A complete strategy. Field names are Megatron-LM's arguments and the initialisers are its
// defaults: strategy_keys() reads every key's default from here.
struct Strategy {
  int64_t tensor_model_parallel_size = 1;
  int64_t pipeline_model_parallel_size = 1;
  int64_t virtual_pipeline_model_parallel_size = 1;
  int64_t context_parallel_size = 1;
  CpCommType cp_comm_type = CpCommType::p2p;
  int64_t expert_model_parallel_size = 1;
  int64_t expert_tensor_parallel_size = 0;  // 0: Megatron-LM's None, equal to tensor parallel
  MoeDispatcher moe_token_dispatcher_type = MoeDispatcher::allgather;
  MoeFlexBackend moe_flex_dispatcher_backend = MoeFlexBackend::deepep;
  bool moe_grouped_gemm = false;
  bool moe_permute_fusion = false;
  bool moe_router_fusion = false;
  bool moe_shared_expert_overlap = false;
  bool overlap_moe_expert_parallel_comm = false;
  // --delay-wgrad-compute: with the expert-parallel overlap, the experts' weight gradients run
  // after the dispatch's backward is issued (model_chunk_schedule_plan.py backward_dw).
  bool delay_wgrad_compute = false;
  bool moe_router_force_load_balancing = false;
  // Token dropping (Megatron-LM --moe-expert-capacity-factor; 0: Megatron-LM's None, dropless):
  // an expert takes at most this many times its balanced share of the tokens; with
  // --moe-pad-expert-input-to-capacity every expert's input is padded to that capacity.
  double moe_expert_capacity_factor = 0;
  bool moe_pad_expert_input_to_capacity = false;
  // Every expert's input padded to its capacity: static shapes.
  bool drop_and_pad() const {
    return moe_expert_capacity_factor > 0 && moe_pad_expert_input_to_capacity;
  }
  int64_t micro_batch_size = 1;
  bool sequence_parallel = false;
  std::vector<Recompute> recompute = std::vector<Recompute>(1);  // one per GPU type
  // Whether some GPU type recomputes at `granularity`, or recomputes `module` selectively.
  bool any_recompute(RecomputeGranularity granularity) const {
    return std::any_of(recompute.begin(), recompute.end(),
                       [&](const Recompute& r) { return r.granularity == granularity; });
  }
  bool any_recomputes(RecomputeModule module) const {
    return std::any_of(recompute.begin(), recompute.end(),
                       [&](const Recompute& r) { return r.recomputes(module); });
  }
  int64_t zero_stage = 0;  // 1 = --use-distributed-optimizer, 2 and 3 = Megatron-FSDP
  bool use_flash_attn = false;
  AttentionBackend attention_backend = AttentionBackend::automatic;  // with use_flash_attn
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;  // acts in fp8 training only
  bool fp8_dot_product_attention = false;     // cuDNN's fp8 fused attention (fp8 training)
  bool fp8_param_gather = false;              // fp8 weights, gathered in fp8
  bool cross_entropy_loss_fusion = false;     // Megatron-LM's fused vocab-parallel loss
  CrossEntropyFusionImpl cross_entropy_fusion_impl = CrossEntropyFusionImpl::native;
  std::vector<int> pipeline_stage_gpus;        // GPU type (cluster pool) per stage
  std::vector<int64_t> pipeline_stage_layers;  // layers per stage

  // Gradient and optimizer-state dtypes (bf16 main gradients in bf16 and fp8 training, fp32
  // ones in fp16 training; Transformer Engine's precision-aware FusedAdam and its dtypes).
  bool grad_reduce_in_bf16 = false;
  bool accumulate_allreduce_grads_in_fp32 = false;
  bool use_precision_aware_optimizer = false;
  MainGradsDtype main_grads_dtype = MainGradsDtype::fp32;
  MainParamsDtype main_params_dtype = MainParamsDtype::fp32;
  MomentDtype exp_avg_dtype = MomentDtype::fp32;
  MomentDtype exp_avg_sq_dtype = MomentDtype::fp32;
  // Tensor parallelism of the experts (--expert-tensor-parallel-size, default: tensor parallel).
  int64_t expert_tensor_parallel() const {
    return expert_tensor_parallel_size > 0 ? expert_tensor_parallel_size
                                           : tensor_model_parallel_size;
  }

  // Expert-data-parallel size: a stage's GPUs over expert tensor x expert parallel
  // (parallel_state.py: world / (ETP x EP x PP)); at least 1.
  int64_t expert_data_parallel(int64_t data_parallel_size) const {
    const int64_t expert_model = expert_tensor_parallel() * expert_model_parallel_size;
    return std::max<int64_t>(
        1, gpus_per_stage(data_parallel_size) / std::max<int64_t>(1, expert_model));
  }
  // Layers whose activations go to host memory during the forward pass (Megatron-LM
  // --cpu-offloading-num-layers; 0: none).
  int64_t cpu_offloading_num_layers = 0;
  // Megatron-LM --offload-modules, a bit each (OffloadModule); none: no fine-grained activation
  // offloading.
  uint32_t offload_modules = 0;
  bool offloads(OffloadModule module) const {
    return (offload_modules & (1u << static_cast<unsigned>(module))) != 0;
  }
  // Megatron-LM --optimizer-cpu-offload (HybridDeviceOptimizer): this share of the optimizer's
  // parameters keeps its fp32 copy and moments in host memory and steps on the CPU
  // (--optimizer-offload-fraction, default 1.0); --overlap-cpu-optimizer-d2h-h2d pipelines the
  // copies with the CPU step, parameter by parameter.
  bool optimizer_cpu_offload = false;
  double optimizer_offload_fraction = 1.0;
  bool overlap_cpu_optimizer_d2h_h2d = false;
  // The share of the optimizer's parameters that steps on the CPU.
  double optimizer_host_fraction() const {
    return optimizer_cpu_offload ? optimizer_offload_fraction : 0.0;
  }
  // MindSpeed's --reuse-fp32-param (parameter-copy reuse, MindSpeed-LLM only): the 16-bit
  // weights and the optimizer's fp32 copy of them share memory, the fp32 value being the bf16
  // weight and a 16-bit residual, so the copy costs 2 bytes a parameter of the optimizer's
  // shard instead of 4 (docs/features/reuse-fp32-param.md).
  bool reuse_fp32_param = false;
  // Megatron-LM --cuda-graph-impl and --cuda-graph-scope (a bit each, CudaGraphScope; none:
  // whole layers). Graphs take away the host's issue time of what they capture (host_time.hpp);
  // their memory: docs/model.md section 2, cuda_graph_memory.cpp.
  CudaGraphImpl cuda_graph_impl = CudaGraphImpl::none;
  uint32_t cuda_graph_scope = 0;
  bool graphs(CudaGraphScope scope) const {
    return (cuda_graph_scope & (1u << static_cast<unsigned>(scope))) != 0;
  }
  // Graphs of the whole forward-backward (the local implementation's full_iteration scope).
  bool full_iteration_graph() const {
    return cuda_graph_impl != CudaGraphImpl::none && graphs(CudaGraphScope::full_iteration);
  }
  // Per-layer graphs (either implementation, not of the whole iteration).
  bool per_layer_graphs() const {
    return cuda_graph_impl != CudaGraphImpl::none && !graphs(CudaGraphScope::full_iteration);
  }
  // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PYTORCH_NPU_ALLOC_CONF on Ascend): PyTorch's
  // caching allocator grows one segment per stream instead of leaving fixed segments stranded
  // (c10/cuda/CUDACachingAllocator.cpp, PyTorch 2.1+). It decides which default margin the memory
  // verdict keeps (input/memory_margin.cpp); left out, the framework's launcher's
  // (expandable_segments_by_default, complete_strategy).
  bool expandable_segments = false;
  // PYTORCH_CUDA_ALLOC_CONF=graph_capture_record_stream_reuse:True: during a CUDA graph capture
  // PyTorch's caching allocator reuses a block freed after another stream's use once the capture's
  // dependencies make it safe (c10/cuda/CUDACachingAllocator.cpp free_safe_blocks_in_capture);
  // without it such frees are deferred until no capture is underway
  // (model/cuda_graph_memory.cpp cuda_graph_deferred_bytes). Off unless given (PyTorch's default).
  bool graph_capture_record_stream_reuse = false;
  // Megatron-LM --defer-embedding-wgrad-compute: the last pipeline stage defers the output layer's
  // weight-gradient GEMMs to the pipeline flush, keeping each micro-batch's logits gradient and the
  // layer's input until then (tensor_parallel/layers.py grad_output_buffer,
  // embedding_activation_buffer; utils.py drain_embedding_wgrad_compute). Off by default
  // (model_parallel_config.py).
  bool defer_embedding_wgrad_compute = false;
  // Megatron-LM --wgrad-deferral-limit: how many micro-batches' output-layer weight gradients are
  // deferred; 0 (the default): all of them.
  int64_t wgrad_deferral_limit = 0;
  // Megatron-Core's deallocate_pipeline_outputs: a stage's output is pseudo-freed once sent to the
  // next stage (pipeline_parallel/schedules.py deallocate_output_tensor). Megatron-LM's training
  // sets it true (training/argument_utils.py, no argument), as Megatron-Bridge's model providers
  // do (gpt_provider.py); false keeps every in-flight micro-batch's stage output whole, as
  // Megatron-LM's schedules did before c1e4526bb3 (2022).
  bool deallocate_pipeline_outputs = true;

  // GPUs per pipeline stage (tensor * context * data).
  int64_t gpus_per_stage(int64_t data_parallel_size) const {
    return tensor_model_parallel_size * context_parallel_size * data_parallel_size;
  }
};

// The keys, in the order of the table (and of the Megatron-LM flags).
enum class StrategyKeyId : uint8_t {
  tensor_model_parallel_size,
  pipeline_model_parallel_size,
  virtual_pipeline_model_parallel_size,
  context_parallel_size,
  cp_comm_type,
  expert_model_parallel_size,
  expert_tensor_parallel_size,
  moe_token_dispatcher_type,
  moe_flex_dispatcher_backend,
  moe_grouped_gemm,
  moe_permute_fusion,
  moe_router_fusion,
  moe_shared_expert_overlap,
  overlap_moe_expert_parallel_comm,
  delay_wgrad_compute,
  moe_router_force_load_balancing,
  moe_expert_capacity_factor,
  moe_pad_expert_input_to_capacity,
  micro_batch_size,
  sequence_parallel,
  recompute_granularity,
  recompute_method,
  recompute_num_layers,
  recompute_modules,
  zero_stage,
  use_flash_attn,
  attention_backend,
  overlap_grad_reduce,
  overlap_param_gather,
  tp_comm_overlap,
  fp8_recipe,
  fp8_dot_product_attention,
  fp8_param_gather,
  grad_reduce_in_bf16,
  accumulate_allreduce_grads_in_fp32,
  use_precision_aware_optimizer,
  main_grads_dtype,
  main_params_dtype,
  exp_avg_dtype,
  exp_avg_sq_dtype,
  cross_entropy_loss_fusion,
  cross_entropy_fusion_impl,
  cpu_offloading_num_layers,
  offload_modules,
  optimizer_cpu_offload,
  optimizer_offload_fraction,
  overlap_cpu_optimizer_d2h_h2d,
  reuse_fp32_param,
  cuda_graph_impl,
  cuda_graph_scope,
  expandable_segments,
  graph_capture_record_stream_reuse,
  defer_embedding_wgrad_compute,
  wgrad_deferral_limit,
  deallocate_pipeline_outputs,
  pipeline_stage_gpus,
  pipeline_stage_layers,
  count
};
inline constexpr size_t kNumStrategyKeys = static_cast<size_t>(StrategyKeyId::count);

// A set of keys (what a rule reads, what a search level decides).
class KeySet {
 public:
  constexpr KeySet() = default;
  constexpr KeySet(std::initializer_list<StrategyKeyId> keys) {
    for (const StrategyKeyId key : keys) bits_ |= bit(key);
  }
  constexpr bool contains(StrategyKeyId key) const { return (bits_ & bit(key)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool subset_of(KeySet other) const { return (bits_ & ~other.bits_) == 0; }
  constexpr bool intersects(KeySet other) const { return (bits_ & other.bits_) != 0; }
  constexpr KeySet operator|(KeySet other) const { return KeySet(bits_ | other.bits_); }
  static constexpr KeySet all() { return KeySet((uint64_t{1} << kNumStrategyKeys) - 1); }

 private:
  constexpr explicit KeySet(uint64_t bits) : bits_(bits) {}
  static constexpr uint64_t bit(StrategyKeyId key) {
    return uint64_t{1} << static_cast<unsigned>(key);
  }
  uint64_t bits_ = 0;
};
static_assert(kNumStrategyKeys < 64, "KeySet holds 63 keys");

// choice_set: a subset of the choices, a bit each (JSON: an array of their names); fraction: a
// number held in millionths (kFractionScale), its limits min and max in millionths too.
enum class KeyType { integer, boolean, choice, choice_set, fraction, gpu_list, integer_list };
inline constexpr int64_t kFractionScale = 1'000'000;

// How output/megatron.cpp writes a key: `--flag VALUE` always, `--flag VALUE` unless it is the
// default, `--flag` when true, or by a rule of its own (the layout, recompute and ZeRO flags).
enum class MegatronFlag { value, value_unless_default, switch_on, composite };

struct StrategyKey {
  StrategyKeyId id;
  std::string_view name;  // the JSON key: Megatron-LM's argument name with '_'
  KeyType type;
  bool per_gpu;     // one value per GPU type: a value for all, or {"<GPU type>": value}
  bool layer_cost;  // per-layer costs depend on it: part of the cost-cache key
  std::span<const std::string_view> choices;  // names of a choice key's values
  int64_t min = 0;                            // integer keys
  int64_t max = 0;
  bool max_is_num_layers = false;  // the upper limit is the model's num_layers
  MegatronFlag megatron;
  std::string_view megatron_flag;  // for value and switch flags
  std::string_view description;
  // Scalar keys (not the stage lists): the value as an integer (false/true 0/1, a choice's
  // index), read from or written to GPU type `pool` for per-GPU keys.
  int64_t (*get)(const Strategy& strategy, size_t pool) = nullptr;
  void (*set)(Strategy& strategy, size_t pool, int64_t value) = nullptr;

  bool scalar() const { return type != KeyType::gpu_list && type != KeyType::integer_list; }
  int64_t default_value() const { return get(Strategy{}, 0); }
};

std::span<const StrategyKey> strategy_keys();
const StrategyKey& strategy_key(StrategyKeyId id);

// The names of the choices a choice_set key's value holds, in the table's order.
std::vector<std::string_view> choice_set_names(const StrategyKey& key, int64_t bits);

// The keys a scenario gives; for a search, the ones it fixes. Per-GPU keys may be given for
// some GPU types only.
class StrategyPins {
 public:
  explicit StrategyPins(size_t gpu_types = 1);

  size_t gpu_types() const { return gpu_types_; }
  std::optional<int64_t> get(StrategyKeyId key, size_t pool = 0) const;
  std::optional<bool> flag(StrategyKeyId key) const;
  void set(StrategyKeyId key, size_t pool, int64_t value);
  bool given(StrategyKeyId key) const;  // for at least one GPU type

  std::optional<std::vector<int>> pipeline_stage_gpus;
  std::optional<std::vector<int64_t>> pipeline_stage_layers;

 private:
  size_t gpu_types_;
  std::vector<std::optional<int64_t>> values_;  // key-major: key * gpu_types + pool
};

// `strategy` with every key the pins give set to its pinned value.
void apply_pins(const StrategyPins& pins, Strategy& strategy);

}  // namespace paraplan
