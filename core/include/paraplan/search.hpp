// Finding the fastest feasible strategies for a job on a cluster, single or mixed GPU types.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "paraplan/limits.hpp"
#include "paraplan/report.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan {

struct RankedStrategy {
  Strategy strategy;
  Report report;
  // Its uncertainty band overlaps the first row's: the model cannot tell them apart.
  bool tie_with_best = false;
  // Why it ranks above a faster strategy (a safer one within the noise), or "", and that text's
  // id and values.
  std::string rank_note;
  CoreText rank_note_text;
};

struct SearchProgress {
  int64_t evaluated = 0;
  int64_t pruned = 0;
  double elapsed_s = 0;
  double fraction_done = 0;          // of the outer loop, 0..1
  double best_iteration_time_s = 0;  // 0 until a feasible strategy is found
  std::string best_layout;  // that strategy's sizes ("TP 2 · PP 4 · VP 10 · ..."), or ""
  // The ranking so far, as the result would list it (each row with the public estimate's
  // report, in the final order), where it changed since the last report and
  // SearchOptions::progress_rows asks for it; else empty. Provisional: the search goes on.
  std::vector<RankedStrategy> rows;
};

// Memory kept free on each GPU: `bytes` plus `fraction` of the GPU's capacity. Default
// constructed, the default margin: a stage inside it is `at_risk` (docs/model.md, "Memory
// verdict").
struct MemoryMargin {
  double bytes = 0;
  double fraction = limits::default_memory_margin_percent() / 100;

  double of(double capacity_bytes) const { return bytes + fraction * capacity_bytes; }
  static MemoryMargin none() { return {0, 0}; }
};

// Parses "N" (GiB) or "N%" (of each GPU's capacity); throws InputError naming `path`.
MemoryMargin parse_memory_margin(const std::string& text, const std::string& path);

// Families of layouts an engineer weighs against each other (the page's "why this strategy").
enum class LayoutFamily { tp, pp, cp, zero3, ep };
inline constexpr std::array<LayoutFamily, 5> kLayoutFamilies = {
    LayoutFamily::tp, LayoutFamily::pp, LayoutFamily::cp, LayoutFamily::zero3, LayoutFamily::ep};
std::string_view to_string(LayoutFamily family);

// When a search reports progress by the clock: 0.1 s is the limit for a response to feel
// immediate, 1 s for the user's flow of thought to stay uninterrupted (J. Nielsen, "Response
// Times: The 3 Important Limits", Usability Engineering, 1993, ch. 5): the first report (with the
// best rows so far) comes within the first, and later ones several times within the second.
inline constexpr double kFirstProgressS = 0.1;
inline constexpr double kProgressIntervalS = 0.25;

struct SearchOptions {
  int top = limits::kDefaultTop;
  // One ranked strategy per layout (parallel sizes, ZeRO stage, offloads; top_strategies.hpp),
  // the best of its virtual stages, micro-batch, recompute and switches; false ranks every
  // variant.
  bool distinct_layouts = true;
  // No ranked strategy uses more than capacity minus this (a margin the user gives; none by
  // default: capacity).
  MemoryMargin memory_margin = MemoryMargin::none();
  // Strategies whose memory verdict is `at_risk` (inside the default margin) rank below every
  // one that `fits`, unless this is set: then only their time ranks them.
  bool allow_at_risk = false;
  bool allow_tensor_parallel_across_nodes = false;
  bool exhaustive = false;  // evaluate every configuration: no pruning (for testing)
  double time_budget_s = limits::kDefaultTimeBudgetS;  // then stop with the best found so far
  int64_t progress_every = 4096;                       // evaluations between progress reports
  // Called every `progress_every` evaluations, and also by the clock: first after
  // `first_progress_s` of search, then every kProgressIntervalS, and once more as soon as the
  // search holds its first feasible strategy where no report had one, whether before
  // `first_progress_s` or between two reports (issue 30 item 8); returning false cancels
  // the search.
  std::function<bool(const SearchProgress&)> on_progress;
  double first_progress_s = kFirstProgressS;  // (tests: 0, a report before anything fits)
  // How many of the best rows so far a progress report carries when the ranking changed (at
  // most `top`; 0: none, only the best time and its layout).
  int progress_rows = 0;
  // Before the walk, search a narrow corner of the strategies (largest tensor parallel size first,
  // least activation memory) and report the first rows it finds, where progress_rows asks for
  // rows (the page's search: a job that fits only at the largest tensor parallel size shows a row
  // before the walk reaches it). The result is the same with or without it.
  bool first_rows_probe = false;
};

struct SearchStats {
  int64_t space = 0;                 // configurations in the search space (evaluated + pruned)
  int64_t evaluated = 0;             // configurations whose iteration was estimated
  int64_t pruned = 0;                // configurations skipped: bounds, or memory that cannot fit
  int64_t feasible = 0;              // evaluated configurations that fit in memory
  int64_t rejected_on_estimate = 0;  // top strategies the public estimate refused (a bug: 0)
  double seconds = 0;
  bool complete = true;   // false when cancelled or out of time budget
  std::string stopped;    // why an incomplete search stopped
  CoreText stopped_text;  // `stopped` with its id and values
};

struct FamilyBest {
  LayoutFamily family;
  RankedStrategy best;  // the fastest strategy of the family the search saw
  size_t rank = 0;      // its rank among the listed strategies, 0 where it is not listed
};

struct SearchResult {
  std::vector<RankedStrategy> strategies;  // best first
  std::vector<FamilyBest> family_bests;    // families with a feasible strategy seen
  SearchStats stats;
  std::vector<std::string> diagnosis;     // why no strategy is feasible, when none is
  std::vector<CoreText> diagnosis_texts;  // one per diagnosis line, with its id and values
};

// Searches the strategies of `scenario`; strategy keys it gives are fixed.
SearchResult search(const Scenario& scenario, const SearchOptions& options = {});

// The search output of docs/contract.md section 5: strategies with their reports, Megatron-LM flags
// and the AIAK-style fields, and the statistics.
nlohmann::json to_json(const SearchResult& result, const Scenario& scenario);

// That output's "stats".
nlohmann::json to_json(const SearchStats& stats);

// One entry of that output's "strategies": the strategy ranked `rank` (from 1).
nlohmann::json to_json(const RankedStrategy& ranked, size_t rank, const Scenario& scenario);

// What a results table draws of that entry (a progress report's row): its `rank`, `strategy`,
// `headroom_gib`, `tight`, `tie_with_best`, `rank_note`, the per-GPU-type keys
// (`max-use-mem-size`, `pipeline-stage-chips`, `pipeline-stage-layers`, `recompute-*`,
// `gpus_used`) and the report's to_table_json as `estimate`, with the same values; none of the
// launches, flags or per-stage report (nine tenths of the entry, and most of its cost).
nlohmann::json to_table_json(const RankedStrategy& ranked, size_t rank, const Scenario& scenario);

}  // namespace paraplan
