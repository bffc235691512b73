// The search's set-up (the keys each level decides, the rules checked at each), its rule checks and
// its result; the walk is walk_layouts.cpp (layouts, micro-batch sizes), layer_shape.cpp (the layer
// shape) and walk_leaf.cpp (recompute, ZeRO, the leaf); progress reports and the rows ranking.cpp.
#include "search/searcher.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "model/collective_memo.hpp"
#include "paraplan/estimate.hpp"
#include "search/final_order.hpp"
#include "search/first_rows_probe.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;

// The keys the ZeRO level chooses itself (zero_level); it sets the rest of its keys as pinned or
// to their defaults.
const KeySet kZeroLevelChooses = {K::zero_stage, K::overlap_grad_reduce, K::overlap_param_gather,
                                  K::fp8_param_gather};

// The keys that differ between the ZeRO stages of one zero_level call: its choices, and the
// precision-aware optimizer that a pinned optimizer offload turns on. Every other key a ZeRO-level
// rule reads is decided above it or fixed for the search (zero_pins_.fixed), and the leaf restores
// what its variants change.
const KeySet kZeroStageVaries = kZeroLevelChooses | KeySet{K::use_precision_aware_optimizer};

// The cluster without the GPU types whose tensor cores lack the training precision.
Cluster usable_cluster(Cluster cluster, Precision precision) {
  for (GpuPool& pool : cluster.pools) {
    if (pool.gpu.tensor_flops(precision) <= 0) pool.count = 0;
  }
  return cluster;
}

}  // namespace

KeySet keys_decided_at(Level level, bool leaf_splits_layers) {
  switch (level) {
    case Level::tensor:
      return {K::tensor_model_parallel_size};
    case Level::context:
      return {K::context_parallel_size, K::cp_comm_type};
    case Level::expert:
      return {K::expert_model_parallel_size, K::expert_tensor_parallel_size,
              K::moe_token_dispatcher_type};
    case Level::pipeline:
      return {K::pipeline_model_parallel_size};
    case Level::virtual_pipeline:
      return leaf_splits_layers
                 ? KeySet{K::virtual_pipeline_model_parallel_size}
                 : KeySet{K::virtual_pipeline_model_parallel_size, K::pipeline_stage_layers};
    case Level::stage_gpus:
      return {K::pipeline_stage_gpus};
    case Level::micro_batch:
      return {K::micro_batch_size};
    case Level::layer_shape:
      return {K::sequence_parallel,
              K::use_flash_attn,
              K::attention_backend,
              K::tp_comm_overlap,
              K::fp8_recipe,
              K::fp8_dot_product_attention,
              K::cross_entropy_loss_fusion,
              K::cross_entropy_fusion_impl,
              K::moe_grouped_gemm,
              K::moe_permute_fusion,
              K::moe_router_fusion,
              K::moe_flex_dispatcher_backend,
              K::moe_shared_expert_overlap,
              K::overlap_moe_expert_parallel_comm,
              K::delay_wgrad_compute,
              K::moe_router_force_load_balancing,
              K::moe_expert_capacity_factor,
              K::moe_pad_expert_input_to_capacity};
    case Level::recompute:
      return {K::recompute_granularity, K::recompute_method, K::recompute_modules};
    case Level::zero:
      return {K::zero_stage,
              K::overlap_grad_reduce,
              K::overlap_param_gather,
              K::fp8_param_gather,
              K::grad_reduce_in_bf16,
              K::accumulate_allreduce_grads_in_fp32,
              K::use_precision_aware_optimizer,
              K::main_grads_dtype,
              K::main_params_dtype,
              K::exp_avg_dtype,
              K::exp_avg_sq_dtype,
              K::cpu_offloading_num_layers,
              K::offload_modules,
              K::optimizer_cpu_offload,
              K::optimizer_offload_fraction,
              K::overlap_cpu_optimizer_d2h_h2d,
              K::reuse_fp32_param,
              K::cuda_graph_impl,
              K::cuda_graph_scope,
              K::expandable_segments,
              K::graph_capture_record_stream_reuse,
              K::defer_embedding_wgrad_compute,
              K::wgrad_deferral_limit,
              K::deallocate_pipeline_outputs};
    case Level::leaf:
    case Level::count:
      break;
  }
  return leaf_splits_layers ? KeySet{K::recompute_num_layers, K::pipeline_stage_layers}
                            : KeySet{K::recompute_num_layers};
}

Searcher::Searcher(const Scenario& scenario, const SearchOptions& options, MemoryBoundAudit* audit)
    : model_(trained_model(scenario.model, scenario.framework)),
      model_note_(trained_model_note(scenario.model, scenario.framework)),
      training_(scenario.training),
      framework_(scenario.framework),
      cluster_(usable_cluster(scenario.cluster, scenario.training.precision)),
      pins_(scenario.strategy),
      options_(options),
      mixed_(cluster_.pools.size() > 1),
      leaf_splits_layers_(!pins_.pipeline_stage_layers),
      rule_context_{model_, training_, cluster_, cluster_.num_gpus, framework_},
      rules_at_(kNumLevels),
      framework_rules_at_(kNumLevels),
      framework_rules_(framework_rules(scenario.framework)),
      costs_(model_, training_, cluster_, framework_),
      top_(static_cast<size_t>(std::max(1, options.top)), options.distinct_layouts),
      start_(std::chrono::steady_clock::now()),
      audit_(audit) {
  place_rules();
  init_zero_rule_split();
  s_.recompute.assign(cluster_.pools.size(), Recompute{});
  init_shape_counts();
  init_zero_pins();
  init_shape_floors();  // after the fixed keys, which it may read
  init_leaf_facts();
}

// Each rule at the level that checks it, with its rejection counter; per key, the framework rules
// that read it and whether it is pinned.
void Searcher::place_rules() {
  // Each rule is checked once, at the first level where every key it reads is decided; a rule
  // that reads no key (only the model or the job) at the first level.
  KeySet decided;
  for (size_t level = 0; level < kNumLevels; ++level) {
    const KeySet before = decided;
    decided = decided | keys_decided_at(static_cast<Level>(level), leaf_splits_layers_);
    const auto first_checked_here = [&](const KeySet& reads) {
      return level == 0 ? reads.subset_of(decided)
                        : reads.subset_of(decided) && !reads.subset_of(before);
    };
    for (const Rule& rule : rules()) {
      if (first_checked_here(rule.reads)) rules_at_[level].push_back(&rule);
    }
    for (const FrameworkRule* rule : framework_rules_) {
      if (first_checked_here(rule->reads)) framework_rules_at_[level].push_back(rule);
    }
  }
  for (size_t level = 0; level < kNumLevels; ++level) {
    rule_rejections_at_.emplace_back(rules_at_[level].size(), nullptr);
    framework_rejections_at_.emplace_back(framework_rules_at_[level].size(), nullptr);
  }
  framework_rules_reading_.resize(kNumStrategyKeys);
  switch_pinned_.resize(kNumStrategyKeys);
  for (const StrategyKey& row : strategy_keys()) {
    const auto id = static_cast<size_t>(row.id);
    switch_pinned_[id] = pins_.given(row.id);
    for (const FrameworkRule* rule : framework_rules_) {
      if (rule->reads.contains(row.id)) framework_rules_reading_[id].push_back(rule);
    }
  }
}

void Searcher::init_zero_rule_split() {
  const auto zero = static_cast<size_t>(Level::zero);
  for (size_t i = 0; i < rules_at_[zero].size(); ++i) {
    const bool varies = rules_at_[zero][i]->reads.intersects(kZeroStageVaries);
    (varies ? zero_stage_varying_ : zero_stage_invariant_).rules.push_back(i);
  }
  for (size_t i = 0; i < framework_rules_at_[zero].size(); ++i) {
    const bool varies = framework_rules_at_[zero][i]->reads.intersects(kZeroStageVaries);
    (varies ? zero_stage_varying_ : zero_stage_invariant_).framework_rules.push_back(i);
  }
}

// The ZeRO level's pins, read once, and the keys it fixes, set in `s_`.
void Searcher::init_zero_pins() {
  zero_pins_.stage = pins_.get(K::zero_stage);
  zero_pins_.overlap_grad_reduce = pins_.flag(K::overlap_grad_reduce);
  zero_pins_.overlap_param_gather = pins_.flag(K::overlap_param_gather);
  zero_pins_.fp8_param_gather = pins_.flag(K::fp8_param_gather);
  // Every other key of the level, derived from keys_decided_at: as pinned, else its default (the
  // allocator mode: the framework launcher's, as complete_strategy).
  const KeySet zero_keys = keys_decided_at(Level::zero, leaf_splits_layers_);
  for (const StrategyKey& row : strategy_keys()) {
    if (!zero_keys.contains(row.id) || kZeroLevelChooses.contains(row.id)) continue;
    const int64_t fallback = row.id == K::expandable_segments
                                 ? int64_t{expandable_segments_by_default(framework_)}
                                 : row.default_value();
    zero_pins_.fixed.emplace_back(&row, pins_.get(row.id).value_or(fallback));
  }
  // Those keys hold these values wherever a bound reads them (the CUDA graph keys, in the layers'
  // host time).
  for (const auto& [row, value] : zero_pins_.fixed) row->set(s_, 0, value);
}

// What the leaf's evaluation tries and its rules read: the offloading and parameter-copy reuse
// variants the framework allows, and whether a memory bound keeps the walk's verdict exact.
void Searcher::init_leaf_facts() {
  const KeySet zero_keys = keys_decided_at(Level::zero, leaf_splits_layers_);
  // The framework's rules on parameter-copy reuse read that key alone.
  Strategy reusing;
  reusing.reuse_fp32_param = true;
  reuse_fp32_param_variant_ =
      !pins_.given(K::reuse_fp32_param) &&
      std::none_of(framework_rules_.begin(), framework_rules_.end(), [&](const FrameworkRule* r) {
        return r->reads.contains(K::reuse_fp32_param) && !r->expressible(rule_context_, reusing);
      });
  const auto leaf = static_cast<size_t>(Level::leaf);
  memory_bound_exact_ = rules_at_[leaf].empty() && framework_rules_at_[leaf].empty();
  for (const Rule* rule : rules_at_[leaf]) leaf_rule_reads_ = leaf_rule_reads_ | rule->reads;
  for (const FrameworkRule* rule : framework_rules_at_[leaf]) {
    leaf_rule_reads_ = leaf_rule_reads_ | rule->reads;
  }
  leaf_rules_read_zero_keys_ = leaf_rule_reads_.intersects(zero_keys);
  layer_offload_variant_ = !pins_.given(K::cpu_offloading_num_layers) &&
                           expressible_alone(K::cpu_offloading_num_layers,
                                             [](Strategy& s) { s.cpu_offloading_num_layers = 1; });
  optimizer_offload_expressible_ = expressible_alone(
      K::optimizer_cpu_offload, [](Strategy& s) { s.optimizer_cpu_offload = true; });
}

// Whether no framework rule that reads `key` alone refuses the strategy `set` gives it (false: it
// is refused whatever the other keys).
template <typename Set>
bool Searcher::expressible_alone(StrategyKeyId key, Set set) const {
  Strategy strategy;
  set(strategy);
  return std::none_of(framework_rules_.begin(), framework_rules_.end(),
                      [&](const FrameworkRule* r) {
                        return r->reads.contains(key) && r->reads.subset_of(KeySet{key}) &&
                               !r->expressible(rule_context_, strategy);
                      });
}

// Whether a memory bound that counts a subtree as not fitting keeps the micro-batch walk's verdict
// exact: no rule is checked at the leaf, or the leaf's rules read no key decided below here (the
// ZeRO level's, the block count where the leaf fits it, the stage layers where it splits them) and
// hold, so that every leaf below fails for memory alone.
bool Searcher::memory_bound_exact(int fit_pool) const {
  if (memory_bound_exact_) return true;
  if (leaf_rules_read_zero_keys_) return false;
  if (fit_pool >= 0 && leaf_rule_reads_.contains(K::recompute_num_layers)) return false;
  if (split_at_leaf_ && leaf_rule_reads_.contains(K::pipeline_stage_layers)) return false;
  return rules_hold_quietly(Level::leaf);
}

bool Searcher::rules_hold(Level level) {
  const auto at = static_cast<size_t>(level);
  const std::vector<const Rule*>& rules = rules_at_[at];
  for (size_t i = 0; i < rules.size(); ++i) {
    if (rules[i]->holds(rule_context_, s_)) continue;
    Rejection& rejection = tally(rule_rejections_at_[at][i], rules[i]->name);
    if (rejection.count++ == 0) rejection.example = rules[i]->reason(rule_context_, s_);
    return false;
  }
  const std::vector<const FrameworkRule*>& framework_rules = framework_rules_at_[at];
  for (size_t i = 0; i < framework_rules.size(); ++i) {
    if (framework_rules[i]->expressible(rule_context_, s_)) continue;
    Rejection& rejection = tally(framework_rejections_at_[at][i], framework_rules[i]->why);
    if (rejection.count++ == 0) rejection.example = framework_rules[i]->reason();
    return false;
  }
  return true;
}

// rules_hold over `subset` of the level's rules.
bool Searcher::rules_hold(Level level, const RuleSubset& subset) {
  const auto at = static_cast<size_t>(level);
  const std::vector<const Rule*>& rules = rules_at_[at];
  for (const size_t i : subset.rules) {
    if (rules[i]->holds(rule_context_, s_)) continue;
    Rejection& rejection = tally(rule_rejections_at_[at][i], rules[i]->name);
    if (rejection.count++ == 0) rejection.example = rules[i]->reason(rule_context_, s_);
    return false;
  }
  const std::vector<const FrameworkRule*>& framework_rules = framework_rules_at_[at];
  for (const size_t i : subset.framework_rules) {
    if (framework_rules[i]->expressible(rule_context_, s_)) continue;
    Rejection& rejection = tally(framework_rejections_at_[at][i], framework_rules[i]->why);
    if (rejection.count++ == 0) rejection.example = framework_rules[i]->reason();
    return false;
  }
  return true;
}

// As detail::fit_switch_to_framework, over the rules that read the key (hot: every layer shape).
void Searcher::fit_switch_to_framework(StrategyKeyId key) {
  const StrategyKey& row = key_row(key);
  const auto id = static_cast<size_t>(key);
  if (row.get(s_, 0) == 0 || switch_pinned_[id]) return;  // off or pinned: nothing to fit
  for (const FrameworkRule* rule : framework_rules_reading_[id]) {
    if (rule->expressible(rule_context_, s_)) continue;
    row.set(s_, 0, 0);
    return;
  }
}

Rejection& Searcher::tally(std::string_view why) {
  if (recorded_rejections_ != nullptr) recorded_rejections_->push_back(why);
  return rejections_[why];
}

// The same, through a rule's own pointer into rejections_ (its nodes never move).
Rejection& Searcher::tally(Rejection*& cached, std::string_view why) {
  if (recorded_rejections_ != nullptr) recorded_rejections_->push_back(why);
  if (cached == nullptr) cached = &rejections_[why];
  return *cached;
}

void Searcher::reject(std::string_view why, const std::string& example) {
  Rejection& rejection = tally(why);
  if (rejection.count++ == 0) rejection.example = example;
}

SearchResult Searcher::run() {
  // The walk prices the same collectives again and again on the cluster's GPUs: once each.
  const CollectiveMemoScope collective_memo(cluster_);
  tensor_level();
  stats_.complete = !stopped_;
  stats_.space = stats_.evaluated + stats_.pruned;
  SearchResult result;
  result.strategies = ranked_rows(false);
  for (auto& [family, strategy] : top_.family_bests()) {
    Report report = estimate_on_used_gpus(strategy);
    if (report.feasible) {
      result.family_bests.push_back({family, {strategy, std::move(report), false, "", {}}, 0});
    }
  }
  finish_order(result, options_.allow_at_risk);
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  result.stats = stats_;
  if (result.strategies.empty() && stats_.complete) {
    for (CoreText& text : diagnosis()) {
      result.diagnosis.push_back(text.text);
      result.diagnosis_texts.push_back(std::move(text));
    }
  }
  return result;
}

}  // namespace paraplan::detail

namespace paraplan {

SearchResult search(const Scenario& scenario, const SearchOptions& options) {
  // A page's search first shows the probe's rows (first_rows_probe.cpp): at most
  // kProgressIntervalS before the walk, whose time budget is its own.
  if (!detail::probe_first_rows(scenario, options)) return detail::cancelled_by_probe();
  return detail::Searcher(scenario, options).run();
}

namespace detail {

SearchResult search_audited(const Scenario& scenario, const SearchOptions& options,
                            MemoryBoundAudit& audit) {
  return Searcher(scenario, options, &audit).run();
}

}  // namespace detail

}  // namespace paraplan