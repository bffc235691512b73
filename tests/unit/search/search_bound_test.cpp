// The search's bounds are true bounds: each one checked against the estimates it stands in for,
// over the AIAK examples and the presets' default jobs (tests/unit/data/search-golden*.json).
#include <doctest/doctest.h>

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "paraplan/search.hpp"
#include "search/searcher.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

SearchOptions golden_options() {
  SearchOptions options;
  options.top = 10;
  options.time_budget_s = 600;
  options.distinct_layouts = false;
  return options;
}

// Every job of `file`, searched with the bounds audited: no group of an estimated leaf peaks
// below its memory floor, no leaf whose layers the split floor says cannot fit does, no leaf is
// faster than the time bound of its recompute settings (host issue time included), and the
// search (where the memory floors prune nothing) ranks as the pruned one. Returns how many
// groups, split leaves and timed leaves were checked.
std::array<int64_t, 3> check_memory_floor(const std::string& file) {
  std::ifstream input(std::string(PARAPLAN_UNIT_DATA_DIR) + "/" + file);
  REQUIRE(input.good());
  int64_t checked = 0, split_checked = 0, time_checked = 0;
  for (const nlohmann::json& example : nlohmann::json::parse(input)) {
    CAPTURE(example["name"].get<std::string>());
    const Scenario scenario = parse_scenario(example["scenario"]);
    detail::MemoryBoundAudit audit;
    const SearchResult audited = detail::search_audited(scenario, golden_options(), audit);
    CAPTURE(audit.example);
    CHECK(audit.violations == 0);
    checked += audit.checked;
    split_checked += audit.split_checked;
    time_checked += audit.time_checked;
    const SearchResult pruned = search(scenario, golden_options());
    REQUIRE(audited.strategies.size() == pruned.strategies.size());
    for (size_t i = 0; i < pruned.strategies.size(); ++i) {
      CAPTURE(i);
      CHECK(to_json(audited.strategies[i].strategy, scenario.cluster) ==
            to_json(pruned.strategies[i].strategy, scenario.cluster));
    }
  }
  return {checked, split_checked, time_checked};
}

}  // namespace

TEST_CASE("the bounds of a leaf are at most its estimated peak and time: AIAK examples") {
  const auto [checked, split_checked, time_checked] = check_memory_floor("search-golden.json");
  CHECK(checked > 0);
  CHECK(split_checked > 0);
  CHECK(time_checked > 0);
}

TEST_CASE("the bounds of a leaf are at most its estimated peak and time: preset jobs" *
          doctest::skip(test::kSanitizedBuild)) {
  const auto [checked, split_checked, time_checked] = check_memory_floor("search-golden-jobs.json");
  CHECK(checked > 0);
  CHECK(split_checked > 0);
  CHECK(time_checked > 0);
}

// Block recompute of every layer of a chunk (a pinned count above the chunk): the time bound
// counts the forwards it redoes on fixed splits (stage_work: min(num_layers x v, layers) a
// stage) and on splits the leaf chooses (40 layers over 3 or 6 stages: every stage holds one, so
// at least min(num_layers x v, layers - stages + 1) + stages - 1 in all). Fails with either
// floor made 1.5 times too strict.
TEST_CASE("the time bound of block recompute is at most the estimated time") {
  const Scenario scenario = test::scenario(R"({
    "model": "llama2-13b",
    "training": {"global_batch_size": 48, "seq_length": 4096},
    "cluster": {"gpus": [{"type": "a800", "count": 24}]},
    "strategy": {"recompute_granularity": "full", "recompute_method": "block",
                 "recompute_num_layers": 40}
  })");
  detail::MemoryBoundAudit audit;
  const SearchResult audited = detail::search_audited(scenario, golden_options(), audit);
  CAPTURE(audit.example);
  CHECK(audit.violations == 0);
  CHECK(audit.time_checked > 0);
  REQUIRE_FALSE(audited.strategies.empty());
}
