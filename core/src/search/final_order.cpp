// Safety before speed where the model cannot tell speeds apart (final_order.hpp).
#include "search/final_order.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "model/number_text.hpp"
#include "model/text_ids.hpp"
#include "search/top_strategies.hpp"

namespace paraplan::detail {
namespace {

// Lower is safer: the memory verdict (at_risk: under the default margin free, where published
// launches went either way), then the risky switches. Free memory beyond the verdict does not
// order rows: the verdict is where the data says it starts to matter.
std::tuple<int, int> safety_key(const RankedStrategy& ranked) {
  return {static_cast<int>(ranked.report.memory_verdict), risky_switches(ranked.strategy)};
}

std::string as_percent(double fraction) { return fixed_text(fraction * 100, 1) + "%"; }

// Why `safer` ranks above `faster`, with its id and values.
CoreText moved_note(const RankedStrategy& safer, const RankedStrategy& faster) {
  const double slower_fraction = safer.report.iteration_time_s / faster.report.iteration_time_s - 1;
  CoreText note;
  note.args = {{"slower_percent", as_percent(slower_fraction)},
               {"noise_percent", as_percent(kRankNoiseFraction)}};
  std::string why;
  if (safer.report.memory_verdict != faster.report.memory_verdict) {
    note.id = text_id::kRankedAboveSaferVerdict;
    note.args.emplace_back("verdict", to_string(safer.report.memory_verdict));
    note.args.emplace_back("other_verdict", to_string(faster.report.memory_verdict));
    why = std::string("its memory verdict is ") + to_string(safer.report.memory_verdict) +
          " where the other's is " + to_string(faster.report.memory_verdict);
  } else {
    note.id = text_id::kRankedAboveFewerSwitches;
    why = "fewer risky switches (optimizer CPU offload, CUDA graphs, activation offload)";
  }
  note.text = "ranked above a strategy " + as_percent(slower_fraction) + " faster, within the " +
              as_percent(kRankNoiseFraction) + " noise of published throughput: " + why;
  return note;
}

bool bands_overlap(const Report& a, const Report& b) {
  const Uncertainty& x = a.uncertainty;
  const Uncertainty& y = b.uncertainty;
  if (x.runs == 0 || y.runs == 0) return false;
  return x.low_tokens_per_s_per_gpu <= y.high_tokens_per_s_per_gpu &&
         y.low_tokens_per_s_per_gpu <= x.high_tokens_per_s_per_gpu;
}

}  // namespace

int risky_switches(const Strategy& strategy) {
  return (strategy.optimizer_cpu_offload ? 1 : 0) +
         (strategy.cuda_graph_impl != CudaGraphImpl::none ? 1 : 0) +
         (strategy.cpu_offloading_num_layers > 0 ? 1 : 0);
}

void order_by_risk(std::vector<RankedStrategy>& strategies) {
  for (size_t first = 0; first < strategies.size();) {
    // A run: the rows within the noise floor of its fastest.
    const double fastest_s = strategies[first].report.iteration_time_s;
    size_t end = first;
    while (end < strategies.size() &&
           strategies[end].report.iteration_time_s <= fastest_s * (1 + kRankNoiseFraction)) {
      ++end;
    }
    std::vector<std::pair<size_t, RankedStrategy>> rows;  // rank by time, row
    for (size_t i = first; i < end; ++i) rows.emplace_back(i, std::move(strategies[i]));
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return safety_key(a.second) < safety_key(b.second);
    });
    for (size_t i = 0; i < rows.size(); ++i) {
      // The fastest row this one now stands above, if any.
      const auto passed =
          std::min_element(rows.begin() + static_cast<std::ptrdiff_t>(i) + 1, rows.end(),
                           [](const auto& a, const auto& b) { return a.first < b.first; });
      if (passed != rows.end() && passed->first < rows[i].first) {
        rows[i].second.rank_note_text = moved_note(rows[i].second, passed->second);
        rows[i].second.rank_note = rows[i].second.rank_note_text.text;
      }
      strategies[first + i] = std::move(rows[i].second);
    }
    first = end;
  }
}

void finish_order(SearchResult& result, bool by_time_only) {
  std::vector<RankedStrategy>& strategies = result.strategies;
  if (!by_time_only) order_by_risk(strategies);
  for (RankedStrategy& ranked : strategies) {
    ranked.tie_with_best = bands_overlap(ranked.report, strategies.front().report);
  }
  for (FamilyBest& family : result.family_bests) {
    const std::vector<int64_t> key = ordering_key(family.best.strategy);
    const auto listed = std::find_if(
        strategies.begin(), strategies.end(),
        [&](const RankedStrategy& ranked) { return ordering_key(ranked.strategy) == key; });
    family.rank =
        listed == strategies.end() ? 0 : static_cast<size_t>(listed - strategies.begin()) + 1;
  }
}

}  // namespace paraplan::detail
