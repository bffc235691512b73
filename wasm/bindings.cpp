// JavaScript face of Paraplan: JSON text in, JSON text out. Errors become JavaScript
// exceptions carrying the same one-line message as the CLI. No model logic here.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <nlohmann/json.hpp>

#include "paraplan/errors.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/presets.hpp"
#include "paraplan/search.hpp"
#include "paraplan/trace.hpp"

namespace {

using emscripten::val;
using paraplan::InputError;

// Runs `body`, turning any C++ exception into a thrown JavaScript Error.
template <typename Body>
std::string guarded(Body body) {
  std::string message;
  try {
    return body();
  } catch (const InputError& error) {
    message = error.what();
  } catch (const std::exception& error) {
    message = std::string("internal error: ") + error.what();
  }
  val::global("Error").new_(message).throw_();
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
    const nlohmann::json request = paraplan::parse_json_text(request_json, "input");
    if (!request.is_object() || !request.contains("scenario")) {
      throw InputError("scenario", "is required");
    }
    const paraplan::Scenario scenario = paraplan::parse_scenario(request["scenario"]);
    const nlohmann::json options = request.value("options", nlohmann::json::object());
    paraplan::SearchOptions search_options;
    search_options.top = std::clamp(options.value("top", 10), 1, 1000);
    search_options.time_budget_s = std::clamp(options.value("time_budget_s", 30.0), 0.1, 3600.0);
    search_options.allow_tensor_parallel_across_nodes = options.value("tp_across_nodes", false);
    if (!on_progress.isUndefined() && !on_progress.isNull()) {
      search_options.on_progress = [&](const paraplan::SearchProgress& p) {
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
    return to_json(paraplan::search(scenario, search_options), scenario).dump();
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

}  // namespace

EMSCRIPTEN_BINDINGS(paraplan) {
  emscripten::function("estimate", &estimate);
  emscripten::function("search", &search);
  emscripten::function("trace", &trace);
  emscripten::function("presets", &presets);
  emscripten::function("version", &version);
}
