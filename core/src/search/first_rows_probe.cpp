// The first rows of a page's search before its walk (issue 30 item 8). The walk tries tensor
// parallel sizes in ascending order, so a job that fits only at the largest (llama-1800b on 512
// and 1024 A800: every strategy that fits has TP 8) waited for most of its search before it had
// a row to show. The probe first searches a narrow corner (largest tensor parallel size first,
// least activation memory), reports the first rows it finds as provisional, and leaves the
// search itself untouched: the walk, its bounds and its result are those of a search without it.
#include "search/first_rows_probe.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

#include "model/text_ids.hpp"
#include "search/candidates.hpp"
#include "search/top_strategies.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;
using Clock = std::chrono::steady_clock;

// The corner, where the scenario leaves these keys free: the sizes that only multiply the walk at
// one value each (no context parallelism, no interleaving, micro-batch 1), and the recompute that
// keeps the least activation memory (Megatron-LM --recompute-granularity full
// --recompute-method uniform --recompute-num-layers 1: every layer's input alone).
struct ProbePin {
  K key;
  int64_t value;
};
constexpr ProbePin kProbePins[] = {
    {K::context_parallel_size, 1},
    {K::virtual_pipeline_model_parallel_size, 1},
    {K::micro_batch_size, 1},
    {K::recompute_granularity, static_cast<int64_t>(RecomputeGranularity::full)},
    {K::recompute_method, static_cast<int64_t>(RecomputeMethod::uniform)},
    {K::recompute_num_layers, 1},
};

// How much the probe may search: at each tensor parallel size, no more work than the search does
// between two reports by count (SearchOptions::progress_every's default), so that where it stops
// does not depend on the machine's load; and in all at most 1 s, the limit for the user's flow
// of thought to stay uninterrupted (search.hpp), read where it stops by count.
const int64_t kProbeWorkPerSize = SearchOptions{}.progress_every;
constexpr double kProbeBudgetS = 1.0;

// A MoE model's corner, where the scenario leaves these keys free: its experts spread over the
// GPUs of a node (the largest expert parallel size that divides num_experts within the smallest
// NVLink domain), not split by tensor parallelism (MoE parallel folding,
// --expert-tensor-parallel-size 1, so that the expert group stays in the node at any tensor
// parallel size), and tokens dispatched by all-to-all (megatron/training/arguments.py
// --moe-token-dispatcher-type: "We recommend using 'alltoall' when applying expert
// parallelism"; flex needs DeepEP). The walk reaches this corner only after every smaller
// expert parallel size and the allgather dispatcher, where a large model's experts rarely fit.
std::vector<ProbePin> expert_pins(const Scenario& scenario) {
  if (!scenario.model.moe) return {};
  const std::vector<int64_t> sizes = divisors(scenario.model.moe->num_experts);
  const int64_t node = tensor_parallel_limit(scenario.cluster, false);
  const auto within_node =
      std::find_if(sizes.rbegin(), sizes.rend(), [&](int64_t size) { return size <= node; });
  const int64_t expert = within_node == sizes.rend() ? 1 : *within_node;
  if (expert == 1) return {};
  return {{K::expert_model_parallel_size, expert},
          {K::expert_tensor_parallel_size, 1},
          {K::moe_token_dispatcher_type, static_cast<int64_t>(MoeDispatcher::alltoall)}};
}

Scenario probe_scenario(const Scenario& scenario, int64_t tensor) {
  Scenario probe = scenario;
  const auto pin = [&](K key, int64_t value) {
    if (probe.strategy.given(key)) return;
    const size_t pools = strategy_key(key).per_gpu ? probe.strategy.gpu_types() : 1;
    for (size_t pool = 0; pool < pools; ++pool) probe.strategy.set(key, pool, value);
  };
  pin(K::tensor_model_parallel_size, tensor);
  for (const ProbePin& p : kProbePins) pin(p.key, p.value);
  for (const ProbePin& p : expert_pins(scenario)) pin(p.key, p.value);
  return probe;
}

// The tensor parallel sizes the probe tries, largest first.
std::vector<int64_t> probe_tensor_sizes(const Scenario& scenario, const SearchOptions& options) {
  std::vector<int64_t> sizes =
      pinned_or(scenario.strategy.get(K::tensor_model_parallel_size),
                divisors(tensor_parallel_limit(scenario.cluster,
                                               options.allow_tensor_parallel_across_nodes)));
  std::reverse(sizes.begin(), sizes.end());
  return sizes;
}

// What a search of the probe's corner at one tensor parallel size did: the first rows it found,
// if any, and how many strategies it evaluated and pruned.
struct ProbeSearch {
  std::optional<SearchProgress> rows;
  int64_t evaluated = 0;
  int64_t pruned = 0;
};

// A search of `probe` until its first rows: its first report, which carries rows as soon as it
// holds a feasible strategy (within 64 units of work of it, SearchOptions::on_progress) and stops
// it, or, where it ends before reporting, its result's; no rows where it finds none within
// kProbeWorkPerSize units of work (its first report by count) or `budget_s`.
ProbeSearch first_rows_of(const Scenario& probe, SearchOptions narrow, double budget_s) {
  std::optional<SearchProgress> rows;
  narrow.time_budget_s = budget_s;
  narrow.progress_every = kProbeWorkPerSize;
  narrow.first_progress_s = std::numeric_limits<double>::infinity();  // no report by the clock
  narrow.on_progress = [&](const SearchProgress& p) {
    if (!p.rows.empty()) rows = p;
    return false;
  };
  SearchResult found = search(probe, narrow);
  const int64_t evaluated = found.stats.evaluated, pruned = found.stats.pruned;
  if (rows || found.strategies.empty()) return {std::move(rows), evaluated, pruned};
  const RankedStrategy& first = found.strategies.front();
  return {SearchProgress{evaluated, pruned, 0, 0, first.report.iteration_time_s,
                         layout_label(first.strategy), std::move(found.strategies)},
          evaluated, pruned};
}

}  // namespace

int64_t tensor_parallel_limit(const Cluster& cluster, bool across_nodes) {
  if (across_nodes) return cluster.num_gpus;
  int64_t domain = cluster.num_gpus;
  for (const GpuPool& pool : cluster.pools) domain = std::min(domain, pool.gpu.nvlink_domain_gpus);
  return domain;
}

SearchResult cancelled_by_probe() {
  SearchResult result;
  result.stats.complete = false;
  result.stats.stopped = "cancelled";
  result.stats.stopped_text = {text_id::kStoppedCancelled, result.stats.stopped, {}, {}};
  return result;
}

bool probe_first_rows(const Scenario& scenario, const SearchOptions& options) {
  if (!options.first_rows_probe || !options.on_progress || options.progress_rows <= 0) return true;
  const Clock::time_point start = Clock::now();
  const auto elapsed_s = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  SearchOptions narrow = options;
  narrow.first_rows_probe = false;
  // One row: each listed row costs a public estimate, more than the corner's first evaluations.
  narrow.top = 1;
  narrow.progress_rows = 1;
  // The evaluations and prunings of the sizes that found nothing: the report counts them too.
  int64_t evaluated = 0, pruned = 0;
  for (const int64_t tensor : probe_tensor_sizes(scenario, options)) {
    const double budget_s = std::min(options.time_budget_s, kProbeBudgetS) - elapsed_s();
    if (budget_s <= 0) break;
    ProbeSearch found = first_rows_of(probe_scenario(scenario, tensor), narrow, budget_s);
    if (!found.rows) {
      evaluated += found.evaluated;
      pruned += found.pruned;
      continue;
    }
    SearchProgress& report = *found.rows;
    report.evaluated += evaluated;
    report.pruned += pruned;
    report.elapsed_s = elapsed_s();
    report.fraction_done = 0;
    return options.on_progress(report);
  }
  return true;
}

}  // namespace paraplan::detail
