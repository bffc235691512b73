#include "model/stage_split.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
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

void balanced_split(int64_t layers, std::span<const double> layer_s,
                    std::span<const double> fixed_s, std::span<const int64_t> max_layers,
                    std::vector<int64_t>& split, SplitScratch& scratch) {
  const size_t stages = layer_s.size();
  split.clear();
  if (stages == 0 || layers < static_cast<int64_t>(stages)) return;
  const bool limited = std::accumulate(max_layers.begin(), max_layers.end(), int64_t{0}) >= layers;
  const auto time = [&](size_t i, int64_t n) {
    return fixed_s[i] + static_cast<double>(n) * layer_s[i];
  };
  // One layer each, then each next layer to the stage that stays fastest with it (greedy is
  // optimal for the slowest stage because every stage's time grows with its layers); a stage
  // at its memory limit takes no more unless no stage has room.
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
  int64_t given = 0;
  if (increasing && std::isfinite(below_s)) {
    for (size_t i = 0; i < stages; ++i) {
      // The most layers n with time(i, n) < below_s, as the greedy computes its offers.
      int64_t n = static_cast<int64_t>(std::clamp(std::floor((below_s - fixed_s[i]) / layer_s[i]),
                                                  1.0, static_cast<double>(layers)));
      while (n > 1 && time(i, n) >= below_s) --n;
      while (n < layers && time(i, n + 1) < below_s) ++n;
      if (limited) n = std::min(n, std::max<int64_t>(1, max_layers[i]));
      split.push_back(n);
      given += n - 1;
    }
  }
  // Fewer than `left` unless a stage's fixed time dwarfs the rest: then the greedy alone.
  if (split.size() == stages && given <= left) {
    left -= given;
  } else {
    split.assign(stages, 1);
  }
  // Two min-heaps of offers (the stage's time with one more layer, the stage), in the scratch's
  // kept capacity: the pairs are distinct, so the heaps pop in one order however they are built.
  using Offer = std::pair<double, size_t>;
  std::vector<Offer>& with_room = scratch.with_room;
  std::vector<Offer>& full = scratch.full;
  with_room.clear();
  full.clear();
  const auto at_limit = [&](size_t i) { return limited && split[i] >= max_layers[i]; };
  for (size_t i = 0; i < stages; ++i)
    (at_limit(i) ? full : with_room).push_back({time(i, split[i] + 1), i});
  constexpr std::greater<> later;
  std::make_heap(with_room.begin(), with_room.end(), later);
  std::make_heap(full.begin(), full.end(), later);
  for (; left > 0; --left) {
    std::vector<Offer>& heap = with_room.empty() ? full : with_room;
    std::pop_heap(heap.begin(), heap.end(), later);
    const size_t i = heap.back().second;
    heap.pop_back();
    ++split[i];
    std::vector<Offer>& next = at_limit(i) ? full : with_room;
    next.push_back({time(i, split[i] + 1), i});
    std::push_heap(next.begin(), next.end(), later);
  }
}

std::vector<int64_t> balanced_split(int64_t layers, std::span<const double> layer_s,
                                    std::span<const double> fixed_s,
                                    std::span<const int64_t> max_layers) {
  std::vector<int64_t> split;
  SplitScratch scratch;
  balanced_split(layers, layer_s, fixed_s, max_layers, split, scratch);
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

void balanced_stage_layers(const PipelineInput& input, std::span<const int> stage_pools,
                           SplitWorks& works, std::vector<int64_t>& split) {
  const ModelSpec& model = *input.model;
  const Cluster& cluster = *input.cluster;
  const Strategy& s = *input.strategy;
  const size_t stages = stage_pools.size();
  const int64_t middle = stages > 2 ? 1 : 0;
  const int64_t moe = model.num_moe_layers() > 0 ? 1 : 0;
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  if (!works.valid) split_works(input, stage_pools, works);
  SplitScratch& scratch = works.scratch;
  scratch.layer_s.assign(stages, 0);
  scratch.fixed_s.assign(stages, 0);
  scratch.max_layers.assign(stages, 0);
  for (size_t pool = 0; pool < cluster.pools.size(); ++pool) {
    if (!runs_stage(stage_pools, pool)) continue;
    // Per GPU type, from a middle stage of one and of two layers: time per layer and fixed
    // time, memory per layer and fixed memory (activations scale with in-flight micro-batches).
    const int p = static_cast<int>(pool);
    const StageGroup one{p, middle, 1, 1, moe}, two{p, middle, 1, 2, 2 * moe};
    StageWork w1 = works.one[pool], w2 = works.two[pool];
    add_data_parallel(input, one, w1);
    add_data_parallel(input, two, w2);
    const StageMemory m1 = stage_memory(input, one, w1, middle);
    const StageMemory m2 = stage_memory(input, two, w2, middle);
    const double time_s = w2.per_micro_batch_s() - w1.per_micro_batch_s();
    const double fixed_s = w1.per_micro_batch_s() - time_s;
    const double static1 = m1.weights_bytes + m1.gradients_bytes + m1.optimizer_bytes;
    const double static_bytes =
        m2.weights_bytes + m2.gradients_bytes + m2.optimizer_bytes - static1;
    const double in_flight = in_flight_micro_batches(middle, input.stages, v, input.micro_batches);
    // Per in-flight micro-batch and layer: the stored activations and what the allocator's
    // fragmentation adds with them.
    const auto dynamic = [](const StageMemory& m) {
      return m.activations_bytes + m.reserve.fragmentation_bytes;
    };
    const double stored_bytes = (dynamic(m2) - dynamic(m1)) / in_flight;
    const double fixed_bytes = m1.peak_bytes() - static_bytes - in_flight * stored_bytes;
    const double room = input.usable_bytes(cluster.pools[pool].gpu.hbm_bytes) - fixed_bytes;
    for (size_t i = 0; i < stages; ++i) {
      if (stage_pools[i] != p) continue;
      scratch.layer_s[i] = time_s;
      scratch.fixed_s[i] = fixed_s;
      const double per_layer =
          static_bytes +
          in_flight_micro_batches(static_cast<int64_t>(i), input.stages, v, input.micro_batches) *
              stored_bytes;
      scratch.max_layers[i] =
          per_layer > 0 ? static_cast<int64_t>(std::max(0.0, std::floor(room / per_layer)))
                        : model.num_layers;
    }
  }
  const ModelCosts& first = *input.costs[static_cast<size_t>(stage_pools.front())];
  const ModelCosts& last = *input.costs[static_cast<size_t>(stage_pools.back())];
  scratch.fixed_s.front() += first.embedding.forward.total_s() + first.embedding.backward.total_s();
  scratch.fixed_s.back() += last.head.forward.total_s() + last.head.backward.total_s();
  balanced_split(model.num_layers, scratch.layer_s, scratch.fixed_s, scratch.max_layers, split,
                 scratch);
}

std::vector<int64_t> balanced_stage_layers(const PipelineInput& input,
                                           std::span<const int> stage_pools) {
  SplitWorks works;
  std::vector<int64_t> split;
  balanced_stage_layers(input, stage_pools, works, split);
  return split;
}

}  // namespace paraplan::detail
