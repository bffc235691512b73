#include "model/stage_split.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <utility>

namespace paraplan::detail {

namespace {

// Units (transformer layers, the embedding, the loss) of each chunk; see chunk_layers.
std::vector<int64_t> chunk_units(int64_t units, int64_t v) {
  const int64_t q = units / v, r = units % v;
  std::vector<int64_t> chunks(static_cast<size_t>(v), q);
  if (r >= 1) ++chunks.front();
  if (r >= 2) ++chunks.back();
  for (int64_t c = 1; c <= r - 2; ++c) ++chunks[static_cast<size_t>(c)];
  return chunks;
}

}  // namespace

std::vector<int64_t> chunk_layers(int64_t layers, int64_t virtual_stages, bool embedding,
                                  bool loss) {
  std::vector<int64_t> chunks = chunk_units(layers + embedding + loss, virtual_stages);
  chunks.front() -= embedding ? 1 : 0;
  chunks.back() -= loss ? 1 : 0;
  return chunks;
}

double edge_chunk_share(int64_t layers, int64_t virtual_stages, bool embedding, bool loss) {
  const int64_t units = layers + embedding + loss;
  // chunk_units' first and last chunk, without the list (hot: every group of every estimate):
  // the remainder's first unit goes to the first chunk, its second to the last.
  const int64_t q = units / virtual_stages, r = units % virtual_stages;
  const int64_t first = q + (r >= 1 ? 1 : 0), last = q + (r >= 2 ? 1 : 0);
  return static_cast<double>(first + last) / (2.0 * static_cast<double>(units));
}

std::vector<int64_t> balanced_split(int64_t layers, std::span<const double> layer_s,
                                    std::span<const double> fixed_s,
                                    std::span<const int64_t> max_layers) {
  const size_t stages = layer_s.size();
  if (stages == 0 || layers < static_cast<int64_t>(stages)) return {};
  const bool limited = std::accumulate(max_layers.begin(), max_layers.end(), int64_t{0}) >= layers;
  const auto time = [&](size_t i, int64_t n) {
    return fixed_s[i] + static_cast<double>(n) * layer_s[i];
  };
  // One layer each, then each next layer to the stage that stays fastest with it (greedy is
  // optimal for the slowest stage because every stage's time grows with its layers); a stage
  // at its memory limit takes no more unless no stage has room.
  std::vector<int64_t> split(stages, 1);
  int64_t left = layers - static_cast<int64_t>(stages);
  // The greedy takes the offers (a stage's time with one more layer) smallest first, ties to
  // the lower stage, so when no more than `left` offers lie below a time T, all of them are
  // taken before any other: give those at once and let the greedy place the rest. T: the
  // balance point of the continuous split less the slowest stage's layer time, below which
  // fewer than `left` offers lie unless some stage's fixed time alone exceeds it.
  bool increasing = true;
  double inverse_sum = 0, weighted_fixed = 0, widest_s = 0;
  for (size_t i = 0; i < stages; ++i) {
    increasing &= layer_s[i] > 0 && std::isfinite(layer_s[i]) && std::isfinite(fixed_s[i]);
    if (!increasing) break;
    inverse_sum += 1 / layer_s[i];
    weighted_fixed += fixed_s[i] / layer_s[i];
    widest_s = std::max(widest_s, layer_s[i]);
  }
  const double below_s =
      increasing ? (static_cast<double>(layers) + weighted_fixed) / inverse_sum - widest_s : 0;
  if (increasing && std::isfinite(below_s)) {
    std::vector<int64_t> below(stages);
    int64_t given = 0;
    for (size_t i = 0; i < stages; ++i) {
      // The most layers n with time(i, n) < below_s, as the greedy computes its offers.
      int64_t n = static_cast<int64_t>(std::clamp(std::floor((below_s - fixed_s[i]) / layer_s[i]),
                                                  1.0, static_cast<double>(layers)));
      while (n > 1 && time(i, n) >= below_s) --n;
      while (n < layers && time(i, n + 1) < below_s) ++n;
      if (limited) n = std::min(n, std::max<int64_t>(1, max_layers[i]));
      below[i] = n;
      given += n - 1;
    }
    // Fewer than `left` unless a stage's fixed time dwarfs the rest: then the greedy alone.
    if (given <= left) {
      split = std::move(below);
      left -= given;
    }
  }
  using Offer = std::pair<double, size_t>;  // the stage's time with one more layer, the stage
  std::priority_queue<Offer, std::vector<Offer>, std::greater<>> with_room, full;
  for (size_t i = 0; i < stages; ++i) {
    (limited && split[i] >= max_layers[i] ? full : with_room).push({time(i, split[i] + 1), i});
  }
  for (; left > 0; --left) {
    auto& queue = with_room.empty() ? full : with_room;
    const size_t i = queue.top().second;
    queue.pop();
    ++split[i];
    (limited && split[i] >= max_layers[i] ? full : with_room).push({time(i, split[i] + 1), i});
  }
  return split;
}

namespace {

// Whether `pool` runs some stage of `stage_pools`.
bool runs_stage(std::span<const int> stage_pools, size_t pool) {
  return std::find(stage_pools.begin(), stage_pools.end(), static_cast<int>(pool)) !=
         stage_pools.end();
}

// The one- and two-layer middle stages' work before data parallelism, per pool that runs a stage.
void split_works(const PipelineInput& input, std::span<const int> stage_pools, SplitWorks& works) {
  const size_t pools = input.cluster->pools.size();
  works.one.assign(pools, StageWork{});
  works.two.assign(pools, StageWork{});
  const int64_t middle = stage_pools.size() > 2 ? 1 : 0;
  const int64_t moe = input.model->num_moe_layers() > 0 ? 1 : 0;
  for (size_t pool = 0; pool < pools; ++pool) {
    if (!runs_stage(stage_pools, pool)) continue;
    const int p = static_cast<int>(pool);
    works.one[pool] = stage_work_before_data_parallel(input, {p, middle, 1, 1, moe});
    works.two[pool] = stage_work_before_data_parallel(input, {p, middle, 1, 2, 2 * moe});
  }
  works.valid = true;
}

}  // namespace

std::vector<int64_t> balanced_stage_layers(const PipelineInput& input,
                                           std::span<const int> stage_pools, SplitWorks* reuse) {
  const ModelSpec& model = *input.model;
  const Cluster& cluster = *input.cluster;
  const Strategy& s = *input.strategy;
  const size_t stages = stage_pools.size();
  // Per GPU type, from a middle stage of one and of two layers: time per layer and fixed
  // time, memory per layer and fixed memory (activations scale with in-flight micro-batches).
  struct PerLayer {
    double time_s = 0, fixed_s = 0, stored_bytes = 0, static_bytes = 0, fixed_bytes = 0;
  };
  std::vector<PerLayer> per_pool(cluster.pools.size());
  const int64_t middle = stages > 2 ? 1 : 0;
  const int64_t moe = model.num_moe_layers() > 0 ? 1 : 0;
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  SplitWorks fresh;
  SplitWorks& works = reuse != nullptr ? *reuse : fresh;
  if (!works.valid) split_works(input, stage_pools, works);
  for (size_t pool = 0; pool < per_pool.size(); ++pool) {
    if (!runs_stage(stage_pools, pool)) continue;
    const int p = static_cast<int>(pool);
    const StageGroup one{p, middle, 1, 1, moe}, two{p, middle, 1, 2, 2 * moe};
    StageWork w1 = works.one[pool], w2 = works.two[pool];
    add_data_parallel(input, one, w1);
    add_data_parallel(input, two, w2);
    const StageMemory m1 = stage_memory(input, one, w1, middle);
    const StageMemory m2 = stage_memory(input, two, w2, middle);
    PerLayer& l = per_pool[pool];
    l.time_s = w2.per_micro_batch_s() - w1.per_micro_batch_s();
    l.fixed_s = w1.per_micro_batch_s() - l.time_s;
    const double static1 = m1.weights_bytes + m1.gradients_bytes + m1.optimizer_bytes;
    l.static_bytes = m2.weights_bytes + m2.gradients_bytes + m2.optimizer_bytes - static1;
    const double in_flight = in_flight_micro_batches(middle, input.stages, v, input.micro_batches);
    // Per in-flight micro-batch and layer: the stored activations and what the allocator's
    // fragmentation adds with them.
    const auto dynamic = [](const StageMemory& m) {
      return m.activations_bytes + m.reserve.fragmentation_bytes;
    };
    l.stored_bytes = (dynamic(m2) - dynamic(m1)) / in_flight;
    l.fixed_bytes = m1.peak_bytes() - l.static_bytes - in_flight * l.stored_bytes;
  }
  const ModelCosts& first = *input.costs[static_cast<size_t>(stage_pools.front())];
  const ModelCosts& last = *input.costs[static_cast<size_t>(stage_pools.back())];
  std::vector<double> layer_s(stages), fixed_s(stages);
  std::vector<int64_t> max_layers(stages);
  for (size_t i = 0; i < stages; ++i) {
    const int pool = stage_pools[i];
    const PerLayer& l = per_pool[static_cast<size_t>(pool)];
    layer_s[i] = l.time_s;
    fixed_s[i] = l.fixed_s;
    if (i == 0)
      fixed_s[i] += first.embedding.forward.total_s() + first.embedding.backward.total_s();
    if (i + 1 == stages) fixed_s[i] += last.head.forward.total_s() + last.head.backward.total_s();
    const double per_layer =
        l.static_bytes +
        in_flight_micro_batches(static_cast<int64_t>(i), input.stages, v, input.micro_batches) *
            l.stored_bytes;
    const double room =
        input.usable_bytes(cluster.pools[static_cast<size_t>(pool)].gpu.hbm_bytes) - l.fixed_bytes;
    max_layers[i] = per_layer > 0
                        ? static_cast<int64_t>(std::max(0.0, std::floor(room / per_layer)))
                        : model.num_layers;
  }
  return balanced_split(model.num_layers, layer_s, fixed_s, max_layers);
}

}  // namespace paraplan::detail
