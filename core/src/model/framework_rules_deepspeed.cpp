// What a Megatron-DeepSpeed launch cannot express (framework_rules.hpp).
#include "model/framework_rule_parts.hpp"

namespace paraplan::detail::framework_rule_parts {
namespace {

// clang-format off
const FrameworkRule kDeepSpeedRules[] = {
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
    {F::deepspeed, "fp8_dot_product_attention",
     "Megatron-DeepSpeed has no argument for fp8 attention (Transformer Engine's fp8_dpa)",
     {K::fp8_dot_product_attention}, [](C, S s) { return !s.fp8_dot_product_attention; }},
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
    // The estimate prices these keys' gradient bytes (parameter_bytes.cpp); the ds_config this
    // launch writes sets no gradient dtype, so a pinned value would run as DeepSpeed's default,
    // not as priced (found by launch_test's every-key test, issue 34 item 3).
    {F::deepspeed, "grad_reduce_in_bf16",
     "Megatron-DeepSpeed has no --grad-reduce-in-bf16, and the launch's ds_config sets no "
     "gradient dtype",
     {K::grad_reduce_in_bf16}, [](C, S s) { return !s.grad_reduce_in_bf16; }},
    {F::deepspeed, "accumulate_allreduce_grads_in_fp32",
     "the DeepSpeed engine reduces the gradients, not Megatron's DDP that "
     "--accumulate-allreduce-grads-in-fp32 configures, and the launch's ds_config sets no "
     "gradient dtype",
     {K::accumulate_allreduce_grads_in_fp32},
     [](C, S s) { return !s.accumulate_allreduce_grads_in_fp32; }},
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
    {F::deepspeed, "model.yarn_rotary_scaling_factor",
     "Megatron-DeepSpeed's megatron/arguments.py has rotary positions "
     "(--use-rotary-position-embeddings, --rotary-percent) without YaRN scaling",
     {}, [](C c, S) { return c.model.yarn_rotary_scaling_factor <= 1; }},
    {F::deepspeed, "optimizer_cpu_offload",
     "Megatron-DeepSpeed has no --optimizer-cpu-offload (DeepSpeed's offload_optimizer moves all "
     "of ZeRO's optimizer, a different split)",
     {K::optimizer_cpu_offload}, [](C, S s) { return !s.optimizer_cpu_offload; }},
    {F::deepspeed, "defer_embedding_wgrad_compute",
     "deferring the output layer's weight gradients to the flush is Megatron-Core's "
     "(tensor_parallel/layers.py grad_output_buffer); Megatron-DeepSpeed's pipeline engine has no such option",
     {K::defer_embedding_wgrad_compute, K::wgrad_deferral_limit},
     [](C, S s) { return !s.defer_embedding_wgrad_compute && s.wgrad_deferral_limit == 0; }},
    {F::deepspeed, "deallocate_pipeline_outputs",
     "keeping every stage output whole is Megatron-LM's schedule with "
     "deallocate_pipeline_outputs off; Megatron-DeepSpeed's pipeline engine has no such option",
     {K::deallocate_pipeline_outputs}, [](C, S s) { return s.deallocate_pipeline_outputs; }},
};
// clang-format on

}  // namespace

std::span<const FrameworkRule> deepspeed_rules() { return kDeepSpeedRules; }

}  // namespace paraplan::detail::framework_rule_parts
