// Published per-switch ablations (switch-ablations.json): the model never credits a switch, or a
// stack of switches, with more throughput than the published measurement shows (plus its noise).
#include <doctest/doctest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "paraplan/estimate.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;

namespace {

// Tokens/s per GPU of `scenario` with `set`'s strategy keys applied (0 when infeasible).
double tokens_with(nlohmann::json scenario, const nlohmann::json& set) {
  for (const auto& [key, value] : set.items()) scenario["strategy"][key] = value;
  const Report report = estimate(parse_scenario(scenario));
  return report.feasible ? report.tokens_per_s_per_gpu : 0;
}

// The gain of a switch over the state the source measured it from (`before`: the switches
// the source had already turned on, else the scenario's baseline).
double switch_gain(const nlohmann::json& scenario, const nlohmann::json& s) {
  const nlohmann::json before = s.value("before", nlohmann::json::object());
  nlohmann::json after = before;
  after.update(s["set"]);
  return tokens_with(scenario, after) / tokens_with(scenario, before) - 1;
}

}  // namespace

TEST_CASE("stacked switches never gain more than the published ablations show") {
  const nlohmann::json data = load("switch-ablations.json");
  const double noise = data["noise"];
  for (const nlohmann::json& ablation : data["ablations"]) {
    const nlohmann::json& scenario = ablation["scenario"];
    const double baseline = tokens_with(scenario, nlohmann::json::object());
    REQUIRE_MESSAGE(baseline > 0, ablation["name"].get<std::string>());
    std::printf("\n%s: baseline %.0f tokens/s per GPU\n",
                ablation["name"].get<std::string>().c_str(), baseline);
    if (ablation.contains("published_tokens_per_s_per_gpu")) {
      // The published throughput before and after the optimizations, for information.
      const nlohmann::json& published = ablation["published_tokens_per_s_per_gpu"];
      const double final_tokens = tokens_with(scenario, published["final_set"]);
      std::printf("published baseline %.0f (model %+.0f%%), final %.0f (model %.0f, %+.0f%%)\n",
                  published["baseline"].get<double>(),
                  100 * (baseline / published["baseline"].get<double>() - 1),
                  published["final"].get<double>(), final_tokens,
                  100 * (final_tokens / published["final"].get<double>() - 1));
    }
    std::printf("%-62s %10s %10s\n", "switch", "model", "published");
    const nlohmann::json& switches = ablation["switches"];
    for (const nlohmann::json& s : switches) {
      const std::string name = s["name"];
      const double gain = switch_gain(scenario, s);
      const double published = s["published_gain"];
      std::printf("%-62s %+9.1f%% %+9.1f%%%s\n", name.c_str(), 100 * gain, 100 * published,
                  s.contains("known_gap") ? "  (known gap)" : "");
      if (s.contains("known_gap")) {
        // A gap the model cannot price yet (its reason is in the data): reported, and it must
        // stay a gain the model credits, so that its closing shows here.
        WARN_MESSAGE(gain <= published + noise, name << ": " << s["known_gap"]);
        continue;
      }
      CHECK_MESSAGE(gain <= published + noise, name << " gains " << 100 * gain
                                                    << "% in the model, published "
                                                    << 100 * published << "%");
    }
    for (const nlohmann::json& stack : ablation["stacks"]) {
      nlohmann::json set = nlohmann::json::object();
      for (const size_t index : stack["switches"]) set.update(switches[index]["set"]);
      const double gain = switch_gain(
          scenario, {{"before", stack.value("before", nlohmann::json::object())}, {"set", set}});
      const double published = stack["published_gain"];
      std::printf("%-62s %+9.1f%% %+9.1f%%\n", stack["name"].get<std::string>().c_str(), 100 * gain,
                  100 * published);
      CHECK_MESSAGE(gain <= published + noise, stack["name"].get<std::string>());
    }
  }
}
