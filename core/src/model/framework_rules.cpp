#include "model/framework_rules.hpp"

#include <algorithm>
#include <limits>

#include "model/kernels.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;
using C = const RuleContext&;
using S = const Strategy&;
using F = Framework;

// The GPU types the stages run on disagree on recompute.
bool recompute_differs(S s) {
  if (s.pipeline_stage_gpus.empty()) return false;
  const Recompute& first = s.recompute[static_cast<size_t>(s.pipeline_stage_gpus.front())];
  return std::any_of(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(),
                     [&](int pool) { return !(s.recompute[static_cast<size_t>(pool)] == first); });
}
bool fp8(C c) { return c.training.precision == Precision::fp8; }
bool sequence_parallel_on(S s) { return s.sequence_parallel && s.tensor_model_parallel_size > 1; }
// The stages hold equal layer counts (Megatron-LM's even split where the strategy gives none).
bool even_layers(C c, S s) {
  const std::vector<int64_t> layers =
      s.pipeline_stage_layers.empty()
          ? standard_split(c.model.num_layers, s.pipeline_model_parallel_size,
                           s.virtual_pipeline_model_parallel_size)
          : s.pipeline_stage_layers;
  return !layers.empty() &&
         std::all_of(layers.begin(), layers.end(), [&](int64_t l) { return l == layers.front(); });
}
bool micro_batches_per_stage_multiple(C c, S s) {
  const int64_t m = num_micro_batches(c, s);
  return m == 0 || m % s.pipeline_model_parallel_size == 0;
}
// Megatron-LM features a framework has no switch for: false when `s` turns any on.
bool no_megatron_moe_extras(S s) {
  return !s.moe_grouped_gemm && !s.moe_permute_fusion && !s.moe_router_fusion &&
         !s.moe_shared_expert_overlap && !s.overlap_moe_expert_parallel_comm &&
         !s.moe_router_force_load_balancing && s.moe_expert_capacity_factor <= 0 &&
         !s.moe_pad_expert_input_to_capacity;
}
bool default_optimizer_dtypes(S s) {
  const Strategy d;
  return !s.use_precision_aware_optimizer && s.main_grads_dtype == d.main_grads_dtype &&
         s.main_params_dtype == d.main_params_dtype && s.exp_avg_dtype == d.exp_avg_dtype &&
         s.exp_avg_sq_dtype == d.exp_avg_sq_dtype;
}
// No CUDA graphs (cuda_graph_impl none and no scope).
bool no_cuda_graphs(C, S s) {
  return s.cuda_graph_impl == CudaGraphImpl::none && s.cuda_graph_scope == 0;
}
// Megatron-LM's own fused loss, not Transformer Engine's kernel.
bool native_loss_kernel(C, S s) {
  return s.cross_entropy_fusion_impl == CrossEntropyFusionImpl::native;
}
bool only_core_attn(S s) {
  return std::all_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
    return r.granularity != RecomputeGranularity::selective || r.modules == Recompute{}.modules;
  });
}

// torchtitan v0.2.2's families (framework_rules.hpp TorchtitanFamily), from their args.py and
// model.py at 73a0e6979dd1. Every family is SwiGLU, RMSNorm, rotary positions.
bool swiglu_rope(const ModelSpec& m) {
  return m.activation == Activation::swiglu && m.position_embedding_type == PositionEmbedding::rope;
}
// llama3 TransformerModelArgs: no head_dim (dim / n_heads), no biases, untied output, dense.
bool llama3_shaped(const ModelSpec& m) {
  return !m.add_bias_linear && m.untie_embeddings_and_output_weights &&
         (m.kv_channels == 0 || m.kv_channels * m.num_attention_heads == m.hidden_size) && !m.moe &&
         !m.mla && m.window_size == 0;
}
// qwen3 Qwen3ModelArgs: head_dim, enable_weight_tying, moe_enabled in every layer or none
// (model.py TransformerBlock), MoEArgs with num_shared_experts; no biases, full attention.
bool qwen3_shaped(const ModelSpec& m) {
  return !m.add_bias_linear && !m.mla && m.window_size == 0 &&
         (!m.moe || m.moe->first_k_dense_layers == 0);
}
// deepseek_v3 DeepSeekV3ModelArgs: MLA in every layer, n_dense_layers dense layers of inter_dim
// first (model.py: moe_enabled = layer_id >= n_dense_layers), MoE of moe_inter_dim with shared
// experts after; no biases, untied, full attention.
bool deepseek_v3_shaped(const ModelSpec& m) {
  return m.mla && m.moe && !m.add_bias_linear && m.untie_embeddings_and_output_weights &&
         m.window_size == 0;
}
// gpt_oss GptOssModelArgs: MoE in every layer without shared experts (the 20b and 120b flavors),
// biases (model.py: bias=True), sliding_window_size keys (the query included,
// models/attention.py get_sliding_window_mask_mod) on layers with layer_id % 2 == 0 and full
// attention on the others: Megatron-LM's window_size = sliding_window_size - 1 with
// window_attn_skip_freq 2; untied.
bool gpt_oss_shaped(const ModelSpec& m) {
  return m.moe && m.moe->first_k_dense_layers == 0 && m.moe->num_shared_experts == 0 && !m.mla &&
         m.untie_embeddings_and_output_weights && m.window_size > 0 && m.window_attn_skip_freq == 2;
}
// One of the torchtitan "model.*" rules below names what no family holds.
bool names_a_field(const ModelSpec& m) {
  return !swiglu_rope(m) || m.add_bias_linear || m.window_size > 0 || m.mla ||
         (m.moe && m.moe->first_k_dense_layers > 0);
}
bool torchtitan_gpt_oss(C c) { return torchtitan_family(c.model) == TorchtitanFamily::gpt_oss; }
// A model torchtitan cannot train breaks the rule of each field no family holds.
bool torchtitan_model_or(C c, bool field_expressible) {
  return field_expressible || torchtitan_family(c.model) != TorchtitanFamily::none;
}

const KeySet kRecompute{K::recompute_granularity, K::recompute_method, K::recompute_num_layers,
                        K::recompute_modules};
const KeySet kMoeExtras{K::moe_grouped_gemm,
                        K::moe_permute_fusion,
                        K::moe_router_fusion,
                        K::moe_shared_expert_overlap,
                        K::overlap_moe_expert_parallel_comm,
                        K::moe_router_force_load_balancing,
                        K::moe_expert_capacity_factor,
                        K::moe_pad_expert_input_to_capacity};
const KeySet kOptimizerDtypes{K::use_precision_aware_optimizer, K::main_grads_dtype,
                              K::main_params_dtype, K::exp_avg_dtype, K::exp_avg_sq_dtype};

// clang-format off
const FrameworkRule kRules[] = {
    // --- Megatron-LM d98e8a64dd.
    {F::megatron, "cross_entropy_fusion_impl",
     "megatron/training/arguments.py asserts against Transformer Engine's loss fusion (\"disabled "
     "due to stability issues\"); Megatron-Bridge's configs still set it",
     {K::cross_entropy_fusion_impl},
     native_loss_kernel},
    {F::megatron, "reuse_fp32_param",
     "Megatron-LM has no --reuse-fp32-param: parameter-copy reuse is MindSpeed's "
     "(mindspeed/features_manager/memory/reuse_fp32_param.py)",
     {K::reuse_fp32_param}, [](C, S s) { return !s.reuse_fp32_param; }},

    // --- Megatron-Bridge: Megatron-Core's optimizers through its config containers.
    {F::megatron_bridge, "reuse_fp32_param",
     "Megatron-Core's OptimizerConfig, which Megatron-Bridge configures, has no "
     "parameter-copy reuse: it is MindSpeed's --reuse-fp32-param",
     {K::reuse_fp32_param}, [](C, S s) { return !s.reuse_fp32_param; }},

    // --- MindSpeed-LLM: Megatron-LM core_v0.12.1 (a845aa7e12b3) with MindSpeed's features.
    {F::mindspeed_llm, "zero_stage",
     "ZeRO-2/3 needs --use-custom-fsdp, which MindSpeed-LLM's feature list does not register, "
     "or torch FSDP2 (PP 1, EP 1) (launch-targets.md section 3)",
     {K::zero_stage}, [](C, S s) { return s.zero_stage <= 1; }},
    {F::mindspeed_llm, "tp_comm_overlap",
     "CUDA userbuffers (--tp-comm-overlap) do not apply on Ascend; MindSpeed's mc2/coc are other "
     "kernels (launch-targets.md section 3)",
     {K::tp_comm_overlap}, [](C, S s) { return !s.tp_comm_overlap; }},
    {F::mindspeed_llm, "overlap_moe_expert_parallel_comm",
     "--overlap-moe-expert-parallel-comm is not in Megatron-LM core_v0.12.1's arguments.py",
     {K::overlap_moe_expert_parallel_comm}, [](C, S s) { return !s.overlap_moe_expert_parallel_comm; }},
    {F::mindspeed_llm, "moe_router_force_load_balancing",
     "--moe-router-force-load-balancing is not in Megatron-LM core_v0.12.1's arguments.py",
     {K::moe_router_force_load_balancing}, [](C, S s) { return !s.moe_router_force_load_balancing; }},
    {F::mindspeed_llm, "recompute_modules",
     "Megatron-LM core_v0.12.1's transformer_config.py allows core_attn, moe_act, layernorm, "
     "mla_up_proj, mlp and moe; shared_experts came later",
     kRecompute, [](C, S s) {
       return std::none_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
         return r.granularity == RecomputeGranularity::selective &&
                r.recomputes(RecomputeModule::shared_experts);
       });
     }},
    {F::mindspeed_llm, "cpu_offloading_num_layers",
     "Megatron-LM core_v0.12.1's arguments.py has no --cpu-offloading-num-layers",
     {K::cpu_offloading_num_layers}, [](C, S s) { return s.cpu_offloading_num_layers == 0; }},
    {F::mindspeed_llm, "offload_modules",
     "Megatron-LM core_v0.12.1's arguments.py has no --fine-grained-activation-offloading; "
     "MindSpeed's --swap-attention offloads attn_norm, qkv_linear, core_attn, attn_proj and "
     "mlp_norm together (docs/features/swap_attention.md)",
     {K::offload_modules}, [](C, S s) {
       return s.offload_modules == 0 || s.offload_modules == kMindSpeedSwapAttentionModules;
     }},
    {F::mindspeed_llm, "cuda_graph_impl",
     "CUDA graphs are CUDA-only; MindSpeed-LLM runs on Ascend NPUs (its feature list registers no "
     "graph capture)",
     {K::cuda_graph_impl, K::cuda_graph_scope}, no_cuda_graphs},

    {F::mindspeed_llm, "cross_entropy_fusion_impl",
     "Transformer Engine's Triton loss kernel is CUDA-only; MindSpeed-LLM runs on Ascend",
     {K::cross_entropy_fusion_impl},
     native_loss_kernel},
    {F::mindspeed_llm, "moe_shared_expert_overlap",
     "Megatron-LM core_v0.12.1's transformer_config.py: \"moe_shared_expert_overlap only works "
     "with alltoall token dispatcher\" (flex, DeepEP, is CUDA-only besides)",
     {K::moe_shared_expert_overlap, K::moe_token_dispatcher_type},
     [](C c, S s) {
       return !c.model.moe || !s.moe_shared_expert_overlap ||
              s.moe_token_dispatcher_type == MoeDispatcher::alltoall;
     }},
    {F::mindspeed_llm, "moe_permute_fusion",
     "MindSpeed's fused_moe_permute feature asserts \"Only alltoall and alltoall_seq dispatcher "
     "supports --moe-permute-fusion\" (mindspeed/features_manager/fusions/fused_moe_permute.py)",
     {K::moe_permute_fusion, K::moe_token_dispatcher_type},
     [](C c, S s) {
       return !c.model.moe || !s.moe_permute_fusion ||
              s.moe_token_dispatcher_type == MoeDispatcher::alltoall;
     }},
    {F::mindspeed_llm, "moe_router_fusion",
     "Megatron-LM core_v0.12.1, which MindSpeed-LLM patches, has no moe_router_fusion (added to "
     "transformer_config.py by c08d89bea0, first released in core_v0.14.0)",
     {K::moe_router_fusion}, [](C, S s) { return !s.moe_router_fusion; }},
    {F::mindspeed_llm, "fp8_param_gather",
     "Megatron-LM core_v0.12.1's transformer_config.py: \"MXFP8 currently does not support "
     "fp8_param\"",
     {K::fp8_param_gather, K::fp8_recipe},
     [](C c, S s) { return !fp8(c) || !s.fp8_param_gather || s.fp8_recipe != Fp8Recipe::mxfp8; }},
    {F::mindspeed_llm, "fp8_recipe",
     "Megatron-LM core_v0.12.1's arguments.py: --fp8-recipe chooses delayed, tensorwise or "
     "mxfp8; no blockwise",
     {K::fp8_recipe}, [](C c, S s) { return !fp8(c) || s.fp8_recipe != Fp8Recipe::blockwise; }},
    {F::mindspeed_llm, "exp_avg_dtype",
     "Megatron-LM core_v0.12.1's arguments.py: --exp-avg-dtype and --exp-avg-sq-dtype choose "
     "fp32, fp16 or fp8; no bf16",
     {K::exp_avg_dtype, K::exp_avg_sq_dtype}, [](C, S s) {
       return s.exp_avg_dtype != MomentDtype::bf16 && s.exp_avg_sq_dtype != MomentDtype::bf16;
     }},
    {F::mindspeed_llm, "model.window_size",
     "Megatron-LM core_v0.12.1's arguments.py has no --window-size (sliding-window attention)",
     {}, [](C c, S) { return c.model.window_size == 0; }},

    // --- DeepSpeed: Megatron-DeepSpeed 4efb479d5317 with a ds_config for DeepSpeed 0.19.6.
    {F::deepspeed, "virtual_pipeline_model_parallel_size",
     "DeepSpeed's pipe engine (PipelineModule) has no interleaved schedule",
     {K::virtual_pipeline_model_parallel_size},
     [](C, S s) { return s.virtual_pipeline_model_parallel_size == 1; }},
    {F::deepspeed, "pipeline_stage_layers",
     "Megatron-DeepSpeed fixes partition_method to type:transformer, an even split "
     "(megatron/model/gpt_model.py)",
     {K::pipeline_model_parallel_size, K::virtual_pipeline_model_parallel_size,
      K::pipeline_stage_layers},
     [](C c, S s) { return even_layers(c, s); }},
    {F::deepspeed, "cp_comm_type",
     "no ring or all-gather context parallelism; only Ulysses (--ds-sequence-parallel-size)",
     {K::context_parallel_size, K::cp_comm_type},
     [](C, S s) { return s.context_parallel_size == 1 || s.cp_comm_type == CpCommType::a2a; }},
    {F::deepspeed, "context_parallel_size",
     "Ulysses sequence parallelism is incompatible with tensor and pipeline parallelism and "
     "with --sequence-parallel (examples_deepspeed/sequence_parallel/README.md, "
     "megatron/initialize.py)",
     {K::context_parallel_size, K::tensor_model_parallel_size, K::pipeline_model_parallel_size},
     [](C, S s) {
       return s.context_parallel_size == 1 ||
              (s.tensor_model_parallel_size == 1 && s.pipeline_model_parallel_size == 1);
     }},
    {F::deepspeed, "expert_tensor_parallel_size",
     "--enable-expert-tensor-parallelism is a switch: experts use the tensor-parallel size or 1",
     {K::tensor_model_parallel_size, K::expert_tensor_parallel_size},
     [](C, S s) {
       return s.expert_tensor_parallel() == 1 ||
              s.expert_tensor_parallel() == s.tensor_model_parallel_size;
     }},
    {F::deepspeed, "zero_stage",
     "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism (deepspeed/runtime/pipe/engine.py)",
     {K::zero_stage, K::pipeline_model_parallel_size},
     [](C, S s) { return s.zero_stage <= 1 || s.pipeline_model_parallel_size == 1; }},
    {F::deepspeed, "overlap_param_gather",
     "only ZeRO-3 prefetches parameters; ZeRO-1/2 have no parameter-gather overlap "
     "(docs/_pages/config-json.md)",
     {K::overlap_param_gather, K::zero_stage},
     [](C, S s) { return !s.overlap_param_gather || s.zero_stage == 3; }},
    {F::deepspeed, "tp_comm_overlap", "Megatron-DeepSpeed has no tensor-parallel comm overlap",
     {K::tp_comm_overlap}, [](C, S s) { return !s.tp_comm_overlap; }},
    {F::deepspeed, "fp8_recipe",
     "Megatron-DeepSpeed's --fp8-e4m3/--fp8-hybrid use delayed scaling only",
     {K::fp8_recipe}, [](C c, S s) { return !fp8(c) || s.fp8_recipe == Fp8Recipe::delayed; }},
    {F::deepspeed, "recompute_granularity",
     "selective recompute checkpoints core attention only on the non-flash path "
     "(megatron/model/transformer.py): a no-op with flash attention",
     kRecompute | KeySet{K::use_flash_attn},
     [](C, S s) { return !s.use_flash_attn || !s.any_recompute(RecomputeGranularity::selective); }},
    {F::deepspeed, "recompute_method",
     "DeepSpeed's pipeline does not support the block recompute method (megatron/training.py)",
     kRecompute | KeySet{K::pipeline_model_parallel_size},
     [](C, S s) {
       return s.pipeline_model_parallel_size == 1 ||
              std::none_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
                return r.granularity == RecomputeGranularity::full &&
                       r.method == RecomputeMethod::block;
              });
     }},
    {F::deepspeed, "recompute_modules", "Megatron-DeepSpeed has no --recompute-modules",
     kRecompute, [](C, S s) { return only_core_attn(s); }},
    {F::deepspeed, "recompute_granularity",
     "one ds_config and one argument list hold one recompute setting for all GPU types",
     kRecompute, [](C, S s) { return !recompute_differs(s); }},
    {F::deepspeed, "moe_grouped_gemm",
     "Megatron-DeepSpeed's MoE (deepspeed.moe) has none of Megatron-Core's MoE switches "
     "(grouped GEMM, permute fusion, shared-expert overlap, EP comm overlap, forced balancing)",
     kMoeExtras, [](C, S s) { return no_megatron_moe_extras(s); }},
    {F::deepspeed, "moe_token_dispatcher_type",
     "deepspeed.moe dispatches tokens by all-to-all only",
     {K::moe_token_dispatcher_type, K::expert_model_parallel_size},
     [](C, S s) {
       return s.expert_model_parallel_size == 1 || s.moe_token_dispatcher_type == MoeDispatcher::alltoall;
     }},
    {F::deepspeed, "use_precision_aware_optimizer",
     "Megatron-DeepSpeed has no precision-aware optimizer or optimizer-state dtypes",
     kOptimizerDtypes, [](C, S s) { return default_optimizer_dtypes(s); }},
    {F::deepspeed, "fp8_param_gather", "Megatron-DeepSpeed has no --fp8-param-gather",
     {K::fp8_param_gather}, [](C c, S s) { return !fp8(c) || !s.fp8_param_gather; }},
    {F::deepspeed, "cpu_offloading_num_layers",
     "Megatron-DeepSpeed has no --cpu-offloading-num-layers",
     {K::cpu_offloading_num_layers}, [](C, S s) { return s.cpu_offloading_num_layers == 0; }},
    {F::deepspeed, "offload_modules", "Megatron-DeepSpeed has no --fine-grained-activation-offloading",
     {K::offload_modules}, [](C, S s) { return s.offload_modules == 0; }},
    {F::deepspeed, "reuse_fp32_param",
     "DeepSpeed's optimizers keep their own fp32 master copy; parameter-copy reuse is MindSpeed's "
     "--reuse-fp32-param",
     {K::reuse_fp32_param}, [](C, S s) { return !s.reuse_fp32_param; }},
    {F::deepspeed, "cuda_graph_impl",
     "Megatron-DeepSpeed has no --cuda-graph-impl",
     {K::cuda_graph_impl, K::cuda_graph_scope}, no_cuda_graphs},
    {F::deepspeed, "cross_entropy_loss_fusion", "Megatron-DeepSpeed has no --cross-entropy-loss-fusion",
     {K::cross_entropy_loss_fusion}, [](C, S s) { return !s.cross_entropy_loss_fusion; }},
    {F::deepspeed, "model", "Megatron-DeepSpeed has no multi-latent attention",
     {}, [](C c, S) { return !c.model.mla.has_value(); }},
    {F::deepspeed, "zero_stage",
     "deepspeed.initialize refuses Megatron-DeepSpeed's native MoE layers under ZeRO-3: \"Native "
     "DeepSpeed MoE is not supported with ZeRO Stage 3\" (runtime/engine.py "
     "_validate_zero3_moe_compatibility)",
     {K::zero_stage}, [](C c, S s) { return !c.model.moe || s.zero_stage < 3; }},
    {F::deepspeed, "model.window_size",
     "Megatron-DeepSpeed's megatron/arguments.py has no sliding-window attention option",
     {}, [](C c, S) { return c.model.window_size == 0; }},

    // --- Colossal-AI 0.5.0 (4f9953be335e): HybridParallelPlugin / MoeHybridParallelPlugin.
    {F::colossalai, "sequence_parallel",
     "TP-region sequence parallelism (split_gather) and ring/all-to-all context parallelism "
     "are one sequence_parallelism_mode, never both (shardformer/layer/linear.py)",
     {K::sequence_parallel, K::tensor_model_parallel_size, K::context_parallel_size},
     [](C, S s) { return !sequence_parallel_on(s) || s.context_parallel_size == 1; }},
    {F::colossalai, "cp_comm_type",
     "sequence_parallelism_mode has ring_attn and all_to_all, no all-gather of K and V",
     {K::context_parallel_size, K::cp_comm_type},
     [](C, S s) { return s.context_parallel_size == 1 || s.cp_comm_type != CpCommType::allgather; }},
    {F::colossalai, "expert_tensor_parallel_size",
     "MoeHybridParallelPlugin has no expert tensor-parallel size: experts are not TP-sharded",
     {K::tensor_model_parallel_size, K::expert_tensor_parallel_size},
     [](C c, S s) { return !c.model.moe || s.expert_tensor_parallel() == 1; }},
    {F::colossalai, "expert_model_parallel_size",
     "MoeHybridParallelPlugin carves expert parallelism out of data parallelism only: "
     "\"dp_size should be divisible by ep_size\" with dp_size = world / (tp_size x pp_size x "
     "sp_size) (booster/plugin/moe_hybrid_parallel_plugin.py); Megatron-LM's EP may span TP",
     {K::expert_model_parallel_size, K::tensor_model_parallel_size,
      K::pipeline_model_parallel_size, K::context_parallel_size},
     [](C c, S s) {
       const int64_t dp = data_parallel_size(c, s);
       return !c.model.moe || (dp > 0 && dp % s.expert_model_parallel_size == 0);
     }},
    {F::colossalai, "zero_stage",
     "HybridParallelPlugin has zero_stage 0-2 and at most 1 with pipeline parallelism",
     {K::zero_stage, K::pipeline_model_parallel_size},
     [](C, S s) {
       return s.zero_stage <= 1 || (s.zero_stage == 2 && s.pipeline_model_parallel_size == 1);
     }},
    {F::colossalai, "recompute_granularity",
     "no selective (core-attention) recompute: gradient checkpointing is of whole layers",
     kRecompute, [](C, S s) { return !s.any_recompute(RecomputeGranularity::selective); }},
    {F::colossalai, "recompute_method",
     "PipelineGradientCheckpointConfig checkpoints the first N layers of each stage (block) or "
     "every layer, not N-layer units",
     kRecompute, [](C, S s) {
       return std::none_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
         return r.granularity == RecomputeGranularity::full &&
                r.method == RecomputeMethod::uniform && r.num_layers != 1;
       });
     }},
    {F::colossalai, "recompute_granularity",
     "one plugin holds one gradient-checkpoint setting for all GPU types",
     kRecompute, [](C, S s) { return !recompute_differs(s); }},
    {F::colossalai, "tp_comm_overlap", "no tensor-parallel comm overlap",
     {K::tp_comm_overlap}, [](C, S s) { return !s.tp_comm_overlap; }},
    {F::colossalai, "fp8_recipe", "use_fp8 has no recipe choice",
     {K::fp8_recipe}, [](C c, S) { return !fp8(c); }},
    {F::colossalai, "pipeline_stage_layers",
     "num_layers_per_stage has one entry per pipeline rank: uneven layers cannot be interleaved "
     "(pipeline/stage_manager.py)",
     {K::pipeline_model_parallel_size, K::virtual_pipeline_model_parallel_size,
      K::pipeline_stage_layers},
     [](C c, S s) { return s.virtual_pipeline_model_parallel_size == 1 || even_layers(c, s); }},
    {F::colossalai, "micro_batch_size",
     "the interleaved schedule needs micro-batches divisible by pp_size "
     "(pipeline/schedule/interleaved_pp.py)",
     {K::micro_batch_size, K::pipeline_model_parallel_size, K::virtual_pipeline_model_parallel_size,
      K::tensor_model_parallel_size, K::context_parallel_size},
     [](C c, S s) {
       return s.virtual_pipeline_model_parallel_size == 1 || micro_batches_per_stage_multiple(c, s);
     }},
    {F::colossalai, "moe_grouped_gemm",
     "Shardformer's MoE models have none of Megatron-Core's MoE switches",
     kMoeExtras, [](C, S s) { return no_megatron_moe_extras(s); }},
    {F::colossalai, "use_precision_aware_optimizer",
     "no precision-aware optimizer or optimizer-state dtypes",
     kOptimizerDtypes, [](C, S s) { return default_optimizer_dtypes(s); }},
    {F::colossalai, "cpu_offloading_num_layers", "no activation offloading by layer",
     {K::cpu_offloading_num_layers}, [](C, S s) { return s.cpu_offloading_num_layers == 0; }},
    {F::colossalai, "offload_modules", "no activation offloading by submodule",
     {K::offload_modules}, [](C, S s) { return s.offload_modules == 0; }},
    {F::colossalai, "reuse_fp32_param",
     "the mixed-precision optimizer keeps its own fp32 master copy; parameter-copy reuse is "
     "MindSpeed's --reuse-fp32-param",
     {K::reuse_fp32_param}, [](C, S s) { return !s.reuse_fp32_param; }},
    {F::colossalai, "cuda_graph_impl", "no CUDA graph capture option in its plugins",
     {K::cuda_graph_impl, K::cuda_graph_scope}, no_cuda_graphs},
    {F::colossalai, "fp8_param_gather", "no fp8 parameter gather",
     {K::fp8_param_gather}, [](C c, S s) { return !fp8(c) || !s.fp8_param_gather; }},

    {F::deepspeed, "optimizer_cpu_offload",
     "Megatron-DeepSpeed has no --optimizer-cpu-offload (DeepSpeed's offload_optimizer moves all "
     "of ZeRO's optimizer, a different split)",
     {K::optimizer_cpu_offload}, [](C, S s) { return !s.optimizer_cpu_offload; }},
    {F::colossalai, "optimizer_cpu_offload",
     "no share of the optimizer stepped on the CPU beside the GPU (HybridDeviceOptimizer)",
     {K::optimizer_cpu_offload}, [](C, S s) { return !s.optimizer_cpu_offload; }},

    {F::colossalai, "cross_entropy_fusion_impl",
     "Colossal-AI has no switch for Transformer Engine's cross-entropy kernel",
     {K::cross_entropy_fusion_impl},
     native_loss_kernel},
    {F::colossalai, "zero_stage",
     "MoeHybridParallelPlugin turns ZeRO-2 into ZeRO-1 (\"ZeRO-2 or comm overlap cause program "
     "hang when some experts are not routed\", booster/plugin/moe_hybrid_parallel_plugin.py)",
     {K::zero_stage}, [](C c, S s) { return !c.model.moe || s.zero_stage <= 1; }},
    {F::colossalai, "overlap_grad_reduce",
     "MoeHybridParallelPlugin turns overlap_communication off (the same warning, "
     "moe_hybrid_parallel_plugin.py)",
     {K::overlap_grad_reduce}, [](C c, S s) { return !c.model.moe || !s.overlap_grad_reduce; }},
    {F::colossalai, "cp_comm_type",
     "MoeHybridParallelPlugin handles split_gather, ring and all_to_all sequence parallelism; "
     "ring_attn leaves it without dp_size (moe_hybrid_parallel_plugin.py)",
     {K::context_parallel_size, K::cp_comm_type},
     [](C c, S s) {
       return !c.model.moe || s.context_parallel_size == 1 || s.cp_comm_type == CpCommType::a2a;
     }},
    {F::colossalai, "model.activation",
     "the launch builds transformers' LlamaForCausalLM or MixtralForCausalLM (SwiGLU, RMSNorm, "
     "rotary positions): a GeLU/LayerNorm/learned-position model such as GPT-3 would train as "
     "another model",
     {}, [](C c, S) {
       return c.model.activation == Activation::swiglu &&
              c.model.position_embedding_type == PositionEmbedding::rope;
     }},
    {F::colossalai, "model.moe",
     "the launch's MixtralForCausalLM has no shared experts and no leading dense layers",
     {}, [](C c, S) {
       return !c.model.moe ||
              (c.model.moe->num_shared_experts == 0 && c.model.moe->first_k_dense_layers == 0);
     }},
    {F::colossalai, "model",
     "Shardformer 0.5.0 has a DeepSeek-V3 policy only for the remote-code class "
     "(transformers_modules.modeling_deepseek), none for transformers' DeepseekV3ForCausalLM "
     "(shardformer/policies/auto_policy.py); no other class has multi-latent attention",
     {}, [](C c, S) { return !c.model.mla.has_value(); }},
    {F::colossalai, "model.window_size",
     "the launch builds a LlamaConfig or MixtralConfig model, and "
     "Shardformer's attention runs without a window (colossalai/shardformer/layer/attn.py: "
     "window_size (-1, -1))",
     {}, [](C c, S) { return c.model.window_size == 0; }},

    // --- torchtitan v0.2.2 (73a0e6979dd1): TOML job file.
    {F::torchtitan, "cross_entropy_fusion_impl",
     "torchtitan has no switch for Transformer Engine's cross-entropy kernel",
     {K::cross_entropy_fusion_impl},
     native_loss_kernel},
    {F::torchtitan, "zero_stage",
     "no optimizer-only sharding: data parallelism is DDP (ZeRO-0) or FSDP2 (ZeRO-2/3)",
     {K::zero_stage}, [](C, S s) { return s.zero_stage != 1; }},
    {F::torchtitan, "cp_comm_type",
     "context parallelism is ring attention only; no Ulysses all-to-all of heads",
     {K::context_parallel_size, K::cp_comm_type},
     [](C, S s) { return s.context_parallel_size == 1 || s.cp_comm_type != CpCommType::a2a; }},
    {F::torchtitan, "sequence_parallel",
     "v0.2.2 always applies sequence parallelism with tensor parallelism",
     {K::sequence_parallel, K::tensor_model_parallel_size},
     [](C, S s) { return s.tensor_model_parallel_size == 1 || s.sequence_parallel; }},
    {F::torchtitan, "expert_tensor_parallel_size",
     "expert_tensor_parallel_degree is 1 or the tensor-parallel degree",
     {K::tensor_model_parallel_size, K::expert_tensor_parallel_size},
     [](C, S s) {
       return s.expert_tensor_parallel() == 1 ||
              s.expert_tensor_parallel() == s.tensor_model_parallel_size;
     }},
    {F::torchtitan, "recompute_modules",
     "selective checkpointing is per op (selective_ac_option = \"op\": every op's output but "
     "every second matmul's is kept, distributed/activation_checkpoint.py), with no modules to "
     "choose",
     kRecompute, [](C, S s) { return only_core_attn(s); }},
    {F::torchtitan, "recompute_method",
     "full recompute is of every layer or every Nth layer (selective_ac_option = N), not "
     "N-layer units or the first N layers of a stage",
     kRecompute, [](C, S s) {
       return std::none_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
         return r.granularity == RecomputeGranularity::full &&
                (r.method == RecomputeMethod::block || r.num_layers != 1);
       });
     }},
    {F::torchtitan, "recompute_granularity",
     "one job file holds one activation-checkpoint setting for all GPU types",
     kRecompute, [](C, S s) { return !recompute_differs(s); }},
    {F::torchtitan, "fp8_recipe",
     "Float8 training has the tensorwise and rowwise recipes (and MX); no delayed or blockwise "
     "scaling (components/quantization/float8.py)",
     {K::fp8_recipe}, [](C c, S s) {
       return !fp8(c) || s.fp8_recipe == Fp8Recipe::tensorwise || s.fp8_recipe == Fp8Recipe::mxfp8;
     }},
    {F::torchtitan, "fp8_param_gather",
     "enable_fsdp_float8_all_gather needs tensorwise scaling and FSDP",
     {K::fp8_param_gather, K::fp8_recipe, K::zero_stage},
     [](C c, S s) {
       return !fp8(c) || !s.fp8_param_gather ||
              (s.fp8_recipe == Fp8Recipe::tensorwise && s.zero_stage >= 2);
     }},
    {F::torchtitan, "moe_token_dispatcher_type",
     "expert parallelism dispatches tokens by all-to-all (expert_parallel_comm_backend "
     "\"standard\"), or by DeepEP (\"deepep\", Megatron-LM's flex) only in deepseek_v3 and "
     "llama4 and without expert tensor parallelism (models/deepseek_v3/infra/parallelize.py: "
     "\"DeepEP with Expert Tensor Parallelism (ETP) is not supported yet\"); qwen3's and "
     "gpt_oss's parallelize never applies DeepEP",
     {K::moe_token_dispatcher_type, K::expert_model_parallel_size, K::tensor_model_parallel_size,
      K::expert_tensor_parallel_size},
     [](C c, S s) {
       if (s.expert_model_parallel_size == 1) return true;
       if (s.moe_token_dispatcher_type == MoeDispatcher::alltoall) return true;
       return s.moe_token_dispatcher_type == MoeDispatcher::flex &&
              torchtitan_family(c.model) == TorchtitanFamily::deepseek_v3 &&
              s.expert_tensor_parallel() == 1;
     }},
    {F::torchtitan, "moe_permute_fusion",
     "none of Megatron-Core's MoE switches (permute fusion, shared-expert overlap, EP comm "
     "overlap, token dropping, router fusion); forced balancing is [debug] "
     "moe_force_load_balance",
     {K::moe_permute_fusion, K::moe_router_fusion, K::moe_shared_expert_overlap,
      K::overlap_moe_expert_parallel_comm, K::moe_expert_capacity_factor,
      K::moe_pad_expert_input_to_capacity},
     [](C, S s) {
       return !s.moe_permute_fusion && !s.moe_router_fusion && !s.moe_shared_expert_overlap &&
              !s.overlap_moe_expert_parallel_comm && s.moe_expert_capacity_factor <= 0 &&
              !s.moe_pad_expert_input_to_capacity;
     }},
    {F::torchtitan, "use_precision_aware_optimizer",
     "no precision-aware optimizer or optimizer-state dtypes",
     kOptimizerDtypes, [](C, S s) { return default_optimizer_dtypes(s); }},
    {F::torchtitan, "optimizer_cpu_offload",
     "no share of the optimizer stepped on the CPU (FSDP2 CPU offload moves all parameters)",
     {K::optimizer_cpu_offload}, [](C, S s) { return !s.optimizer_cpu_offload; }},
    {F::torchtitan, "model.activation",
     "every torchtitan v0.2.2 language model (llama3, llama4, qwen3, deepseek_v3, gpt_oss) is a "
     "SwiGLU, RMSNorm, rotary-position transformer (torchtitan/models/*/model/model.py): GeLU, "
     "LayerNorm or learned positions (GPT-3) cannot be expressed",
     {}, [](C c, S) { return torchtitan_model_or(c, swiglu_rope(c.model)); }},
    {F::torchtitan, "model.add_bias_linear",
     "only gpt_oss has linear biases (models/gpt_oss/model/model.py), and it is MoE in every "
     "layer with sliding-window attention on every second layer; llama3, qwen3 and deepseek_v3 "
     "have none",
     {}, [](C c, S) { return torchtitan_model_or(c, !c.model.add_bias_linear); }},
    {F::torchtitan, "model.window_size",
     "only gpt_oss has sliding-window attention, on every even layer (layer_id % 2 == 0, "
     "window_attn_skip_freq 2) of a MoE model without shared experts "
     "(models/gpt_oss/model/model.py at v0.2.2)",
     {}, [](C c, S) { return torchtitan_model_or(c, c.model.window_size == 0); }},
    {F::torchtitan, "model.multi_latent_attention",
     "only deepseek_v3 has multi-latent attention, and only in a MoE model with untied "
     "embeddings (models/deepseek_v3/model/args.py)",
     {}, [](C c, S) { return torchtitan_model_or(c, !c.model.mla); }},
    {F::torchtitan, "model.moe.first_k_dense_layers",
     "leading dense layers before the MoE layers are deepseek_v3's n_dense_layers, which comes "
     "with multi-latent attention; qwen3 and gpt_oss are MoE in every layer",
     {}, [](C c, S) {
       return torchtitan_model_or(c, !c.model.moe || c.model.moe->first_k_dense_layers == 0);
     }},
    {F::torchtitan, "model",
     "no torchtitan v0.2.2 model family (llama3, qwen3, deepseek_v3, gpt_oss) holds the model "
     "(tied embeddings are qwen3's only, head dimensions other than hidden / heads qwen3's, "
     "shared experts deepseek_v3's or qwen3's)",
     {}, [](C c, S) { return torchtitan_model_or(c, names_a_field(c.model)); }},
    {F::torchtitan, "pipeline_model_parallel_size",
     "gpt_oss registers no pipelining_fn (models/gpt_oss/__init__.py get_train_spec: "
     "pipelining_fn=None), so its runs have no pipeline parallelism",
     {K::pipeline_model_parallel_size},
     [](C c, S s) { return !torchtitan_gpt_oss(c) || s.pipeline_model_parallel_size == 1; }},
    {F::torchtitan, "grad_reduce_in_bf16",
     "training.mixed_precision_reduce accepts only \"float32\" (config/job_config.py)",
     {K::grad_reduce_in_bf16}, [](C, S s) { return !s.grad_reduce_in_bf16; }},
    {F::torchtitan, "precision",
     "training.mixed_precision_param accepts only \"bfloat16\" and \"float32\": no fp16 "
     "(config/job_config.py)",
     {},
     [](C c, S) { return c.training.precision != Precision::fp16; }},
    {F::torchtitan, "cpu_offloading_num_layers", "no activation offloading by layer",
     {K::cpu_offloading_num_layers}, [](C, S s) { return s.cpu_offloading_num_layers == 0; }},
    {F::torchtitan, "offload_modules", "no activation offloading by submodule",
     {K::offload_modules}, [](C, S s) { return s.offload_modules == 0; }},
    {F::torchtitan, "reuse_fp32_param",
     "no parameter-copy reuse (MindSpeed's --reuse-fp32-param): FSDP2's sharded parameters are "
     "the fp32 masters themselves",
     {K::reuse_fp32_param}, [](C, S s) { return !s.reuse_fp32_param; }},
    {F::torchtitan, "cuda_graph_impl",
     "no Megatron-style CUDA graphs of layers (its graphs come only with torch.compile)",
     {K::cuda_graph_impl, K::cuda_graph_scope}, no_cuda_graphs},
};
// clang-format on

}  // namespace

namespace {

// How each framework runs grouped experts (framework_rules.hpp grouped_gemm_concurrency).
struct FrameworkKernelsRow {
  Framework framework;
  FrameworkKernels kernels;
  std::string_view source;
};
constexpr double kAllExperts = std::numeric_limits<double>::infinity();
constexpr FrameworkKernelsRow kFrameworkKernels[] = {
    {Framework::megatron,
     {kGroupedGemmStreams, true},
     "Megatron-Core's Transformer Engine spec (gpt_layer_specs.py); TEGroupedMLP: Transformer "
     "Engine's GroupedLinear, multi_stream_cublas_gemm"},
    {Framework::megatron_bridge, {kGroupedGemmStreams, true}, "runs Megatron-Core's TE spec"},
    {Framework::mindspeed_llm,
     {kAllExperts, false},
     "MindSpeed's GMM: one torch_npu.npu_grouped_matmul over all local experts "
     "(mindspeed/ops/gmm.py); no Transformer Engine on Ascend"},
    {Framework::deepspeed,
     {kGroupedGemmStreams, false},
     "PyTorch modules; no grouped GEMM (its rules keep it off)"},
    {Framework::colossalai,
     {kGroupedGemmStreams, false},
     "PyTorch modules; no grouped GEMM (its rules keep it off)"},
    {Framework::torchtitan,
     {kAllExperts, false},
     "PyTorch modules; GroupedExperts: one torch._grouped_mm per projection over all local "
     "experts (torchtitan/models/moe/moe.py _run_experts_grouped_mm)"},
};

}  // namespace

TorchtitanFamily torchtitan_family(const ModelSpec& m) {
  if (!swiglu_rope(m)) return TorchtitanFamily::none;
  if (llama3_shaped(m)) return TorchtitanFamily::llama3;
  if (deepseek_v3_shaped(m)) return TorchtitanFamily::deepseek_v3;
  if (gpt_oss_shaped(m)) return TorchtitanFamily::gpt_oss;
  if (qwen3_shaped(m)) return TorchtitanFamily::qwen3;
  return TorchtitanFamily::none;
}

std::string_view to_string(TorchtitanFamily family) {
  switch (family) {
    case TorchtitanFamily::llama3:
      return "llama3";
    case TorchtitanFamily::qwen3:
      return "qwen3";
    case TorchtitanFamily::deepseek_v3:
      return "deepseek_v3";
    case TorchtitanFamily::gpt_oss:
      return "gpt_oss";
    case TorchtitanFamily::none:
      break;
  }
  return "none";
}

namespace {
bool drops_mtp(const ModelSpec& model, Framework framework) {
  return framework == Framework::torchtitan && model.mtp_num_layers > 0;
}
}  // namespace

ModelSpec trained_model(ModelSpec model, Framework framework) {
  if (drops_mtp(model, framework)) model.mtp_num_layers = 0;
  return model;
}

std::string trained_model_note(const ModelSpec& model, Framework framework) {
  if (!drops_mtp(model, framework)) return "";
  return "torchtitan v0.2.2's " + std::string(to_string(torchtitan_family(model))) +
         " model has no multi-token prediction (models/deepseek_v3/model/model.py builds none): "
         "estimated and launched without the model's " +
         std::to_string(model.mtp_num_layers) + " MTP depth(s)";
}

FrameworkKernels framework_kernels(Framework framework) {
  for (const FrameworkKernelsRow& row : kFrameworkKernels) {
    if (row.framework == framework) return row.kernels;
  }
  return {kGroupedGemmStreams, true};
}

std::vector<const FrameworkRule*> framework_rules(Framework framework) {
  std::vector<const FrameworkRule*> out;
  for (const FrameworkRule& rule : kRules) {
    if (rule.framework == framework) out.push_back(&rule);
  }
  return out;
}

namespace {
// A switch a fit may turn off: on, and not pinned.
bool on_by_default(const StrategyPins& pins, StrategyKeyId key, const Strategy& strategy) {
  return !pins.given(key) && strategy_key(key).get(strategy, 0) != 0;
}

// Every rule of the launch target that reads `key` can express the strategy.
bool expressible(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                 StrategyKeyId key, const Strategy& strategy) {
  for (const FrameworkRule* rule : rules) {
    if (rule->reads.contains(key) && !rule->expressible(context, strategy)) return false;
  }
  return true;
}

// The same, and every rule of the rulebook that reads `key` holds.
bool launchable(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                StrategyKeyId key, const Strategy& strategy) {
  if (!expressible(rules, context, key, strategy)) return false;
  for (const Rule& rule : detail::rules()) {
    if (rule.reads.contains(key) && !rule.holds(context, strategy)) return false;
  }
  return true;
}
}  // namespace

void fit_switch_to_framework(std::span<const FrameworkRule* const> rules,
                             const RuleContext& context, const StrategyPins& pins,
                             StrategyKeyId key, Strategy& strategy) {
  if (on_by_default(pins, key, strategy) && !expressible(rules, context, key, strategy)) {
    strategy_key(key).set(strategy, 0, 0);
  }
}

void fit_default_switch(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                        const StrategyPins& pins, StrategyKeyId key, Strategy& strategy) {
  if (on_by_default(pins, key, strategy) && !launchable(rules, context, key, strategy)) {
    strategy_key(key).set(strategy, 0, 0);
  }
}

void fit_default_value(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                       const StrategyPins& pins, StrategyKeyId key, std::span<const int64_t> values,
                       Strategy& strategy) {
  if (pins.given(key)) return;
  const StrategyKey& k = strategy_key(key);
  const int64_t default_value = k.get(strategy, 0);
  for (const int64_t value : values) {
    k.set(strategy, 0, value);
    if (launchable(rules, context, key, strategy)) return;
  }
  k.set(strategy, 0, default_value);
}

std::vector<std::string> unsupported(const RuleContext& context, Framework scenario_framework,
                                     const Strategy& strategy) {
  std::vector<std::string> reasons;
  for (const FrameworkRule* rule : framework_rules(context.framework)) {
    if (!rule->expressible(context, strategy)) reasons.push_back(rule->reason());
  }
  RuleContext scenario_context = context;
  scenario_context.framework = scenario_framework;
  for (const Rule& rule : rules()) {
    if (rule.holds(context, strategy) || !rule.holds(scenario_context, strategy)) continue;
    // "field: why", the field being the first key the rule reads.
    for (size_t id = 0; id < kNumStrategyKeys; ++id) {
      const auto key = static_cast<StrategyKeyId>(id);
      if (!rule.reads.contains(key)) continue;
      reasons.push_back(std::string(strategy_key(key).name) + ": " +
                        rule.reason(context, strategy));
      break;
    }
  }
  return reasons;
}

}  // namespace paraplan::detail
