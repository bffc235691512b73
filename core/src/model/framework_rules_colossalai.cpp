// What a Colossal-AI launch cannot express (framework_rules.hpp).
#include "model/framework_rule_parts.hpp"

namespace paraplan::detail::framework_rule_parts {
namespace {

// clang-format off
const FrameworkRule kColossalAiRules[] = {
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
    {F::colossalai, "fp8_dot_product_attention",
     "no fp8 attention: its plugins run the attention in 16 bits (fp8 only for communication "
     "and linear layers)",
     {K::fp8_dot_product_attention}, [](C, S s) { return !s.fp8_dot_product_attention; }},
    {F::colossalai, "optimizer_cpu_offload",
     "no share of the optimizer stepped on the CPU beside the GPU (HybridDeviceOptimizer)",
     {K::optimizer_cpu_offload}, [](C, S s) { return !s.optimizer_cpu_offload; }},

    // The estimate prices these keys' gradient bytes (parameter_bytes.cpp); the plugin keyword
    // the launch writes sets no gradient dtype, so a pinned value would run as the plugin's
    // default, not as priced (found by launch_test's every-key test, issue 34 item 3).
    {F::colossalai, "grad_reduce_in_bf16",
     "the launch's plugin sets no gradient-reduction dtype (no grad_reduce_in_bf16 keyword)",
     {K::grad_reduce_in_bf16}, [](C, S s) { return !s.grad_reduce_in_bf16; }},
    {F::colossalai, "accumulate_allreduce_grads_in_fp32",
     "the launch's plugin sets no gradient-accumulation dtype (no "
     "accumulate_allreduce_grads_in_fp32 keyword)",
     {K::accumulate_allreduce_grads_in_fp32},
     [](C, S s) { return !s.accumulate_allreduce_grads_in_fp32; }},
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
    {F::colossalai, "model.yarn_rotary_scaling_factor",
     "the launch's LlamaConfig or MixtralConfig carries no rope_scaling: YaRN positions would "
     "train as plain rotary ones",
     {}, [](C c, S) { return c.model.yarn_rotary_scaling_factor <= 1; }},
    {F::colossalai, "defer_embedding_wgrad_compute",
     "deferring the output layer's weight gradients to the flush is Megatron-Core's "
     "(tensor_parallel/layers.py grad_output_buffer); ColossalAI's pipeline schedules has no such option",
     {K::defer_embedding_wgrad_compute, K::wgrad_deferral_limit},
     [](C, S s) { return !s.defer_embedding_wgrad_compute && s.wgrad_deferral_limit == 0; }},
    {F::colossalai, "deallocate_pipeline_outputs",
     "keeping every stage output whole is Megatron-LM's schedule with "
     "deallocate_pipeline_outputs off; ColossalAI's pipeline schedules has no such option",
     {K::deallocate_pipeline_outputs}, [](C, S s) { return s.deallocate_pipeline_outputs; }},
};
// clang-format on

}  // namespace

std::span<const FrameworkRule> colossalai_rules() { return kColossalAiRules; }

}  // namespace paraplan::detail::framework_rule_parts
