// The search's walk below the layer shape (the table in searcher.hpp): recompute per GPU type,
// ZeRO stages and the leaf's last keys (its layer split, its block recompute depth) before its
// estimate (leaf.cpp).
#include <algorithm>
#include <optional>
#include <span>

#include "search/searcher.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;

}  // namespace

RecomputeOptions Searcher::recompute_options(size_t pool) const {
  const std::optional<int64_t> granularity = pins_.get(K::recompute_granularity, pool);
  const std::optional<int64_t> method = pins_.get(K::recompute_method, pool);
  const std::optional<int64_t> num_layers = pins_.get(K::recompute_num_layers, pool);
  const std::optional<int64_t> modules = pins_.get(K::recompute_modules, pool);
  // Pinned method, layer count and modules are kept even where they do not act.
  const auto pinned_method = static_cast<RecomputeMethod>(method.value_or(0));
  const uint32_t default_modules = Recompute{}.modules;
  RecomputeOptions options;
  const auto add = [&](RecomputeGranularity g, RecomputeMethod m, bool fit_block,
                       uint32_t chosen_modules = Recompute{}.modules) {
    if (granularity && *granularity != static_cast<int64_t>(g)) return;
    if (method && *method != static_cast<int64_t>(m)) return;
    const auto kept = modules ? static_cast<uint32_t>(*modules) : chosen_modules;
    options.push_back({{g, m, num_layers.value_or(1), kept}, fit_block && !num_layers});
  };
  add(RecomputeGranularity::none, pinned_method, false);
  add(RecomputeGranularity::selective, pinned_method, false);
  // Selective recompute of the cheap, large MoE and MLA tensors too (Megatron-Bridge's DeepSeek,
  // Qwen3 and GPT-OSS recipes: recompute_modules ["mla_up_proj"], ["moe_act"], ["layernorm",
  // "moe_act"]).
  const auto bit = [](RecomputeModule m) { return 1u << static_cast<unsigned>(m); };
  uint32_t lean = default_modules;
  if (model_.mla) lean |= bit(RecomputeModule::mla_up_proj);
  if (model_.mla || model_.moe) lean |= bit(RecomputeModule::layernorm);
  if (model_.moe && s_.moe_grouped_gemm) lean |= bit(RecomputeModule::moe_act);
  if (!modules && lean != default_modules) {
    add(RecomputeGranularity::selective, pinned_method, false, lean);
  }
  add(RecomputeGranularity::full, RecomputeMethod::uniform, false);
  // Block recompute of the fewest layers that fit; on a mixed cluster only with a given count.
  if (!mixed_ || num_layers) add(RecomputeGranularity::full, RecomputeMethod::block, true);
  return options;
}

// Recompute per GPU type, one type after the other; `fit_pool` is the type whose block
// recompute the leaf fits to memory (-1: none).
bool Searcher::recompute_level(size_t pool, Walk walk, int fit_pool) {
  if (pool == cluster_.pools.size()) {
    // Set by activations_overflow for these recompute settings.
    group_floors_valid_ = split_floors_valid_ = all_layers_work_valid_ = false;
    audit_time_floor_s_ = 0;
    if (!rules_hold(Level::recompute)) return false;
    if (audit_ != nullptr && walk == Walk::evaluate) audit_time_floor_s_ = lower_bound_s(true);
    // With the recompute settings known, the bound counts what they redo: a subtree that cannot
    // beat the N-th best is only counted. Only once this micro-batch size is known to fit (or
    // left unknown) elsewhere: whether it fits decides if larger sizes are walked (below). Then
    // what the subtree returns no longer matters, so this bound is asked before the memory
    // floors, which cost more.
    recompute_bound_s_ = kUnknownTime;
    if (walk == Walk::evaluate && micro_batch_fits_ && recompute_bound_prunes()) {
      count_zero_level();
      return true;
    }
    // Where some stage's activations alone exceed its memory, nothing below fits (once something
    // is ranked; before that, where they exceed it by more than the closest miss so far, which
    // the answer where nothing fits names: floors_rule_out).
    if (walk == Walk::evaluate && !options_.exhaustive && memory_bound_exact(fit_pool) &&
        floors_rule_out(fit_pool)) {
      count_zero_level();
      return false;
    }
    const bool fits = zero_level(walk, fit_pool);
    micro_batch_fits_ |= fits;
    return fits;
  }
  const bool used = std::find(s_.pipeline_stage_gpus.begin(), s_.pipeline_stage_gpus.end(),
                              static_cast<int>(pool)) != s_.pipeline_stage_gpus.end();
  if (!used) {  // a type no stage runs on: its recompute setting means nothing
    s_.recompute[pool] = Recompute{};
    return recompute_level(pool + 1, walk, fit_pool);
  }
  bool any_fit_or_unknown = false;
  for (const RecomputeOption& option : recompute_options(pool)) {
    if (stopped_) break;
    s_.recompute[pool] = option.recompute;
    any_fit_or_unknown |=
        recompute_level(pool + 1, walk, option.fit_block ? static_cast<int>(pool) : fit_pool);
  }
  return any_fit_or_unknown;
}

// ZeRO stages, with the data-parallel overlaps on wherever there is data parallelism to
// overlap (and the parameter gather only with a sharded optimizer), unless pinned.
bool Searcher::zero_level(Walk walk, int fit_pool) {
  const bool sharded = data_parallel() * s_.context_parallel_size > 1;
  // This level runs once per leaf, pruned leaves included: no allocation, pins read once
  // (zero_pins_, set in the constructor).
  static constexpr int64_t kStages[] = {0, 1, 2, 3};
  const std::span<const int64_t> stages =
      zero_pins_.stage ? std::span<const int64_t>(&*zero_pins_.stage, 1)
                       : std::span<const int64_t>(kStages, sharded ? 4 : 1);  // nothing to shard
  bool any_fit_or_unknown = false;
  split_works_.valid = false;  // its leaves differ only in this level's keys
  // The rules that read no key the stages change: checked at the first stage, for all.
  std::optional<bool> invariant_rules_hold;
  for (const int64_t zero : stages) {
    if (stopped_) break;
    s_.zero_stage = zero;
    s_.overlap_grad_reduce = zero_pins_.overlap_grad_reduce.value_or(sharded);
    s_.overlap_param_gather = zero_pins_.overlap_param_gather.value_or(sharded && zero >= 1);
    s_.fp8_param_gather =
        zero_pins_.fp8_param_gather.value_or(training_.precision == Precision::fp8);
    fit_switch_to_framework(K::overlap_grad_reduce);
    fit_switch_to_framework(K::overlap_param_gather);
    // Gradient and optimizer dtypes change the numerics, offloading needs host memory and a host
    // link the search does not weigh: as pinned, else Megatron-LM's defaults.
    for (const auto& [row, value] : zero_pins_.fixed) row->set(s_, 0, value);
    // fp8 parameter gathers where they can run, as the estimate's default (complete_strategy).
    if (s_.fp8_param_gather) {
      detail::fit_default_switch(framework_rules_, rule_context_, pins_, K::fp8_param_gather, s_);
    }
    // A pinned optimizer offload brings the precision-aware optimizer it needs, unless pinned.
    s_.use_precision_aware_optimizer |=
        s_.optimizer_cpu_offload && !pins_.given(K::use_precision_aware_optimizer);
    if (!invariant_rules_hold) {
      invariant_rules_hold = rules_hold_quietly(Level::zero, zero_stage_invariant_);
    }
    if (!(*invariant_rules_hold ? rules_hold(Level::zero, zero_stage_varying_)
                                : rules_hold(Level::zero))) {
      continue;
    }
    // The recompute settings' time bound again, against the N-th best as the leaves before left
    // it: once this micro-batch size is known to fit or be unknown (here, or by a leaf before),
    // a leaf it rules out is only counted, as the recompute level counts its subtree; before
    // that, only whether it fits is asked (below, after the memory bounds: evaluate_bounded).
    const bool size_known = micro_batch_fits_ || any_fit_or_unknown;
    if (walk == Walk::evaluate && size_known && recompute_bound_prunes()) {
      any_fit_or_unknown |= leaf(Walk::count, fit_pool);
      continue;
    }
    if (walk == Walk::evaluate && static_memory_overflows(fit_pool)) {
      ++stats_.pruned;  // a leaf that cannot fit: counted, as the micro-batch walk sees it
      continue;
    }
    if (walk == Walk::evaluate && audit_ == nullptr &&
        (leaf_memory_overflows() || split_memory_overflows())) {
      ++stats_.pruned;  // no group's floor fits, for this leaf or its offload variants
      continue;
    }
    const bool bounded = walk == Walk::evaluate && !size_known && recompute_bound_prunes();
    any_fit_or_unknown |= leaf(walk, fit_pool, bounded);
  }
  return any_fit_or_unknown;
}

// A complete strategy: counted, or given its last keys and estimated (`bounded`: a time bound
// rules it out, evaluate_bounded). True when it fits in memory or failed for another reason than
// memory.
bool Searcher::leaf(Walk walk, int fit_pool, bool bounded) {
  if (walk == Walk::count) {
    ++stats_.pruned;
    return true;
  }
  if (fit_pool < 0) return split_and_evaluate(-1, bounded);
  // Each leaf starts from the recompute level's block count, not the count the previous leaf
  // fitted: its layer split reads the count, so a leaf must not depend on the order of leaves.
  Recompute& block = s_.recompute[static_cast<size_t>(fit_pool)];
  const int64_t kept = block.num_layers;
  const bool fits_or_other = split_and_evaluate(fit_pool, bounded);
  block.num_layers = kept;
  return fits_or_other;
}

// A leaf's last keys (its layer split where the leaf chooses it, its block recompute depth), then
// its estimate.
bool Searcher::split_and_evaluate(int fit_pool, bool bounded) {
  if (split_at_leaf_ && !split_layers(true)) {
    ++stats_.evaluated;
    reject("the layers do not spread over the stages",
           "num_layers (" + std::to_string(model_.num_layers) + ") is below the " +
               std::to_string(s_.pipeline_model_parallel_size) + " pipeline stages");
    return true;
  }
  // Block counts fitted only where some count can pass the leaf's rules (torchtitan has no block
  // recompute): the rule that refuses every count is tallied as for the fitted one.
  if (fit_pool >= 0 && !leaf_rules_refuse_every_block_count(static_cast<size_t>(fit_pool))) {
    fit_block_layers(static_cast<size_t>(fit_pool));
  }
  if (!rules_hold(Level::leaf)) {
    ++stats_.evaluated;
    return true;
  }
  return bounded ? evaluate_bounded() : evaluate();
}

// The first of the leaf's rules (Megatron-LM's, then the framework's) that `s_` breaks, or -1.
int Searcher::first_broken_leaf_rule() const {
  const auto at = static_cast<size_t>(Level::leaf);
  const std::vector<const Rule*>& rules = rules_at_[at];
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!rules[i]->holds(rule_context_, s_)) return static_cast<int>(i);
  }
  const std::vector<const FrameworkRule*>& framework_rules = framework_rules_at_[at];
  for (size_t i = 0; i < framework_rules.size(); ++i) {
    if (!framework_rules[i]->expressible(rule_context_, s_)) {
      return static_cast<int>(rules.size() + i);
    }
  }
  return -1;
}

// Whether the leaf's rules refuse every block count fit_block_layers may choose (1 to a chunk
// less one), the same rule first each time and with a reason that does not name the count (a
// framework rule's, or a rule that does not read it): then the count the fit would choose is
// refused as the least is, and the fit's estimates are not needed. Leaves the least count.
bool Searcher::leaf_rules_refuse_every_block_count(size_t pool) {
  if (memory_bound_exact_) return false;  // no rule at the leaf
  Recompute& recompute = s_.recompute[pool];
  const int64_t chunk =
      *std::min_element(s_.pipeline_stage_layers.begin(), s_.pipeline_stage_layers.end()) /
      s_.virtual_pipeline_model_parallel_size;
  const int64_t kept = recompute.num_layers;
  int broken = -1;
  for (int64_t count = std::max<int64_t>(1, chunk - 1); count >= 1; --count) {
    recompute.num_layers = count;
    const int rule = first_broken_leaf_rule();
    if (rule < 0 || (broken >= 0 && rule != broken)) {
      recompute.num_layers = kept;
      return false;
    }
    broken = rule;
  }
  const std::vector<const Rule*>& rules = rules_at_[static_cast<size_t>(Level::leaf)];
  if (static_cast<size_t>(broken) < rules.size() &&
      rules[static_cast<size_t>(broken)]->reads.contains(K::recompute_num_layers)) {
    recompute.num_layers = kept;
    return false;
  }
  return true;
}
}  // namespace paraplan::detail
