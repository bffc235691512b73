// What the search reports while and after it runs: the clock and the time budget, progress
// reports with the best rows so far, and the listed rows with the public estimate's reports.
#include <algorithm>
#include <map>

#include "model/number_text.hpp"
#include "model/text_ids.hpp"
#include "paraplan/estimate.hpp"
#include "search/final_order.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {

void Searcher::tick() {
  // Every `progress_every` units of work: the time budget, and a progress report. Where there
  // is a progress callback the clock is also read every kClockEvery units (a unit is
  // microseconds, a clock read tens of nanoseconds), so that the first report comes after
  // kFirstProgressS, not after `progress_every` units, and the first feasible strategy is
  // reported within kClockEvery units of its evaluation.
  constexpr int64_t kClockEvery = 64;
  ++work_;
  const bool counted = work_ % std::max<int64_t>(1, options_.progress_every) == 0;
  if (!counted && (!options_.on_progress || work_ % kClockEvery != 0)) return;
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (counted && elapsed_s > options_.time_budget_s) {
    const std::string budget = number_text(options_.time_budget_s);
    stats_.stopped = "time budget of " + budget + " s reached";
    stats_.stopped_text = {text_id::kStoppedTimeBudget, stats_.stopped, {{"budget_s", budget}}, {}};
    stopped_ = true;
  } else if (options_.on_progress && (counted || elapsed_s >= next_report_s_ || first_best_due())) {
    report_progress(elapsed_s);
  }
}

bool Searcher::first_best_due() const {
  // The first feasible strategy (with the rows so far) is reported as soon as the search has
  // one, not at the first report's mark nor a whole kProgressIntervalS later: the page shows a
  // row as soon as one exists (issue 30 item 8). A report carried a best once
  // progress_best_s_ is set, so this adds at most one report per search.
  return progress_best_s_ == 0 && top_.best_s() > 0;
}

void Searcher::report_progress(double elapsed_s) {
  // A report before the first report's mark (the first feasible strategy's, or one by count)
  // leaves that mark: the rows found by then are reported at it, then every kProgressIntervalS.
  if (elapsed_s >= next_report_s_ || next_report_s_ > options_.first_progress_s) {
    next_report_s_ = elapsed_s + kProgressIntervalS;
  }
  // The best so far, labelled again only when it changed.
  if (top_.best_s() != progress_best_s_) {
    progress_best_s_ = top_.best_s();
    progress_best_layout_ = top_.best() ? layout_label(*top_.best()) : "";
  }
  SearchProgress progress{stats_.evaluated, stats_.pruned,         elapsed_s, fraction_done_,
                          top_.best_s(),    progress_best_layout_, {}};
  // The rows again only where they changed since the last report.
  if (options_.progress_rows > 0) {
    std::vector<Strategy> listed = top_.strategies();
    listed.resize(std::min(listed.size(), static_cast<size_t>(options_.progress_rows)));
    std::vector<std::vector<int64_t>> keys;
    for (const Strategy& strategy : listed) keys.push_back(ordering_key(strategy));
    if (keys != reported_rows_) {
      reported_rows_ = std::move(keys);
      progress.rows = ranked_rows(true);
    }
  }
  if (!options_.on_progress(progress)) {
    stats_.stopped = "cancelled";
    stats_.stopped_text = {text_id::kStoppedCancelled, stats_.stopped, {}, {}};
    stopped_ = true;
  }
}

std::vector<RankedStrategy> Searcher::ranked_rows(bool provisional) {
  // Each strategy carries the report of the public estimate, on a cluster that lists the GPUs
  // it uses: the same numbers a user gets by estimating it. A strategy that estimate rejected
  // would be a bug (the property tests look for one); it is dropped, not shown.
  std::vector<Strategy> listed = top_.strategies();
  if (provisional && listed.size() > static_cast<size_t>(options_.progress_rows)) {
    listed.resize(static_cast<size_t>(options_.progress_rows));
  }
  std::map<std::vector<int64_t>, Report> kept;
  std::vector<RankedStrategy> rows;
  for (const Strategy& strategy : listed) {
    Report report;
    if (provisional) {
      std::vector<int64_t> key = ordering_key(strategy);
      const auto known = progress_reports_.find(key);
      report = known != progress_reports_.end() ? known->second : estimate_on_used_gpus(strategy);
      kept.emplace(std::move(key), report);
    } else {
      report = estimate_on_used_gpus(strategy);
    }
    if (!report.feasible) {
      if (!provisional) ++stats_.rejected_on_estimate;
      continue;
    }
    rows.push_back({strategy, std::move(report), false, "", {}});
  }
  if (provisional) {
    progress_reports_ = std::move(kept);
    SearchResult ordered;
    ordered.strategies = std::move(rows);
    finish_order(ordered, options_.allow_at_risk);
    return std::move(ordered.strategies);
  }
  return rows;
}

Report Searcher::estimate_on_used_gpus(const Strategy& strategy) const {
  Cluster used = cluster_;
  const int64_t stage_gpus = cluster_.num_gpus / strategy.pipeline_model_parallel_size;
  for (size_t pool = 0; pool < used.pools.size(); ++pool) {
    used.pools[pool].count =
        stage_gpus * std::count(strategy.pipeline_stage_gpus.begin(),
                                strategy.pipeline_stage_gpus.end(), static_cast<int>(pool));
  }
  Report report = Estimator(model_, training_, std::move(used), framework_).estimate(strategy);
  if (!model_note_.id.empty()) report.validation.add(model_note_);
  return report;
}

}  // namespace paraplan::detail
