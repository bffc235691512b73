// The search's walk over the layouts, in call order (the table in searcher.hpp): tensor, context,
// expert, pipeline, virtual pipeline and stage GPU types, then the micro-batch sizes, counted once
// where their bound rules them all out.
#include <algorithm>
#include <cmath>
#include <span>

#include "search/candidates.hpp"
#include "search/first_rows_probe.hpp"
#include "search/prefilters.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;

}  // namespace

void Searcher::tensor_level() {
  // Tensor parallelism stays inside the smallest NVLink domain of the cluster's GPU types (72
  // GPUs of a GB200 NVL72 rack, not the 4 of one host).
  const std::vector<int64_t> sizes = pinned_or(
      pins_.get(K::tensor_model_parallel_size),
      divisors(tensor_parallel_limit(cluster_, options_.allow_tensor_parallel_across_nodes)));
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
      const bool dispatches = dispatchers_differ(moe, s_);
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

// bound_prunes(true), its bound computed once per recompute setting (recompute_level resets it):
// the leaves below read it again as the N-th best improves.
bool Searcher::recompute_bound_prunes() {
  if (options_.exhaustive || !std::isfinite(top_.worst_s())) return false;
  if (std::isnan(recompute_bound_s_)) recompute_bound_s_ = lower_bound_s(true);
  return recompute_bound_s_ >= top_.worst_s();
}
}  // namespace paraplan::detail
