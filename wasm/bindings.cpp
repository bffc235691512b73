// JavaScript face of Paraplan: JSON text in, JSON text out. Errors become JavaScript
// exceptions carrying the same one-line message as the CLI, with the JSON path and the message
// also as separate fields (`path`, `detail`). No model logic here.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <nlohmann/json.hpp>

#include "paraplan/errors.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/hf_config.hpp"
#include "paraplan/model.hpp"
#include "paraplan/presets.hpp"
#include "paraplan/request.hpp"
#include "paraplan/search.hpp"
#include "paraplan/trace.hpp"

namespace {

using emscripten::val;
using paraplan::InputError;

// Runs `body`, turning any C++ exception into a thrown JavaScript Error.
template <typename Body>
std::string guarded(Body body) {
  std::string message, path, detail;
  try {
    return body();
  } catch (const InputError& error) {
    message = error.what();
    path = error.path();
    detail = error.message();
  } catch (const std::exception& error) {
    message = std::string("internal error: ") + error.what();
    detail = message;
  }
  val exception = val::global("Error").new_(message);
  exception.set("path", path);
  exception.set("detail", detail);
  exception.throw_();
  return {};
}

paraplan::Scenario scenario_of(const std::string& json) {
  return paraplan::parse_scenario(paraplan::parse_json_text(json, "input"));
}

std::string estimate(const std::string& scenario_json) {
  return guarded([&] { return to_json(paraplan::estimate(scenario_of(scenario_json))).dump(); });
}

// request: {"scenario": {...}, "options": {"top", "time_budget_s", "tp_across_nodes"}}.
// on_progress(progress) is called every few thousand evaluations; false cancels.
std::string search(const std::string& request_json, val on_progress) {
  return guarded([&] {
    paraplan::SearchRequest request =
        paraplan::parse_search_request(paraplan::parse_json_text(request_json, "input"));
    if (!on_progress.isUndefined() && !on_progress.isNull()) {
      request.options.on_progress = [&](const paraplan::SearchProgress& p) {
        val report = val::object();
        report.set("evaluated", static_cast<double>(p.evaluated));
        report.set("pruned", static_cast<double>(p.pruned));
        report.set("fraction", p.fraction_done);
        report.set("best_iteration_time_s", p.best_iteration_time_s);
        report.set("elapsed_s", p.elapsed_s);
        const val keep_going = on_progress(report);
        return keep_going.isUndefined() || keep_going.as<bool>();
      };
    }
    return to_json(paraplan::search(request.scenario, request.options), request.scenario).dump();
  });
}

// A scenario with a strategy: its report and the simulated schedule as a Chrome trace.
std::string trace(const std::string& scenario_json) {
  return guarded([&] {
    const paraplan::Scenario scenario = scenario_of(scenario_json);
    const paraplan::Report report = paraplan::estimate(scenario);
    const paraplan::Strategy strategy =
        paraplan::complete_strategy(scenario.strategy, scenario.cluster);
    return nlohmann::json{{"report", to_json(report)},
                          {"trace", paraplan::schedule_trace(strategy, report)}}
        .dump();
  });
}

std::string presets() {
  return guarded([] { return paraplan::presets_catalogue().dump(); });
}

std::string version() { return PARAPLAN_VERSION; }

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
  emscripten::function("presets", &presets);
  emscripten::function("version", &version);
  emscripten::function("schema", &schema);
  emscripten::function("importHfConfig", &import_hf_config);
  emscripten::function("parameterCounts", &parameter_counts);
}
