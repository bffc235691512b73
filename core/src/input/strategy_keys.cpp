// The table of strategy keys. Each row: JSON name, type, scope, limits, Megatron-LM flag and how
// to read and write the value in a Strategy. Defaults are the Strategy struct's initialisers.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "paraplan/limits.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan {
namespace {

using K = StrategyKeyId;

// The largest capacity factor read (Megatron-LM sets no limit; above the expert count every
// token fits).
constexpr int64_t kMaxCapacityFactor = 1024;

constexpr std::array<std::string_view, 3> kGranularities = {"none", "selective", "full"};
constexpr std::array<std::string_view, 2> kMethods = {"uniform", "block"};
constexpr std::array<std::string_view, kNumRecomputeModules> kRecomputeModules = {
    "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"};
constexpr std::array<std::string_view, kNumOffloadModules> kOffloadModules = {
    "attn_norm", "qkv_linear", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act"};
constexpr std::array<std::string_view, 4> kFp8Recipes = {"delayed", "tensorwise", "mxfp8",
                                                         "blockwise"};
// Megatron-LM's choices (arguments.py: --main-grads-dtype, --main-params-dtype, --exp-avg-dtype).
constexpr std::array<std::string_view, 2> kMainGradsDtypes = {"fp32", "bf16"};
constexpr std::array<std::string_view, 2> kMainParamsDtypes = {"fp32", "fp16"};
constexpr std::array<std::string_view, 4> kMomentDtypes = {"fp32", "fp16", "bf16", "fp8"};
constexpr std::array<std::string_view, 3> kDispatchers = {"allgather", "alltoall", "flex"};
// Megatron-LM --moe-flex-dispatcher-backend (transformer_config.py; ncclep, added later, is not
// modelled).
constexpr std::array<std::string_view, 2> kFlexBackends = {"deepep", "hybridep"};
// Megatron-LM's --cp-comm-type choices Paraplan models (the hierarchical a2a+p2p is not).
constexpr std::array<std::string_view, 3> kCpCommTypes = {"p2p", "a2a", "allgather"};
constexpr std::array<std::string_view, 2> kCrossEntropyFusionImpls = {"native", "te"};
// Megatron-LM --attention-backend choices for the fused path (unfused and local are
// use_flash_attn false).
constexpr std::array<std::string_view, 3> kAttentionBackends = {"auto", "fused", "flash"};
// Megatron-LM arguments.py --cuda-graph-impl and enums.py CudaGraphModule (with the deprecated
// full_iteration scope Megatron-Bridge's recipes set).
constexpr std::array<std::string_view, 3> kCudaGraphImpls = {"none", "local", "transformer_engine"};
constexpr std::array<std::string_view, kNumCudaGraphScopes> kCudaGraphScopes = {
    "attn", "mlp", "moe", "moe_router", "moe_preprocess", "full_iteration"};

template <auto Member>
int64_t get_field(const Strategy& s, size_t /*pool*/) {
  return static_cast<int64_t>(s.*Member);
}

template <auto Member>
void set_field(Strategy& s, size_t /*pool*/, int64_t value) {
  using T = std::remove_reference_t<decltype(s.*Member)>;
  s.*Member = static_cast<T>(value);
}

template <auto Member>
int64_t get_fraction(const Strategy& s, size_t /*pool*/) {
  return std::llround(s.*Member * static_cast<double>(kFractionScale));
}

template <auto Member>
void set_fraction(Strategy& s, size_t /*pool*/, int64_t value) {
  s.*Member = static_cast<double>(value) / static_cast<double>(kFractionScale);
}

template <auto Member>
int64_t get_recompute(const Strategy& s, size_t pool) {
  return static_cast<int64_t>(s.recompute[pool].*Member);
}

template <auto Member>
void set_recompute(Strategy& s, size_t pool, int64_t value) {
  using T = std::remove_reference_t<decltype(s.recompute[pool].*Member)>;
  s.recompute[pool].*Member = static_cast<T>(value);
}

constexpr int64_t kMaxParallel = limits::kMaxParallelSize;

// clang-format off
const StrategyKey kKeys[] = {
    {K::tensor_model_parallel_size, "tensor_model_parallel_size", KeyType::integer,
     false, true, {}, 1, kMaxParallel, false,
     MegatronFlag::value, "--tensor-model-parallel-size",
     "Tensor parallel size: each layer's weights split over this many GPUs.",
     get_field<&Strategy::tensor_model_parallel_size>,
     set_field<&Strategy::tensor_model_parallel_size>},
    {K::pipeline_model_parallel_size, "pipeline_model_parallel_size", KeyType::integer,
     false, false, {}, 1, 0, true,
     MegatronFlag::value, "--pipeline-model-parallel-size",
     "Pipeline parallel size: the layers split into this many stages.",
     get_field<&Strategy::pipeline_model_parallel_size>,
     set_field<&Strategy::pipeline_model_parallel_size>},
    {K::virtual_pipeline_model_parallel_size, "virtual_pipeline_model_parallel_size",
     KeyType::integer, false, false, {}, 1, 0, true,
     MegatronFlag::composite, "",
     "Model chunks per pipeline stage (interleaved 1F1B schedule).",
     get_field<&Strategy::virtual_pipeline_model_parallel_size>,
     set_field<&Strategy::virtual_pipeline_model_parallel_size>},
    {K::context_parallel_size, "context_parallel_size", KeyType::integer,
     false, true, {}, 1, kMaxParallel, false,
     MegatronFlag::value_unless_default, "--context-parallel-size",
     "Context parallel size: each sequence split over this many GPUs (ring attention).",
     get_field<&Strategy::context_parallel_size>, set_field<&Strategy::context_parallel_size>},
    {K::cp_comm_type, "cp_comm_type", KeyType::choice,
     false, true, kCpCommTypes, 0, 2, false,
     MegatronFlag::value_unless_default, "--cp-comm-type",
     "Context-parallel attention: p2p (K and V around a ring, under the attention), a2a (heads "
     "scattered by all-to-all, as DeepSpeed Ulysses) or allgather (K and V gathered first).",
     get_field<&Strategy::cp_comm_type>, set_field<&Strategy::cp_comm_type>},
    {K::expert_model_parallel_size, "expert_model_parallel_size", KeyType::integer,
     false, true, {}, 1, kMaxParallel, false,
     MegatronFlag::value_unless_default, "--expert-model-parallel-size",
     "Expert parallel size: a MoE layer's experts split over this many GPUs.",
     get_field<&Strategy::expert_model_parallel_size>,
     set_field<&Strategy::expert_model_parallel_size>},
    {K::expert_tensor_parallel_size, "expert_tensor_parallel_size", KeyType::integer,
     false, true, {}, 0, kMaxParallel, false,
     MegatronFlag::value_unless_default, "--expert-tensor-parallel-size",
     "Tensor parallel size of the experts; 0 (Megatron-LM's default) takes tensor_model_parallel_size.",
     get_field<&Strategy::expert_tensor_parallel_size>,
     set_field<&Strategy::expert_tensor_parallel_size>},
    {K::moe_token_dispatcher_type, "moe_token_dispatcher_type", KeyType::choice,
     false, true, kDispatchers, 0, 2, false,
     MegatronFlag::composite, "--moe-token-dispatcher-type",
     "How tokens reach their experts: allgather (over tensor x expert parallel), alltoall (over "
     "expert parallel) or flex (fused, node-aware all-to-all: DeepEP/HybridEP). Left out: "
     "alltoall with expert parallelism, else allgather.",
     get_field<&Strategy::moe_token_dispatcher_type>,
     set_field<&Strategy::moe_token_dispatcher_type>},
    {K::moe_flex_dispatcher_backend, "moe_flex_dispatcher_backend", KeyType::choice,
     false, true, kFlexBackends, 0, 1, false,
     MegatronFlag::value_unless_default, "--moe-flex-dispatcher-backend",
     "The flex dispatcher's kernels: deepep (DeepEP's normal kernels, Megatron-LM's default) or "
     "hybridep (NVIDIA's HybridEP: gathers the routing map over the expert group, fewer SMs, "
     "multi-node NVLink). Acts with moe_token_dispatcher_type flex.",
     get_field<&Strategy::moe_flex_dispatcher_backend>,
     set_field<&Strategy::moe_flex_dispatcher_backend>},
    {K::moe_grouped_gemm, "moe_grouped_gemm", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--moe-grouped-gemm",
     "Run a GPU's local experts as one grouped GEMM (TEGroupedMLP) instead of one GEMM each. "
     "Left out: on for a MoE model where the framework has it.",
     get_field<&Strategy::moe_grouped_gemm>, set_field<&Strategy::moe_grouped_gemm>},
    {K::moe_permute_fusion, "moe_permute_fusion", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--moe-permute-fusion",
     "Fused token permutation and unpermutation kernels (Transformer Engine). Left out: on for a "
     "MoE model where the framework has it.",
     get_field<&Strategy::moe_permute_fusion>, set_field<&Strategy::moe_permute_fusion>},
    {K::moe_router_fusion, "moe_router_fusion", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--moe-router-fusion",
     "Fused top-k routing and auxiliary-loss kernels (Transformer Engine 2.7 and later). Left "
     "out: off (Megatron-LM's default); the search turns it on for a MoE model where the "
     "framework has it.",
     get_field<&Strategy::moe_router_fusion>, set_field<&Strategy::moe_router_fusion>},
    {K::moe_shared_expert_overlap, "moe_shared_expert_overlap", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--moe-shared-expert-overlap",
     "Run the shared experts on a side stream, overlapped with the token dispatch.",
     get_field<&Strategy::moe_shared_expert_overlap>,
     set_field<&Strategy::moe_shared_expert_overlap>},
    {K::overlap_moe_expert_parallel_comm, "overlap_moe_expert_parallel_comm", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--overlap-moe-expert-parallel-comm",
     "Hide the expert-parallel all-to-all behind another micro-batch's compute (1F1B overlap).",
     get_field<&Strategy::overlap_moe_expert_parallel_comm>,
     set_field<&Strategy::overlap_moe_expert_parallel_comm>},
    {K::delay_wgrad_compute, "delay_wgrad_compute", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--delay-wgrad-compute",
     "With overlap_moe_expert_parallel_comm: compute the experts' weight gradients after the "
     "dispatch's backward is issued, so that it waits only for the input gradients. Left out: off "
     "(Megatron-LM's default); Megatron-Bridge's performance scripts set it with the overlap.",
     get_field<&Strategy::delay_wgrad_compute>, set_field<&Strategy::delay_wgrad_compute>},
    {K::moe_router_force_load_balancing, "moe_router_force_load_balancing", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--moe-router-force-load-balancing",
     "Route tokens evenly over the experts (a benchmarking setting): no load imbalance.",
     get_field<&Strategy::moe_router_force_load_balancing>,
     set_field<&Strategy::moe_router_force_load_balancing>},
    {K::moe_expert_capacity_factor, "moe_expert_capacity_factor", KeyType::fraction,
     false, true, {}, 0, kMaxCapacityFactor * kFractionScale, false,
     MegatronFlag::value_unless_default, "--moe-expert-capacity-factor",
     "Token dropping: each expert takes at most this many times its balanced share of the "
     "tokens (0 or left out: dropless).",
     get_fraction<&Strategy::moe_expert_capacity_factor>,
     set_fraction<&Strategy::moe_expert_capacity_factor>},
    {K::moe_pad_expert_input_to_capacity, "moe_pad_expert_input_to_capacity", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--moe-pad-expert-input-to-capacity",
     "Pad every expert's input to its capacity (needs moe_expert_capacity_factor): static shapes, "
     "no host sync in the all-to-all dispatcher.",
     get_field<&Strategy::moe_pad_expert_input_to_capacity>,
     set_field<&Strategy::moe_pad_expert_input_to_capacity>},
    {K::micro_batch_size, "micro_batch_size", KeyType::integer,
     false, true, {}, 1, limits::kMaxGlobalBatchSize, false,
     MegatronFlag::value, "--micro-batch-size",
     "Sequences per micro-batch.",
     get_field<&Strategy::micro_batch_size>, set_field<&Strategy::micro_batch_size>},
    {K::sequence_parallel, "sequence_parallel", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::composite, "--sequence-parallel",
     "Sequence parallelism: norms and dropout split over the tensor-parallel GPUs.",
     get_field<&Strategy::sequence_parallel>, set_field<&Strategy::sequence_parallel>},
    {K::recompute_granularity, "recompute_granularity", KeyType::choice,
     true, false, kGranularities, 0, 2, false,
     MegatronFlag::composite, "--recompute-granularity",
     "Activation recompute: none, selective (core attention) or full (whole layers).",
     get_recompute<&Recompute::granularity>, set_recompute<&Recompute::granularity>},
    {K::recompute_method, "recompute_method", KeyType::choice,
     true, false, kMethods, 0, 1, false,
     MegatronFlag::composite, "--recompute-method",
     "Full recompute of groups of layers (uniform) or of the first layers of each chunk (block).",
     get_recompute<&Recompute::method>, set_recompute<&Recompute::method>},
    {K::recompute_num_layers, "recompute_num_layers", KeyType::integer,
     true, false, {}, 1, 0, true,
     MegatronFlag::composite, "--recompute-num-layers",
     "Layers per recomputed group (uniform) or recomputed per chunk (block).",
     get_recompute<&Recompute::num_layers>, set_recompute<&Recompute::num_layers>},
    {K::recompute_modules, "recompute_modules", KeyType::choice_set,
     true, false, kRecomputeModules, 0, (1 << kNumRecomputeModules) - 1, false,
     MegatronFlag::composite, "--recompute-modules",
     "What selective recompute runs again: core_attn (core attention), moe_act (the experts' "
     "activation function), layernorm (the norms outside a fused norm-linear: before MoE layers "
     "and MLA), mla_up_proj (MLA's up-projections), mlp (dense MLPs), moe (whole MoE layers), "
     "shared_experts.",
     get_recompute<&Recompute::modules>, set_recompute<&Recompute::modules>},
    {K::zero_stage, "zero_stage", KeyType::integer,
     false, false, {}, 0, 3, false,
     MegatronFlag::composite, "",
     "0: replicated; 1: distributed optimizer; 2 and 3: Megatron-FSDP sharding gradients, "
     "then parameters.",
     get_field<&Strategy::zero_stage>, set_field<&Strategy::zero_stage>},
    {K::use_flash_attn, "use_flash_attn", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::composite, "--attention-backend",
     "Fused (flash) attention instead of the unfused softmax path.",
     get_field<&Strategy::use_flash_attn>, set_field<&Strategy::use_flash_attn>},
    {K::attention_backend, "attention_backend", KeyType::choice,
     false, true, kAttentionBackends, 0, 2, false,
     MegatronFlag::composite, "--attention-backend",
     "The fused attention's kernels: auto (Transformer Engine's choice, cuDNN on Hopper and "
     "later), fused (cuDNN) or flash (the flash-attn package, FlashAttention-2, where the GPU "
     "preset has its curves). Acts with use_flash_attn.",
     get_field<&Strategy::attention_backend>, set_field<&Strategy::attention_backend>},
    {K::overlap_grad_reduce, "overlap_grad_reduce", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--overlap-grad-reduce",
     "Overlap the data-parallel gradient reduction with the backward pass.",
     get_field<&Strategy::overlap_grad_reduce>, set_field<&Strategy::overlap_grad_reduce>},
    {K::overlap_param_gather, "overlap_param_gather", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--overlap-param-gather",
     "Overlap the distributed optimizer's parameter all-gather with the forward pass.",
     get_field<&Strategy::overlap_param_gather>, set_field<&Strategy::overlap_param_gather>},
    {K::tp_comm_overlap, "tp_comm_overlap", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--tp-comm-overlap",
     "Overlap tensor-parallel communication with GEMMs (Transformer Engine userbuffers).",
     get_field<&Strategy::tp_comm_overlap>, set_field<&Strategy::tp_comm_overlap>},
    {K::fp8_recipe, "fp8_recipe", KeyType::choice,
     false, true, kFp8Recipes, 0, 3, false,
     MegatronFlag::composite, "--fp8-recipe",
     "fp8 scaling: delayed, tensorwise (current), mxfp8 (Blackwell) or blockwise; fp8 training only.",
     get_field<&Strategy::fp8_recipe>, set_field<&Strategy::fp8_recipe>},
    {K::fp8_dot_product_attention, "fp8_dot_product_attention", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::composite, "",
     "Run the fused attention in fp8 (Transformer Engine's fp8_dpa, cuDNN; fp8 training with "
     "the delayed recipe on Hopper, delayed, tensorwise or mxfp8 on Blackwell). Megatron-Core's "
     "fp8_dot_product_attention: Megatron-LM has no argument for it, Megatron-Bridge sets it.",
     get_field<&Strategy::fp8_dot_product_attention>,
     set_field<&Strategy::fp8_dot_product_attention>},
    {K::fp8_param_gather, "fp8_param_gather", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::composite, "--fp8-param-gather",
     "Keep the weights in fp8 only and gather them in fp8 (fp8 training with a sharded optimizer). "
     "Left out: on in fp8 training where it can run.",
     get_field<&Strategy::fp8_param_gather>, set_field<&Strategy::fp8_param_gather>},
    {K::grad_reduce_in_bf16, "grad_reduce_in_bf16", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--grad-reduce-in-bf16",
     "Accumulate and reduce gradients in bf16 instead of fp32 (bf16 and fp8 training).",
     get_field<&Strategy::grad_reduce_in_bf16>, set_field<&Strategy::grad_reduce_in_bf16>},
    {K::accumulate_allreduce_grads_in_fp32, "accumulate_allreduce_grads_in_fp32",
     KeyType::boolean, false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--accumulate-allreduce-grads-in-fp32",
     "Accumulate and reduce gradients in fp32 in fp16 training (bf16 does so by default).",
     get_field<&Strategy::accumulate_allreduce_grads_in_fp32>,
     set_field<&Strategy::accumulate_allreduce_grads_in_fp32>},
    {K::use_precision_aware_optimizer, "use_precision_aware_optimizer", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--use-precision-aware-optimizer",
     "Transformer Engine's FusedAdam with the dtypes below; fp32 masters of bf16 weights kept "
     "as 16-bit remainders (distributed optimizer).",
     get_field<&Strategy::use_precision_aware_optimizer>,
     set_field<&Strategy::use_precision_aware_optimizer>},
    {K::main_grads_dtype, "main_grads_dtype", KeyType::choice,
     false, false, kMainGradsDtypes, 0, 1, false,
     MegatronFlag::value_unless_default, "--main-grads-dtype",
     "Dtype of the main gradients (bf16: gradients accumulated and reduced in bf16).",
     get_field<&Strategy::main_grads_dtype>, set_field<&Strategy::main_grads_dtype>},
    {K::main_params_dtype, "main_params_dtype", KeyType::choice,
     false, false, kMainParamsDtypes, 0, 1, false,
     MegatronFlag::value_unless_default, "--main-params-dtype",
     "Dtype of the optimizer's master weights (precision-aware optimizer).",
     get_field<&Strategy::main_params_dtype>, set_field<&Strategy::main_params_dtype>},
    {K::exp_avg_dtype, "exp_avg_dtype", KeyType::choice,
     false, false, kMomentDtypes, 0, 3, false,
     MegatronFlag::value_unless_default, "--exp-avg-dtype",
     "Dtype of Adam's first moment (precision-aware optimizer).",
     get_field<&Strategy::exp_avg_dtype>, set_field<&Strategy::exp_avg_dtype>},
    {K::exp_avg_sq_dtype, "exp_avg_sq_dtype", KeyType::choice,
     false, false, kMomentDtypes, 0, 3, false,
     MegatronFlag::value_unless_default, "--exp-avg-sq-dtype",
     "Dtype of Adam's second moment (precision-aware optimizer).",
     get_field<&Strategy::exp_avg_sq_dtype>, set_field<&Strategy::exp_avg_sq_dtype>},
    {K::cross_entropy_loss_fusion, "cross_entropy_loss_fusion", KeyType::boolean,
     false, true, {}, 0, 1, false,
     MegatronFlag::switch_on, "--cross-entropy-loss-fusion",
     "Fused vocabulary-parallel cross-entropy: fewer passes over the logits.",
     get_field<&Strategy::cross_entropy_loss_fusion>,
     set_field<&Strategy::cross_entropy_loss_fusion>},
    {K::cross_entropy_fusion_impl, "cross_entropy_fusion_impl", KeyType::choice,
     false, true, kCrossEntropyFusionImpls, 0, 1, false,
     MegatronFlag::value_unless_default, "--cross-entropy-fusion-impl",
     "The fused loss's kernel: native (Megatron-LM's) or te (Transformer Engine's, which writes "
     "the gradient into the 16-bit logits in place: less memory and traffic).",
     get_field<&Strategy::cross_entropy_fusion_impl>,
     set_field<&Strategy::cross_entropy_fusion_impl>},
    {K::cpu_offloading_num_layers, "cpu_offloading_num_layers", KeyType::integer,
     false, false, {}, 0, 0, true,
     MegatronFlag::value_unless_default, "--cpu-offloading-num-layers",
     "Layers whose activations are offloaded to host memory in the forward pass and brought "
     "back for the backward (no pipeline parallelism or recompute).",
     get_field<&Strategy::cpu_offloading_num_layers>,
     set_field<&Strategy::cpu_offloading_num_layers>},
    {K::offload_modules, "offload_modules", KeyType::choice_set,
     false, false, kOffloadModules, 0, (1 << kNumOffloadModules) - 1, false,
     MegatronFlag::composite, "--offload-modules",
     "Fine-grained activation offloading: the submodules whose saved activations go to host "
     "memory in the forward pass and come back for the backward: attn_norm and mlp_norm (norms "
     "outside a fused norm-linear), qkv_linear, core_attn, attn_proj (with core_attn), "
     "expert_fc1, moe_act.",
     get_field<&Strategy::offload_modules>, set_field<&Strategy::offload_modules>},
    {K::optimizer_cpu_offload, "optimizer_cpu_offload", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--optimizer-cpu-offload",
     "Keep a share of the optimizer's fp32 parameters and moments in host memory and step them on "
     "the CPU (needs the precision-aware optimizer).",
     get_field<&Strategy::optimizer_cpu_offload>, set_field<&Strategy::optimizer_cpu_offload>},
    {K::optimizer_offload_fraction, "optimizer_offload_fraction", KeyType::fraction,
     false, false, {}, 0, kFractionScale, false,
     MegatronFlag::value_unless_default, "--optimizer-offload-fraction",
     "The share (0 to 1) of the optimizer's parameters offloaded when optimizer_cpu_offload is on.",
     get_fraction<&Strategy::optimizer_offload_fraction>,
     set_fraction<&Strategy::optimizer_offload_fraction>},
    {K::overlap_cpu_optimizer_d2h_h2d, "overlap_cpu_optimizer_d2h_h2d", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--overlap-cpu-optimizer-d2h-h2d",
     "Pipeline the offloaded optimizer's gradient and parameter copies with its CPU step.",
     get_field<&Strategy::overlap_cpu_optimizer_d2h_h2d>,
     set_field<&Strategy::overlap_cpu_optimizer_d2h_h2d>},
    {K::reuse_fp32_param, "reuse_fp32_param", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::composite, "--reuse-fp32-param",
     "MindSpeed's parameter-copy reuse (MindSpeed-LLM only; bf16 weights, ZeRO 0-1): the fp32 "
     "master copy shares memory with the bf16 weights, saving 2 bytes a parameter of the "
     "optimizer's shard.",
     get_field<&Strategy::reuse_fp32_param>, set_field<&Strategy::reuse_fp32_param>},
    {K::cuda_graph_impl, "cuda_graph_impl", KeyType::choice,
     false, false, kCudaGraphImpls, 0, 2, false,
     MegatronFlag::composite, "--cuda-graph-impl",
     "CUDA graphs: none, local (Megatron's CudaGraphManager) or transformer_engine (Transformer "
     "Engine's make_graphed_callables). They take away the host's time to issue what they "
     "capture; their static buffers are priced in memory.",
     get_field<&Strategy::cuda_graph_impl>, set_field<&Strategy::cuda_graph_impl>},
    {K::cuda_graph_scope, "cuda_graph_scope", KeyType::choice_set,
     false, false, kCudaGraphScopes, 0, (1 << kNumCudaGraphScopes) - 1, false,
     MegatronFlag::composite, "--cuda-graph-modules",
     "What the CUDA graphs capture: attn, mlp (dense layers), moe, moe_router, moe_preprocess "
     "(with moe_router), or full_iteration (the local implementation's whole forward-backward); "
     "none: whole layers.",
     get_field<&Strategy::cuda_graph_scope>, set_field<&Strategy::cuda_graph_scope>},
    {K::expandable_segments, "expandable_segments", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::composite, "",
     "PyTorch's caching allocator with expandable segments "
     "(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; PYTORCH_NPU_ALLOC_CONF on Ascend): one "
     "growing segment per stream instead of fixed segments whose free pieces stay stranded. "
     "Decides the memory verdict's default margin. Left out: the framework launcher's default "
     "(on for torchtitan, off for the others).",
     get_field<&Strategy::expandable_segments>, set_field<&Strategy::expandable_segments>},
    {K::graph_capture_record_stream_reuse, "graph_capture_record_stream_reuse", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::composite, "",
     "PyTorch's caching allocator reusing, during a CUDA graph capture, blocks freed after another "
     "stream's use (PYTORCH_CUDA_ALLOC_CONF=graph_capture_record_stream_reuse:True; "
     "Megatron-Bridge's full-iteration graph recipes set it). Without it a full-iteration graph "
     "with the A2A overlap keeps every MoE layer's freed rows reserved until the capture ends. "
     "Left out: off (PyTorch's default).",
     get_field<&Strategy::graph_capture_record_stream_reuse>,
     set_field<&Strategy::graph_capture_record_stream_reuse>},
    {K::defer_embedding_wgrad_compute, "defer_embedding_wgrad_compute", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::switch_on, "--defer-embedding-wgrad-compute",
     "Defer the output layer's weight-gradient GEMMs to the pipeline flush (needs pipeline "
     "parallelism): the last stage keeps each deferred micro-batch's 16-bit logits gradient and "
     "the layer's input until then. Left out: off (Megatron-LM's default); Megatron-Bridge's "
     "Llama 3 SFT performance configs set it with wgrad_deferral_limit 22.",
     get_field<&Strategy::defer_embedding_wgrad_compute>,
     set_field<&Strategy::defer_embedding_wgrad_compute>},
    {K::wgrad_deferral_limit, "wgrad_deferral_limit", KeyType::integer,
     false, false, {}, 0, limits::kMaxGlobalBatchSize, false,
     MegatronFlag::value_unless_default, "--wgrad-deferral-limit",
     "With defer_embedding_wgrad_compute: how many micro-batches' output-layer weight gradients "
     "are deferred to the flush (0 or left out: all of them, Megatron-LM's default).",
     get_field<&Strategy::wgrad_deferral_limit>, set_field<&Strategy::wgrad_deferral_limit>},
    {K::deallocate_pipeline_outputs, "deallocate_pipeline_outputs", KeyType::boolean,
     false, false, {}, 0, 1, false,
     MegatronFlag::composite, "",
     "Free each stage's output once it is sent to the next stage (Megatron-Core's "
     "deallocate_pipeline_outputs). Off: every in-flight micro-batch's stage output is kept "
     "whole, as Megatron-LM's schedules did before 2022. Left out: on (Megatron-LM's training "
     "and Megatron-Bridge set it; Megatron-LM has no argument for it).",
     get_field<&Strategy::deallocate_pipeline_outputs>,
     set_field<&Strategy::deallocate_pipeline_outputs>},
    {K::pipeline_stage_gpus, "pipeline_stage_gpus", KeyType::gpu_list,
     false, false, {}, 0, 0, false,
     MegatronFlag::composite, "",
     "GPU type of each pipeline stage (mixed clusters).", nullptr, nullptr},
    {K::pipeline_stage_layers, "pipeline_stage_layers", KeyType::integer_list,
     false, false, {}, 1, 0, true,
     MegatronFlag::composite, "",
     "Transformer layers of each pipeline stage, summing to num_layers.", nullptr, nullptr},
};
// clang-format on

static_assert(std::size(kKeys) == kNumStrategyKeys, "one row per StrategyKeyId");

}  // namespace

std::string_view to_string(RecomputeGranularity granularity) {
  return kGranularities[static_cast<size_t>(granularity)];
}

std::string_view to_string(RecomputeMethod method) { return kMethods[static_cast<size_t>(method)]; }

std::vector<std::string_view> choice_set_names(const StrategyKey& key, int64_t bits) {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < key.choices.size(); ++i) {
    if ((bits >> i & 1) != 0) names.push_back(key.choices[i]);
  }
  return names;
}

std::string_view to_string(AttentionBackend backend) {
  return kAttentionBackends[static_cast<size_t>(backend)];
}

std::string_view to_string(Fp8Recipe recipe) { return kFp8Recipes[static_cast<size_t>(recipe)]; }

std::string_view to_string(MainGradsDtype dtype) {
  return kMainGradsDtypes[static_cast<size_t>(dtype)];
}

std::string_view to_string(MainParamsDtype dtype) {
  return kMainParamsDtypes[static_cast<size_t>(dtype)];
}

std::string_view to_string(MomentDtype dtype) { return kMomentDtypes[static_cast<size_t>(dtype)]; }

std::string_view to_string(CrossEntropyFusionImpl impl) {
  return kCrossEntropyFusionImpls[static_cast<size_t>(impl)];
}

std::string_view to_string(MoeDispatcher dispatcher) {
  return kDispatchers[static_cast<size_t>(dispatcher)];
}

std::string_view to_string(MoeFlexBackend backend) {
  return kFlexBackends[static_cast<size_t>(backend)];
}

std::span<const StrategyKey> strategy_keys() { return kKeys; }

const StrategyKey& strategy_key(StrategyKeyId id) { return kKeys[static_cast<size_t>(id)]; }

StrategyPins::StrategyPins(size_t gpu_types)
    : gpu_types_(std::max<size_t>(1, gpu_types)), values_(kNumStrategyKeys * gpu_types_) {}

std::optional<int64_t> StrategyPins::get(StrategyKeyId key, size_t pool) const {
  return values_[static_cast<size_t>(key) * gpu_types_ + pool];
}

std::optional<bool> StrategyPins::flag(StrategyKeyId key) const {
  const std::optional<int64_t> value = get(key);
  if (!value) return std::nullopt;
  return *value != 0;
}

void StrategyPins::set(StrategyKeyId key, size_t pool, int64_t value) {
  values_[static_cast<size_t>(key) * gpu_types_ + pool] = value;
}

bool StrategyPins::given(StrategyKeyId key) const {
  for (size_t pool = 0; pool < gpu_types_; ++pool) {
    if (get(key, pool)) return true;
  }
  return key == K::pipeline_stage_gpus     ? pipeline_stage_gpus.has_value()
         : key == K::pipeline_stage_layers ? pipeline_stage_layers.has_value()
                                           : false;
}

void apply_pins(const StrategyPins& pins, Strategy& strategy) {
  for (const StrategyKey& key : strategy_keys()) {
    if (!key.scalar()) continue;
    const size_t pools = key.per_gpu ? strategy.recompute.size() : 1;
    for (size_t pool = 0; pool < pools; ++pool) {
      if (const std::optional<int64_t> value = pins.get(key.id, pool)) {
        key.set(strategy, pool, *value);
      }
    }
  }
  if (pins.pipeline_stage_gpus) strategy.pipeline_stage_gpus = *pins.pipeline_stage_gpus;
  if (pins.pipeline_stage_layers) strategy.pipeline_stage_layers = *pins.pipeline_stage_layers;
}

}  // namespace paraplan
