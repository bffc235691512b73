// A search's final order: safety first among rows the model cannot tell apart, ties with the
// first row by their uncertainty bands, and the listed ranks of the family bests.
#include "search/final_order.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "model/text_ids.hpp"
#include "paraplan/units.hpp"
#include "search/top_strategies.hpp"

using namespace paraplan;

namespace {

// A listed row: its time, free memory and switches.
RankedStrategy row(double time_s, double headroom_gib, bool offloads_optimizer = false,
                   MemoryVerdict verdict = MemoryVerdict::fits) {
  RankedStrategy ranked;
  ranked.strategy.recompute.resize(1);
  ranked.strategy.optimizer_cpu_offload = offloads_optimizer;
  ranked.strategy.micro_batch_size = static_cast<int64_t>(time_s * 1000);  // tells rows apart
  ranked.report.iteration_time_s = time_s;
  ranked.report.tokens_per_s_per_gpu = 1000 / time_s;
  ranked.report.memory_verdict = verdict;
  StageReport stage;
  stage.capacity_bytes = 80 * units::kGiB;
  stage.memory.weights_bytes = (80 - headroom_gib) * units::kGiB;
  ranked.report.stages.push_back(stage);
  return ranked;
}

std::vector<double> times(const std::vector<RankedStrategy>& rows) {
  std::vector<double> out;
  for (const RankedStrategy& r : rows) out.push_back(r.report.iteration_time_s);
  return out;
}

}  // namespace

TEST_CASE("within the noise a row without optimizer offload ranks above a faster one with it") {
  // Llama 3.1 405B on 1024 H100 (the audit): #1 offloaded the optimizer with 5.1 GiB free, #2
  // kept 14.3 GiB free without it and was 0.1% slower.
  std::vector<RankedStrategy> rows = {row(57.00, 5.1, true), row(57.06, 14.3), row(70.0, 30.0)};
  detail::order_by_risk(rows);
  CHECK(times(rows) == std::vector<double>{57.06, 57.00, 70.0});
  CHECK(rows[0].rank_note.find("fewer risky switches") != std::string::npos);
  // The page writes it from its id and values (web/src/i18n/core-texts.ts).
  CHECK(rows[0].rank_note_text.id == text_id::kRankedAboveFewerSwitches);
  CHECK(rows[0].rank_note_text.text == rows[0].rank_note);
  CHECK(rows[1].rank_note_text.id.empty());
  CHECK(rows[1].rank_note.empty());
  CHECK(rows[2].rank_note.empty());  // 23% slower: beyond the noise, not moved
}

TEST_CASE("within the noise a row that fits ranks above one at risk; beyond it time decides") {
  std::vector<RankedStrategy> rows = {row(10.0, 1.6, false, MemoryVerdict::at_risk),
                                      row(10.3, 12.3), row(10.4, 30.0), row(11.0, 40.0)};
  detail::order_by_risk(rows);
  // 10.3 s and 10.4 s are within 5% of 10.0 s and fit; more free memory alone moves nothing;
  // 11.0 s is 10% slower.
  CHECK(times(rows) == std::vector<double>{10.3, 10.4, 10.0, 11.0});
  CHECK(rows[0].rank_note.find("memory verdict is fits") != std::string::npos);
  CHECK(rows[0].rank_note_text.id == text_id::kRankedAboveSaferVerdict);
  const auto args = rows[0].rank_note_text.args;
  CHECK(std::find(args.begin(), args.end(),
                  std::pair<std::string, std::string>("other_verdict", "at_risk")) != args.end());
}

TEST_CASE("ties are rows whose bands overlap the first row's; family ranks follow the order") {
  SearchResult result;
  result.strategies = {row(10.0, 20), row(10.2, 20), row(20.0, 20)};
  const auto band = [](RankedStrategy& r, double low, double high) {
    r.report.uncertainty = {low, high, 0.8, "regime", 12, "basis", {}, {}};
  };
  band(result.strategies[0], 90, 110);
  band(result.strategies[1], 88, 108);
  band(result.strategies[2], 40, 55);
  result.family_bests.push_back({LayoutFamily::pp, result.strategies[2], 0});
  detail::finish_order(result, false);
  CHECK(result.strategies[0].tie_with_best);
  CHECK(result.strategies[1].tie_with_best);
  CHECK_FALSE(result.strategies[2].tie_with_best);
  CHECK(result.family_bests[0].rank == 3);
}

TEST_CASE("layout families follow the rules a Megatron user would; the page takes them as given") {
  const auto sizes = [](int64_t tp, int64_t pp, int64_t cp = 1, int64_t ep = 1, int64_t zero = 0) {
    Strategy s;
    s.tensor_model_parallel_size = tp;
    s.pipeline_model_parallel_size = pp;
    s.context_parallel_size = cp;
    s.expert_model_parallel_size = ep;
    s.zero_stage = zero;
    return s;
  };
  using detail::in_family;
  CHECK(in_family(sizes(8, 1), LayoutFamily::tp));
  CHECK(in_family(sizes(4, 4), LayoutFamily::tp));  // TP at least as wide as the pipeline
  CHECK_FALSE(in_family(sizes(4, 4), LayoutFamily::pp));
  CHECK_FALSE(in_family(sizes(2, 1), LayoutFamily::tp));
  CHECK(in_family(sizes(2, 8), LayoutFamily::pp));
  CHECK(in_family(sizes(1, 1, 2), LayoutFamily::cp));
  CHECK(in_family(sizes(1, 1, 1, 8), LayoutFamily::ep));
  CHECK(in_family(sizes(1, 1, 1, 1, 3), LayoutFamily::zero3));
  // Two strategies of one layout share its key whatever their details.
  Strategy vp2 = sizes(2, 4), vp4 = sizes(2, 4);
  vp2.virtual_pipeline_model_parallel_size = 2;
  vp4.virtual_pipeline_model_parallel_size = 4;
  vp4.micro_batch_size = 2;
  CHECK(detail::layout_key(vp2) == detail::layout_key(vp4));
  CHECK(detail::layout_key(vp2) != detail::layout_key(sizes(4, 2)));
}
