// JavaScript face of Paraplan: JSON text in, JSON text out. Errors become JavaScript
// exceptions carrying the same one-line message as the CLI, with the JSON path and the message
// also as separate fields (`path`, `detail`), and the message's id and values (`text`, where it
// has an id: the page writes it in its language). No model logic here.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <nlohmann/json.hpp>

#include "paraplan/errors.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/hf_config.hpp"
#include "paraplan/model.hpp"
#include "paraplan/presets.hpp"
#include "paraplan/request.hpp"
#include "paraplan/scaling.hpp"
#include "paraplan/search.hpp"
#include "paraplan/sweep.hpp"
#include "paraplan/trace.hpp"

namespace {

using emscripten::val;
using paraplan::InputError;

// Runs `body`, turning any C++ exception into a thrown JavaScript Error.
template <typename Body>
std::string guarded(Body body) {
  std::string message, path, detail, text;
  try {
    return body();
  } catch (const InputError& error) {
    message = error.what();
    path = error.path();
    detail = error.message();
    if (!error.text().id.empty()) text = to_json(error.text()).dump();
  } catch (const std::exception& error) {
    message = std::string("internal error: ") + error.what();
    detail = message;
  }
  val exception = val::global("Error").new_(message);
  exception.set("path", path);
  exception.set("detail", detail);
  if (!text.empty()) exception.set("text", val::global("JSON").call<val>("parse", text));
  exception.throw_();
  return {};
}

paraplan::Scenario scenario_of(const std::string& json) {
  return paraplan::parse_scenario(paraplan::parse_json_text(json, "input"));
}

std::string estimate(const std::string& scenario_json) {
  return guarded([&] { return to_json(paraplan::estimate(scenario_of(scenario_json))).dump(); });
}

// request: {"scenario": {...}, "options": {"top", "time_budget_s", "tp_across_nodes",
// "memory_margin", "allow_at_risk"}}.
// Reports a search's progress to `on_progress` (when given); its false cancels. Where the report
// carries the rows so far, they go as `rows`, each with what the page's results table draws of
// the result's `strategies` entry (web/src/paraplan/types.ts, TableRow; paraplan::to_table_json,
// which builds no launches, flags or per-stage report; `scenario`: the search's).
std::function<bool(const paraplan::SearchProgress&)> progress_callback(
    val& on_progress, const paraplan::Scenario* scenario = nullptr) {
  if (on_progress.isUndefined() || on_progress.isNull()) return {};
  return [&on_progress, scenario](const paraplan::SearchProgress& p) {
    val report = val::object();
    report.set("evaluated", static_cast<double>(p.evaluated));
    report.set("pruned", static_cast<double>(p.pruned));
    report.set("fraction", p.fraction_done);
    report.set("best_iteration_time_s", p.best_iteration_time_s);
    report.set("best_layout", p.best_layout);
    report.set("elapsed_s", p.elapsed_s);
    if (scenario != nullptr && !p.rows.empty()) {
      nlohmann::json rows = nlohmann::json::array();
      for (size_t i = 0; i < p.rows.size(); ++i) {
        rows.push_back(paraplan::to_table_json(p.rows[i], i + 1, *scenario));
      }
      report.set("rows", val::global("JSON").call<val>("parse", rows.dump()));
    }
    const val keep_going = on_progress(report);
    return keep_going.isUndefined() || keep_going.as<bool>();
  };
}

// on_progress(progress) is called every few thousand evaluations and every quarter second; false
// cancels. Its reports carry the best rows so far (as many as the search lists, as the table
// draws them) when they changed, for the page to show while the search runs; the first, where the
// probe finds one, before the walk (SearchOptions::first_rows_probe).
std::string search(const std::string& request_json, val on_progress) {
  return guarded([&] {
    paraplan::SearchRequest request =
        paraplan::parse_search_request(paraplan::parse_json_text(request_json, "input"));
    request.options.on_progress = progress_callback(on_progress, &request.scenario);
    request.options.progress_rows = request.options.top;
    request.options.first_rows_probe = true;
    return to_json(paraplan::search(request.scenario, request.options), request.scenario).dump();
  });
}

// request: {"scenario", "options", "scaling": {"from", "to", "step", "weak"}}: its sizes.
std::string scaling_sizes(const std::string& request_json) {
  return guarded([&] {
    const paraplan::ScalingRequest request =
        paraplan::parse_scaling_request(paraplan::parse_json_text(request_json, "input"));
    return nlohmann::json(paraplan::scaling_sizes(request.range)).dump();
  });
}

// One point of a scaling series: {"num_gpus", "global_batch_size", "best", "stats"}.
std::string scaling_point(const std::string& request_json, int num_gpus, val on_progress) {
  return guarded([&] {
    const paraplan::ScalingRequest request =
        paraplan::parse_scaling_request(paraplan::parse_json_text(request_json, "input"));
    return paraplan::search_scaling_point(request, static_cast<int64_t>(num_gpus),
                                          progress_callback(on_progress))
        .dump();
  });
}

// The cliffs of a series: [tokens/s per GPU, 0 for none] -> [true/false].
std::string scaling_cliffs(const std::string& values_json) {
  return guarded([&] {
    const nlohmann::json values = paraplan::parse_json_text(values_json, "input");
    std::vector<double> per_gpu;
    for (const nlohmann::json& value : values) {
      per_gpu.push_back(value.is_number() ? value.get<double>() : 0.0);
    }
    const std::vector<bool> cliffs = paraplan::find_cliffs(per_gpu);
    return nlohmann::json(std::vector<bool>(cliffs.begin(), cliffs.end())).dump();
  });
}

// request: {"scenario", "options", "sweep": ["NAME=VALUES", ...]}: its parameter names and
// grid of values.
std::string sweep_grid(const std::string& request_json) {
  return guarded([&] {
    const paraplan::SweepRequest request =
        paraplan::parse_sweep_request(paraplan::parse_json_text(request_json, "input"));
    nlohmann::json names = nlohmann::json::array();
    for (const paraplan::SweepParameter& p : request.parameters) names.push_back(p.name);
    return nlohmann::json{{"parameters", names}, {"points", request.grid}}.dump();
  });
}

// One point of a sweep: {"point", "parameters", "best", "stats"}.
std::string sweep_point(const std::string& request_json, int index) {
  return guarded([&] {
    const paraplan::SweepRequest request =
        paraplan::parse_sweep_request(paraplan::parse_json_text(request_json, "input"));
    return paraplan::search_sweep_point(request, index).dump();
  });
}

// A scenario with a strategy: its report and the simulated schedule as a Chrome trace.
std::string trace(const std::string& scenario_json) {
  return guarded([&] {
    const paraplan::Scenario scenario = scenario_of(scenario_json);
    const paraplan::Report report = paraplan::estimate(scenario);
    const paraplan::Strategy strategy = paraplan::complete_strategy(scenario);
    return nlohmann::json{{"report", to_json(report)},
                          {"trace", paraplan::schedule_trace(strategy, report)}}
        .dump();
  });
}

std::string presets() {
  return guarded([] { return paraplan::presets_catalogue().dump(); });
}

std::string version() { return PARAPLAN_VERSION; }

// Lists the built-in presets now, so that the page's first search does not wait for it: the
// worker calls this as soon as the module loads. (Each preset file is parsed on its first use,
// core/src/input/presets.cpp, so this no longer parses them all.)
void warm() {
  guarded([] { return std::to_string(paraplan::preset_ids(paraplan::PresetKind::model).size()); });
}

// What the page checks before it sends a request: limits, strategy keys and names.
std::string schema() {
  return guarded([] { return paraplan::input_schema().dump(); });
}

// A Hugging Face config.json: {"architecture", "model", "unmapped", "parameters"}.
std::string import_hf_config(const std::string& config_json) {
  return guarded([&] {
    return to_json(paraplan::import_hf_config(paraplan::parse_json_text(config_json, "input")))
        .dump();
  });
}

// A scenario's model (a preset name or an object): its parameter counts.
std::string parameter_counts(const std::string& model_json) {
  return guarded([&] {
    const paraplan::ModelSpec model =
        paraplan::parse_model(paraplan::parse_json_text(model_json, "input"), "model");
    return to_json(paraplan::count_parameters(model)).dump();
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(paraplan) {
  emscripten::function("estimate", &estimate);
  emscripten::function("search", &search);
  emscripten::function("trace", &trace);
  emscripten::function("scalingSizes", &scaling_sizes);
  emscripten::function("scalingPoint", &scaling_point);
  emscripten::function("scalingCliffs", &scaling_cliffs);
  emscripten::function("sweepGrid", &sweep_grid);
  emscripten::function("sweepPoint", &sweep_point);
  emscripten::function("presets", &presets);
  emscripten::function("version", &version);
  emscripten::function("warm", &warm);
  emscripten::function("schema", &schema);
  emscripten::function("importHfConfig", &import_hf_config);
  emscripten::function("parameterCounts", &parameter_counts);
}
