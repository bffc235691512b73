// The search's loop nest (the table in searcher.hpp), its rules and its result; the layer shape
// level is layer_shape.cpp, progress reports and the listed rows ranking.cpp.
#include "search/searcher.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "paraplan/estimate.hpp"
#include "search/candidates.hpp"
#include "search/final_order.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;

// The keys the ZeRO level chooses itself (zero_level); it sets the rest of its keys as pinned or
// to their defaults.
const KeySet kZeroLevelChooses = {K::zero_stage, K::overlap_grad_reduce, K::overlap_param_gather,
                                  K::fp8_param_gather};

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
              K::graph_capture_record_stream_reuse};
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
  s_.recompute.assign(cluster_.pools.size(), Recompute{});
  init_shape_counts();
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
  init_shape_floors();  // after the fixed keys, which it may read
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

void Searcher::tensor_level() {
  // Tensor parallelism stays inside the smallest NVLink domain of the cluster's GPU types (72
  // GPUs of a GB200 NVL72 rack, not the 4 of one host).
  int64_t domain = cluster_.num_gpus;
  for (const GpuPool& pool : cluster_.pools) {
    domain = std::min(domain, pool.gpu.nvlink_domain_gpus);
  }
  const int64_t limit = options_.allow_tensor_parallel_across_nodes ? cluster_.num_gpus : domain;
  const std::vector<int64_t> sizes =
      pinned_or(pins_.get(K::tensor_model_parallel_size), divisors(limit));
  for (size_t i = 0; i < sizes.size() && !stopped_; ++i) {
    fraction_done_ = static_cast<double>(i) / static_cast<double>(sizes.size());
    s_.tensor_model_parallel_size = sizes[i];
    if (rules_hold(Level::tensor)) context_level();
  }
}

void Searcher::context_level() {
  for (const int64_t cp :
       pinned_or(pins_.get(K::context_parallel_size),
                 divisors_of_quotient(cluster_.num_gpus, s_.tensor_model_parallel_size))) {
    s_.context_parallel_size = cp;
    // The ring and the all-to-all (all-gathered K and V only when pinned: it never hides its
    // communication).
    const std::vector<int64_t> types =
        cp > 1 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0};
    for (const int64_t type : pinned_or(pins_.get(K::cp_comm_type), types)) {
      if (stopped_) return;
      s_.cp_comm_type = static_cast<CpCommType>(type);
      if (rules_hold(Level::context)) expert_level();
    }
  }
}

// Expert parallel sizes; for a MoE model also the experts' own tensor parallelism (the
// attention's, or none: MoE parallel folding) and the three token dispatchers.
void Searcher::expert_level() {
  const bool moe = model_.moe.has_value();
  const std::vector<int64_t> sizes =
      moe ? divisors(model_.moe->num_experts) : std::vector<int64_t>{1};
  std::vector<int64_t> etp_sizes = {0};
  if (moe && s_.tensor_model_parallel_size > 1) etp_sizes.push_back(1);
  for (const int64_t ep : pinned_or(pins_.get(K::expert_model_parallel_size), sizes)) {
    for (const int64_t etp : pinned_or(pins_.get(K::expert_tensor_parallel_size), etp_sizes)) {
      s_.expert_model_parallel_size = ep;
      s_.expert_tensor_parallel_size = etp;
      // The dispatchers differ only where tokens leave the GPU.
      const bool dispatches = moe && s_.expert_tensor_parallel() * ep > 1;
      const std::vector<int64_t> dispatchers =
          dispatches ? std::vector<int64_t>{0, 1, 2} : std::vector<int64_t>{0};
      for (const int64_t d : pinned_or(pins_.get(K::moe_token_dispatcher_type), dispatchers)) {
        if (stopped_) return;
        s_.moe_token_dispatcher_type = static_cast<MoeDispatcher>(d);
        if (rules_hold(Level::expert)) pipeline_level();
      }
    }
  }
}

void Searcher::pipeline_level() {
  const int64_t model_parallel = s_.tensor_model_parallel_size * s_.context_parallel_size;
  for (const int64_t p : pinned_or(pins_.get(K::pipeline_model_parallel_size),
                                   divisors_of_quotient(cluster_.num_gpus, model_parallel))) {
    if (stopped_) return;
    s_.pipeline_model_parallel_size = p;
    data_parallel_ = data_parallel_size(rule_context_, s_);
    if (!rules_hold(Level::pipeline)) continue;
    // The micro-batch sizes follow the data parallel size alone: once per pipeline size, for
    // every layout below it.
    micro_batch_sizes_ =
        pinned_or(pins_.get(K::micro_batch_size),
                  divisors_of_quotient(training_.global_batch_size, data_parallel()));
    sizes_bounded_ = Bounded::unknown;
    virtual_level();
  }
}

void Searcher::virtual_level() {
  const int64_t p = s_.pipeline_model_parallel_size;
  std::vector<int64_t> sizes = {1};
  // Interleaving on one GPU type only (mixed clusters: docs/search.md).
  for (int64_t v = 2; !mixed_ && p > 1 && v * p <= model_.num_layers + 2; ++v) sizes.push_back(v);
  const std::optional<int64_t> pinned = pins_.get(K::virtual_pipeline_model_parallel_size);
  if (mixed_ && pinned && *pinned > 1) {
    reject("the search does not interleave pipelines of mixed GPU types",
           "virtual_pipeline_model_parallel_size is pinned to " + std::to_string(*pinned) +
               " on a mixed cluster; estimate it with pipeline_stage_layers instead");
    return;
  }
  for (const int64_t v : pinned_or(pinned, sizes)) {
    if (stopped_) return;
    s_.virtual_pipeline_model_parallel_size = v;
    // One GPU type: Megatron-LM's even split where the layers divide, else an uneven one that
    // the leaf balances (Megatron-LM --pipeline-model-parallel-layout); mixed GPU types: always
    // balanced at the leaf.
    if (pins_.pipeline_stage_layers) {
      s_.pipeline_stage_layers = *pins_.pipeline_stage_layers;
    } else if (mixed_) {
      s_.pipeline_stage_layers.clear();
    } else {
      s_.pipeline_stage_layers = standard_split(model_.num_layers, p, v);
    }
    split_at_leaf_ = !pins_.pipeline_stage_layers && s_.pipeline_stage_layers.empty();
    if (rules_hold(Level::virtual_pipeline)) stage_gpus_level();
  }
}

// One GPU type takes every stage; a mixed cluster tries every composition of stage counts
// within the caps, in contiguous blocks, in every order of up to three types (more: slowest to
// fastest and back, so that the LM head's stage gets the fastest or the slowest type).
void Searcher::stage_gpus_level() {
  const int64_t p = s_.pipeline_model_parallel_size;
  const int64_t stage_gpus = s_.gpus_per_stage(data_parallel());
  const auto next = [&] {
    if (rules_hold(Level::stage_gpus)) micro_batch_level();
  };
  if (pins_.pipeline_stage_gpus) {
    s_.pipeline_stage_gpus = *pins_.pipeline_stage_gpus;
    for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
      const int64_t used =
          stage_gpus * std::count(s_.pipeline_stage_gpus.begin(), s_.pipeline_stage_gpus.end(),
                                  static_cast<int>(pool));
      if (used > cluster_.pools[pool].count) {
        reject("the pinned stages need more GPUs of a type than the cluster has",
               "pipeline_stage_gpus use " + std::to_string(used) + " " +
                   cluster_.pools[pool].gpu.id + " GPUs; the cluster has " +
                   std::to_string(cluster_.pools[pool].count));
        return;
      }
    }
    next();
    return;
  }
  if (!mixed_) {
    s_.pipeline_stage_gpus.assign(static_cast<size_t>(p), 0);
    next();
    return;
  }
  for_each_stage_composition(cluster_, p, stage_gpus, [&](const std::vector<int64_t>& counts) {
    std::vector<int> order;
    for (size_t pool = 0; pool < counts.size(); ++pool) {
      if (counts[pool] > 0) order.push_back(static_cast<int>(pool));
    }
    const auto place = [&] {
      if (stopped_) return;
      s_.pipeline_stage_gpus.clear();
      for (const int pool : order) {
        s_.pipeline_stage_gpus.insert(s_.pipeline_stage_gpus.end(),
                                      static_cast<size_t>(counts[static_cast<size_t>(pool)]), pool);
      }
      next();
    };
    if (order.size() <= 3) {
      do place();
      while (std::next_permutation(order.begin(), order.end()));
      return;
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      return cluster_.pools[static_cast<size_t>(a)].gpu.tensor_flops(training_.precision) <
             cluster_.pools[static_cast<size_t>(b)].gpu.tensor_flops(training_.precision);
    });
    place();
    std::reverse(order.begin(), order.end());
    place();
  });
}

// Memory grows with the micro-batch: once no leaf of one size fits, larger sizes are only
// counted.
void Searcher::micro_batch_level() {
  const std::vector<int64_t>& sizes = micro_batch_sizes_;
  begin_size_floors();
  if (every_size_bounded(sizes)) {
    count_micro_batch_sizes(sizes);
    return;
  }
  Walk walk = Walk::evaluate;
  for (const int64_t mbs : sizes) {
    if (stopped_) return;
    s_.micro_batch_size = mbs;
    micro_batches_ = num_micro_batches(rule_context_, s_);
    micro_batch_fits_ = false;
    if (!rules_hold(Level::micro_batch)) continue;
    if (audit_ != nullptr) audit_micro_batch_floor_s_ = micro_batch_bound_s();
    // Where no shape of this size can beat the N-th best, every shape the rules keep is only
    // counted, as its own bound would (and left unknown to the walk, as that bound leaves it).
    const bool kept = walk == Walk::evaluate && micro_batch_bound_prunes()
                          ? layer_shape_level(Walk::count)
                          : layer_shape_level(walk);
    if (!kept && !options_.exhaustive) walk = Walk::count;
  }
}

// Whether the micro-batch bound rules out every size of this layout that the micro-batch rules
// keep: then the loop above only counts, whatever each size's shapes keep (nothing it counts
// changes the N-th best). Quiet: the sizes' rules are tallied by the count.
bool Searcher::every_size_bounded(const std::vector<int64_t>& sizes) {
  if (!shape_floor_usable_ || !size_count_shared_ || options_.exhaustive || !top_.full() ||
      stopped_) {
    return false;
  }
  // The bound reads no key of the layouts below the pipeline size (m / stages is the global
  // batch over the tensor, context and micro-batch sizes and all the GPUs), and the N-th best
  // only improves: where it rules out every size whatever the rules, it does for every layout of
  // this pipeline size (asked once, at its first layout).
  if (sizes_bounded_ == Bounded::unknown) {
    sizes_bounded_ = Bounded::no;
    if (floor_reads_above_layouts_ && std::all_of(sizes.begin(), sizes.end(), [&](int64_t mbs) {
          s_.micro_batch_size = mbs;
          micro_batches_ = num_micro_batches(rule_context_, s_);
          return micro_batch_bound_s() >= top_.worst_s();
        })) {
      sizes_bounded_ = Bounded::yes;
    }
  }
  if (sizes_bounded_ == Bounded::yes) return true;
  for (const int64_t mbs : sizes) {
    s_.micro_batch_size = mbs;
    micro_batches_ = num_micro_batches(rule_context_, s_);
    if (rules_hold_quietly(Level::micro_batch) && micro_batch_bound_s() < top_.worst_s()) {
      return false;
    }
  }
  return true;
}

// The loop of micro_batch_level where every size is only counted, walked once per distinct value
// of the keys it reads and does not write (sizes_reads_) and replayed after: its leaves, the
// rejections it tallied (each already has its example) and the keys it left in `s_`.
void Searcher::count_micro_batch_sizes(const std::vector<int64_t>& sizes) {
  fill_key(sizes_reads_, sizes_key_);
  if (const SizesCount* found = sizes_counts_.find(sizes_key_)) {
    const SizesCount& count = *found;
    stats_.pruned += count.leaves;
    for (const auto& [rejection, times] : count.rejections) rejection->count += times;
    s_.micro_batch_size = count.last_size;
    micro_batches_ = count.last_micro_batches;
    micro_batch_fits_ = false;
    if (count.shapes != nullptr) restore_loop_keys(*count.shapes);
    return;
  }
  sizes_snapshot_.clear();  // the tallies before the walk, in the map's order
  for (auto& [why, rejection] : rejections_)
    sizes_snapshot_.emplace_back(&rejection, rejection.count);
  const int64_t pruned = stats_.pruned;
  SizesCount count;
  if (!walk_micro_batch_sizes(sizes, count.shapes)) return;  // cut short: nothing to keep
  count.leaves = stats_.pruned - pruned;
  added_rejections(sizes_snapshot_, count.rejections);
  count.last_size = s_.micro_batch_size;
  count.last_micro_batches = micro_batches_;
  sizes_counts_.emplace(sizes_key_, std::move(count));
}

// The loop itself: the shape loop's count reads no micro-batch key (size_count_shared_), so each
// size the rules keep adds the first one's count again. `shapes`: that count (none where no size
// kept the rules). False where the walk was cut short.
bool Searcher::walk_micro_batch_sizes(const std::vector<int64_t>& sizes, const LoopCount*& shapes) {
  shapes = nullptr;
  int64_t repeats = 0;
  for (const int64_t mbs : sizes) {
    s_.micro_batch_size = mbs;
    micro_batches_ = num_micro_batches(rule_context_, s_);
    micro_batch_fits_ = false;
    if (!rules_hold(Level::micro_batch)) continue;
    if (shapes != nullptr) {
      ++repeats;
      continue;
    }
    count_layer_shapes();
    shapes = loop_counts_.find(loop_key_);
    if (shapes == nullptr) return false;
  }
  if (shapes == nullptr) return true;
  stats_.pruned += repeats * shapes->leaves;
  for (const auto& [rejection, times] : shapes->rejections) rejection->count += repeats * times;
  return true;
}

// Whether the lower bound (with the recompute settings' own work, once they are decided) rules
// the subtree out: no strategy below it can enter the top N.
bool Searcher::bound_prunes(bool recompute) const {
  return !options_.exhaustive && top_.full() && lower_bound_s(recompute) >= top_.worst_s();
}

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
    // left unknown) elsewhere: whether it fits decides if larger sizes are walked (below).
    // Where some stage's activations alone exceed its memory, nothing below fits (once something
    // is ranked: a search where nothing fits names its closest miss).
    if (walk == Walk::evaluate && !options_.exhaustive && top_.best() != nullptr &&
        memory_bound_exact(fit_pool) && activations_overflow(fit_pool)) {
      zero_level(Walk::count, fit_pool);
      return false;
    }
    if (walk == Walk::evaluate && micro_batch_fits_ && bound_prunes(true)) {
      zero_level(Walk::count, fit_pool);
      return true;
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
    if (!rules_hold(Level::zero)) continue;
    if (walk == Walk::evaluate && static_memory_overflows(fit_pool)) {
      ++stats_.pruned;  // a leaf that cannot fit: counted, as the micro-batch walk sees it
      continue;
    }
    if (walk == Walk::evaluate && audit_ == nullptr &&
        (leaf_memory_overflows() || split_memory_overflows())) {
      ++stats_.pruned;  // no group's floor fits, for this leaf or its offload variants
      continue;
    }
    any_fit_or_unknown |= leaf(walk, fit_pool);
  }
  return any_fit_or_unknown;
}

// A complete strategy: counted, or given its last keys and estimated. True when it fits in
// memory or failed for another reason than memory.
bool Searcher::leaf(Walk walk, int fit_pool) {
  if (walk == Walk::count) {
    ++stats_.pruned;
    return true;
  }
  if (fit_pool < 0) return split_and_evaluate(-1);
  // Each leaf starts from the recompute level's block count, not the count the previous leaf
  // fitted: its layer split reads the count, so a leaf must not depend on the order of leaves.
  Recompute& block = s_.recompute[static_cast<size_t>(fit_pool)];
  const int64_t kept = block.num_layers;
  const bool fits_or_other = split_and_evaluate(fit_pool);
  block.num_layers = kept;
  return fits_or_other;
}

// A leaf's last keys (its layer split where the leaf chooses it, its block recompute depth), then
// its estimate.
bool Searcher::split_and_evaluate(int fit_pool) {
  if (split_at_leaf_ && !split_layers()) {
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
  return evaluate();
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

SearchResult Searcher::run() {
  tensor_level();
  stats_.complete = !stopped_;
  stats_.space = stats_.evaluated + stats_.pruned;
  SearchResult result;
  result.strategies = ranked_rows(false);
  for (auto& [family, strategy] : top_.family_bests()) {
    Report report = estimate_on_used_gpus(strategy);
    if (report.feasible) {
      result.family_bests.push_back({family, {strategy, std::move(report), false, ""}, 0});
    }
  }
  finish_order(result, options_.allow_at_risk);
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  result.stats = stats_;
  if (result.strategies.empty() && stats_.complete) result.diagnosis = diagnosis();
  return result;
}

}  // namespace paraplan::detail

namespace paraplan {

SearchResult search(const Scenario& scenario, const SearchOptions& options) {
  return detail::Searcher(scenario, options).run();
}

namespace detail {

SearchResult search_audited(const Scenario& scenario, const SearchOptions& options,
                            MemoryBoundAudit& audit) {
  return Searcher(scenario, options, &audit).run();
}

}  // namespace detail

}  // namespace paraplan
