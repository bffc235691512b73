// Real out-of-memory outcomes: the model must reject what ran out of memory and fit what ran.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "paraplan/estimate.hpp"
#include "paraplan/units.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;
using units::kGiB;

// launches that ran out of GPU/NPU memory, from the commits and threads that fixed them, and the
// fixes (or siblings measured beside them) that ran. The model agrees with a case when it
// rejects the launch for memory exactly when the launch ran out of memory. `disagreements`: the
// cases the model gets wrong today, each with why (a fix shows up here).
TEST_CASE("real out-of-memory outcomes: the model rejects what ran out of memory") {
  const nlohmann::json outcomes = load("oom-outcomes.json");
  const std::vector<std::pair<std::string, std::string>> disagreements = {
      {"OOM01",
       "priced 64.6 GiB of 79.2; the run logged 58.8 GB (54.8 GiB) max allocated, the capture's "
       "peak (priced 54.9 GiB: the mlp graphs' saved tensors, 12.6 GiB, are allocated while "
       "captured and held in their pool after), and ~20 GB held beside the live tensors "
       "(fragmentation, says PR #3107's skill): the pool, the context and NCCL 1.9 GiB, and "
       "~11 GiB that the default allocator's fixed segments strand (expandable_segments ran the "
       "same launch), not priced; the mlp graphs' static buffers add 16 MiB (their inputs "
       "replace eager tensors nothing else keeps; only attention graphs take a mask); inside the "
       "default margin: verdict at_risk; the same launch with expandable_segments ran (RAN17)"},
      {"OOM02", "as OOM01 (layernorm recompute saves next to nothing, measured and priced)"},
  };
  std::printf("\n%s\n%-6s %-72s %5s %4s %9s %9s %9s %9s %7s %8s %s\n",
              outcomes["source"].get<std::string>().c_str(), "id", "case", "out", "exp", "peak GiB",
              "alloc GiB", "reported", "capacity", "model", "verdict", "agree");
  const nlohmann::json& cases = outcomes["cases"];
  int agreements = 0;
  int out_of_memory = 0;
  for (const nlohmann::json& entry : cases) {
    const std::string id = entry["id"];
    const bool ran_out = entry["outcome"] == "oom";
    out_of_memory += ran_out;
    // The allocator mode the launch ran in, as the strategy key the model reads (the entry's
    // field, from its script; memory_verdict_test.cpp does the same).
    nlohmann::json scenario = entry["scenario"];
    scenario["strategy"]["expandable_segments"] = entry["expandable_segments"];
    const Report r = estimate(parse_scenario(scenario));
    REQUIRE(!r.stages.empty());
    const double capacity_bytes = smallest_capacity_bytes(r);
    const bool memory_only = out_of_memory_only(r);
    const bool agrees = memory_only == ran_out;
    agreements += agrees;
    // The source's own number, where it gives one: PyTorch's max allocated, in GB as printed.
    char reported[16] = "-";
    if (entry.contains("reported")) {
      std::snprintf(reported, sizeof reported, "%.1f", entry["reported"]["peak_gb"].get<double>());
    }
    const auto known =
        std::find_if(disagreements.begin(), disagreements.end(),
                     [&](const std::pair<std::string, std::string>& d) { return d.first == id; });
    // exp: the launch ran with expandable_segments:True (the entry's field, from its script).
    std::printf("%-6s %-72.72s %5s %4s %9.1f %9.1f %9s %9.1f %7s %8s %s\n", id.c_str(),
                entry["name"].get<std::string>().c_str(), ran_out ? "OOM" : "ran",
                entry["expandable_segments"].get<bool>() ? "yes" : "no",
                r.peak_memory_bytes() / kGiB, r.peak_allocated_bytes() / kGiB, reported,
                capacity_bytes / kGiB, memory_only ? "OOM" : "fits", to_string(r.memory_verdict),
                agrees
                    ? "yes"
                    : ("NO" + (known == disagreements.end() ? std::string() : ": " + known->second))
                          .c_str());
    CAPTURE(id);
    // A launch that ran out of memory is never called `fits` (the disagreements among them lie
    // inside the default margin: at_risk).
    if (ran_out) CHECK(r.memory_verdict != MemoryVerdict::fits);
    CHECK(r.feasible == !memory_only);
    CHECK(agrees == (known == disagreements.end()));
  }
  std::printf("the model agrees on %d of %zu outcomes (%d out of memory, %zu ran)\n", agreements,
              cases.size(), out_of_memory, cases.size() - out_of_memory);
  CHECK(cases.size() == 17);
  CHECK(agreements >= 15);
}

// Megatron-LM's logged max allocated of the launches that give one (Megatron-Bridge PR #3107's
// Llama 3 70B SFT and its neighbours, rank 0: the first stage; RAN17's "~59" GB is the skill's
// rounding) against the priced peak. With TE
// graphs of the MLP the peak is the capture's, when the graphs' saved tensors are allocated beside
// weights, gradients and optimizer state (report.hpp capture_allocated_bytes); pricing only the
// step's live tensors left these peaks 9-26% under the logged ones.
TEST_CASE("real out-of-memory outcomes: the logged max allocated peaks") {
  const nlohmann::json outcomes = load("oom-outcomes.json");
  std::printf("\n%-6s %9s %9s %9s %9s %8s\n", "id", "logged", "step", "capture", "priced", "error");
  std::vector<double> errors;
  for (const nlohmann::json& entry : outcomes["cases"]) {
    if (!entry.contains("reported") || entry["reported"]["kind"] != "allocated") continue;
    nlohmann::json scenario = entry["scenario"];
    scenario["strategy"]["expandable_segments"] = entry["expandable_segments"];
    const Report r = estimate(parse_scenario(scenario));
    REQUIRE(!r.stages.empty());
    REQUIRE(entry["reported"]["rank"] == 0);
    const StageMemory& m = r.stages.front().memory;
    // PyTorch prints GB of 10^9 bytes in the source's table.
    const double logged_gib = entry["reported"]["peak_gb"].get<double>() * 1e9 / kGiB;
    const double error = m.peak_allocated_bytes() / kGiB / logged_gib - 1;
    errors.push_back(std::abs(error));
    std::printf("%-6s %9.2f %9.2f %9.2f %9.2f %+7.1f%%\n", entry["id"].get<std::string>().c_str(),
                logged_gib, m.step_allocated_bytes() / kGiB, m.capture_allocated_bytes() / kGiB,
                m.peak_allocated_bytes() / kGiB, 100 * error);
  }
  std::sort(errors.begin(), errors.end());
  REQUIRE(errors.size() == 7);
  const double median_error = errors[3];
  std::printf("median |error| of max allocated: %.1f%% over %zu points\n", 100 * median_error,
              errors.size());
  CHECK(median_error <= 0.08);
}
