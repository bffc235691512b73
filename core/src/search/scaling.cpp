// Scaling series: sizes, scaled scenarios, one point's search, cliffs and the series' JSON.
#include "paraplan/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

#include "input/json_reader.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/presets.hpp"
#include "paraplan/request.hpp"

namespace paraplan {

std::vector<int64_t> scaling_sizes(const ScalingRange& range, const ScalingNames& names) {
  const auto check = [](const std::string& name, int64_t value, int64_t min, int64_t max) {
    if (value < min || value > max) {
      throw detail::value_error(
          name, text_id::kErrorIntegerRange,
          "expected an integer from " + std::to_string(min) + " to " + std::to_string(max),
          {{"min", std::to_string(min)}, {"max", std::to_string(max)}}, value);
    }
  };
  check(names.from, range.from_gpus, 1, limits::kMaxGpus);
  check(names.to, range.to_gpus, 1, limits::kMaxGpus);
  check(names.step, range.step_gpus, 1, limits::kMaxGpus);
  if (range.to_gpus < range.from_gpus) {
    const std::string to = std::to_string(range.to_gpus), from = std::to_string(range.from_gpus);
    throw detail::input_error(names.to, text_id::kErrorRangeEmpty,
                              "the range is empty: " + to + " is below the start " + from,
                              {{"to", to}, {"from", from}});
  }
  const int64_t count = (range.to_gpus - range.from_gpus) / range.step_gpus + 1;
  if (count > limits::kMaxScalingPoints) {
    const std::string from = std::to_string(range.from_gpus), to = std::to_string(range.to_gpus),
                      step = std::to_string(range.step_gpus), points = std::to_string(count),
                      max = std::to_string(limits::kMaxScalingPoints);
    throw detail::input_error(
        names.step, text_id::kErrorScalingPoints,
        "the range from " + from + " to " + to + " in steps of " + step + " has " + points +
            " points; at most " + max + " are searched (raise the step)",
        {{"from", from}, {"to", to}, {"step", step}, {"count", points}, {"max", max}});
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
      const std::string gpus = std::to_string(num_gpus),
                        batch_then = std::to_string(static_cast<int64_t>(scaled)),
                        max = std::to_string(limits::kMaxGlobalBatchSize);
      throw detail::input_error(names.weak, text_id::kErrorWeakBatch,
                                "the global batch at " + gpus + " GPUs would be " + batch_then +
                                    ", above the limit of " + max,
                                {{"num_gpus", gpus}, {"batch", batch_then}, {"max", max}});
    }
    batch = static_cast<int64_t>(std::max(1.0, scaled));
  }
  return out;
}

namespace {

// The indices of the points with a strategy (a value above 0).
std::vector<size_t> with_strategy(const std::vector<double>& values) {
  std::vector<size_t> out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > 0) out.push_back(i);
  }
  return out;
}

// envelope[i]: the best value at point i or any later point (0 where none has a strategy).
std::vector<double> envelope_from(const std::vector<double>& values) {
  std::vector<double> envelope(values.size(), 0.0);
  double best = 0;
  for (size_t i = values.size(); i-- > 0;) {
    best = std::max(best, values[i]);
    envelope[i] = best;
  }
  return envelope;
}

}  // namespace

std::vector<bool> find_cliffs(const std::vector<double>& tokens_per_s_per_gpu) {
  const std::vector<double>& values = tokens_per_s_per_gpu;
  std::vector<bool> cliffs(values.size(), false);
  const std::vector<size_t> present = with_strategy(values);
  const std::vector<double> envelope = envelope_from(values);
  for (size_t k = 1; k < present.size(); ++k) {
    // Every size from here on is more than kCliffDrop below the previous size with a strategy.
    if (envelope[present[k]] < (1 - kCliffDrop) * values[present[k - 1]]) {
      cliffs[present[k]] = true;
    }
  }
  return cliffs;
}

std::vector<bool> find_dips(const std::vector<double>& tokens_per_s_per_gpu) {
  const std::vector<double>& values = tokens_per_s_per_gpu;
  std::vector<bool> dips(values.size(), false);
  const std::vector<double> envelope = envelope_from(values);
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    if (values[i] > 0 && values[i] < (1 - kCliffDrop) * envelope[i + 1]) dips[i] = true;
  }
  return dips;
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

// Why a size has no strategy: the search's diagnosis (the rules that ruled every candidate out,
// with their numbers, or the closest miss in memory), and why the search stopped, as its parts.
CoreText no_strategy_reason(const ScalingPoint& point) {
  const SearchResult& result = point.result;
  CoreText reason{text_id::kNoStrategyAtSize,
                  "",
                  {{"num_gpus", std::to_string(point.num_gpus)}},
                  result.diagnosis_texts};
  if (!result.stats.complete) {
    CoreText stopped{text_id::kStoppedEarly, "the search stopped early", {}, {}};
    if (!result.stats.stopped.empty()) {
      stopped.text += " (" + result.stats.stopped + ")";
      stopped.parts.push_back(result.stats.stopped_text);
    }
    reason.parts.push_back(std::move(stopped));
  }
  for (const CoreText& part : reason.parts)
    reason.text += (reason.text.empty() ? "" : "; ") + part.text;
  if (reason.text.empty())
    reason.text = "no strategy is feasible at " + std::to_string(point.num_gpus) + " GPUs";
  return reason;
}

}  // namespace

nlohmann::json to_json(const ScalingPoint& point) {
  const SearchResult& result = point.result;
  nlohmann::json out = {
      {"num_gpus", point.num_gpus},
      {"global_batch_size", point.scenario.training.global_batch_size},
      {"best", result.strategies.empty() ? nlohmann::json(nullptr)
                                         : to_json(result.strategies.front(), 1, point.scenario)},
      {"stats", to_json(result.stats)}};
  if (result.strategies.empty()) {
    const CoreText reason = no_strategy_reason(point);
    out["reason"] = reason.text;
    out["reason_text"] = to_json(reason);
  }
  return out;
}

namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0, double d = 0) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, a, b, c, d);
  return text;
}

int64_t size_of(const nlohmann::json& strategy, const char* key) {
  return strategy.contains(key) && strategy[key].is_number_integer() ? strategy[key].get<int64_t>()
                                                                     : 1;
}

// "TP8 PP35 DP1": the parallel sizes above 1 (TP, PP and DP always).
std::string sizes_text(const nlohmann::json& best) {
  const nlohmann::json& s = best["strategy"];
  std::string text = "TP" + std::to_string(size_of(s, "tensor_model_parallel_size")) + " PP" +
                     std::to_string(size_of(s, "pipeline_model_parallel_size"));
  if (const int64_t vp = size_of(s, "virtual_pipeline_model_parallel_size"); vp > 1)
    text += " VP" + std::to_string(vp);
  if (const int64_t cp = size_of(s, "context_parallel_size"); cp > 1)
    text += " CP" + std::to_string(cp);
  if (const int64_t ep = size_of(s, "expert_model_parallel_size"); ep > 1)
    text += " EP" + std::to_string(ep);
  return text + " DP" + std::to_string(size_of(best["estimate"], "data_parallel_size"));
}

// What a strategy does to fit in memory: full recompute, offloads, ZeRO-3.
std::vector<std::string> memory_measures(const nlohmann::json& best) {
  const nlohmann::json& s = best["strategy"];
  std::vector<std::string> measures;
  bool full = false;
  if (best.contains("recompute-granularity") && best["recompute-granularity"].is_object()) {
    for (const auto& [gpu, granularity] : best["recompute-granularity"].items())
      full = full || granularity == "full";
  }
  if (full) measures.emplace_back("full recompute");
  if (s.value("optimizer_cpu_offload", false)) measures.emplace_back("the optimizer on the CPU");
  if (s.value("cpu_offloading_num_layers", int64_t{0}) > 0)
    measures.emplace_back("activations offloaded to the CPU");
  if (s.value("zero_stage", int64_t{0}) >= 3) measures.emplace_back("ZeRO-3");
  return measures;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : ", ") + parts[i];
  return text;
}

// Why point `point` is more efficient per GPU than the reference (efficiency above 100%).
std::string above_reference_note(const nlohmann::json& point, const nlohmann::json& reference) {
  const std::vector<std::string> needed = memory_measures(reference["best"]);
  const std::vector<std::string> here = memory_measures(point["best"]);
  std::vector<std::string> spared;
  for (const std::string& measure : needed) {
    if (std::find(here.begin(), here.end(), measure) == here.end()) spared.push_back(measure);
  }
  const std::string ref = std::to_string(reference["num_gpus"].get<int64_t>());
  if (!spared.empty()) {
    return "above 100%: at " + ref + " GPUs the job fits only with " + joined(spared) + " (" +
           sizes_text(reference["best"]) + "), which this size does not need";
  }
  return "above 100%: the best strategy here (" + sizes_text(point["best"]) +
         ") is faster per GPU than the best at " + ref + " GPUs (" + sizes_text(reference["best"]) +
         ")";
}

// Why point i is more than kCliffDrop below a larger size per GPU: data parallelism divides
// both the global batch and the GPUs, so the rest of the GPUs' factors fall to the other sizes.
std::string dip_note(const std::vector<nlohmann::json>& points, const std::vector<double>& values,
                     size_t i) {
  size_t best = i + 1;
  for (size_t j = i + 1; j < values.size(); ++j) {
    if (values[j] > values[best]) best = j;
  }
  std::string note = format("%.0f%% below the %.0f tokens/s per GPU at %.0f GPUs",
                            100 * (1 - values[i] / values[best]), values[best],
                            points[best]["num_gpus"].get<double>());
  const int64_t gpus = points[i]["num_gpus"].get<int64_t>();
  const int64_t batch = points[i]["global_batch_size"].get<int64_t>();
  const int64_t data = std::gcd(gpus, batch);
  if (gpus / data > 1) {
    note += format(
        ": data parallelism must divide both the global batch (%.0f) and the GPUs (%.0f), so it "
        "is at most %.0f and the factor %.0f falls to tensor, pipeline and context parallelism",
        static_cast<double>(batch), static_cast<double>(gpus), static_cast<double>(data),
        static_cast<double>(gpus / data));
    note += " (" + sizes_text(points[i]["best"]) + " here)";
  }
  return note;
}

// When a smaller size gives more tokens/s in all than point i (by more than
// kEfficiencyTolerance, so that a tie is not news): the largest such.
std::string fewer_gpus_note(const std::vector<nlohmann::json>& points,
                            const std::vector<double>& values, size_t i) {
  const auto total = [&](size_t k) { return values[k] * points[k]["num_gpus"].get<double>(); };
  std::optional<size_t> best;
  for (size_t j = 0; j < i; ++j) {
    if (values[j] > 0 && total(j) > (1 + kEfficiencyTolerance) * total(i) &&
        (!best || total(j) > total(*best))) {
      best = j;
    }
  }
  if (!best) return "";
  return format("fewer GPUs do more: %.0f GPUs reach %.0f tokens/s in all, above the %.0f here",
                points[*best]["num_gpus"].get<double>(), total(*best), total(i));
}

}  // namespace

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
  const std::vector<bool> dips = find_dips(per_gpu);
  // Efficiency is per GPU against the smallest size with a strategy.
  const auto reference =
      std::find_if(per_gpu.begin(), per_gpu.end(), [](double v) { return v > 0; });
  const size_t ref = static_cast<size_t>(reference - per_gpu.begin());
  nlohmann::json out_points = nlohmann::json::array();
  nlohmann::json cliff_sizes = nlohmann::json::array();
  nlohmann::json dip_sizes = nlohmann::json::array();
  for (size_t i = 0; i < points.size(); ++i) {
    nlohmann::json point = points[i];
    point["cliff"] = static_cast<bool>(cliffs[i]);
    point["dip"] = static_cast<bool>(dips[i]);
    if (cliffs[i]) cliff_sizes.push_back(point["num_gpus"]);
    if (dips[i]) dip_sizes.push_back(point["num_gpus"]);
    if (per_gpu[i] > 0) {
      const double efficiency = per_gpu[i] / per_gpu[ref];
      point["efficiency"] = efficiency;
      std::vector<std::string> notes;
      if (efficiency > 1 + kEfficiencyTolerance)
        notes.push_back(above_reference_note(points[i], points[ref]));
      if (dips[i]) notes.push_back(dip_note(points, per_gpu, i));
      if (const std::string fewer = fewer_gpus_note(points, per_gpu, i); !fewer.empty())
        notes.push_back(fewer);
      if (!notes.empty()) point["notes"] = notes;
    } else {
      point["efficiency"] = nullptr;
    }
    out_points.push_back(std::move(point));
  }
  return {{"points", out_points},
          {"stats",
           {{"points", points.size()},
            {"feasible_points", feasible_points},
            {"cliffs", cliff_sizes},
            {"dips", dip_sizes},
            {"cliff_drop", kCliffDrop},
            {"reference_num_gpus",
             reference == per_gpu.end() ? nlohmann::json(nullptr) : points[ref]["num_gpus"]},
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
    const std::string max = std::to_string(limits::kMaxGpus);
    throw detail::value_error("num_gpus", text_id::kErrorIntegerRange,
                              "expected an integer from 1 to " + max, {{"min", "1"}, {"max", max}},
                              num_gpus);
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
