// What a torchtitan launch cannot express (framework_rules.hpp).
#include "model/framework_rule_parts.hpp"

namespace paraplan::detail::framework_rule_parts {
namespace {

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

// clang-format off
const FrameworkRule kTorchtitanRules[] = {
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
    {F::torchtitan, "fp8_dot_product_attention",
     "Float8 training converts the linear layers only (components/quantization/float8.py): the "
     "attention's SDPA runs in 16 bits",
     {K::fp8_dot_product_attention}, [](C, S s) { return !s.fp8_dot_product_attention; }},
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
    {F::torchtitan, "moe_flex_dispatcher_backend",
     "torchtitan v0.2.2's expert_parallel_comm_backend is \"standard\" or \"deepep\"; HybridEP "
     "came later",
     {K::moe_flex_dispatcher_backend},
     [](C, S s) { return s.moe_flex_dispatcher_backend == MoeFlexBackend::deepep; }},
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
    {F::torchtitan, "model.yarn_rotary_scaling_factor",
     "only gpt_oss scales its rotary positions by YaRN (GptOssModelArgs rope_factor, "
     "original_seq_len, ntk_alpha, ntk_beta), and without rounding the correction range "
     "(models/gpt_oss/model/model.py precompute_rope_cache at v0.2.2)",
     {}, [](C c, S) {
       return c.model.yarn_rotary_scaling_factor <= 1 ||
              (torchtitan_gpt_oss(c) && !c.model.yarn_correction_range_round_to_int);
     }},
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
    {F::torchtitan, "defer_embedding_wgrad_compute",
     "deferring the output layer's weight gradients to the flush is Megatron-Core's "
     "(tensor_parallel/layers.py grad_output_buffer); torch.distributed.pipelining has no such option",
     {K::defer_embedding_wgrad_compute, K::wgrad_deferral_limit},
     [](C, S s) { return !s.defer_embedding_wgrad_compute && s.wgrad_deferral_limit == 0; }},
    {F::torchtitan, "deallocate_pipeline_outputs",
     "keeping every stage output whole is Megatron-LM's schedule with "
     "deallocate_pipeline_outputs off; torch.distributed.pipelining has no such option",
     {K::deallocate_pipeline_outputs}, [](C, S s) { return s.deallocate_pipeline_outputs; }},
};
// clang-format on

}  // namespace

std::span<const FrameworkRule> torchtitan_rules() { return kTorchtitanRules; }

}  // namespace paraplan::detail::framework_rule_parts
