// Scaling series: sizes, scaled scenarios, one point's search, cliffs and the series' JSON.
#include "paraplan/scaling.hpp"

#include <cmath>

#include "input/json_reader.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/presets.hpp"
#include "paraplan/request.hpp"

namespace paraplan {

std::vector<int64_t> scaling_sizes(const ScalingRange& range, const ScalingNames& names) {
  const auto check = [](const std::string& name, int64_t value, int64_t min, int64_t max) {
    if (value < min || value > max) {
      throw InputError(name, "expected an integer from " + std::to_string(min) + " to " +
                                 std::to_string(max) + ", got " + std::to_string(value));
    }
  };
  check(names.from, range.from_gpus, 1, limits::kMaxGpus);
  check(names.to, range.to_gpus, 1, limits::kMaxGpus);
  check(names.step, range.step_gpus, 1, limits::kMaxGpus);
  if (range.to_gpus < range.from_gpus) {
    throw InputError(names.to, "the range is empty: " + std::to_string(range.to_gpus) +
                                   " is below the start " + std::to_string(range.from_gpus));
  }
  const int64_t count = (range.to_gpus - range.from_gpus) / range.step_gpus + 1;
  if (count > limits::kMaxScalingPoints) {
    throw InputError(names.step, "the range from " + std::to_string(range.from_gpus) + " to " +
                                     std::to_string(range.to_gpus) + " in steps of " +
                                     std::to_string(range.step_gpus) + " has " +
                                     std::to_string(count) + " points; at most " +
                                     std::to_string(limits::kMaxScalingPoints) +
                                     " are searched (raise the step)");
  }
  std::vector<int64_t> sizes;
  for (int64_t n = range.from_gpus; n <= range.to_gpus; n += range.step_gpus) sizes.push_back(n);
  return sizes;
}

namespace {

// GPUs per host of a cluster entry: the cluster's gpus_per_node, else the preset's.
double node_gpus(const nlohmann::json& cluster, const nlohmann::json& gpu) {
  if (cluster.contains("gpus_per_node") && cluster["gpus_per_node"].is_number_integer() &&
      cluster["gpus_per_node"].get<int64_t>() > 0) {
    return cluster["gpus_per_node"].get<double>();
  }
  const nlohmann::json* preset = gpu.contains("type") && gpu["type"].is_string()
                                     ? find_preset(PresetKind::gpu, gpu["type"].get<std::string>())
                                     : nullptr;
  if (preset != nullptr && preset->contains("gpus_per_host") &&
      (*preset)["gpus_per_host"].is_number_integer()) {
    return std::max(1.0, (*preset)["gpus_per_host"].get<double>());
  }
  return 1;
}

}  // namespace

nlohmann::json scaled_scenario(const nlohmann::json& scenario, const ScalingRange& range,
                               int64_t num_gpus, const ScalingNames& names) {
  nlohmann::json out = scenario;
  if (!out.is_object()) return out;  // the parser says what is wrong
  nlohmann::json* cluster = out.contains("cluster") ? &out["cluster"] : nullptr;
  if (cluster != nullptr && cluster->is_object() && cluster->contains("gpus") &&
      (*cluster)["gpus"].is_array()) {
    nlohmann::json& gpus = (*cluster)["gpus"];
    // The reference size: the job's GPUs (cluster.num_gpus, else the sum of the counts).
    double reference = 0;
    for (const nlohmann::json& gpu : gpus) {
      if (gpu.is_object() && gpu.contains("count") && gpu["count"].is_number_integer())
        reference += gpu["count"].get<double>();
    }
    if (cluster->contains("num_gpus") && (*cluster)["num_gpus"].is_number_integer())
      reference = (*cluster)["num_gpus"].get<double>();
    if (reference > 0) {
      for (nlohmann::json& gpu : gpus) {
        if (!gpu.is_object() || !gpu.contains("count") || !gpu["count"].is_number_integer())
          continue;
        // Whole hosts: rounded up to a multiple of the GPUs per node.
        const double node = node_gpus(*cluster, gpu);
        const double scaled = node * std::ceil(gpu["count"].get<double>() *
                                               static_cast<double>(num_gpus) / reference / node);
        gpu["count"] =
            static_cast<int64_t>(std::clamp(scaled, 1.0, static_cast<double>(limits::kMaxGpus)));
      }
    }
    (*cluster)["num_gpus"] = num_gpus;
  }
  if (range.weak && out.contains("training") && out["training"].is_object() &&
      out["training"].contains("global_batch_size") &&
      out["training"]["global_batch_size"].is_number_integer()) {
    nlohmann::json& batch = out["training"]["global_batch_size"];
    const double scaled = std::round(batch.get<double>() * static_cast<double>(num_gpus) /
                                     static_cast<double>(range.from_gpus));
    if (scaled > static_cast<double>(limits::kMaxGlobalBatchSize)) {
      throw InputError(names.weak, "the global batch at " + std::to_string(num_gpus) +
                                       " GPUs would be " + std::to_string(scaled) +
                                       ", above the limit of " +
                                       std::to_string(limits::kMaxGlobalBatchSize));
    }
    batch = static_cast<int64_t>(std::max(1.0, scaled));
  }
  return out;
}

std::vector<bool> find_cliffs(const std::vector<double>& tokens_per_s_per_gpu) {
  std::vector<bool> cliffs(tokens_per_s_per_gpu.size(), false);
  std::vector<size_t> with_strategy;
  for (size_t i = 0; i < tokens_per_s_per_gpu.size(); ++i) {
    if (tokens_per_s_per_gpu[i] > 0) with_strategy.push_back(i);
  }
  for (size_t k = 1; k + 1 < with_strategy.size(); ++k) {
    const double value = tokens_per_s_per_gpu[with_strategy[k]];
    const double before = tokens_per_s_per_gpu[with_strategy[k - 1]];
    const double after = tokens_per_s_per_gpu[with_strategy[k + 1]];
    if (value < (1 - kCliffDrop) * before && value < (1 - kCliffDrop) * after) {
      cliffs[with_strategy[k]] = true;
    }
  }
  return cliffs;
}

ScalingPoint search_point(const nlohmann::json& scenario, int64_t num_gpus,
                          const SearchOptions& options,
                          const std::function<Scenario(const nlohmann::json&)>& parse) {
  ScalingPoint point;
  point.num_gpus = num_gpus;
  point.scenario = parse(scenario);
  SearchOptions one = options;
  one.top = 1;
  point.result = search(point.scenario, one);
  return point;
}

namespace {

nlohmann::json stats_json(const SearchStats& stats) {
  return {{"space", stats.space},     {"evaluated", stats.evaluated},
          {"pruned", stats.pruned},   {"feasible", stats.feasible},
          {"seconds", stats.seconds}, {"complete", stats.complete},
          {"stopped", stats.stopped}};
}

}  // namespace

nlohmann::json to_json(const ScalingPoint& point) {
  const SearchResult& result = point.result;
  return {
      {"num_gpus", point.num_gpus},
      {"global_batch_size", point.scenario.training.global_batch_size},
      {"best", result.strategies.empty() ? nlohmann::json(nullptr)
                                         : to_json(result.strategies.front(), 1, point.scenario)},
      {"stats", stats_json(result.stats)}};
}

nlohmann::json scaling_json(const std::vector<nlohmann::json>& points) {
  std::vector<double> per_gpu;
  int64_t evaluated = 0, feasible_points = 0;
  double seconds = 0;
  bool complete = true;
  for (const nlohmann::json& point : points) {
    const nlohmann::json& best = point["best"];
    per_gpu.push_back(best.is_null() ? 0.0 : best["sim_throughput"].get<double>());
    feasible_points += best.is_null() ? 0 : 1;
    evaluated += point["stats"]["evaluated"].get<int64_t>();
    seconds += point["stats"]["seconds"].get<double>();
    complete = complete && point["stats"]["complete"].get<bool>();
  }
  const std::vector<bool> cliffs = find_cliffs(per_gpu);
  nlohmann::json out_points = nlohmann::json::array();
  nlohmann::json cliff_sizes = nlohmann::json::array();
  for (size_t i = 0; i < points.size(); ++i) {
    nlohmann::json point = points[i];
    point["cliff"] = static_cast<bool>(cliffs[i]);
    if (cliffs[i]) cliff_sizes.push_back(point["num_gpus"]);
    out_points.push_back(std::move(point));
  }
  return {{"points", out_points},
          {"stats",
           {{"points", points.size()},
            {"feasible_points", feasible_points},
            {"cliffs", cliff_sizes},
            {"cliff_drop", kCliffDrop},
            {"evaluated", evaluated},
            {"seconds", seconds},
            {"complete", complete}}}};
}

ScalingRequest parse_scaling_request(const nlohmann::json& request) {
  detail::ObjectReader root(request, "");
  ScalingRequest out;
  out.scenario = root.required("scenario");
  if (const nlohmann::json* options = root.find("options")) out.options = *options;
  detail::ObjectReader scaling(root.required("scaling"), "scaling");
  out.range.from_gpus = scaling.integer("from", 1, limits::kMaxGpus);
  out.range.to_gpus = scaling.integer("to", 1, limits::kMaxGpus);
  out.range.step_gpus = scaling.integer("step", 1, limits::kMaxGpus);
  out.range.weak = scaling.optional_boolean("weak").value_or(false);
  scaling.reject_unknown_keys();
  root.reject_unknown_keys();
  scaling_sizes(out.range);  // the range's own errors
  return out;
}

nlohmann::json search_scaling_point(const ScalingRequest& request, int64_t num_gpus,
                                    std::function<bool(const SearchProgress&)> on_progress) {
  if (num_gpus < 1 || num_gpus > limits::kMaxGpus) {
    throw InputError("num_gpus", "expected an integer from 1 to " +
                                     std::to_string(limits::kMaxGpus) + ", got " +
                                     std::to_string(num_gpus));
  }
  nlohmann::json search_request = {
      {"scenario", scaled_scenario(request.scenario, request.range, num_gpus)}};
  if (!request.options.is_null()) search_request["options"] = request.options;
  SearchRequest parsed = parse_search_request(search_request);
  parsed.options.on_progress = std::move(on_progress);
  const Scenario& scenario = parsed.scenario;
  const SearchOptions options = parsed.options;
  return to_json(search_point(search_request["scenario"], num_gpus, options,
                              [&](const nlohmann::json&) { return scenario; }));
}

}  // namespace paraplan
