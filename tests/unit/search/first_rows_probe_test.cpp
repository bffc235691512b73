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

// `model` on the page's job with 512 A800 (2 sequences of 4096 tokens per GPU), with `strategy`'s
// pins.
Scenario page_job(const std::string& model, const std::string& strategy = "{}") {
  return test::scenario(R"({"model": ")" + model + R"(",
    "training": {"global_batch_size": 1024, "seq_length": 4096},
    "cluster": {"gpus": [{"type": "a800", "count": 512}]}, "strategy": )" +
                        strategy + "}");
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

// The first report with rows of a search of `scenario` (with or without the probe), which that
// report cancels.
SearchProgress first_rows(const Scenario& scenario, bool probe) {
  SearchOptions options = page_options();
  options.first_rows_probe = probe;
  SearchProgress first;
  options.on_progress = [&](const SearchProgress& p) {
    if (p.rows.empty()) return true;
    first = p;
    return false;
  };
  search(scenario, options);
  return first;
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

TEST_CASE(
    "the probe spreads a MoE model's experts over a node with all-to-all dispatch, and finds its "
    "first row in fewer evaluations than the walk") {
  // A800 nodes hold 8 GPUs: 8 divides the experts of each (8, 32, 128 and 256).
  for (const char* model : {"mixtral-8x22b", "gpt-oss-20b", "qwen3-30b-a3b", "deepseek-v3"}) {
    CAPTURE(model);
    const Scenario scenario = page_job(model);
    const SearchProgress probed = first_rows(scenario, true);
    REQUIRE_FALSE(probed.rows.empty());
    CHECK(probed.fraction_done == 0);
    const Strategy& row = probed.rows.front().strategy;
    CHECK(row.expert_model_parallel_size == 8);
    CHECK(row.expert_tensor_parallel_size == 1);
    CHECK(row.moe_token_dispatcher_type == MoeDispatcher::alltoall);
    const SearchProgress walked = first_rows(scenario, false);
    REQUIRE_FALSE(walked.rows.empty());
    CHECK(probed.evaluated < walked.evaluated);
  }
}

TEST_CASE("the probe keeps the expert keys the scenario pins") {
  const SearchProgress probed = first_rows(
      page_job("qwen3-30b-a3b",
               R"({"expert_model_parallel_size": 4, "moe_token_dispatcher_type": "allgather"})"),
      true);
  REQUIRE_FALSE(probed.rows.empty());
  CHECK(probed.fraction_done == 0);
  const Strategy& row = probed.rows.front().strategy;
  CHECK(row.expert_model_parallel_size == 4);
  CHECK(row.moe_token_dispatcher_type == MoeDispatcher::allgather);
}

TEST_CASE("a MoE model's search gives the same result with the probe as without it") {
  const Scenario scenario = page_job("qwen3-30b-a3b");
  SearchOptions options = page_options();
  options.on_progress = [](const SearchProgress&) { return true; };
  const SearchResult probed = search(scenario, options);
  REQUIRE(probed.stats.complete);
  REQUIRE_FALSE(probed.strategies.empty());
  options.first_rows_probe = false;
  CHECK(listed(search(scenario, options), scenario) == listed(probed, scenario));
}
