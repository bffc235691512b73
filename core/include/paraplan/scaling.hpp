// Scaling series (docs/search.md, "Scaling series"): the same job searched at every cluster
// size of a range, strong (fixed global batch) or weak (global batch grows with the cluster),
// and the efficiency cliffs of the series. The points are independent: callers may search them
// in any order or in parallel (the CLI on threads, the page on Web Workers).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "paraplan/search.hpp"

namespace paraplan {

struct ScalingRange {
  int64_t from_gpus = 0;
  int64_t to_gpus = 0;
  int64_t step_gpus = 0;
  bool weak = false;  // global batch = the given batch x num_gpus / from_gpus, rounded
};

// The names errors give each part of a range: CLI flags or JSON paths.
struct ScalingNames {
  std::string from = "scaling.from";
  std::string to = "scaling.to";
  std::string step = "scaling.step";
  std::string weak = "scaling.weak";
};

// The cluster sizes of the range, ascending; InputError naming the field when a bound is out of
// range, the range is empty, the step is below 1, or it has more than limits::kMaxScalingPoints.
std::vector<int64_t> scaling_sizes(const ScalingRange& range, const ScalingNames& names = {});

// The scenario document at `num_gpus`: cluster.num_gpus set, each GPU type's count scaled in
// proportion (rounded up to whole hosts of
// gpus_per_node, else the preset's gpus_per_host) so that a mixed cluster keeps its mix, and for
// weak scaling the global batch scaled from the batch at range.from_gpus (InputError naming
// names.weak when it leaves the limits).
nlohmann::json scaled_scenario(const nlohmann::json& scenario, const ScalingRange& range,
                               int64_t num_gpus, const ScalingNames& names = {});

// The series' marks, on each point's best tokens/s per GPU (0 or less: no strategy, skipped).
// A cliff is a drop in the best achievable efficiency: the point's value and every later one are
// more than kCliffDrop below the previous point with a strategy (a size whose batch does not
// divide, with a better size after it, is a dip, not a cliff). The first point with a strategy
// is never a cliff; at the end of a range a drop cannot be told from a dip, and counts as a cliff.
inline constexpr double kCliffDrop = 0.15;
std::vector<bool> find_cliffs(const std::vector<double>& tokens_per_s_per_gpu);
// A dip: more than kCliffDrop below some larger size's value (a size with an awkward
// factorisation: the better layouts do not divide it).
std::vector<bool> find_dips(const std::vector<double>& tokens_per_s_per_gpu);
// Efficiency (per GPU against the smallest size with a strategy) above 1 + this gets a note.
inline constexpr double kEfficiencyTolerance = 0.005;

// One point of a series: its scenario and its search (top 1: the best strategy).
struct ScalingPoint {
  int64_t num_gpus = 0;
  Scenario scenario;
  SearchResult result;
};

// Searches one point: `scenario` as scaled_scenario gives it, parsed by `parse` (the CLI's
// parser names its flags), with `options` and top = 1.
ScalingPoint search_point(const nlohmann::json& scenario, int64_t num_gpus,
                          const SearchOptions& options,
                          const std::function<Scenario(const nlohmann::json&)>& parse);

// {"num_gpus", "global_batch_size", "best": one entry of search --json's strategies or null,
// "stats": the search's stats, and "reason" (why there is none) with "reason_text" (its id and
// values) where best is null};
// scaling_json adds "cliff", "dip", "efficiency" and "notes" to each.
nlohmann::json to_json(const ScalingPoint& point);

// {"points": [...], "stats": {"points", "feasible_points", "cliffs": [num_gpus...], "dips",
// "reference_num_gpus", "evaluated", "seconds" (summed over points)}}; each point gains
// "cliff", "dip", "efficiency" (per GPU against the reference, null without a strategy) and
// "notes" (why: efficiency above 100%, a dip, fewer GPUs doing more) where there is something to
// say. The caller may add wall-clock keys.
nlohmann::json scaling_json(const std::vector<nlohmann::json>& points);

// The page's request: {"scenario", "options", "scaling": {"from", "to", "step", "weak"}}.
struct ScalingRequest {
  nlohmann::json scenario;
  nlohmann::json options;  // as in a search request; null when absent
  ScalingRange range;
};
ScalingRequest parse_scaling_request(const nlohmann::json& request);

// A point of a request as JSON (to_json above), searched with the request's options.
nlohmann::json search_scaling_point(const ScalingRequest& request, int64_t num_gpus,
                                    std::function<bool(const SearchProgress&)> on_progress = {});

}  // namespace paraplan
