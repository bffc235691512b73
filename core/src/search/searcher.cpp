#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "model/cost_cache.hpp"
#include "model/pipeline_model.hpp"
#include "model/stage_plan.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/search.hpp"
#include "search/candidates.hpp"
#include "search/stage_split.hpp"

namespace paraplan {
namespace {

using namespace detail;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A strategy as a sequence of numbers, for deterministic ordering of equal times.
std::vector<int64_t> ordering_key(const Strategy& s) {
  std::vector<int64_t> key = {s.tensor_model_parallel_size,
                              s.pipeline_model_parallel_size,
                              s.virtual_pipeline_model_parallel_size,
                              s.context_parallel_size,
                              s.expert_model_parallel_size,
                              s.micro_batch_size,
                              s.sequence_parallel,
                              s.use_flash_attn,
                              s.zero_stage,
                              s.overlap_grad_reduce,
                              s.overlap_param_gather,
                              s.tp_comm_overlap};
  for (const Recompute& r : s.recompute) {
    key.insert(key.end(),
               {static_cast<int64_t>(r.granularity), static_cast<int64_t>(r.method), r.num_layers});
  }
  key.insert(key.end(), s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end());
  key.insert(key.end(), s.pipeline_stage_layers.begin(), s.pipeline_stage_layers.end());
  return key;
}

// The N fastest strategies seen, kept sorted; times within a relative 1e-9 count as equal and
// are ordered by strategy, so that native and WebAssembly builds rank alike.
class TopStrategies {
 public:
  explicit TopStrategies(size_t capacity) : capacity_(capacity) {}

  bool full() const { return items_.size() >= capacity_; }
  double worst_s() const { return full() ? items_.back().time_s : kInfinity; }
  double best_s() const { return items_.empty() ? 0 : items_.front().time_s; }

  void offer(const Strategy& strategy, double time_s) {
    if (full() && !(time_s < items_.back().time_s * (1 + 1e-9))) return;
    Item item{time_s, strategy, ordering_key(strategy)};
    const auto position = std::upper_bound(items_.begin(), items_.end(), item, before);
    if (position != items_.begin() && std::prev(position)->key == item.key) return;
    items_.insert(position, std::move(item));
    if (items_.size() > capacity_) items_.pop_back();
  }

  std::vector<Strategy> strategies() const {
    std::vector<Strategy> out;
    for (const Item& item : items_) out.push_back(item.strategy);
    return out;
  }

 private:
  struct Item {
    double time_s;
    Strategy strategy;
    std::vector<int64_t> key;
  };
  static bool before(const Item& a, const Item& b) {
    const double scale = std::max(a.time_s, b.time_s);
    if (std::abs(a.time_s - b.time_s) > 1e-9 * scale) return a.time_s < b.time_s;
    return a.key < b.key;
  }
  size_t capacity_;
  std::vector<Item> items_;
};

int64_t total_gpus(const Cluster& cluster) { return cluster.num_gpus; }

// The cluster without the GPU types whose tensor cores lack the training precision.
Cluster usable_cluster(Cluster cluster, Precision precision) {
  for (GpuPool& pool : cluster.pools) {
    if (pool.gpu.tensor_flops(precision) <= 0) pool.count = 0;
  }
  return cluster;
}

struct StopSearch {};  // thrown to unwind the loops when cancelled or out of time

// Recompute settings the search tries for one GPU type. `fit_block` picks the smallest
// --recompute-num-layers of the block method that fits in memory.
struct RecomputeOption {
  Recompute recompute;
  bool fit_block = false;
};

class Searcher {
 public:
  Searcher(const Scenario& scenario, const SearchOptions& options)
      : model_(scenario.model),
        training_(scenario.training),
        cluster_(usable_cluster(scenario.cluster, scenario.training.precision)),
        pins_(scenario.strategy),
        options_(options),
        costs_(model_, training_, cluster_),
        top_(static_cast<size_t>(std::max(1, options.top))),
        start_(std::chrono::steady_clock::now()) {}

  SearchResult run();

 private:
  void search_tensor(int64_t t);
  void search_pipeline(Strategy& s, int64_t gpus_per_stage);
  void search_layout(Strategy& s, int64_t data_parallel);
  void search_micro_batches(Strategy& s, int64_t data_parallel);
  std::vector<std::pair<bool, bool>> shape_options(const Strategy& s) const;
  bool search_shape(Strategy& s, int64_t data_parallel, int64_t micro_batches);
  bool search_recompute(Strategy& s, size_t pool, int64_t data_parallel, int64_t micro_batches);
  bool search_zero(Strategy& s, int64_t data_parallel, int64_t micro_batches);
  bool evaluate(Strategy& s, int64_t data_parallel, int64_t micro_batches);
  void fit_block_layers(Strategy& s, int64_t data_parallel, int64_t micro_batches);
  double evaluate_time(Strategy& s, int64_t data_parallel, int64_t micro_batches, bool& fits);
  bool split_mixed(Strategy& s, int64_t data_parallel, int64_t micro_batches);
  double compute_lower_bound(const Strategy& s, int64_t micro_batches) const;
  int64_t leaves_below_shape(const Strategy& s, int64_t data_parallel) const;
  std::vector<RecomputeOption> recompute_options(size_t pool) const;
  std::vector<int> zero_options(const Strategy& s, int64_t data_parallel) const;
  void tick();
  void diagnose(SearchResult& result) const;

  const ModelSpec& model_;
  const Training& training_;
  const Cluster cluster_;  // with no GPUs of types that cannot run the precision
  const PartialStrategy& pins_;
  SearchOptions options_;
  CostCache costs_;
  TopStrategies top_;
  SearchStats stats_;
  std::chrono::steady_clock::time_point start_;
  double fraction_done_ = 0;
  int64_t work_ = 0;         // evaluations, leaves and block-recompute probes alike
  int fit_block_pool_ = -1;  // the GPU type whose block recompute is being fitted
  // Scratch reused by every evaluation.
  std::vector<const ModelCosts*> pool_costs_;
  std::vector<StageGroup> groups_;
  std::vector<GroupResult> results_;
  // What made strategies impossible, for a search that finds none.
  int64_t structural_candidates_ = 0;
  double best_overflow_bytes_ = kInfinity;
  Strategy closest_;
  std::vector<GroupResult> closest_results_;
  std::vector<StageGroup> closest_groups_;
};

std::vector<RecomputeOption> Searcher::recompute_options(size_t pool) const {
  const auto granularity = pins_.recompute_granularity[pool];
  const auto method = pins_.recompute_method[pool];
  const auto num_layers = pins_.recompute_num_layers[pool];
  std::vector<RecomputeOption> options;
  const auto add = [&](RecomputeGranularity g, RecomputeMethod m, bool fit_block) {
    if (granularity && *granularity != g) return;
    if (g == RecomputeGranularity::full && method && *method != m) return;
    const bool counted = g == RecomputeGranularity::full && num_layers;
    options.push_back({{g, m, counted ? *num_layers : 1}, fit_block && !counted});
  };
  add(RecomputeGranularity::none, RecomputeMethod::uniform, false);
  add(RecomputeGranularity::selective, RecomputeMethod::uniform, false);
  add(RecomputeGranularity::full, RecomputeMethod::uniform, false);
  // Block recompute of the fewest layers that fit; on a mixed cluster only with a given count.
  if (cluster_.pools.size() == 1 || num_layers) {
    add(RecomputeGranularity::full, RecomputeMethod::block, true);
  }
  return options;
}

std::vector<int> Searcher::zero_options(const Strategy& s, int64_t data_parallel) const {
  if (pins_.zero_stage) return {*pins_.zero_stage};
  if (data_parallel * s.context_parallel_size == 1) return {0};  // nothing to shard over
  // ZeRO-2 and -3 are Megatron-FSDP, which does not run with pipeline parallelism.
  if (s.pipeline_model_parallel_size > 1) return {0, 1};
  return {0, 1, 2, 3};
}

void Searcher::tick() {
  if (++work_ % std::max<int64_t>(1, options_.progress_every) != 0) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed > options_.time_budget_s) {
    char text[96];
    std::snprintf(text, sizeof text, "time budget of %g s reached", options_.time_budget_s);
    stats_.stopped = text;
    throw StopSearch{};
  }
  if (options_.on_progress) {
    SearchProgress progress{stats_.evaluated, stats_.pruned, elapsed, fraction_done_,
                            top_.best_s()};
    if (!options_.on_progress(progress)) {
      stats_.stopped = "cancelled";
      throw StopSearch{};
    }
  }
}

double Searcher::evaluate_time(Strategy& s, int64_t data_parallel, int64_t micro_batches,
                               bool& fits) {
  group_stages(s.pipeline_stage_gpus, s.pipeline_stage_layers, model_, groups_);
  PipelineInput input = pipeline_input(model_, training_, cluster_, s, data_parallel, micro_batches,
                                       s.pipeline_model_parallel_size);
  input.groups = groups_;
  input.costs = pool_costs_;
  const PipelineResult result = evaluate_pipeline(input, results_);
  tick();
  fits = result.fits;
  if (!fits && result.overflow_bytes < best_overflow_bytes_) {
    best_overflow_bytes_ = result.overflow_bytes;
    closest_ = s;
    closest_groups_ = groups_;
    closest_results_ = results_;
  }
  return result.iteration_time_s;
}

bool Searcher::evaluate(Strategy& s, int64_t data_parallel, int64_t micro_batches) {
  ++stats_.evaluated;
  bool fits = false;
  const double time_s = evaluate_time(s, data_parallel, micro_batches, fits);
  if (fits && std::isfinite(time_s)) {
    ++stats_.feasible;
    top_.offer(s, time_s);
  }
  return fits;
}

// Layers per stage for a mixed cluster: balance the stages' times under their memory.
bool Searcher::split_mixed(Strategy& s, int64_t data_parallel, int64_t micro_batches) {
  const size_t stages = s.pipeline_stage_gpus.size();
  PipelineInput input = pipeline_input(model_, training_, cluster_, s, data_parallel, micro_batches,
                                       static_cast<int64_t>(stages));
  input.costs = pool_costs_;
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
    l.stored_bytes = w2.stored_activation_bytes - w1.stored_activation_bytes;
    const double static1 = m1.weights_bytes + m1.gradients_bytes + m1.optimizer_bytes;
    l.static_bytes = m2.weights_bytes + m2.gradients_bytes + m2.optimizer_bytes - static1;
    const double in_flight = in_flight_micro_batches(
        middle, input.stages, s.virtual_pipeline_model_parallel_size, micro_batches);
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
                                                 micro_batches) *
                             l.stored_bytes;
    const double room = cluster_.pools[static_cast<size_t>(pool)].gpu.hbm_bytes - l.fixed_bytes;
    max_layers[i] = per_layer > 0
                        ? static_cast<int64_t>(std::max(0.0, std::floor(room / per_layer)))
                        : model_.num_layers;
  }
  s.pipeline_stage_layers = balanced_split(model_.num_layers, layer_s, fixed_s, max_layers);
  return !s.pipeline_stage_layers.empty();
}

bool Searcher::search_zero(Strategy& s, int64_t data_parallel, int64_t micro_batches) {
  bool any_fit = false;
  for (const int zero : zero_options(s, data_parallel)) {
    s.zero_stage = zero;
    const bool sharded = data_parallel * s.context_parallel_size > 1;
    s.overlap_grad_reduce = pins_.overlap_grad_reduce.value_or(sharded);
    s.overlap_param_gather = pins_.overlap_param_gather.value_or(sharded && zero >= 1);
    if (cluster_.pools.size() > 1 && !pins_.pipeline_stage_layers &&
        !split_mixed(s, data_parallel, micro_batches)) {
      continue;
    }
    if (fit_block_pool_ >= 0) fit_block_layers(s, data_parallel, micro_batches);
    any_fit |= evaluate(s, data_parallel, micro_batches);
  }
  return any_fit;
}

// The fewest block-recomputed layers per virtual chunk that fit (memory falls as they grow);
// none or a whole chunk would repeat the none and full options.
void Searcher::fit_block_layers(Strategy& s, int64_t data_parallel, int64_t micro_batches) {
  Recompute& recompute = s.recompute[static_cast<size_t>(fit_block_pool_)];
  const int64_t chunk =
      *std::min_element(s.pipeline_stage_layers.begin(), s.pipeline_stage_layers.end()) /
      s.virtual_pipeline_model_parallel_size;
  int64_t low = 1, high = std::max<int64_t>(1, chunk - 1);
  while (low < high) {
    recompute.num_layers = (low + high) / 2;
    bool fits = false;
    evaluate_time(s, data_parallel, micro_batches, fits);
    if (fits) {
      high = recompute.num_layers;
    } else {
      low = recompute.num_layers + 1;
    }
  }
  recompute.num_layers = low;
}

// Recompute per GPU type, one type after the other.
bool Searcher::search_recompute(Strategy& s, size_t pool, int64_t data_parallel,
                                int64_t micro_batches) {
  if (pool == cluster_.pools.size()) return search_zero(s, data_parallel, micro_batches);
  const bool used = std::find(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(),
                              static_cast<int>(pool)) != s.pipeline_stage_gpus.end();
  if (!used) {  // a type no stage runs on: its recompute setting means nothing
    s.recompute[pool] = Recompute{};
    return search_recompute(s, pool + 1, data_parallel, micro_batches);
  }
  bool any_fit = false;
  for (const RecomputeOption& option : recompute_options(pool)) {
    s.recompute[pool] = option.recompute;
    fit_block_pool_ = option.fit_block ? static_cast<int>(pool) : -1;
    any_fit |= search_recompute(s, pool + 1, data_parallel, micro_batches);
    fit_block_pool_ = -1;
  }
  return any_fit;
}

// A lower bound on the iteration time for every recompute and ZeRO choice of a layer shape:
// the pipeline with each layer's compute and in-layer communication (tensor, context, expert
// parallel), which neither choice removes, and none of recompute, point-to-point, data
// parallel or optimizer time.
double Searcher::compute_lower_bound(const Strategy& s, int64_t micro_batches) const {
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
  if (!s.pipeline_stage_layers.empty()) {  // a fixed split
    for (size_t i = 0; i < stages; ++i) {
      const double stage =
          static_cast<double>(s.pipeline_stage_layers[i]) * layer_s(i) + edges_s(i);
      pace = std::max(pace, stage);
      work += stage;
    }
  } else {  // a split still to choose: a perfectly balanced continuous split, least work
    double rate = 0, fixed = 0, fastest_layer = kInfinity;
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
  return static_cast<double>(micro_batches) * pace +
         (work - pace) / static_cast<double>(s.virtual_pipeline_model_parallel_size);
}

int64_t Searcher::leaves_below_shape(const Strategy& s, int64_t data_parallel) const {
  int64_t recompute = 1;
  for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
    const bool used = std::find(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(),
                                static_cast<int>(pool)) != s.pipeline_stage_gpus.end();
    if (used) recompute *= static_cast<int64_t>(recompute_options(pool).size());
  }
  return recompute * static_cast<int64_t>(zero_options(s, data_parallel).size());
}

// The (sequence parallel, flash attention) pairs the search tries for this layout.
std::vector<std::pair<bool, bool>> Searcher::shape_options(const Strategy& s) const {
  std::vector<std::pair<bool, bool>> options;
  const int64_t t = s.tensor_model_parallel_size;
  const std::vector<bool> parallel =
      t > 1 ? std::vector<bool>{true, false} : std::vector<bool>{false};
  for (const bool sequence_parallel : pinned_or(pins_.sequence_parallel, parallel)) {
    if (model_.moe && t > 1 && !sequence_parallel) continue;  // Megatron-LM requires it
    if (sequence_parallel && training_.seq_length % t != 0) continue;
    if (pins_.tp_comm_overlap.value_or(false) && !(sequence_parallel && t > 1)) continue;
    for (const bool flash : pinned_or(pins_.use_flash_attn, std::vector<bool>{true, false})) {
      if (flash && training_.precision == Precision::fp32) continue;
      if (!flash && s.context_parallel_size > 1) continue;
      options.emplace_back(sequence_parallel, flash);
    }
  }
  return options;
}

// One micro-batch size for a fixed layout: every layer shape, recompute and ZeRO stage.
bool Searcher::search_shape(Strategy& s, int64_t data_parallel, int64_t micro_batches) {
  bool any_fit_or_unknown = false;
  for (const auto& [sequence_parallel, flash] : shape_options(s)) {
    s.sequence_parallel = sequence_parallel;
    s.use_flash_attn = flash;
    s.tp_comm_overlap = pins_.tp_comm_overlap.value_or(false);
    pool_costs_.clear();
    const LayerShape shape = layer_shape(s);
    for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
      pool_costs_.push_back(&costs_.get(static_cast<int>(pool), shape));
    }
    ++structural_candidates_;
    tick();
    if (cluster_.pools.size() > 1 && !pins_.pipeline_stage_layers) {
      s.pipeline_stage_layers.clear();  // chosen below, per recompute and ZeRO choice
    }
    if (!options_.exhaustive && top_.full() &&
        compute_lower_bound(s, micro_batches) >= top_.worst_s()) {
      stats_.pruned += leaves_below_shape(s, data_parallel);
      any_fit_or_unknown = true;
      continue;
    }
    any_fit_or_unknown |= search_recompute(s, 0, data_parallel, micro_batches);
  }
  return any_fit_or_unknown;
}

void Searcher::search_micro_batches(Strategy& s, int64_t data_parallel) {
  const int64_t per_rank = training_.global_batch_size / data_parallel;
  std::vector<int64_t> sizes = pinned_or(pins_.micro_batch_size, divisors(per_rank));
  std::erase_if(sizes, [&](int64_t mbs) { return per_rank % mbs != 0; });
  for (size_t i = 0; i < sizes.size(); ++i) {
    s.micro_batch_size = sizes[i];
    // Memory grows with the micro-batch: once nothing fits, larger ones cannot either.
    if (!search_shape(s, data_parallel, per_rank / sizes[i]) && !options_.exhaustive) {
      stats_.pruned += static_cast<int64_t>(sizes.size() - i - 1) *
                       static_cast<int64_t>(shape_options(s).size()) *
                       leaves_below_shape(s, data_parallel);
      break;
    }
  }
}

// Stage GPU types and layers: one type takes every stage; a mixed cluster tries every
// composition of stage counts within the caps, in contiguous blocks in every order.
void Searcher::search_layout(Strategy& s, int64_t data_parallel) {
  const int64_t p = s.pipeline_model_parallel_size;
  const int64_t gpus_per_stage = s.gpus_per_stage(data_parallel);
  if (pins_.pipeline_stage_gpus) {
    s.pipeline_stage_gpus = *pins_.pipeline_stage_gpus;
    for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
      const int64_t stages = std::count(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(),
                                        static_cast<int>(pool));
      if (stages * gpus_per_stage > cluster_.pools[pool].count) return;
    }
    search_micro_batches(s, data_parallel);
    return;
  }
  for_each_stage_composition(cluster_, p, gpus_per_stage, [&](const std::vector<int64_t>& counts) {
    std::vector<int> order;
    for (size_t pool = 0; pool < counts.size(); ++pool) {
      if (counts[pool] > 0) order.push_back(static_cast<int>(pool));
    }
    const auto place = [&] {
      s.pipeline_stage_gpus.clear();
      for (const int pool : order) {
        s.pipeline_stage_gpus.insert(s.pipeline_stage_gpus.end(),
                                     static_cast<size_t>(counts[static_cast<size_t>(pool)]), pool);
      }
      search_micro_batches(s, data_parallel);
    };
    // Up to three types in every order; more (the orders explode) from slowest to fastest
    // and back, so that the LM head's stage gets the fastest or the slowest type.
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

void Searcher::search_pipeline(Strategy& s, int64_t gpus_per_model_shard) {
  // gpus_per_model_shard = GPUs / (tensor x context)
  for (const int64_t p :
       pinned_or(pins_.pipeline_model_parallel_size, divisors(gpus_per_model_shard))) {
    if (gpus_per_model_shard % p != 0 || p > model_.num_layers) continue;
    s.pipeline_model_parallel_size = p;
    const int64_t dp = gpus_per_model_shard / p;
    if ((dp * s.context_parallel_size) % s.expert_model_parallel_size != 0) continue;
    if (training_.global_batch_size % dp != 0) continue;
    const bool mixed = cluster_.pools.size() > 1;
    std::vector<int64_t> virtual_sizes = {1};
    for (int64_t v = 2; !mixed && p > 1 && v * p <= model_.num_layers + 2; ++v) {
      if (!standard_split(model_.num_layers, p, v).empty()) virtual_sizes.push_back(v);
    }
    for (const int64_t v : pinned_or(pins_.virtual_pipeline_model_parallel_size, virtual_sizes)) {
      if (v > 1 && (p == 1 || mixed)) continue;
      s.virtual_pipeline_model_parallel_size = v;
      if (pins_.pipeline_stage_layers) {
        s.pipeline_stage_layers = *pins_.pipeline_stage_layers;
        if (static_cast<int64_t>(s.pipeline_stage_layers.size()) != p) continue;
      } else if (!mixed) {
        s.pipeline_stage_layers = standard_split(model_.num_layers, p, v);
        if (s.pipeline_stage_layers.empty()) continue;
      } else if (model_.num_layers < p) {
        continue;
      }
      search_layout(s, dp);
    }
  }
}

void Searcher::search_tensor(int64_t t) {
  Strategy s;
  s.recompute.resize(cluster_.pools.size());
  s.tensor_model_parallel_size = t;
  const int64_t gpus = total_gpus(cluster_);
  for (const int64_t cp :
       pinned_or(pins_.context_parallel_size, context_candidates(training_, gpus / t))) {
    if (gpus % (t * cp) != 0) continue;
    s.context_parallel_size = cp;
    std::vector<int64_t> experts = {1};
    if (model_.moe) experts = divisors(model_.moe->num_experts);
    for (const int64_t ep : pinned_or(pins_.expert_model_parallel_size, experts)) {
      if (model_.moe ? model_.moe->num_experts % ep != 0 : ep != 1) continue;
      s.expert_model_parallel_size = ep;
      search_pipeline(s, gpus / (t * cp));
    }
  }
}

void Searcher::diagnose(SearchResult& result) const {
  if (!result.strategies.empty() || !stats_.complete) return;
  if (std::all_of(cluster_.pools.begin(), cluster_.pools.end(),
                  [](const GpuPool& pool) { return pool.count == 0; })) {
    result.diagnosis.push_back("no GPU type of the cluster has " +
                               std::string(to_string(training_.precision)) + " tensor cores");
    return;
  }
  if (structural_candidates_ == 0) {
    result.diagnosis.push_back(
        "no strategy divides evenly: tensor parallel must divide num_attention_heads (" +
        std::to_string(model_.num_attention_heads) + "), num_query_groups (" +
        std::to_string(model_.num_query_groups) + ") and ffn_hidden_size within a node of " +
        std::to_string(cluster_.gpus_per_node) + " GPUs; tensor x context x pipeline x data " +
        "must use all " + std::to_string(cluster_.num_gpus) +
        " GPUs with one GPU type per stage; the pipeline must split " +
        std::to_string(model_.num_layers) +
        " layers; data parallel x micro-batch must divide "
        "global_batch_size (" +
        std::to_string(training_.global_batch_size) + ")");
    return;
  }
  if (best_overflow_bytes_ < kInfinity) {
    const double gib = 1024.0 * 1024 * 1024;
    // The stage of the closest strategy that overflows most.
    size_t worst = 0;
    double worst_overflow = -kInfinity;
    for (size_t g = 0; g < closest_groups_.size(); ++g) {
      const double capacity =
          cluster_.pools[static_cast<size_t>(closest_groups_[g].pool)].gpu.hbm_bytes;
      const double overflow = closest_results_[g].memory.peak_bytes() - capacity;
      if (overflow > worst_overflow) {
        worst_overflow = overflow;
        worst = g;
      }
    }
    const GpuSpec& gpu = cluster_.pools[static_cast<size_t>(closest_groups_[worst].pool)].gpu;
    char text[512];
    std::snprintf(text, sizeof text,
                  "no strategy fits in GPU memory: the closest (tensor %lld, pipeline %lld, "
                  "context %lld, micro-batch %lld, ZeRO %d, recompute %s) needs %.1f GiB per GPU "
                  "on pipeline stage %lld (%s), %.1f GiB more than its %.1f GiB",
                  static_cast<long long>(closest_.tensor_model_parallel_size),
                  static_cast<long long>(closest_.pipeline_model_parallel_size),
                  static_cast<long long>(closest_.context_parallel_size),
                  static_cast<long long>(closest_.micro_batch_size), closest_.zero_stage,
                  std::string(to_string(closest_.recompute.front().granularity)).c_str(),
                  closest_results_[worst].memory.peak_bytes() / gib,
                  static_cast<long long>(closest_groups_[worst].first), gpu.id.c_str(),
                  worst_overflow / gib, gpu.hbm_bytes / gib);
    result.diagnosis.push_back(text);
  }
}

SearchResult Searcher::run() {
  SearchResult result;
  const int64_t tp_limit = options_.allow_tensor_parallel_across_nodes
                               ? total_gpus(cluster_)
                               : std::min(cluster_.gpus_per_node, total_gpus(cluster_));
  const std::vector<int64_t> tensor_sizes =
      pinned_or(pins_.tensor_model_parallel_size, tensor_candidates(model_, tp_limit));
  try {
    for (size_t i = 0; i < tensor_sizes.size(); ++i) {
      fraction_done_ = static_cast<double>(i) / static_cast<double>(tensor_sizes.size());
      search_tensor(tensor_sizes[i]);
    }
  } catch (const StopSearch&) {
    stats_.complete = false;
  }
  stats_.space = stats_.evaluated + stats_.pruned;
  // Each returned strategy carries the report of the public estimate, on a cluster that lists
  // the GPUs it uses: the same numbers a user gets by estimating it.
  for (const Strategy& strategy : top_.strategies()) {
    Cluster used = cluster_;
    const int64_t stage_gpus = cluster_.num_gpus / strategy.pipeline_model_parallel_size;
    for (size_t pool = 0; pool < used.pools.size(); ++pool) {
      used.pools[pool].count =
          stage_gpus * std::count(strategy.pipeline_stage_gpus.begin(),
                                  strategy.pipeline_stage_gpus.end(), static_cast<int>(pool));
    }
    used.num_gpus = cluster_.num_gpus;
    result.strategies.push_back(
        {strategy, Estimator(model_, training_, std::move(used)).estimate(strategy)});
  }
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  result.stats = stats_;
  diagnose(result);
  return result;
}

}  // namespace

SearchResult search(const Scenario& scenario, const SearchOptions& options) {
  return Searcher(scenario, options).run();
}

}  // namespace paraplan
