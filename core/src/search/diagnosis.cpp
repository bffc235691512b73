// Why a search found no strategy: no GPU runs the precision, the rules ruled every candidate out
// (named with their numbers), or nothing fits in memory (the closest miss, by how much).
#include <algorithm>

#include "model/number_text.hpp"
#include "model/text_ids.hpp"
#include "paraplan/units.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {
namespace {

using units::kGiB;

// `bytes` in GiB with one decimal, as the diagnosis writes them.
std::string diagnosis_gib(double bytes) { return fixed_text(bytes / kGiB, 1); }

CoreText memory_miss(const ClosestMiss& closest, const Cluster& cluster,
                     const MemoryMargin& margin) {
  // The stage of the closest strategy that overflows most (its GPU's memory minus the margin).
  size_t worst = 0;
  double worst_overflow = -std::numeric_limits<double>::infinity();
  for (size_t g = 0; g < closest.groups.size(); ++g) {
    const double hbm = cluster.pools[static_cast<size_t>(closest.groups[g].pool)].gpu.hbm_bytes;
    const double capacity = hbm - margin.of(hbm);
    const double overflow = closest.results[g].memory.peak_bytes() - capacity;
    if (overflow > worst_overflow) {
      worst_overflow = overflow;
      worst = g;
    }
  }
  const Strategy& s = closest.strategy;
  const GpuSpec& gpu = cluster.pools[static_cast<size_t>(closest.groups[worst].pool)].gpu;
  CoreText text{text_id::kNoStrategyFits,
                "",
                {{"tensor", std::to_string(s.tensor_model_parallel_size)},
                 {"pipeline", std::to_string(s.pipeline_model_parallel_size)},
                 {"context", std::to_string(s.context_parallel_size)},
                 {"micro_batch", std::to_string(s.micro_batch_size)},
                 {"zero", std::to_string(s.zero_stage)},
                 {"recompute", std::string(to_string(s.recompute.front().granularity))},
                 {"needs_gib", diagnosis_gib(closest.results[worst].memory.peak_bytes())},
                 {"stage", std::to_string(closest.groups[worst].first)},
                 {"gpu", gpu.id},
                 {"over_gib", diagnosis_gib(worst_overflow)},
                 {"capacity_gib", diagnosis_gib(gpu.hbm_bytes)}},
                {}};
  const auto arg = [&text](size_t i) { return text.args[i].second; };
  text.text = "no strategy fits in GPU memory: the closest (tensor " + arg(0) + ", pipeline " +
              arg(1) + ", context " + arg(2) + ", micro-batch " + arg(3) + ", ZeRO " + arg(4) +
              ", recompute " + arg(5) + ") needs " + arg(6) + " GiB per GPU on pipeline stage " +
              arg(7) + " (" + arg(8) + "), " + arg(9) + " GiB more than its " + arg(10) + " GiB";
  // The margin is named only where one is kept (issue 30: "less the 0.0 GiB memory margin").
  if (const double margin_bytes = margin.of(gpu.hbm_bytes); margin_bytes > 0) {
    text.args.emplace_back("margin_gib", diagnosis_gib(margin_bytes));
    text.text += " less the " + text.args.back().second + " GiB memory margin";
  }
  return text;
}

// One rule's (or search-space limit's) rejections: its example reason, with the reason's id
// `why` (a rule's name, or a launch target's why, which its example already says), and count.
CoreText ruled_out(std::string_view why, const Rejection& rejection) {
  const bool said = rejection.example.find(why) != std::string::npos;
  return {text_id::kRuledOutCandidates,
          rejection.example + " (" + (said ? std::string() : std::string(why) + ", ") +
              std::to_string(rejection.count) +
              (rejection.count == 1 ? " candidate)" : " candidates)"),
          {{"reason", rejection.example},
           {"reason_id", std::string(why)},
           {"count", std::to_string(rejection.count)}},
          {}};
}

}  // namespace

std::vector<CoreText> Searcher::diagnosis() const {
  if (std::all_of(cluster_.pools.begin(), cluster_.pools.end(),
                  [](const GpuPool& pool) { return pool.count == 0; })) {
    const std::string precision(to_string(training_.precision));
    return {{text_id::kNoTensorCores,
             "no GPU type of the cluster has " + precision + " tensor cores",
             {{"precision", precision}},
             {}}};
  }
  if (closest_.overflow_bytes < std::numeric_limits<double>::infinity()) {
    return {memory_miss(closest_, cluster_, options_.memory_margin)};
  }
  // The rules (and search-space limits) that dropped candidates, most candidates first.
  std::vector<std::pair<std::string_view, const Rejection*>> ranked;
  for (const auto& [why, rejection] : rejections_) ranked.emplace_back(why, &rejection);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second->count > b.second->count; });
  CoreText text{
      text_id::kNoStrategyMeetsRules,
      "no strategy divides evenly and meets Megatron-LM's rules; what ruled the candidates out:",
      {},
      {}};
  const size_t shown = std::min<size_t>(ranked.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    text.parts.push_back(ruled_out(ranked[i].first, *ranked[i].second));
    text.text += (i == 0 ? " " : "; ") + text.parts.back().text;
  }
  if (ranked.empty()) text.text += " nothing was left to try";
  return {text};
}

}  // namespace paraplan::detail
