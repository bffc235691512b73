// The search's memory bounds (docs/search.md, section 3): they count subtrees and leaves that
// cannot fit (activations, mean state, each group's floor, the split's floor), with their audit.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "model/memory_reserve.hpp"
#include "search/prefilters.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {

// The activations one GPU of `group` holds at its peak (stage_memory's activations, without the
// CUDA graphs' buffers): no ZeRO-level choice changes them, and every other term of the peak is
// at least zero.
double Searcher::group_activation_bytes(const PipelineInput& input, const StageGroup& group,
                                        const StageWork& work) const {
  const int64_t v = s_.virtual_pipeline_model_parallel_size;
  const double in_flight = in_flight_micro_batches(group.first, input.stages, v, micro_batches());
  return held_activation_bytes(s_, work, in_flight);
}

// Whether no strategy below the recompute level fits in GPU memory, whatever the ZeRO level and
// the leaf choose: some stage's activations alone exceed what the stage may use. Where the
// layers are split, each group's activations as the estimate computes them (a pool whose block
// recompute the leaf fits at either end of its range: its activations are affine in the layers
// it recomputes); where the leaf splits them, each stage's activations are at least its layers
// times the least a layer stores (recompute none or selective: linear in the layers), so no split
// fits when the stages cannot hold the model's layers between them.
bool Searcher::activations_overflow(int fit_pool) {
  split_floors_valid_ = false;
  // Offloading activations by layer (a variant the evaluation tries without pipelining) lowers
  // them: each group's floor then counts none (its state alone).
  const bool offloads_layers = layer_offload_allowed(s_) && layer_offload_variant_;
  // The keys the ZeRO level sets as pinned or to their defaults, as it will; the stage it
  // chooses changes only the works' sharded-state traffic (time), so none is priced here.
  for (const auto& [row, value] : zero_pins_.fixed) row->set(s_, 0, value);
  s_.zero_stage = 0;
  if (s_.cpu_offloading_num_layers > 0) return false;
  PipelineInput input = margined_input(s_);
  if (!split_at_leaf_) return group_activations_overflow(input, fit_pool, offloads_layers);
  return split_activations_overflow(input, offloads_layers);
}

// activations_overflow where the layers are split: each group's activations as the estimate
// computes them, the least of either end of the fitted block recompute's range (group_floors_).
bool Searcher::group_activations_overflow(PipelineInput& input, int fit_pool,
                                          bool offloads_layers) {
  const auto usable = [&](int pool) {
    return input.usable_bytes(cluster_.pools[static_cast<size_t>(pool)].gpu.hbm_bytes) +
           miss_slack_bytes_;
  };
  group_stages(s_.pipeline_stage_gpus, s_.pipeline_stage_layers, model_, groups_);
  input.groups = groups_;
  // fit_block_layers' range of block-recomputed layers: 1 to a chunk less one.
  Recompute* block = fit_pool >= 0 ? &s_.recompute[static_cast<size_t>(fit_pool)] : nullptr;
  const int64_t kept = block ? block->num_layers : 0;
  const int64_t most = std::max<int64_t>(
      1, *std::min_element(s_.pipeline_stage_layers.begin(), s_.pipeline_stage_layers.end()) /
                 s_.virtual_pipeline_model_parallel_size -
             1);
  bool overflow = false;
  group_floors_.clear();
  for (const StageGroup& group : groups_) {
    if (block) block->num_layers = 1;
    // The group's parameters do not depend on recompute: one work serves the floor.
    StageWork work = stage_work(input, group);
    double bytes = offloads_layers ? 0.0 : group_activation_bytes(input, group, work);
    if (block && !offloads_layers) {
      block->num_layers = most;
      bytes = std::min(bytes, group_activation_bytes(input, group, stage_work(input, group)));
    }
    group_floors_.push_back({group, bytes, std::move(work)});
    if (bytes > usable(group.pool)) {
      overflow = true;
      break;
    }
  }
  if (block) block->num_layers = kept;
  group_floors_valid_ = !overflow;
  return overflow;
}

// activations_overflow where the leaf splits the layers: the least a layer stores per
// micro-batch on each GPU type, one layer more in a middle stage (split_floors_), against the
// room of the stages (split_room_short).
bool Searcher::split_activations_overflow(const PipelineInput& input, bool offloads_layers) {
  const int64_t stages = s_.pipeline_model_parallel_size;
  if (offloads_layers) return false;
  if (model_.num_layers < stages) return false;  // the leaf rejects the split
  const int64_t middle = stages > 2 ? 1 : 0;
  split_floors_.assign(cluster_.pools.size(), SplitFloor{});
  for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
    if (std::find(s_.pipeline_stage_gpus.begin(), s_.pipeline_stage_gpus.end(),
                  static_cast<int>(pool)) == s_.pipeline_stage_gpus.end()) {
      continue;
    }
    if (!set_split_floor(input, pool, middle)) return false;
  }
  split_floors_valid_ = true;
  return split_room_short(input, nullptr);
}

// GPU type `pool`'s split floor: the works of a middle stage of one and two layers of each kind
// and the least one more layer stores. False where there is none (full recompute by blocks, or
// a layer that stores nothing more).
bool Searcher::set_split_floor(const PipelineInput& input, size_t pool, int64_t middle) {
  // Full recompute stores each layer's input where it recomputes one layer at a time (uniform,
  // one layer: linear in the layers), not by blocks of layers.
  const Recompute& recompute = s_.recompute[pool];
  if (recompute.granularity == RecomputeGranularity::full &&
      (recompute.method != RecomputeMethod::uniform || recompute.num_layers != 1)) {
    return false;
  }
  SplitFloor& floor = split_floors_[pool];
  floor.activation_bytes = std::numeric_limits<double>::infinity();
  for (const int64_t moe : {int64_t{0}, int64_t{1}}) {
    if (moe == 1 ? model_.num_moe_layers() == 0 : model_.num_moe_layers() == model_.num_layers) {
      continue;
    }
    const int p = static_cast<int>(pool);
    SplitFloor::Kind& kind = floor.kinds[static_cast<size_t>(moe)];
    kind.used = true;
    kind.one_group = {p, middle, 1, 1, moe};
    kind.two_group = {p, middle, 1, 2, 2 * moe};
    kind.one = stage_work(input, kind.one_group);
    kind.two = stage_work(input, kind.two_group);
    kind.activation_bytes = kind.two.stored_activation_bytes - kind.one.stored_activation_bytes;
    floor.activation_bytes = std::min(floor.activation_bytes, kind.activation_bytes);
  }
  return floor.activation_bytes > 0;
}

// Whether the stages cannot hold the model's layers between them, each layer storing at least
// its GPU type's least activations per micro-batch in flight (split_floors_) and, with
// `static_layer_bytes` (per GPU type and layer kind), holding at least that much weights,
// gradients and optimizer state: every layer at its GPU type's least kind, or the layers of one
// kind alone at that kind's (a stage's layers of the other kind only add to its memory).
bool Searcher::split_room_short(const PipelineInput& input,
                                const std::vector<KindBytes>* static_layer_bytes) const {
  if (kind_room_short(input, static_layer_bytes, -1, model_.num_layers)) return true;
  const int64_t moe_layers = moe_layers_in(model_, 0, model_.num_layers);
  const int64_t kind_layers[] = {model_.num_layers - moe_layers, moe_layers};
  for (const int kind : {0, 1}) {
    if (kind_layers[kind] == 0 || kind_layers[kind] == model_.num_layers) continue;
    if (kind_room_short(input, static_layer_bytes, kind, kind_layers[kind])) return true;
  }
  return false;
}

// Whether the stages cannot hold `layers` layers of `kind` (-1: each at its GPU type's least
// kind) between them (split_room_short).
bool Searcher::kind_room_short(const PipelineInput& input,
                               const std::vector<KindBytes>* static_layer_bytes, int kind,
                               int64_t layers) const {
  const int64_t stages = s_.pipeline_model_parallel_size;
  const int64_t v = s_.virtual_pipeline_model_parallel_size;
  int64_t room = 0;  // layers the stages can hold between them
  for (int64_t i = 0; i < stages && room < layers; ++i) {
    const auto pool = static_cast<size_t>(s_.pipeline_stage_gpus[static_cast<size_t>(i)]);
    const SplitFloor& floor = split_floors_[pool];
    const double in_flight = in_flight_micro_batches(i, stages, v, micro_batches());
    double layer_bytes = std::numeric_limits<double>::infinity();
    for (const int k : {0, 1}) {
      const SplitFloor::Kind& at = floor.kinds[static_cast<size_t>(k)];
      if (!at.used || (kind >= 0 && k != kind)) continue;
      layer_bytes =
          std::min(layer_bytes, in_flight * at.activation_bytes +
                                    (static_layer_bytes ? (*static_layer_bytes)[pool][k] : 0.0));
    }
    // The expert-parallel overlap holds one more layer's activations (held_activation_bytes).
    const double overlap_bytes = s_.overlap_moe_expert_parallel_comm ? floor.activation_bytes : 0.0;
    const double held = (input.usable_bytes(cluster_.pools[pool].gpu.hbm_bytes) +
                         miss_slack_bytes_ - overlap_bytes) /
                        layer_bytes;
    if (held < 1) return true;  // not even one layer
    room += static_cast<int64_t>(std::min(std::floor(held), static_cast<double>(layers)));
  }
  return room < layers;
}

// The weights, gradients and optimizer state of one GPU of a stage, averaged over the stages,
// at most: stage_memory's for one group of every layer (the LM head left out), divided by the
// stages. Without sharded weights or gradients (ZeRO 0 and 1) each term is linear in the
// stage's parameters, with nothing subtracted, so the stages' terms add up to at least this
// group's and the fullest stage holds at least their mean.
double Searcher::mean_static_bytes(const PipelineInput& input) {
  const int64_t layers = model_.num_layers;
  const StageGroup all{0, 0, 1, layers, moe_layers_in(model_, 0, layers)};
  // Its parameters depend on the layer shape alone: one work for every leaf below the recompute
  // level.
  if (!all_layers_work_valid_) {
    all_layers_work_ = stage_work(input, all);
    all_layers_work_valid_ = true;
  }
  const StageMemory memory = stage_memory(input, all, all_layers_work_, 0);
  return (memory.weights_bytes + memory.gradients_bytes + memory.optimizer_bytes) /
         static_cast<double>(input.stages);
}

// Whether this leaf and the offloading variants the evaluation would try (the optimizer on the
// CPU) cannot fit on one GPU type: the mean of the stages' weights, gradients and optimizer
// state alone exceeds what a GPU may use. Only where the bound is exact for the micro-batch walk
// (memory_bound_exact_), once something is ranked, for ZeRO 0 and 1, not where MindSpeed's
// parameter-copy reuse may follow. Block recompute does not change these terms.
bool Searcher::static_memory_overflows(int fit_pool) {
  if (options_.exhaustive || mixed_ || top_.best() == nullptr || reuse_fp32_param_variant_ ||
      !memory_bound_exact(fit_pool)) {
    return false;
  }
  const int64_t dp_cp = data_parallel() * s_.context_parallel_size;
  if (dp_cp > 1 && s_.zero_stage > 1) return false;
  // A split the leaf cannot make is rejected there, not for memory.
  if (split_at_leaf_ && model_.num_layers < s_.pipeline_model_parallel_size) return false;
  PipelineInput input = pipeline_input(model_, training_, cluster_, s_, data_parallel(),
                                       micro_batches(), s_.pipeline_model_parallel_size);
  input.costs = pool_costs_;
  input.framework = framework_;
  const double usable = input.usable_bytes(cluster_.pools.front().gpu.hbm_bytes);
  // These terms read the layer shape, the ZeRO level's keys and the parameters, not the recompute
  // settings (nor the block count): once per layer shape, ZeRO stage (0 or 1) and variant.
  const size_t zero = dp_cp > 1 ? static_cast<size_t>(s_.zero_stage) : 0;  // as stage_memory
  const auto mean_bytes = [&](size_t variant) {
    double& bytes = shape_static_bytes_[zero][variant];
    if (std::isnan(bytes)) bytes = mean_static_bytes(input);
    return bytes;
  };
  if (!(mean_bytes(0) > usable)) return false;
  const Strategy* offloaded = optimizer_offload_variant();
  if (offloaded == nullptr) return true;  // no optimizer offload variant (evaluate)
  input.strategy = offloaded;
  return mean_bytes(1) > usable;
}

// A group's floor for `input`'s strategy: its least activations (activations_overflow), the
// weights, gradients and optimizer state stage_memory gives its parameters (which no
// ZeRO-level key changes) and the reserve memory_reserve gives those activations without the
// side streams' cache (its fragmentation grows with the activations; the cache is at least
// zero); every other term of the peak is at least zero.
double Searcher::group_floor_bytes(const PipelineInput& input, size_t group) const {
  const GroupFloor& floor = group_floors_[group];
  const StageMemory memory = stage_memory(input, floor.group, floor.work, floor.group.first);
  return floor.activation_bytes + memory.weights_bytes + memory.gradients_bytes +
         memory.optimizer_bytes +
         memory_reserve(input, floor.group, floor.activation_bytes, 0).total_bytes();
}

// Whether some group's floor exceeds what its GPU may use: `strategy` does not fit.
bool Searcher::floors_overflow(const Strategy& strategy) const {
  PipelineInput input = margined_input(strategy);
  for (size_t g = 0; g < group_floors_.size(); ++g) {
    const GpuSpec& gpu = cluster_.pools[static_cast<size_t>(group_floors_[g].group.pool)].gpu;
    if (group_floor_bytes(input, g) > input.usable_bytes(gpu.hbm_bytes) + miss_slack_bytes_) {
      return true;
    }
  }
  return false;
}

// The estimate's input for `strategy` as the search prices it: its cost tables, framework and
// memory margin.
PipelineInput Searcher::margined_input(const Strategy& strategy) const {
  PipelineInput input = pipeline_input(model_, training_, cluster_, strategy, data_parallel(),
                                       micro_batches(), strategy.pipeline_model_parallel_size);
  input.costs = pool_costs_;
  input.framework = framework_;
  input.memory_margin_bytes = options_.memory_margin.bytes;
  input.memory_margin_fraction = options_.memory_margin.fraction;
  return input;
}

// The optimizer-offload variant the leaf's evaluation tries where the leaf does not fit (the
// optimizer on the CPU with the precision-aware optimizer), or none where ZeRO 0 or the pins
// rule it out.
const Strategy* Searcher::optimizer_offload_variant() const {
  if (!optimizer_offload_allowed(s_) || !optimizer_offload_expressible_ ||
      pins_.given(StrategyKeyId::optimizer_cpu_offload) ||
      !pins_.flag(StrategyKeyId::use_precision_aware_optimizer).value_or(true)) {
    return nullptr;
  }
  Strategy& offloaded = offload_variant_;  // into kept capacity: no allocation per leaf
  offloaded = s_;
  offloaded.optimizer_cpu_offload = true;
  offloaded.use_precision_aware_optimizer = true;
  offloaded.overlap_cpu_optimizer_d2h_h2d =
      pins_.flag(StrategyKeyId::overlap_cpu_optimizer_d2h_h2d).value_or(true);
  return &offloaded;
}

// Whether neither this leaf nor the variants its evaluation tries (the optimizer on the CPU;
// not where MindSpeed's parameter-copy reuse may follow, nor without pipelining, where
// activations are offloaded by layer) can fit: the weights, gradients and optimizer state of
// every ZeRO stage (sharded ones included) on top of the least activations. Only where the
// recompute level computed the floors (fixed layer splits, a memory bound exact for the
// micro-batch walk, something ranked).
bool Searcher::leaf_memory_overflows() const {
  if (!group_floors_valid_ || reuse_fp32_param_variant_) return false;
  if (!floors_overflow(s_)) return false;
  const Strategy* offloaded = optimizer_offload_variant();
  return offloaded == nullptr || floors_overflow(*offloaded);
}

// The audit: each group's floor for the estimated `strategy` against its estimated peak.
void Searcher::audit_floors(const Strategy& strategy, bool fits, double time_s) {
  if (audit_ != nullptr && std::isfinite(time_s)) {
    for (const double floor_s : {audit_time_floor_s_, audit_micro_batch_floor_s_}) {
      if (!(floor_s > 0)) continue;
      ++audit_->time_checked;
      if (floor_s > time_s * (1 + 1e-9) && audit_->violations++ == 0) {
        audit_->example = layout_label(strategy) + ": time bound " + std::to_string(floor_s) +
                          " s > estimated " + std::to_string(time_s) + " s";
      }
    }
  }
  if (audit_ != nullptr && split_floors_valid_ && split_at_leaf_ && split_static_short(strategy)) {
    ++audit_->split_checked;
    if (fits && audit_->violations++ == 0) {
      audit_->example = layout_label(strategy) + ": fits, though its layers cannot be split";
    }
  }
  if (audit_ == nullptr || !group_floors_valid_ || results_.size() != group_floors_.size()) return;
  PipelineInput input = pipeline_input(model_, training_, cluster_, strategy, data_parallel(),
                                       micro_batches(), strategy.pipeline_model_parallel_size);
  input.costs = pool_costs_;
  input.framework = framework_;
  for (size_t g = 0; g < group_floors_.size(); ++g) {
    ++audit_->checked;
    const double floor_bytes = group_floor_bytes(input, g);
    const double peak_bytes = results_[g].memory.peak_bytes();
    if (floor_bytes <= peak_bytes * (1 + 1e-12)) continue;
    if (audit_->violations++ == 0) {
      audit_->example = layout_label(strategy) + ", group " + std::to_string(g) + ": floor " +
                        std::to_string(floor_bytes) + " B > peak " + std::to_string(peak_bytes) +
                        " B";
    }
  }
}

// Whether `strategy` (this leaf or its optimizer-offload variant) cannot fit with the layers
// still to split: each layer also holds at least the least weights, gradients and optimizer
// state one more layer of a middle stage adds. Each term is linear in the stage's parameters
// plus what the stage holds once, at least zero and the same for one and two layers of a kind
// (a sharded stage's gathered or whole layer, `unit` in stage_memory, and reduce buckets), so
// the difference is the linear part, whatever the ZeRO stage and framework (FSDP2 with pipelines
// keeps every unit whole).
bool Searcher::split_static_short(const Strategy& strategy,
                                  std::vector<KindBytes>* kept_layer_bytes) const {
  PipelineInput input = margined_input(strategy);
  if (kept_layer_bytes != nullptr && !kept_layer_bytes->empty()) {
    return split_room_short(input, kept_layer_bytes);
  }
  const int64_t middle = input.stages > 2 ? 1 : 0;
  const auto static_bytes = [&](const StageGroup& group, const StageWork& work) {
    const StageMemory memory = stage_memory(input, group, work, middle);
    return memory.weights_bytes + memory.gradients_bytes + memory.optimizer_bytes;
  };
  std::vector<KindBytes> static_layer(cluster_.pools.size(), KindBytes{0.0, 0.0});
  for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
    for (size_t k = 0; k < 2; ++k) {
      const SplitFloor::Kind& kind = split_floors_[pool].kinds[k];
      if (!kind.used) continue;
      static_layer[pool][k] = std::max(
          0.0, static_bytes(kind.two_group, kind.two) - static_bytes(kind.one_group, kind.one));
    }
  }
  if (kept_layer_bytes != nullptr) *kept_layer_bytes = static_layer;
  return split_room_short(input, &static_layer);
}

// Whether neither this leaf nor its optimizer-offload variant can fit any split of the layers
// (split_static_short); not where MindSpeed's parameter-copy reuse may follow.
bool Searcher::split_memory_overflows() const {
  if (!split_floors_valid_ || !split_at_leaf_ || reuse_fp32_param_variant_) return false;
  // The per-layer state reads the layer shape, the ZeRO level's keys and the parameters, not the
  // recompute settings: kept per layer shape, ZeRO stage and variant (the activations are not).
  const auto zero = static_cast<size_t>(std::clamp<int64_t>(s_.zero_stage, 0, 3));
  if (!split_static_short(s_, &shape_split_static_bytes_[zero][0])) return false;
  const Strategy* offloaded = optimizer_offload_variant();
  return offloaded == nullptr ||
         split_static_short(*offloaded, &shape_split_static_bytes_[zero][1]);
}

}  // namespace paraplan::detail
