// What Megatron-LM, Megatron-Bridge and MindSpeed-LLM launches cannot express
// (framework_rules.hpp).
#include <cmath>

#include "model/framework_rule_parts.hpp"

namespace paraplan::detail::framework_rule_parts {
namespace {

// clang-format off
const FrameworkRule kMegatronFamilyRules[] = {
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
    {F::megatron, "fp8_dot_product_attention",
     "Megatron-LM has no argument for it: arguments.py lists fp8_dot_product_attention among the "
     "TransformerConfig fields with no CLI argument (_add_network_size_args); Megatron-Bridge "
     "sets it (mixed_precision.fp8_dot_product_attention)",
     {K::fp8_dot_product_attention}, [](C, S s) { return !s.fp8_dot_product_attention; }},

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
    {F::mindspeed_llm, "graph_capture_record_stream_reuse",
     "graph_capture_record_stream_reuse is an option of PyTorch's CUDA caching allocator, for CUDA "
     "graph capture (c10/cuda/CUDACachingAllocator.cpp free_safe_blocks_in_capture); "
     "MindSpeed-LLM runs on Ascend NPUs (PYTORCH_NPU_ALLOC_CONF) and captures no CUDA graphs",
     {K::graph_capture_record_stream_reuse},
     [](C, S s) { return !s.graph_capture_record_stream_reuse; }},

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
    {F::mindspeed_llm, "moe_flex_dispatcher_backend",
     "Megatron-LM core_v0.12.1, which MindSpeed-LLM patches, has no --moe-flex-dispatcher-backend "
     "(HybridEP added by 3df200905e, 2025-11-18, first released in core_v0.16.0)",
     {K::moe_flex_dispatcher_backend},
     [](C, S s) { return s.moe_flex_dispatcher_backend == MoeFlexBackend::deepep; }},
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
    {F::mindspeed_llm, "model.yarn_correction_range_round_to_int",
     "MindSpeed-LLM's YaRN rounds its correction range (tasks/common/yarn_rope.py "
     "yarn_find_correction_range: floor and ceil) and takes --beta-fast and --beta-slow as "
     "integers (features_manager/common/rotary.py)",
     {}, [](C c, S) {
       const ModelSpec& m = c.model;
       const auto whole = [](double x) { return x == std::round(x); };
       return m.yarn_rotary_scaling_factor <= 1 || (m.yarn_correction_range_round_to_int &&
                                                    whole(m.yarn_beta_fast) &&
                                                    whole(m.yarn_beta_slow));
     }},
    {F::megatron, "deallocate_pipeline_outputs",
     "Megatron-LM has no argument for it: its training sets deallocate_pipeline_outputs=True "
     "(megatron/training/argument_utils.py; arguments.py lists it among the fields with no "
     "argument)",
     {K::deallocate_pipeline_outputs}, [](C, S s) { return s.deallocate_pipeline_outputs; }},
    {F::mindspeed_llm, "fp8_dot_product_attention",
     "Megatron-LM core_v0.12.1's arguments.py has no argument for fp8 attention, and "
     "MindSpeed-LLM runs on Ascend NPUs, without cuDNN's fp8 attention kernels",
     {K::fp8_dot_product_attention}, [](C, S s) { return !s.fp8_dot_product_attention; }},
    {F::mindspeed_llm, "deallocate_pipeline_outputs",
     "Megatron-LM core_v0.12.1's training sets deallocate_pipeline_outputs=True "
     "(megatron/training/arguments.py core_transformer_config_from_args), with no argument",
     {K::deallocate_pipeline_outputs}, [](C, S s) { return s.deallocate_pipeline_outputs; }},
};
// clang-format on

}  // namespace

std::span<const FrameworkRule> megatron_family_rules() { return kMegatronFamilyRules; }

}  // namespace paraplan::detail::framework_rule_parts
