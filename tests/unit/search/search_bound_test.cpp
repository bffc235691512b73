// The search's bounds are true bounds: each one checked against the estimates it stands in for,
// over the AIAK examples and the presets' default jobs (tests/unit/data/search-golden*.json).
#include <doctest/doctest.h>

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
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

// How many groups, split leaves, timed leaves, replayed shape counts and ranked strategies the
// audits checked (split reuses: leaves whose layer split reused the works before data
// parallelism of an earlier leaf of the same ZeRO level, recomputed and compared bit for bit).
struct AuditCounts {
  int64_t checked = 0, split_checked = 0, time_checked = 0, replays_checked = 0, ranked = 0;
  int64_t loop_replays_checked = 0;
  int64_t zero_replays_checked = 0;  // replayed counts of a ZeRO level (count_zero_level)
  int64_t split_reuses_checked = 0;
  // leaves the time bound ruled out before their size fit, counted on their memory verdict and
  // timed by the audit (Searcher::evaluate_bounded)
  int64_t bounded_checked = 0;
};

// `scenario` searched with the bounds audited: no group of an estimated leaf peaks below its
// memory floor, no leaf whose layers the split floor says cannot fit does, no leaf is faster
// than the time bound of its recompute settings (host issue time included), no replayed shape
// count differs from a walk of the same shape (nor of a ZeRO level, count_zero_level), nor a
// replayed shape loop from a walk of the loop
// (a key the count walk or the loop reads missing from its memo key, shape_count.cpp
// init_shape_counts: the audit's example names it), and the search (where
// the memory floors prune nothing) ranks as the pruned one; no reused layer split differs
// from its recomputation (Searcher::audit_split_reuse).
void check_bounds(const Scenario& scenario, AuditCounts& counts) {
  detail::MemoryBoundAudit audit;
  const SearchResult audited = detail::search_audited(scenario, golden_options(), audit);
  CAPTURE(audit.example);
  CHECK(audit.violations == 0);
  counts.checked += audit.checked;
  counts.split_checked += audit.split_checked;
  counts.time_checked += audit.time_checked;
  counts.replays_checked += audit.memo_checked;
  counts.loop_replays_checked += audit.loop_memo_checked;
  counts.zero_replays_checked += audit.zero_memo_checked;
  counts.split_reuses_checked += audit.split_reuse_checked;
  counts.bounded_checked += audit.bounded_checked;
  const SearchResult pruned = search(scenario, golden_options());
  REQUIRE(audited.strategies.size() == pruned.strategies.size());
  counts.ranked += static_cast<int64_t>(pruned.strategies.size());
  for (size_t i = 0; i < pruned.strategies.size(); ++i) {
    CAPTURE(i);
    CHECK(to_json(audited.strategies[i].strategy, scenario.cluster) ==
          to_json(pruned.strategies[i].strategy, scenario.cluster));
  }
}

// Every job of `file` through check_bounds.
AuditCounts check_memory_floor(const std::string& file) {
  std::ifstream input(std::string(PARAPLAN_UNIT_DATA_DIR) + "/" + file);
  REQUIRE(input.good());
  AuditCounts counts;
  for (const nlohmann::json& example : nlohmann::json::parse(input)) {
    CAPTURE(example["name"].get<std::string>());
    check_bounds(parse_scenario(example["scenario"]), counts);
  }
  return counts;
}

}  // namespace

TEST_CASE("the bounds of a leaf are at most its estimated peak and time: AIAK examples") {
  const AuditCounts counts = check_memory_floor("search-golden.json");
  CHECK(counts.checked > 0);
  CHECK(counts.split_reuses_checked > 0);
  CHECK(counts.split_checked > 0);
  CHECK(counts.time_checked > 0);
  CHECK(counts.zero_replays_checked > 0);
  CHECK(counts.bounded_checked > 0);
}

TEST_CASE("the bounds of a leaf are at most its estimated peak and time: preset jobs" *
          doctest::skip(test::kSanitizedBuild)) {
  const AuditCounts counts = check_memory_floor("search-golden-jobs.json");
  CHECK(counts.checked > 0);
  CHECK(counts.split_reuses_checked > 0);
  CHECK(counts.split_checked > 0);
  CHECK(counts.time_checked > 0);
  CHECK(counts.bounded_checked > 0);
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

// Random jobs where memory binds (small GPUs, layer counts that leave the split to the leaf, MoE
// models with a leading dense layer, every framework with its own data parallelism: torchtitan's
// FSDP2 and EP included): no estimated leaf breaks a bound (group floors, the split floor of each
// layer kind at every ZeRO stage, the time bounds), and the audited search ranks as the pruned one.
// Fails with the split floor's per-kind activations or state made 1.5 times too strict.
TEST_CASE("the memory and time bounds hold over random jobs and frameworks" *
          doctest::skip(test::kSanitizedBuild)) {
  std::mt19937 random(20261128);
  const auto pick = [&](std::vector<nlohmann::json> values) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(random)];
  };
  AuditCounts counts;
  for (int job = 0; job < 24; ++job) {
    const std::string framework = pick(
        {"megatron", "torchtitan", "torchtitan", "deepspeed", "mindspeed-llm", "megatron-bridge"});
    nlohmann::json model = {{"name", "random"},
                            {"num_layers", pick({13, 15, 22})},
                            {"hidden_size", pick({2048, 4096})},
                            {"ffn_hidden_size", 8192},
                            {"num_attention_heads", 32},
                            {"num_query_groups", 8},
                            {"vocab_size", 32000},
                            {"activation", "swiglu"}};
    if (pick({true, false})) {
      model["moe"] = {{"num_experts", pick({8, 16})},
                      {"top_k", 2},
                      {"moe_ffn_hidden_size", pick({1408, 2816})}};
      if (framework != "torchtitan") model["moe"]["first_k_dense_layers"] = pick({0, 1, 2});
    }
    const nlohmann::json scenario_json = {
        {"model", model},
        {"framework", framework},
        {"training",
         {{"global_batch_size", pick({32, 64, 128})}, {"seq_length", pick({2048, 4096, 8192})}}},
        {"cluster",
         {{"gpus", {{{"type", pick({"a100-40g", "a800", "h100"})}, {"count", pick({16, 32})}}}}}}};
    CAPTURE(scenario_json.dump());
    check_bounds(parse_scenario(scenario_json), counts);
  }
  MESSAGE("groups ", counts.checked, ", split leaves ", counts.split_checked, ", timed ",
          counts.time_checked, ", replayed shape counts ", counts.replays_checked,
          ", replayed shape loops ", counts.loop_replays_checked, ", of ZeRO levels ",
          counts.zero_replays_checked, ", ranked ", counts.ranked);
  CHECK(counts.checked > 0);
  CHECK(counts.split_checked > 0);
  CHECK(counts.time_checked > 0);
  CHECK(counts.replays_checked > 0);
  CHECK(counts.loop_replays_checked > 0);
  CHECK(counts.zero_replays_checked > 0);
  CHECK(counts.ranked > 0);
}
