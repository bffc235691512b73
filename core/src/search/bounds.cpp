// The search's time bounds (docs/search.md, section 3): the time bound of a layer shape and of its
// recompute settings, and the micro-batch size's floor over its layer shapes. The memory bounds
// are memory_bounds.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "search/searcher.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;

}  // namespace

// The pace (slowest stage) and total work per micro-batch of any split of the model's layers over
// `stages` stages of one GPU type, each layer at its kind's time (`dense_s`, `moe_s`), the first
// stage with the embedding and the last with the LM head: the work is the same for every split
// (each layer runs once), the slowest stage does at least the mean, and some stage holds at least
// ceil(layers / stages) layers, no faster than the cheapest that many layers can be.
std::pair<double, double> Searcher::one_type_split_bound_s(double dense_s, double moe_s,
                                                           double embedding_s, double head_s,
                                                           int64_t stages) const {
  const int64_t layers = model_.num_layers;
  const int64_t moe_layers = moe_layers_in(model_, 0, layers);
  const int64_t dense_layers = layers - moe_layers;
  const double work = static_cast<double>(dense_layers) * dense_s +
                      static_cast<double>(moe_layers) * moe_s + embedding_s + head_s;
  const int64_t most = (layers + stages - 1) / stages;
  const bool dense_cheaper = dense_s <= moe_s;
  const int64_t cheap = std::min(most, dense_cheaper ? dense_layers : moe_layers);
  const double fullest = static_cast<double>(cheap) * std::min(dense_s, moe_s) +
                         static_cast<double>(most - cheap) * std::max(dense_s, moe_s);
  const double pace = std::max(work / static_cast<double>(stages), fullest);
  return {pace, work};
}

// The time of a pass's forward and backward.
double Searcher::forward_backward_s(const PassTime& forward, const PassTime& backward) {
  return forward.total_s() + backward.total_s();
}

// One layer of a kind (`moe`) on stage `i`'s GPU type, recompute included where asked.
// Each layer's passes at least the host's time to issue them (stage_work's host bound: the
// CUDA graph keys it reads are the ZeRO level's fixed ones, set in s_ from the start).
double Searcher::bound_layer_s(size_t i, bool moe, bool recompute) const {
  const Strategy& s = s_;
  const auto pool = static_cast<size_t>(s.pipeline_stage_gpus[i]);
  const LayerCost& l = moe ? pool_costs_[pool]->moe : pool_costs_[pool]->dense;
  return layer_passes_s(*pool_costs_[pool], moe, s) +
         (recompute ? layer_recompute_floor_s(l, s.recompute[pool], framework_) : 0.0);
}

// The embedding's passes on the first stage `i`, the LM head's on the last.
double Searcher::bound_edges_s(size_t i) const {
  const Strategy& s = s_;
  const size_t stages = s.pipeline_stage_gpus.size();
  const ModelCosts& c = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus[i])];
  return (i == 0 ? forward_backward_s(c.embedding.forward, c.embedding.backward) : 0.0) +
         (i + 1 == stages ? forward_backward_s(c.head.forward, c.head.backward) : 0.0);
}

// Block recompute redoes the first num_layers layers of each of a stage's v chunks:
// min(num_layers x v, layers) layers' forwards (stage_work), at the stage's mean forward, so at
// least the cheapest kind's forward each (block_forward_s); the recompute level's num_layers is
// the least the leaf fits (1) or the pinned count. Uniform and selective are per layer
// (bound_layer_s).
double Searcher::block_layers(size_t i, int64_t layers) const {
  const Strategy& s = s_;
  const Recompute& r = s.recompute[static_cast<size_t>(s.pipeline_stage_gpus[i])];
  return static_cast<double>(
      std::min(r.num_layers * s.virtual_pipeline_model_parallel_size, layers));
}

double Searcher::block_forward_s(size_t i, bool recompute) const {
  const Strategy& s = s_;
  const auto pool = static_cast<size_t>(s.pipeline_stage_gpus[i]);
  const Recompute& r = s.recompute[pool];
  if (!recompute || r.granularity != RecomputeGranularity::full ||
      r.method != RecomputeMethod::block) {
    return 0.0;
  }
  // Multi-token-prediction depths run on the last stage as layers of either kind.
  const ModelCosts& c = *pool_costs_[pool];
  const int64_t moe_layers = model_.num_moe_layers();
  const bool any_kind = model_.mtp_num_layers > 0;
  double forward_s = std::numeric_limits<double>::infinity();
  if (any_kind || model_.num_layers > moe_layers) forward_s = c.dense.forward.total_s();
  if (any_kind || moe_layers > 0) forward_s = std::min(forward_s, c.moe.forward.total_s());
  return forward_s;
}

// Pace (slowest stage) and total work of all stages per micro-batch of a fixed split: each
// stage's dense and MoE layers as estimated.
std::pair<double, double> Searcher::fixed_split_bound_s(bool recompute) const {
  const Strategy& s = s_;
  const size_t stages = s.pipeline_stage_gpus.size();
  double pace = 0, work = 0;
  int64_t first_layer = 0;
  for (size_t i = 0; i < stages; ++i) {
    const int64_t layers = s.pipeline_stage_layers[i];
    const int64_t moe_layers = moe_layers_in(model_, first_layer, layers);
    first_layer += layers;
    const double stage =
        static_cast<double>(layers - moe_layers) * bound_layer_s(i, false, recompute) +
        static_cast<double>(moe_layers) * bound_layer_s(i, true, recompute) + bound_edges_s(i) +
        block_layers(i, layers) * block_forward_s(i, recompute);
    pace = std::max(pace, stage);
    work += stage;
  }
  return {pace, work};
}

// The same for a split still to choose on one GPU type (one_type_split_bound_s).
std::pair<double, double> Searcher::one_type_leaf_split_bound_s(bool recompute) const {
  const Strategy& s = s_;
  const size_t stages = s.pipeline_stage_gpus.size();
  const ModelCosts& c = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus.front())];
  const auto [pace_s, work_s] = one_type_split_bound_s(
      bound_layer_s(0, false, recompute), bound_layer_s(0, true, recompute),
      forward_backward_s(c.embedding.forward, c.embedding.backward),
      forward_backward_s(c.head.forward, c.head.backward), static_cast<int64_t>(stages));
  double pace = pace_s;
  double work = work_s;
  // Every stage holds a layer (balanced_split): block recompute redoes at least
  // min(num_layers x v, layers - stages + 1) layers on one stage and one on each other.
  const int64_t layers = model_.num_layers;
  if (layers >= static_cast<int64_t>(stages)) {
    work += (block_layers(0, layers - static_cast<int64_t>(stages) + 1) +
             static_cast<double>(stages - 1)) *
            block_forward_s(0, recompute);
    pace = std::max(pace, work / static_cast<double>(stages));
  }
  return {pace, work};
}

// The same for a split still to choose on mixed GPU types: a perfectly balanced continuous
// split, least work.
std::pair<double, double> Searcher::mixed_split_bound_s(bool recompute) const {
  const size_t stages = s_.pipeline_stage_gpus.size();
  // A stage's layer time depends only on its GPU type: computed once per type (NaN: not yet).
  std::vector<double>& pool_layer_s = pool_layer_s_;
  pool_layer_s.assign(cluster_.pools.size(), std::numeric_limits<double>::quiet_NaN());
  const auto layer_s = [&](size_t i) {
    double& known = pool_layer_s[static_cast<size_t>(s_.pipeline_stage_gpus[i])];
    if (std::isnan(known)) {
      known = std::min(bound_layer_s(i, false, recompute), bound_layer_s(i, true, recompute));
    }
    return known;
  };
  double pace = 0, work = 0;
  double rate = 0, fixed = 0, fastest_layer = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < stages; ++i) {
    rate += 1 / layer_s(i);
    fixed += bound_edges_s(i) / layer_s(i);
    fastest_layer = std::min(fastest_layer, layer_s(i));
    work += bound_edges_s(i);
  }
  pace = (static_cast<double>(model_.num_layers) + fixed) / rate;
  work = std::max(pace, work + static_cast<double>(model_.num_layers) * fastest_layer);
  return {pace, work};
}

// A lower bound on the iteration time for every recompute and ZeRO choice of a layer shape:
// the pipeline with each layer's compute and in-layer communication (tensor, context, expert
// parallel), which neither choice removes, and none of point-to-point, data parallel or
// optimizer time. With `recompute` (the recompute settings decided), each layer's backward also
// redoes at least what its recompute setting redoes (layer_recompute_floor_s).
double Searcher::lower_bound_s(bool recompute) const {
  // Pace (slowest stage) and total work of all stages per micro-batch.
  const auto [pace, work] = !split_at_leaf_ ? fixed_split_bound_s(recompute)
                            : !mixed_       ? one_type_leaf_split_bound_s(recompute)
                                            : mixed_split_bound_s(recompute);
  // m paces, plus filling and draining the other stages' work (as evaluate_pipeline).
  return static_cast<double>(micro_batches()) * pace +
         (work - pace) / static_cast<double>(s_.virtual_pipeline_model_parallel_size);
}

// What the least shape work reads above the layer shape level: the per-layer costs' keys and the
// CUDA graph keys the host bound reads, less the keys the level writes; and the layer shape's
// rules that read no other key (a rule that also reads, say, the pipeline's size is left out, so
// that the least is over more shapes, and the same for every pipeline layout). Only on one GPU
// type, where the level's framework fits read no other key either.
void Searcher::init_shape_floors() {
  const auto shape = static_cast<size_t>(Level::layer_shape);
  const KeySet written = keys_decided_at(Level::layer_shape, leaf_splits_layers_);
  KeySet known = written | KeySet{K::cuda_graph_impl, K::cuda_graph_scope};
  for (const StrategyKey& key : strategy_keys()) {
    if (key.layer_cost) known = known | KeySet{key.id};
  }
  for (const Rule* rule : rules_at_[shape]) {
    if (rule->reads.subset_of(known)) shape_floor_rules_.push_back(rule);
  }
  for (const FrameworkRule* rule : framework_rules_at_[shape]) {
    if (rule->reads.subset_of(known)) shape_floor_framework_rules_.push_back(rule);
  }
  bool fits_known = true;
  for (const StrategyKeyId key : kFittedShapeSwitches) {
    for (const FrameworkRule* rule : framework_rules_reading_[static_cast<size_t>(key)]) {
      fits_known &= rule->reads.subset_of(known);
    }
  }
  for (const StrategyKey& key : strategy_keys()) {
    if (known.contains(key.id) && !written.contains(key.id)) shape_floor_reads_.push_back(key.id);
  }
  shape_floor_usable_ = !mixed_ && fits_known;
  // Keys that hold one value while a layout's micro-batch sizes are walked: those decided above
  // the micro-batch level and the ZeRO level's fixed ones (set once, constructor).
  KeySet above;
  for (size_t level = 0; level < static_cast<size_t>(Level::micro_batch); ++level) {
    above = above | keys_decided_at(static_cast<Level>(level), leaf_splits_layers_);
  }
  for (const auto& [row, value] : zero_pins_.fixed) above = above | KeySet{row->id};
  KeySet above_layouts = KeySet{K::micro_batch_size};  // and those above the layouts
  for (size_t level = 0; level <= static_cast<size_t>(Level::pipeline); ++level) {
    above_layouts = above_layouts | keys_decided_at(static_cast<Level>(level), leaf_splits_layers_);
  }
  for (const auto& [row, value] : zero_pins_.fixed) above_layouts = above_layouts | KeySet{row->id};
  size_floors_usable_ = true;
  floor_reads_above_layouts_ = true;
  for (const StrategyKeyId key : shape_floor_reads_) {
    floor_reads_above_layouts_ &= above_layouts.contains(key);
    if (key == K::micro_batch_size) continue;
    size_floor_reads_.push_back(key);
    size_floors_usable_ &= above.contains(key);
  }
  size_count_shared_ =
      std::find(loop_reads_.begin(), loop_reads_.end(), K::micro_batch_size) == loop_reads_.end();
  init_sizes_reads();
}

// What a layout's counted micro-batch loop reads (count_micro_batch_sizes).
void Searcher::init_sizes_reads() {
  // A layout's counted micro-batch loop reads, besides the shape loop's keys, those of the
  // micro-batch rules and the data parallel size its candidates and micro-batches follow (tensor,
  // context, pipeline); it writes the size.
  const auto sizes = static_cast<size_t>(Level::micro_batch);
  KeySet sizes_reads = {K::tensor_model_parallel_size, K::context_parallel_size,
                        K::pipeline_model_parallel_size};
  for (const StrategyKeyId key : loop_reads_) sizes_reads = sizes_reads | KeySet{key};
  for (const Rule* rule : rules_at_[sizes]) sizes_reads = sizes_reads | rule->reads;
  for (const FrameworkRule* rule : framework_rules_at_[sizes]) {
    sizes_reads = sizes_reads | rule->reads;
  }
  for (const StrategyKey& key : strategy_keys()) {
    if (sizes_reads.contains(key.id) && key.id != K::micro_batch_size) {
      sizes_reads_.push_back(key.id);
    }
  }
}

// Starts a layout's micro-batch sizes: their floors are kept while the keys they read above the
// size are those of the last layout (the same shapes recur under every pipeline layout).
void Searcher::begin_size_floors() {
  if (!size_floors_usable_) return;
  fill_key(size_floor_reads_, size_floor_scratch_);
  if (size_floor_scratch_ == size_floor_key_) return;
  size_floor_key_.swap(size_floor_scratch_);
  size_floors_.clear();
}

// A lower bound on the time of every strategy of this micro-batch size, on one GPU type (0
// elsewhere): each shape's bound (lower_bound_s: m paces plus the fill and drain) is at least
// m x work / stages, the slowest stage doing at least the mean, and its work at least the least
// shape work, which depends only on keys decided above the shape (cached by their values: the
// same shapes recur under every pipeline layout).
double Searcher::micro_batch_bound_s() {
  if (!shape_floor_usable_) return 0;
  const auto bound_s = [&](double least_work_s) {
    return static_cast<double>(micro_batches()) * least_work_s /
           static_cast<double>(s_.pipeline_model_parallel_size);
  };
  if (size_floors_usable_) {
    for (const auto& [mbs, least_work_s] : size_floors_) {
      if (mbs == s_.micro_batch_size) return bound_s(least_work_s);
    }
  }
  fill_key(shape_floor_reads_, shape_floor_key_);
  double least_work_s = 0;
  if (const double* found = shape_work_floors_.find(shape_floor_key_)) {
    least_work_s = *found;
  } else {
    least_work_s = least_shape_work_s();
    shape_work_floors_.emplace(shape_floor_key_, least_work_s);
  }
  if (size_floors_usable_) size_floors_.emplace_back(s_.micro_batch_size, least_work_s);
  return bound_s(least_work_s);
}

// Whether no layer shape of this micro-batch size can beat the N-th best.
bool Searcher::micro_batch_bound_prunes() {
  return shape_floor_usable_ && !options_.exhaustive && top_.full() &&
         micro_batch_bound_s() >= top_.worst_s();
}

}  // namespace paraplan::detail
