// Hardware sweeps: parameter lists, their grid, and the scenario at one point.
#include "paraplan/sweep.hpp"

#include <array>
#include <cmath>

#include "input/json_reader.hpp"
#include "model/number_text.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/presets.hpp"
#include "paraplan/request.hpp"
#include "paraplan/search.hpp"

namespace paraplan {
namespace {

// Bounds far beyond any GPU, as the preset parser's.
constexpr std::array<HardwareParameter, 6> kParameters = {{
    {"hbm_gib", "HBM capacity per GPU, GiB", false, 1, 1e6},
    {"hbm_gb_per_s", "HBM bandwidth per GPU, GB/s", false, 1, 1e7},
    {"intra_node.gpus", "NVLink domain size, GPUs", true, 1, 1 << 20},
    {"intra_node.gb_per_s", "NVLink bandwidth per GPU per direction, GB/s", false, 0.001, 1e6},
    {"inter_node.gb_per_s", "NIC bandwidth per GPU per direction, GB/s", false, 0.001, 1e6},
    {"tensor_tflops", "dense tensor TFLOP/s at the job's precision", false, 0.001, 1e7},
}};

std::string known_names() {
  std::string names;
  for (const HardwareParameter& p : kParameters) {
    if (!names.empty()) names += ", ";
    names += p.name;
  }
  return names;
}

double parse_number(const std::string& text, const HardwareParameter& parameter,
                    const std::string& path) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const bool whole = std::floor(value) == value;
  if (text.empty() || used != text.size() || !(value >= parameter.min && value <= parameter.max) ||
      (parameter.integer && !whole)) {
    throw detail::input_error(path, text_id::kErrorSweepValue,
                              std::string(parameter.name) + " expects " +
                                  (parameter.integer ? "an integer" : "a number") + " from " +
                                  number_text(parameter.min) + " to " + number_text(parameter.max) +
                                  ", got \"" + text + "\"",
                              {{"name", std::string(parameter.name)},
                               {"integer", parameter.integer ? "true" : "false"},
                               {"min", number_text(parameter.min)},
                               {"max", number_text(parameter.max)},
                               {"got_value", text}});
  }
  return value;
}

// NAME=FROM:TO:STEP's values (`values` is what follows "=", `text` the whole item).
std::vector<double> range_values(const HardwareParameter& parameter, const std::string& name,
                                 const std::string& values, const std::string& text,
                                 const std::string& path) {
  std::vector<double> out;
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t colon = values.find(':', start);
    parts.push_back(values.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() != 3) {
    throw detail::input_error(path, text_id::kErrorSweepRange,
                              "expected " + name + "=FROM:TO:STEP, got \"" + text + "\"",
                              {{"name", name}, {"got_value", text}});
  }
  const double from = parse_number(parts[0], parameter, path);
  const double to = parse_number(parts[1], parameter, path);
  size_t used = 0;
  double step = 0;
  try {
    step = std::stod(parts[2], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (parts[2].empty() || used != parts[2].size() || !(step > 0) || !std::isfinite(step) ||
      (parameter.integer && std::floor(step) != step)) {
    throw detail::input_error(path, text_id::kErrorSweepStep,
                              name + ": the step must be a positive " +
                                  (parameter.integer ? "integer" : "number") + ", got \"" +
                                  parts[2] + "\"",
                              {{"name", name},
                               {"integer", parameter.integer ? "true" : "false"},
                               {"got_value", parts[2]}});
  }
  if (to < from) {
    throw detail::input_error(path, text_id::kErrorRangeEmpty,
                              name + ": the range is empty (its end " + parts[1] +
                                  " is below its start " + parts[0] + ")",
                              {{"name", name}, {"to", parts[1]}, {"from", parts[0]}});
  }
  const double count = std::floor((to - from) / step * (1 + 1e-12)) + 1;
  if (count > static_cast<double>(limits::kMaxSweepPoints)) {
    const std::string max = std::to_string(limits::kMaxSweepPoints);
    throw detail::input_error(
        path, text_id::kErrorSweepValues,
        name + ": " + number_text(count) + " values; at most " + max + " (raise the step)",
        {{"name", name}, {"count", number_text(count)}, {"max", max}});
  }
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
    out.push_back(from + static_cast<double>(i) * step);
  }
  return out;
}

// NAME=V1,V2,...'s values.
std::vector<double> list_values(const HardwareParameter& parameter, const std::string& name,
                                const std::string& values, const std::string& path) {
  std::vector<double> out;
  for (size_t start = 0;;) {
    const size_t comma = values.find(',', start);
    out.push_back(parse_number(values.substr(start, comma - start), parameter, path));
    if (out.size() > static_cast<size_t>(limits::kMaxSweepPoints)) {
      const std::string max = std::to_string(limits::kMaxSweepPoints);
      throw detail::input_error(path, text_id::kErrorSweepValues,
                                name + ": at most " + max + " values",
                                {{"name", name}, {"max", max}});
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::span<const HardwareParameter> hardware_parameters() { return kParameters; }

SweepParameter parse_sweep_parameter(const std::string& text, const std::string& path) {
  const size_t equals = text.find('=');
  const std::string name = text.substr(0, equals);
  const HardwareParameter* parameter = nullptr;
  for (const HardwareParameter& p : kParameters) {
    if (p.name == name) parameter = &p;
  }
  if (parameter == nullptr) {
    throw detail::input_error(
        path, text_id::kErrorSweepParameter,
        "unknown hardware parameter \"" + name + "\" (known: " + known_names() + ")",
        {{"name", name}, {"known", known_names()}});
  }
  if (equals == std::string::npos || equals + 1 == text.size()) {
    throw detail::input_error(path, text_id::kErrorSweepSyntax,
                              "expected " + name + "=FROM:TO:STEP or " + name + "=V1,V2,...",
                              {{"name", name}});
  }
  const std::string values = text.substr(equals + 1);
  SweepParameter out{name, {}};
  out.values = values.find(':') != std::string::npos
                   ? range_values(*parameter, name, values, text, path)
                   : list_values(*parameter, name, values, path);
  return out;
}

std::vector<std::vector<double>> sweep_grid(const std::vector<SweepParameter>& parameters,
                                            const std::string& path) {
  if (parameters.empty()) {
    throw detail::input_error(
        path, text_id::kErrorSweepRequired,
        "is required: NAME=FROM:TO:STEP or NAME=V1,V2,... (names: " + known_names() + ")",
        {{"known", known_names()}});
  }
  if (parameters.size() > static_cast<size_t>(limits::kMaxSweepParameters)) {
    const std::string max = std::to_string(limits::kMaxSweepParameters);
    throw detail::input_error(path, text_id::kErrorSweepParameters,
                              "at most " + max + " parameters are swept at once", {{"max", max}});
  }
  if (parameters.size() == 2 && parameters[0].name == parameters[1].name) {
    throw detail::input_error(path, text_id::kErrorSweptTwice,
                              parameters[0].name + " is swept twice",
                              {{"name", parameters[0].name}});
  }
  double total = 1;
  for (const SweepParameter& p : parameters) total *= static_cast<double>(p.values.size());
  if (total > static_cast<double>(limits::kMaxSweepPoints)) {
    const std::string max = std::to_string(limits::kMaxSweepPoints);
    throw detail::input_error(path, text_id::kErrorSweepPoints,
                              "the sweep has " + number_text(total) + " points; at most " + max,
                              {{"count", number_text(total)}, {"max", max}});
  }
  std::vector<std::vector<double>> grid = {{}};
  for (const SweepParameter& p : parameters) {
    std::vector<std::vector<double>> next;
    for (const std::vector<double>& head : grid) {
      for (const double value : p.values) {
        next.push_back(head);
        next.back().push_back(value);
      }
    }
    grid = std::move(next);
  }
  return grid;
}

nlohmann::json swept_scenario(const nlohmann::json& scenario,
                              const std::vector<SweepParameter>& parameters,
                              const std::vector<double>& values) {
  nlohmann::json out = scenario;
  if (!out.is_object() || !out.contains("cluster") || !out["cluster"].is_object() ||
      !out["cluster"].contains("gpus") || !out["cluster"]["gpus"].is_array()) {
    return out;  // the parser says what is wrong
  }
  std::string precision = "bf16";
  if (out.contains("training") && out["training"].is_object() &&
      out["training"].contains("precision") && out["training"]["precision"].is_string()) {
    precision = out["training"]["precision"].get<std::string>();
  }
  for (nlohmann::json& entry : out["cluster"]["gpus"]) {
    if (!entry.is_object() || !entry.contains("type")) continue;
    nlohmann::json& type = entry["type"];
    // The GPU as a full object: its preset, with an inline object's fields over it.
    nlohmann::json gpu;
    if (type.is_string()) {
      const nlohmann::json* preset = find_preset(PresetKind::gpu, type.get<std::string>());
      if (preset == nullptr) continue;  // the parser names the unknown preset
      gpu = *preset;
    } else if (type.is_object()) {
      gpu = type;
      if (type.contains("base") && type["base"].is_string()) {
        const nlohmann::json* preset =
            find_preset(PresetKind::gpu, type["base"].get<std::string>());
        if (preset == nullptr) continue;
        gpu = *preset;
        for (const auto& [key, value] : type.items()) {
          if (key == "base") continue;
          if (gpu.contains(key) && gpu[key].is_object() && value.is_object()) {
            gpu[key].update(value);
          } else {
            gpu[key] = value;
          }
        }
      }
    } else {
      continue;
    }
    for (size_t i = 0; i < parameters.size(); ++i) {
      const std::string& name = parameters[i].name;
      const double value = values[i];
      const size_t dot = name.find('.');
      if (name == "tensor_tflops") {
        if (!gpu.contains("tensor_tflops") || !gpu["tensor_tflops"].is_object()) continue;
        nlohmann::json& peaks = gpu["tensor_tflops"];
        const double at = peaks.contains(precision) && peaks[precision].is_number()
                              ? peaks[precision].get<double>()
                              : 0;
        if (!(at > 0)) continue;  // the type cannot run the precision: left as it is
        for (auto& [key, peak] : peaks.items()) {
          if (peak.is_number()) peak = peak.get<double>() * value / at;
        }
        peaks[precision] = value;
      } else if (dot == std::string::npos) {
        gpu[name] = value;
      } else {
        const std::string tier = name.substr(0, dot), key = name.substr(dot + 1);
        if (key == "gpus") {
          gpu[tier][key] = static_cast<int64_t>(value);
        } else {
          gpu[tier][key] = value;
        }
      }
    }
    type = gpu;
  }
  return out;
}

SweepRequest parse_sweep_request(const nlohmann::json& request) {
  detail::ObjectReader root(request, "");
  SweepRequest out;
  out.scenario = root.required("scenario");
  if (const nlohmann::json* options = root.find("options")) out.options = *options;
  const nlohmann::json& sweep = root.required("sweep");
  if (!sweep.is_array()) {
    throw detail::value_error("sweep", text_id::kErrorSweepList,
                              "expected a list of \"NAME=VALUES\"", {}, sweep);
  }
  for (size_t i = 0; i < sweep.size(); ++i) {
    const std::string path = "sweep[" + std::to_string(i) + "]";
    if (!sweep[i].is_string()) {
      throw detail::value_error(path, text_id::kErrorSweepItem, "expected \"NAME=VALUES\"", {},
                                sweep[i]);
    }
    out.parameters.push_back(parse_sweep_parameter(sweep[i].get<std::string>(), path));
  }
  out.grid = sweep_grid(out.parameters, "sweep");
  root.reject_unknown_keys();
  return out;
}

nlohmann::json search_sweep_point(const SweepRequest& request, int64_t point) {
  const auto index = static_cast<size_t>(point);
  if (point < 0 || index >= request.grid.size()) {
    const std::string max = std::to_string(request.grid.size() - 1);
    throw detail::input_error("point", text_id::kErrorSweepPoint,
                              "expected a point from 0 to " + max, {{"max", max}});
  }
  nlohmann::json search_request = {
      {"scenario", swept_scenario(request.scenario, request.parameters, request.grid[index])}};
  if (!request.options.is_null()) search_request["options"] = request.options;
  SearchRequest parsed = parse_search_request(search_request);
  parsed.options.top = 1;
  const SearchResult result = search(parsed.scenario, parsed.options);
  nlohmann::json parameters = nlohmann::json::object();
  for (size_t p = 0; p < request.parameters.size(); ++p) {
    parameters[request.parameters[p].name] = request.grid[index][p];
  }
  return {
      {"point", index},
      {"parameters", parameters},
      {"best", result.strategies.empty() ? nlohmann::json(nullptr)
                                         : to_json(result.strategies.front(), 1, parsed.scenario)},
      {"stats",
       {{"evaluated", result.stats.evaluated},
        {"feasible", result.stats.feasible},
        {"seconds", result.stats.seconds},
        {"complete", result.stats.complete}}}};
}

std::vector<size_t> shard_points(size_t points, int64_t index, int64_t count) {
  std::vector<size_t> out;
  for (size_t i = static_cast<size_t>(index - 1); i < points; i += static_cast<size_t>(count)) {
    out.push_back(i);
  }
  return out;
}

}  // namespace paraplan
