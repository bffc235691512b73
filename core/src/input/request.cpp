// Request parsing shared by the CLI and the WebAssembly module, and the input schema.
#include "paraplan/request.hpp"

#include <nlohmann/json.hpp>

#include "input/json_reader.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/scaling.hpp"
#include "paraplan/units.hpp"

namespace paraplan {
namespace {

// Rejects oversized or deeply nested text before the recursive parts of JSON handling see it.
void check_json_shape(std::string_view text, const std::string& what) {
  if (text.size() > limits::kMaxJsonBytes) {
    const std::string bytes = std::to_string(text.size());
    const std::string max_bytes = std::to_string(limits::kMaxJsonBytes);
    throw detail::input_error(what, text_id::kErrorJsonTooLarge,
                              "is " + bytes + " bytes; at most " + max_bytes + " are accepted",
                              {{"bytes", bytes}, {"max_bytes", max_bytes}});
  }
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limits::kMaxJsonDepth) {
        const std::string max_depth = std::to_string(limits::kMaxJsonDepth);
        throw detail::input_error(what, text_id::kErrorJsonTooDeep,
                                  "nests deeper than " + max_depth + " levels",
                                  {{"max_depth", max_depth}});
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

nlohmann::json key_schema(const StrategyKey& key) {
  static constexpr const char* kTypes[] = {"integer",  "boolean",  "choice",      "choice_set",
                                           "fraction", "gpu_list", "integer_list"};
  nlohmann::json out = {{"name", key.name},
                        {"type", kTypes[static_cast<int>(key.type)]},
                        {"per_gpu", key.per_gpu},
                        {"layer_cost", key.layer_cost},
                        {"description", key.description}};
  if (key.type == KeyType::integer || key.type == KeyType::integer_list) {
    out["min"] = key.min;
    if (key.max_is_num_layers) {
      out["max_is_num_layers"] = true;
    } else if (key.type == KeyType::integer) {
      out["max"] = key.max;
    }
  }
  if (!key.scalar()) return out;
  const int64_t value = key.default_value();
  switch (key.type) {
    case KeyType::boolean:
      out["default"] = value != 0;
      break;
    case KeyType::choice:
      out["choices"] =
          nlohmann::json(std::vector<std::string_view>(key.choices.begin(), key.choices.end()));
      out["default"] = key.choices[static_cast<size_t>(value)];
      break;
    case KeyType::choice_set: {
      out["choices"] =
          nlohmann::json(std::vector<std::string_view>(key.choices.begin(), key.choices.end()));
      out["default"] = choice_set_names(key, value);
      break;
    }
    case KeyType::fraction:
      out["min"] = static_cast<double>(key.min) / static_cast<double>(kFractionScale);
      out["max"] = static_cast<double>(key.max) / static_cast<double>(kFractionScale);
      out["default"] = static_cast<double>(value) / static_cast<double>(kFractionScale);
      break;
    default:
      out["default"] = value;
  }
  return out;
}

}  // namespace

MemoryMargin parse_memory_margin(const std::string& text, const std::string& path) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const double max = percent ? limits::kMaxMemoryMarginPercent : limits::kMaxMemoryMarginGib;
  if (number.empty() || used != number.size() || !(value >= 0 && value <= max)) {
    const std::string max_gib = std::to_string(static_cast<int>(limits::kMaxMemoryMarginGib));
    const std::string max_percent =
        std::to_string(static_cast<int>(limits::kMaxMemoryMarginPercent));
    throw detail::input_error(
        path, text_id::kErrorMemoryMargin,
        "expected GiB from 0 to " + max_gib + " or a percentage of each GPU's memory from 0% to " +
            max_percent + "%, got \"" + text + "\"",
        {{"max_gib", max_gib}, {"max_percent", max_percent}, {"got_value", text}});
  }
  MemoryMargin margin;
  margin.bytes = percent ? 0 : value * units::kGiB;
  margin.fraction = percent ? value / 100 : 0;
  return margin;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& what) {
  check_json_shape(text, what);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    // nlohmann's messages start with an id: "[json.exception.parse_error.101] parse error at
    // line 1, ..." or "[json.exception.out_of_range.406] number overflow parsing '1e999'".
    std::string message = error.what();
    const size_t start = message.find("] ");
    const std::string detail = start == std::string::npos ? message : message.substr(start + 2);
    throw detail::input_error(what, text_id::kErrorJsonInvalid, "is not valid JSON: " + detail,
                              {{"detail", detail}});
  }
}

SearchRequest parse_search_request(const nlohmann::json& request) {
  detail::ObjectReader root(request, "");
  SearchRequest out{parse_scenario(root.required("scenario")), {}};
  // Paths inside the scenario are reported as the scenario's own ("model.num_layers"), the
  // same as for `paraplan search SCENARIO.json`.
  if (const nlohmann::json* options = root.find("options")) {
    detail::ObjectReader object(*options, "options");
    SearchOptions& o = out.options;
    o.top = static_cast<int>(
        object.optional_integer("top", 1, limits::kMaxTop).value_or(limits::kDefaultTop));
    o.time_budget_s =
        object.optional_number("time_budget_s", limits::kMinTimeBudgetS, limits::kMaxTimeBudgetS)
            .value_or(limits::kDefaultTimeBudgetS);
    o.allow_tensor_parallel_across_nodes =
        object.optional_boolean("tp_across_nodes").value_or(false);
    o.distinct_layouts = !object.optional_boolean("all_variants").value_or(false);
    // "allow_at_risk": rank strategies inside the default memory margin by time with the rest.
    o.allow_at_risk = object.optional_boolean("allow_at_risk").value_or(false);
    // "memory_margin": GiB as a number or a string, or "N%" of each GPU's capacity.
    if (const nlohmann::json* margin = object.find("memory_margin")) {
      const std::string path = object.path_of("memory_margin");
      if (margin->is_number()) {
        o.memory_margin = parse_memory_margin(margin->dump(), path);
      } else if (margin->is_string()) {
        o.memory_margin = parse_memory_margin(margin->get<std::string>(), path);
      } else {
        throw detail::value_error(path, text_id::kErrorMemoryMarginType,
                                  "expected GiB (a number) or a string such as \"5%\"", {},
                                  *margin);
      }
    }
    object.reject_unknown_keys();
  }
  root.reject_unknown_keys();
  return out;
}

nlohmann::json limits::limits_json() {
  return {
      {"max_gpus", kMaxGpus},
      {"max_gpu_types", kMaxGpuTypes},
      {"max_gpus_per_node", kMaxGpusPerNode},
      {"max_global_batch_size", kMaxGlobalBatchSize},
      {"max_seq_length", kMaxSeqLength},
      {"max_parallel_size", kMaxParallelSize},
      {"max_model_dimension", kMaxModelDimension},
      {"max_layers", kMaxLayers},
      {"max_vocab", kMaxVocab},
      {"max_json_bytes", kMaxJsonBytes},
      {"scaling", {{"max_points", kMaxScalingPoints}, {"cliff_drop", kCliffDrop}}},
      {"sweep", {{"max_points", kMaxSweepPoints}, {"max_parameters", kMaxSweepParameters}}},
      {"search",
       {{"top", {{"min", 1}, {"max", kMaxTop}, {"default", kDefaultTop}}},
        {"memory_margin",
         {{"max_gib", kMaxMemoryMarginGib},
          {"max_percent", kMaxMemoryMarginPercent},
          // The default margin is not a filter: strategies inside it rank below the rest.
          {"default", std::to_string(static_cast<int>(default_memory_margin_percent())) + "%"},
          {"default_ranks_at_risk_last", true}}},
        {"time_budget_s",
         {{"min", kMinTimeBudgetS}, {"max", kMaxTimeBudgetS}, {"default", kDefaultTimeBudgetS}}}}}};
}

nlohmann::json input_schema() {
  nlohmann::json keys = nlohmann::json::array();
  for (const StrategyKey& key : strategy_keys()) keys.push_back(key_schema(key));
  const auto names = [](std::span<const std::string_view> values) {
    return nlohmann::json(std::vector<std::string_view>(values.begin(), values.end()));
  };
  return {{"version", PARAPLAN_VERSION},
          {"limits", limits::limits_json()},
          {"precisions", names(precision_names())},
          {"activations", names(activation_names())},
          {"frameworks", names(framework_names())},
          {"strategy_keys", keys}};
}

}  // namespace paraplan
