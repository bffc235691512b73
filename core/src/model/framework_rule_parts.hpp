// What the launch targets' rule tables (framework_rules_<target>.cpp) share: the predicates
// several targets' rules use, the key sets they read, and each table's accessor, which
// framework_rules.cpp reads in this order.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "model/framework_rules.hpp"

namespace paraplan::detail::framework_rule_parts {

using K = StrategyKeyId;
using C = const RuleContext&;
using S = const Strategy&;
using F = Framework;

// The GPU types the stages run on disagree on recompute.
inline bool recompute_differs(S s) {
  if (s.pipeline_stage_gpus.empty()) return false;
  const Recompute& first = s.recompute[static_cast<size_t>(s.pipeline_stage_gpus.front())];
  return std::any_of(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(),
                     [&](int pool) { return !(s.recompute[static_cast<size_t>(pool)] == first); });
}
inline bool fp8(C c) { return c.training.precision == Precision::fp8; }
inline bool sequence_parallel_on(S s) {
  return s.sequence_parallel && s.tensor_model_parallel_size > 1;
}
// The stages hold equal layer counts (Megatron-LM's even split where the strategy gives none).
inline bool even_layers(C c, S s) {
  const std::vector<int64_t> layers =
      s.pipeline_stage_layers.empty()
          ? standard_split(c.model.num_layers, s.pipeline_model_parallel_size,
                           s.virtual_pipeline_model_parallel_size)
          : s.pipeline_stage_layers;
  return !layers.empty() &&
         std::all_of(layers.begin(), layers.end(), [&](int64_t l) { return l == layers.front(); });
}
inline bool micro_batches_per_stage_multiple(C c, S s) {
  const int64_t m = num_micro_batches(c, s);
  return m == 0 || m % s.pipeline_model_parallel_size == 0;
}
// Megatron-LM features a framework has no switch for: false when `s` turns any on.
inline bool no_megatron_moe_extras(S s) {
  return !s.moe_grouped_gemm && !s.moe_permute_fusion && !s.moe_router_fusion &&
         !s.moe_shared_expert_overlap && !s.overlap_moe_expert_parallel_comm &&
         !s.moe_router_force_load_balancing && s.moe_expert_capacity_factor <= 0 &&
         !s.moe_pad_expert_input_to_capacity &&
         s.moe_flex_dispatcher_backend == MoeFlexBackend::deepep;
}
inline bool default_optimizer_dtypes(S s) {
  const Strategy d;
  return !s.use_precision_aware_optimizer && s.main_grads_dtype == d.main_grads_dtype &&
         s.main_params_dtype == d.main_params_dtype && s.exp_avg_dtype == d.exp_avg_dtype &&
         s.exp_avg_sq_dtype == d.exp_avg_sq_dtype;
}
// No CUDA graphs (cuda_graph_impl none and no scope).
inline bool no_cuda_graphs(C, S s) {
  return s.cuda_graph_impl == CudaGraphImpl::none && s.cuda_graph_scope == 0;
}
// Megatron-LM's own fused loss, not Transformer Engine's kernel.
inline bool native_loss_kernel(C, S s) {
  return s.cross_entropy_fusion_impl == CrossEntropyFusionImpl::native;
}
inline bool only_core_attn(S s) {
  return std::all_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
    return r.granularity != RecomputeGranularity::selective || r.modules == Recompute{}.modules;
  });
}

inline constexpr KeySet kRecompute{K::recompute_granularity, K::recompute_method,
                                   K::recompute_num_layers, K::recompute_modules};
inline constexpr KeySet kMoeExtras{K::moe_grouped_gemm,
                                   K::moe_permute_fusion,
                                   K::moe_router_fusion,
                                   K::moe_shared_expert_overlap,
                                   K::overlap_moe_expert_parallel_comm,
                                   K::moe_router_force_load_balancing,
                                   K::moe_expert_capacity_factor,
                                   K::moe_pad_expert_input_to_capacity,
                                   K::moe_flex_dispatcher_backend};
inline constexpr KeySet kOptimizerDtypes{K::use_precision_aware_optimizer, K::main_grads_dtype,
                                         K::main_params_dtype, K::exp_avg_dtype,
                                         K::exp_avg_sq_dtype};

// Each launch target's rules, in the order `framework_rules` lists them.
std::span<const FrameworkRule>
megatron_family_rules();  // Megatron-LM, Megatron-Bridge, MindSpeed-LLM
std::span<const FrameworkRule> deepspeed_rules();
std::span<const FrameworkRule> colossalai_rules();
std::span<const FrameworkRule> torchtitan_rules();

}  // namespace paraplan::detail::framework_rule_parts
