// Memory verdicts against real outcomes: no launch that ran out of memory may be called `fits`,
// and the default margin (the `at_risk` band) is the least these outcomes give; how many of the
// published launches that ran are then `fits` is printed and held to a floor (docs/model.md,
// "Memory verdict").
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "paraplan/estimate.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/units.hpp"
#include "stated_settings.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;
using units::kGiB;

namespace {

// One launch with a known outcome and the model's largest stage peak over its capacity.
struct Outcome {
  std::string file, name;
  bool ran_out = false;
  double share = 0;  // largest stage peak / that stage's capacity
  MemoryVerdict verdict = MemoryVerdict::fits;
  bool memory_only = true;  // rejected for memory alone, or not rejected
  StageMemory worst;        // the terms of the stage with the largest share
};

// The stage whose peak is the largest share of its capacity.
const StageReport* worst_stage(const Report& r) {
  const StageReport* worst = nullptr;
  for (const StageReport& stage : r.stages) {
    if (!worst || stage.memory.peak_bytes() / stage.capacity_bytes >
                      worst->memory.peak_bytes() / worst->capacity_bytes) {
      worst = &stage;
    }
  }
  return worst;
}

double largest_share(const Report& r) {
  const StageReport* worst = worst_stage(r);
  return worst ? worst->memory.peak_bytes() / worst->capacity_bytes : 0;
}

// The worst stage's terms in GiB, the largest named: weights, gradients, optimizer state,
// activations (with the loss's and layers' transients, graph and pipelining buffers), reserve.
std::string terms_of(const StageMemory& m) {
  const double terms[] = {m.weights_bytes, m.gradients_bytes, m.optimizer_bytes,
                          m.activations_bytes, m.other_bytes()};
  const char* names[] = {"weights", "gradients", "optimizer", "activations", "reserve"};
  const size_t top =
      static_cast<size_t>(std::max_element(std::begin(terms), std::end(terms)) - std::begin(terms));
  char line[160];
  std::snprintf(line, sizeof line, "w %5.1f g %5.1f o %5.1f a %5.1f r %4.1f  dominant %s",
                terms[0] / kGiB, terms[1] / kGiB, terms[2] / kGiB, terms[3] / kGiB, terms[4] / kGiB,
                names[top]);
  return line;
}

Outcome outcome_of(const std::string& file, const std::string& name, bool ran_out,
                   const nlohmann::json& scenario) {
  const Report r = estimate(parse_scenario(scenario));
  Outcome o{
      file, name, ran_out, largest_share(r), r.memory_verdict, r.feasible || out_of_memory_only(r),
      {}};
  if (const StageReport* worst = worst_stage(r)) o.worst = worst->memory;
  if (!r.stages.empty()) {
    CAPTURE(name);
    // The verdict says `oom` exactly when the estimate rejects the launch for memory.
    CHECK((r.memory_verdict == MemoryVerdict::oom) == (o.share > 1));
    CHECK(!r.memory_verdict_reason.empty());
  }
  return o;
}

// Launches whose sources say they ran, with the configurations the sources give in full. The
// four Megatron-Bridge 26.02 configurations without a row in that release's table may never
// have run (launches_fit_test.cpp): left out.
void add_launch_files(std::vector<Outcome>& out) {
  const std::set<std::string> never_ran = {
      "LLAMA31_405B_PRETRAIN_CONFIG_B300_BF16_V1", "LLAMA31_405B_PRETRAIN_CONFIG_B300_FP8_CS_V1",
      "LLAMA31_405B_PRETRAIN_CONFIG_B300_FP8_MX_V1", "LLAMA31_405B_PRETRAIN_CONFIG_GB200_BF16_V2"};
  for (const char* file :
       {"recipe-configs.json", "recipe-configs-26.02.json", "moe-model-zoo-configs.json",
        "torchtitan-configs.json", "torchtitan-async-tp-configs.json",
        "torchtitan-h200-configs.json", "mindspeed-llm-configs.json"}) {
    const nlohmann::json recipes = load(file);
    for (const nlohmann::json& recipe : recipes["recipes"]) {
      const std::string name = recipe["name"];
      if (never_ran.count(name)) continue;
      out.push_back(outcome_of(file, name, false, recipe["scenario"]));
    }
  }
}

// Out-of-memory outcomes and the fixes that ran (oom-outcomes.json), and the SC21 sweeps'
// configurations with the published outcome (published-sweeps.json: Figure 17's runs without
// recompute ran out of memory).
void add_outcome_files(std::vector<Outcome>& out) {
  const nlohmann::json cases = load("oom-outcomes.json");
  for (const nlohmann::json& entry : cases["cases"]) {
    out.push_back(
        outcome_of("oom-outcomes.json",
                   entry["id"].get<std::string>() + " " + entry["name"].get<std::string>(),
                   entry["outcome"] == "oom", entry["scenario"]));
  }
  const nlohmann::json sweeps = load("published-sweeps.json");
  for (const nlohmann::json& sweep : sweeps["sweeps"]) {
    for (const nlohmann::json& configuration : sweep["configurations"]) {
      // As sweeps_test.cpp reads them: the sweep's scenario with the configuration's strategy
      // (and batch), or a whole scenario of its own.
      nlohmann::json entry = configuration.contains("scenario") ? configuration["scenario"] : sweep;
      if (configuration.contains("strategy")) entry["strategy"] = configuration["strategy"];
      if (configuration.contains("global_batch_size")) {
        entry["training"]["global_batch_size"] = configuration["global_batch_size"];
      }
      nlohmann::json scenario = with_stated_settings(scenario_of(entry), sweep["source"]);
      if (entry.contains("framework")) scenario["framework"] = entry["framework"];
      out.push_back(outcome_of(
          "published-sweeps.json",
          sweep["id"].get<std::string>() + " " + configuration["name"].get<std::string>(),
          !configuration["published_feasible"].get<bool>(), scenario));
    }
  }
}

std::vector<Outcome> all_outcomes() {
  std::vector<Outcome> out;
  add_outcome_files(out);
  add_launch_files(out);
  return out;
}

// The share of launches that ran whose verdict at a default margin of `percent` is `fits`.
double fits_share(const std::vector<Outcome>& outcomes, double percent) {
  int ran = 0, fits = 0;
  for (const Outcome& o : outcomes) {
    if (o.ran_out || !o.memory_only) continue;
    ++ran;
    fits += o.share <= 1 - percent / 100;
  }
  return ran > 0 ? static_cast<double>(fits) / ran : 0;
}

}  // namespace

TEST_CASE("memory verdicts: no launch that ran out of memory is called fits") {
  const std::vector<Outcome> outcomes = all_outcomes();
  std::printf("\n%-28s %-72s %5s %7s %8s\n", "file", "launch", "out", "peak %", "verdict");
  int out_of_memory = 0;
  for (const Outcome& o : outcomes) {
    if (!o.ran_out) continue;
    ++out_of_memory;
    std::printf("%-28s %-72.72s %5s %6.1f%% %8s  %s\n", o.file.c_str(), o.name.c_str(), "OOM",
                100 * o.share, to_string(o.verdict), terms_of(o.worst).c_str());
    CAPTURE(o.name);
    CHECK(o.verdict != MemoryVerdict::fits);
  }
  CHECK(out_of_memory >= 11);
}

TEST_CASE(
    "memory verdicts: the default margin is the band where published launches went either "
    "way") {
  const std::vector<Outcome> outcomes = all_outcomes();
  // The band: from the smallest predicted peak of a launch that ran out of memory to capacity.
  double lowest_oom = 2;
  for (const Outcome& o : outcomes) {
    if (o.ran_out && o.memory_only) lowest_oom = std::min(lowest_oom, o.share);
  }
  const double derived_percent = std::ceil(100 * (1 - lowest_oom));
  const double margin = limits::default_memory_margin_percent();
  // How the launches that ran spread over peak / capacity.
  std::vector<double> ran;
  for (const Outcome& o : outcomes) {
    if (!o.ran_out && o.memory_only) ran.push_back(o.share);
  }
  std::sort(ran.begin(), ran.end());
  REQUIRE(ran.size() >= 250);
  const auto quantile = [&](double q) {
    return ran[static_cast<size_t>(q * static_cast<double>(ran.size() - 1))];
  };
  std::printf(
      "\nlaunches that ran: %zu; peak / capacity median %.1f%%, p90 %.1f%%, max %.1f%%\n"
      "lowest predicted peak of a launch that ran out of memory: %.1f%% of capacity: a margin of "
      "at least %.0f%% calls every one at_risk or oom\n"
      "default margin %.0f%%: %.1f%% of the launches that ran are fits (at %.0f%%: %.1f%%; at "
      "20%%, Fujii et al. 2024's 80%% line: %.1f%%)\n",
      ran.size(), 100 * quantile(0.5), 100 * quantile(0.9), 100 * ran.back(), 100 * lowest_oom,
      derived_percent, margin, 100 * fits_share(outcomes, margin), derived_percent,
      100 * fits_share(outcomes, derived_percent), 100 * fits_share(outcomes, 20));
  for (const Outcome& o : outcomes) {
    if (!o.ran_out && o.memory_only && o.verdict != MemoryVerdict::fits) {
      std::printf("  ran, %-7s %5.1f%%  %s  %s: %s\n", to_string(o.verdict), 100 * o.share,
                  terms_of(o.worst).c_str(), o.file.c_str(), o.name.c_str());
    }
  }
  // Every launch that ran out of memory is at_risk or oom ...
  CHECK(margin >= derived_percent);
  // ... and most of those that ran are fits. The target of 90% is out of reach with these
  // outcomes: launches that ran out of memory sit at 81.6% (OOM01, OOM02) and 81.8% (SC21 Figure
  // 17) of capacity as the model prices them, and a quarter of the launches that ran sit above
  // that (NVIDIA's tuned recipes up to 99%): a margin of 10% would make 90% of them fits and call
  // those seven out-of-memory launches fits. The floor is today's share (docs/model.md, "The risk
  // the default margin leaves").
  CHECK(fits_share(outcomes, margin) >= 0.75);
  // The margin is the least that does it, rounded up to a whole percent, plus nothing: a wider
  // one calls more launches that ran at_risk without a published outcome to show for it.
  CHECK(margin == derived_percent);
}
