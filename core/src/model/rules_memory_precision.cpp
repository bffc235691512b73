// The rulebook's memory and precision rules (rules.hpp): parameter-copy reuse, activation
// and optimizer offloading, recompute, the loss kernel and the GPUs' tensor cores.
#include <algorithm>

#include "model/fp8_attention.hpp"
#include "model/rule_parts.hpp"

namespace paraplan::detail::rule_parts {
namespace {

// clang-format off
const Rule kMemoryPrecisionRules[] = {
    // --- MindSpeed's parameter-copy reuse (--reuse-fp32-param; framework_rules.cpp: only
    // MindSpeed-LLM launches it).
    {"parameter-copy reuse needs bf16 weights",
     "mindspeed/features_manager/memory/reuse_fp32_param.py: validate_args "
     "dependency_check(args, 'bf16'); the fp32 value is the bf16 weight and a 16-bit residual "
     "(docs/features/reuse-fp32-param.md), so fp8 weights (fp8_param_gather) leave none to reuse",
     {K::reuse_fp32_param, K::fp8_param_gather},
     [](C c, S s) {
       const Precision p = c.training.precision;
       return !s.reuse_fp32_param || p == Precision::bf16 ||
              (p == Precision::fp8 && !s.fp8_param_gather);
     },
     [](C c, S) {
       return c.training.precision == Precision::fp8
                  ? std::string("reuse_fp32_param needs bf16 weights: fp8_param_gather off")
                  : "reuse_fp32_param needs bf16 training (got " +
                        std::string(to_string(c.training.precision)) + ")";
     }},
    {"parameter-copy reuse needs Megatron-LM's optimizer or distributed optimizer",
     "mindspeed/features_manager/memory/reuse_fp32_param.py: validate_args "
     "incompatible_check(args, 'enable_zero3'); its patches wrap only "
     "Float16OptimizerWithFloat16Params and DistributedOptimizer, not a fully sharded data "
     "parallelism",
     {K::reuse_fp32_param, K::zero_stage},
     [](C, S s) { return !s.reuse_fp32_param || s.zero_stage <= 1; },
     [](C, S s) {
       return "reuse_fp32_param needs zero_stage 0 or 1 (got " + str(s.zero_stage) + ")";
     }},
    {"parameter-copy reuse needs Megatron-LM's fp32 main parameters",
     "megatron/core/optimizer/distrib_optimizer.py (core_v0.12.1): with the precision-aware "
     "optimizer \"main params are held by FusedAdam\" and shard_fp32_from_float16_groups, the "
     "copy MindSpeed's reuse_fp32_param_distrib_optimizer_init_wrapper shares, is not made",
     {K::reuse_fp32_param, K::use_precision_aware_optimizer},
     [](C, S s) { return !s.reuse_fp32_param || !s.use_precision_aware_optimizer; },
     [](C, S) {
       return std::string("reuse_fp32_param needs use_precision_aware_optimizer off");
     }},

    // --- Activation offloading.
    {"CPU offloading leaves a layer on the GPU",
     "megatron/core/transformer/transformer_config.py: CPU offloading can be done only for "
     "layers less than num_layers",
     {K::cpu_offloading_num_layers},
     [](C c, S s) { return s.cpu_offloading_num_layers < c.model.num_layers; },
     [](C c, S s) {
       return "cpu_offloading_num_layers (" + str(s.cpu_offloading_num_layers) +
              ") must be below num_layers (" + str(c.model.num_layers) + ")";
     }},
    {"optimizer CPU offload needs the precision-aware optimizer",
     "megatron/training/arguments.py: The optimizer cpu offload must be used in conjunction with "
     "`--use-precision-aware-optimizer`",
     {K::optimizer_cpu_offload, K::use_precision_aware_optimizer},
     [](C, S s) { return !s.optimizer_cpu_offload || s.use_precision_aware_optimizer; },
     [](C, S) {
       return std::string("optimizer_cpu_offload needs use_precision_aware_optimizer");
     }},
    {"optimizer CPU offload runs with the distributed optimizer, not Megatron-FSDP",
     "megatron/core/optimizer/fully_sharded_optimizer.py: MFSDP v2 does not currently support "
     "optimizer CPU offload",
     {K::optimizer_cpu_offload, K::zero_stage},
     [](C, S s) { return !s.optimizer_cpu_offload || s.zero_stage <= 1; },
     [](C, S s) {
       return "optimizer_cpu_offload needs zero_stage 1 (the distributed optimizer), got " +
              str(s.zero_stage);
     }},
    {"optimizer CPU offload gathers fp8 parameters only with delayed scaling",
     "megatron/training/arguments.py: When `--fp8-param-gather` is enabled, the optimizer cpu "
     "offload must be used in conjunction with `--fp8-recipe delayed`",
     {K::optimizer_cpu_offload, K::fp8_param_gather, K::fp8_recipe},
     [](C, S s) {
       return !s.optimizer_cpu_offload || !s.fp8_param_gather ||
              s.fp8_recipe == Fp8Recipe::delayed;
     },
     [](C, S s) {
       return "optimizer_cpu_offload with fp8_param_gather needs fp8_recipe delayed (got " +
              std::string(to_string(s.fp8_recipe)) + ")";
     }},
    {"CPU offloading runs without pipeline parallelism",
     "megatron/core/transformer/transformer_config.py: Currently there is no support for "
     "Pipeline parallelism with CPU offloading",
     {K::cpu_offloading_num_layers, K::pipeline_model_parallel_size},
     [](C, S s) { return s.cpu_offloading_num_layers == 0 || s.pipeline_model_parallel_size == 1; },
     [](C, S s) {
       return "cpu_offloading_num_layers needs pipeline_model_parallel_size 1 (got " +
              str(s.pipeline_model_parallel_size) + ")";
     }},
    {"CPU offloading runs without recompute",
     "megatron/core/transformer/transformer_config.py: CPU offloading does not work when "
     "activation recomputation is enabled",
     {K::cpu_offloading_num_layers, K::recompute_granularity},
     [](C, S s) {
       return s.cpu_offloading_num_layers == 0 ||
              std::all_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
                return r.granularity == RecomputeGranularity::none;
              });
     },
     [](C, S) {
       return std::string("cpu_offloading_num_layers needs recompute_granularity none");
     }},
    {"fine-grained activation offloading excludes CPU offloading by layer",
     "megatron/core/transformer/transformer_config.py: fine_grained_activation_offloading cannot "
     "be enabled with cpu_offloading",
     {K::offload_modules, K::cpu_offloading_num_layers},
     [](C, S s) { return s.offload_modules == 0 || s.cpu_offloading_num_layers == 0; },
     [](C, S) {
       return std::string("offload_modules needs cpu_offloading_num_layers 0");
     }},
    {"offloading the attention projection's input needs the core attention's",
     "megatron/core/transformer/transformer_config.py: attn_proj cannot be set to "
     "offload_modules alone without core_attn",
     {K::offload_modules},
     [](C, S s) {
       return !s.offloads(OffloadModule::attn_proj) || s.offloads(OffloadModule::core_attn);
     },
     [](C, S) { return std::string("offload_modules attn_proj needs core_attn"); }},
    {"offloading inside a MoE layer excludes recomputing the whole layer",
     "megatron/core/transformer/transformer_config.py: Cannot offload ... while recomputing the "
     "entire MoE layer",
     {K::offload_modules, K::recompute_modules, K::recompute_granularity},
     [](C, S s) {
       return (!s.offloads(OffloadModule::expert_fc1) && !s.offloads(OffloadModule::moe_act)) ||
              !s.any_recomputes(RecomputeModule::moe);
     },
     [](C, S) {
       return std::string("offload_modules expert_fc1 or moe_act needs moe out of recompute_modules");
     }},
    {"recomputing the experts' activation needs grouped GEMM",
     "megatron/core/transformer/transformer_config.py: moe_act in recompute_modules is only "
     "supported with moe_grouped_gemm",
     {K::recompute_modules, K::recompute_granularity, K::moe_grouped_gemm},
     [](C, S s) { return s.moe_grouped_gemm || !s.any_recomputes(RecomputeModule::moe_act); },
     [](C, S) { return std::string("recompute_modules moe_act needs moe_grouped_gemm"); }},
    {"recomputing MLA's up-projections needs multi-latent attention",
     "megatron/core/transformer/transformer_config.py: mla_up_proj in recompute_modules is only "
     "supported with multi_latent_attention",
     {K::recompute_modules, K::recompute_granularity},
     [](C c, S s) {
       return c.model.mla.has_value() || !s.any_recomputes(RecomputeModule::mla_up_proj);
     },
     [](C, S) {
       return std::string("recompute_modules mla_up_proj needs a multi-latent-attention model");
     }},
    {"recomputing the shared experts excludes their overlap",
     "megatron/core/transformer/transformer_config.py: shared_experts recompute cannot work "
     "with --moe-shared-expert-overlap",
     {K::recompute_modules, K::recompute_granularity, K::moe_shared_expert_overlap},
     [](C, S s) {
       return !s.moe_shared_expert_overlap ||
              !s.any_recomputes(RecomputeModule::shared_experts);
     },
     [](C, S) {
       return std::string(
           "recompute_modules shared_experts needs moe_shared_expert_overlap off");
     }},
    {"recomputing the experts' activation or the norms in fp8 needs current scaling",
     "megatron/core/transformer/transformer_config.py: Delayed scaling does not support moe_act "
     "and layernorm recompute for fp8",
     {K::recompute_modules, K::recompute_granularity, K::fp8_recipe},
     [](C c, S s) {
       return c.training.precision != Precision::fp8 || s.fp8_recipe != Fp8Recipe::delayed ||
              (!s.any_recomputes(RecomputeModule::moe_act) &&
               !s.any_recomputes(RecomputeModule::layernorm));
     },
     [](C, S s) {
       return std::string("recompute_modules ") +
              (s.any_recomputes(RecomputeModule::moe_act) ? "moe_act" : "layernorm") +
              " in fp8 needs an fp8_recipe other than delayed";
     }},
    {"Transformer Engine's loss kernel is a fused loss",
     "megatron/core/models/common/language_module/language_module.py: "
     "cross_entropy_fusion_impl is read only under cross_entropy_loss_fusion",
     {K::cross_entropy_fusion_impl, K::cross_entropy_loss_fusion},
     [](C, S s) {
       return s.cross_entropy_loss_fusion ||
              s.cross_entropy_fusion_impl == CrossEntropyFusionImpl::native;
     },
     [](C, S) {
       return std::string("cross_entropy_fusion_impl te needs cross_entropy_loss_fusion");
     }},

    {"fp8 attention runs only in cuDNN's fused attention, for its GPUs, recipes and head dims",
     "transformer_engine/pytorch/attention/dot_product_attention/utils.py get_attention_backend "
     "(fp8_dpa disables FlashAttention and the unfused path; FusedAttention only for delayed "
     "scaling from sm90, current scaling and MXFP8 from sm100, never Float8BlockScaling) and "
     "common/fused_attn/fused_attn.cpp nvte_get_fused_attn_backend (NVTE_FP8 head dims), "
     "TE d0067d0da; fp8_attention.cpp",
     {K::fp8_dot_product_attention, K::fp8_recipe, K::use_flash_attn, K::attention_backend,
      K::pipeline_stage_gpus},
     [](C c, S s) { return fp8_attention_problem(c, s).empty(); },
     fp8_attention_problem},

    // --- The GPUs.
    {"every stage's GPU has tensor cores for the precision",
     "the GPU preset's tensor_tflops",
     {K::pipeline_stage_gpus},
     [](C c, S s) {
       if (s.pipeline_stage_gpus.empty()) {
         return c.cluster.pools.front().gpu.tensor_flops(c.training.precision) > 0;
       }
       return std::all_of(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(), [&](int p) {
         return c.cluster.pools[static_cast<size_t>(p)].gpu.tensor_flops(c.training.precision) > 0;
       });
     },
     [](C c, S s) {
       std::string ids;
       for (size_t pool = 0; pool < c.cluster.pools.size(); ++pool) {
         const GpuSpec& gpu = c.cluster.pools[pool].gpu;
         if (runs_on_pool(s, pool) && gpu.tensor_flops(c.training.precision) <= 0) {
           ids += (ids.empty() ? "" : ", ") + gpu.id;
         }
       }
       return "pipeline_stage_gpus: " + ids + " has no " +
              std::string(to_string(c.training.precision)) + " tensor cores";
     }},
};
// clang-format on

}  // namespace

std::span<const Rule> memory_precision_rules() { return kMemoryPrecisionRules; }

}  // namespace paraplan::detail::rule_parts
