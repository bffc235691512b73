// The search's leaf: estimating one strategy, the choices only memory settles (a mixed
// cluster's layer split, block recompute depth), and the lower bound that prunes shapes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "search/searcher.hpp"
#include "search/stage_split.hpp"

namespace paraplan::detail {

double Searcher::evaluate_time(bool& fits) {
  group_stages(s_.pipeline_stage_gpus, s_.pipeline_stage_layers, model_, groups_);
  PipelineInput input = pipeline_input(model_, training_, cluster_, s_, data_parallel(),
                                       micro_batches(), s_.pipeline_model_parallel_size);
  input.groups = groups_;
  input.costs = pool_costs_;
  input.memory_margin_bytes = options_.memory_margin.bytes;
  input.memory_margin_fraction = options_.memory_margin.fraction;
  const PipelineResult result = evaluate_pipeline(input, results_);
  tick();
  fits = result.fits;
  if (!fits && result.overflow_bytes < closest_.overflow_bytes) {
    closest_ = {result.overflow_bytes, s_, groups_, results_};
  }
  return result.iteration_time_s;
}

bool Searcher::evaluate() {
  ++stats_.evaluated;
  bool fits = false;
  const double time_s = evaluate_time(fits);
  if (fits && std::isfinite(time_s)) {
    ++stats_.feasible;
    top_.offer(s_, time_s);
  }
  return fits;
}

// Layers per stage for a mixed cluster: balance the stages' times under their memory.
bool Searcher::split_mixed() {
  const Strategy& s = s_;
  const size_t stages = s.pipeline_stage_gpus.size();
  PipelineInput input = pipeline_input(model_, training_, cluster_, s, data_parallel(),
                                       micro_batches(), static_cast<int64_t>(stages));
  input.costs = pool_costs_;
  input.memory_margin_bytes = options_.memory_margin.bytes;
  input.memory_margin_fraction = options_.memory_margin.fraction;
  // Per GPU type, from a middle stage of one and of two layers: time per layer and fixed
  // time, memory per layer and fixed memory (activations scale with in-flight micro-batches).
  struct PerLayer {
    double time_s = 0, fixed_s = 0, stored_bytes = 0, static_bytes = 0, fixed_bytes = 0;
  };
  std::vector<PerLayer> per_pool(cluster_.pools.size());
  const int64_t middle = stages > 2 ? 1 : 0;
  const int64_t moe = model_.num_moe_layers() > 0 ? 1 : 0;
  for (size_t pool = 0; pool < per_pool.size(); ++pool) {
    const int p = static_cast<int>(pool);
    const StageGroup one{p, middle, 1, 1, moe}, two{p, middle, 1, 2, 2 * moe};
    const StageWork w1 = stage_work(input, one), w2 = stage_work(input, two);
    const StageMemory m1 = stage_memory(input, one, w1, middle);
    const StageMemory m2 = stage_memory(input, two, w2, middle);
    PerLayer& l = per_pool[pool];
    l.time_s = w2.per_micro_batch_s() - w1.per_micro_batch_s();
    l.fixed_s = w1.per_micro_batch_s() - l.time_s;
    const double static1 = m1.weights_bytes + m1.gradients_bytes + m1.optimizer_bytes;
    l.static_bytes = m2.weights_bytes + m2.gradients_bytes + m2.optimizer_bytes - static1;
    const double in_flight = in_flight_micro_batches(
        middle, input.stages, s.virtual_pipeline_model_parallel_size, micro_batches());
    // Per in-flight micro-batch and layer: the stored activations and what the allocator's
    // fragmentation adds with them.
    const auto dynamic = [](const StageMemory& m) {
      return m.activations_bytes + m.reserve.fragmentation_bytes;
    };
    l.stored_bytes = (dynamic(m2) - dynamic(m1)) / in_flight;
    l.fixed_bytes = m1.peak_bytes() - l.static_bytes - in_flight * l.stored_bytes;
  }
  const ModelCosts& first = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus.front())];
  const ModelCosts& last = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus.back())];
  std::vector<double> layer_s(stages), fixed_s(stages);
  std::vector<int64_t> max_layers(stages);
  for (size_t i = 0; i < stages; ++i) {
    const int pool = s.pipeline_stage_gpus[i];
    const PerLayer& l = per_pool[static_cast<size_t>(pool)];
    layer_s[i] = l.time_s;
    fixed_s[i] = l.fixed_s;
    if (i == 0)
      fixed_s[i] += first.embedding.forward.total_s() + first.embedding.backward.total_s();
    if (i + 1 == stages) fixed_s[i] += last.head.forward.total_s() + last.head.backward.total_s();
    const double per_layer =
        l.static_bytes + in_flight_micro_batches(static_cast<int64_t>(i), input.stages,
                                                 s.virtual_pipeline_model_parallel_size,
                                                 micro_batches()) *
                             l.stored_bytes;
    const double room =
        input.usable_bytes(cluster_.pools[static_cast<size_t>(pool)].gpu.hbm_bytes) - l.fixed_bytes;
    max_layers[i] = per_layer > 0
                        ? static_cast<int64_t>(std::max(0.0, std::floor(room / per_layer)))
                        : model_.num_layers;
  }
  s_.pipeline_stage_layers = balanced_split(model_.num_layers, layer_s, fixed_s, max_layers);
  return !s_.pipeline_stage_layers.empty();
}

// The fewest block-recomputed layers per virtual chunk that fit (memory falls as they grow);
// none or a whole chunk would repeat the none and full options.
void Searcher::fit_block_layers(size_t pool) {
  Recompute& recompute = s_.recompute[pool];
  const int64_t chunk =
      *std::min_element(s_.pipeline_stage_layers.begin(), s_.pipeline_stage_layers.end()) /
      s_.virtual_pipeline_model_parallel_size;
  int64_t low = 1, high = std::max<int64_t>(1, chunk - 1);
  while (low < high) {
    recompute.num_layers = (low + high) / 2;
    bool fits = false;
    evaluate_time(fits);
    if (fits) {
      high = recompute.num_layers;
    } else {
      low = recompute.num_layers + 1;
    }
  }
  recompute.num_layers = low;
}

// A lower bound on the iteration time for every recompute and ZeRO choice of a layer shape:
// the pipeline with each layer's compute and in-layer communication (tensor, context, expert
// parallel), which neither choice removes, and none of recompute, point-to-point, data
// parallel or optimizer time.
double Searcher::lower_bound_s() const {
  const Strategy& s = s_;
  const auto pass_s = [](const PassTime& forward, const PassTime& backward) {
    return forward.total_s() + backward.total_s();
  };
  const size_t stages = s.pipeline_stage_gpus.size();
  const auto edges_s = [&](size_t i) {
    const ModelCosts& c = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus[i])];
    return (i == 0 ? pass_s(c.embedding.forward, c.embedding.backward) : 0.0) +
           (i + 1 == stages ? pass_s(c.head.forward, c.head.backward) : 0.0);
  };
  const auto layer_s = [&](size_t i) {
    const ModelCosts& c = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus[i])];
    return std::min(pass_s(c.dense.forward, c.dense.backward),
                    pass_s(c.moe.forward, c.moe.backward));
  };
  // Pace (slowest stage) and total work of all stages per micro-batch.
  double pace = 0, work = 0;
  if (!leaf_splits_layers_) {  // a fixed split
    for (size_t i = 0; i < stages; ++i) {
      const double stage =
          static_cast<double>(s.pipeline_stage_layers[i]) * layer_s(i) + edges_s(i);
      pace = std::max(pace, stage);
      work += stage;
    }
  } else {  // a split still to choose: a perfectly balanced continuous split, least work
    double rate = 0, fixed = 0, fastest_layer = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < stages; ++i) {
      rate += 1 / layer_s(i);
      fixed += edges_s(i) / layer_s(i);
      fastest_layer = std::min(fastest_layer, layer_s(i));
      work += edges_s(i);
    }
    pace = (static_cast<double>(model_.num_layers) + fixed) / rate;
    work = std::max(pace, work + static_cast<double>(model_.num_layers) * fastest_layer);
  }
  // m paces, plus filling and draining the other stages' work (as evaluate_pipeline).
  return static_cast<double>(micro_batches()) * pace +
         (work - pace) / static_cast<double>(s.virtual_pipeline_model_parallel_size);
}

}  // namespace paraplan::detail
