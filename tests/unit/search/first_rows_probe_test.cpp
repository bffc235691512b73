// The probe that gives a page's search its first rows before the walk (search/first_rows_probe.cpp,
// issue 30 item 8): its rows come first, and the search's result is the one without it.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "paraplan/estimate.hpp"
#include "paraplan/search.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// llama-1800b on 1024 A800 (the page's job: 2 sequences of 4096 tokens per GPU): every strategy
// that fits has tensor parallel size 8, the last size the walk tries (docs/search.md).
Scenario only_tp8_fits() {
  return test::scenario(R"({"model": "llama-1800b",
    "training": {"global_batch_size": 2048, "seq_length": 4096},
    "cluster": {"gpus": [{"type": "a800", "count": 1024}]}})");
}

SearchOptions page_options() {
  SearchOptions options;
  options.time_budget_s = 600;
  options.progress_rows = options.top;
  options.first_rows_probe = true;
  return options;
}

// What a result lists and why (its statistics hold the clock).
std::string listed(const SearchResult& result, const Scenario& scenario) {
  nlohmann::json out = to_json(result, scenario);
  out.erase("stats");
  return out.dump();
}

}  // namespace

TEST_CASE(
    "the probe's rows come before the walk reaches the layouts that fit, and change no result") {
  const Scenario scenario = only_tp8_fits();
  SearchOptions options = page_options();
  std::vector<SearchProgress> reports;
  options.on_progress = [&](const SearchProgress& p) {
    reports.push_back(p);
    return true;
  };
  const SearchResult probed = search(scenario, options);
  REQUIRE(probed.stats.complete);
  REQUIRE_FALSE(probed.strategies.empty());
  REQUIRE_FALSE(reports.empty());
  // The first report carries rows, before the walk began (the walk reports TP 8 at three quarters
  // of its first level), from a handful of the evaluations the search makes.
  const SearchProgress& first = reports.front();
  REQUIRE_FALSE(first.rows.empty());
  CHECK(first.fraction_done == 0);
  CHECK(first.evaluated * 10 < probed.stats.evaluated);
  CHECK(first.best_iteration_time_s > 0);
  CHECK(first.best_layout.rfind("TP 8 ·", 0) == 0);
  for (const RankedStrategy& row : first.rows) {
    CHECK(row.strategy.tensor_model_parallel_size == 8);
    CHECK(row.report.feasible);
  }
  // The same result as without the probe, and as without any report.
  options.first_rows_probe = false;
  CHECK(listed(search(scenario, options), scenario) == listed(probed, scenario));
  options.on_progress = nullptr;
  CHECK(listed(search(scenario, options), scenario) == listed(probed, scenario));
}

TEST_CASE("cancelling at the probe's report stops the search before its walk") {
  const Scenario scenario = only_tp8_fits();
  SearchOptions options = page_options();
  int calls = 0;
  options.on_progress = [&](const SearchProgress& p) {
    ++calls;
    CHECK_FALSE(p.rows.empty());
    return false;
  };
  const SearchResult result = search(scenario, options);
  CHECK(calls == 1);
  CHECK(result.strategies.empty());
  CHECK_FALSE(result.stats.complete);
  CHECK(result.stats.stopped == "cancelled");
  CHECK(result.stats.stopped_text.id == "search stopped: cancelled");
}
