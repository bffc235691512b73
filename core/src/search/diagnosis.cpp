// Why a search found no strategy: no GPU runs the precision, the rules ruled every candidate out
// (named with their numbers), or nothing fits in memory (the closest miss, by how much).
#include <algorithm>
#include <cstdio>

#include "paraplan/units.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {
namespace {

using units::kGiB;

std::string memory_miss(const ClosestMiss& closest, const Cluster& cluster,
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
  const double margin_bytes = margin.of(gpu.hbm_bytes);
  // The margin is named only where one is kept (issue 30: "less the 0.0 GiB memory margin").
  char less_margin[64] = "";
  if (margin_bytes > 0) {
    std::snprintf(less_margin, sizeof less_margin, " less the %.1f GiB memory margin",
                  margin_bytes / kGiB);
  }
  char text[640];
  std::snprintf(text, sizeof text,
                "no strategy fits in GPU memory: the closest (tensor %lld, pipeline %lld, "
                "context %lld, micro-batch %lld, ZeRO %lld, recompute %s) needs %.1f GiB per GPU "
                "on pipeline stage %lld (%s), %.1f GiB more than its %.1f GiB%s",
                static_cast<long long>(s.tensor_model_parallel_size),
                static_cast<long long>(s.pipeline_model_parallel_size),
                static_cast<long long>(s.context_parallel_size),
                static_cast<long long>(s.micro_batch_size), static_cast<long long>(s.zero_stage),
                std::string(to_string(s.recompute.front().granularity)).c_str(),
                closest.results[worst].memory.peak_bytes() / kGiB,
                static_cast<long long>(closest.groups[worst].first), gpu.id.c_str(),
                worst_overflow / kGiB, gpu.hbm_bytes / kGiB, less_margin);
  return text;
}

}  // namespace

std::vector<std::string> Searcher::diagnosis() const {
  if (std::all_of(cluster_.pools.begin(), cluster_.pools.end(),
                  [](const GpuPool& pool) { return pool.count == 0; })) {
    return {"no GPU type of the cluster has " + std::string(to_string(training_.precision)) +
            " tensor cores"};
  }
  if (closest_.overflow_bytes < std::numeric_limits<double>::infinity()) {
    return {memory_miss(closest_, cluster_, options_.memory_margin)};
  }
  // The rules (and search-space limits) that dropped candidates, most candidates first.
  std::vector<std::pair<std::string_view, const Rejection*>> ranked;
  for (const auto& [why, rejection] : rejections_) ranked.emplace_back(why, &rejection);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second->count > b.second->count; });
  std::string text =
      "no strategy divides evenly and meets Megatron-LM's rules; what ruled the candidates out:";
  const size_t shown = std::min<size_t>(ranked.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    const auto& [why, rejection] = ranked[i];
    // A launch target's rule is tallied by its why, which its example already says.
    const bool said = rejection->example.find(why) != std::string::npos;
    text += (i == 0 ? " " : "; ") + rejection->example + " (" +
            (said ? std::string() : std::string(why) + ", ") + std::to_string(rejection->count) +
            (rejection->count == 1 ? " candidate)" : " candidates)");
  }
  if (ranked.empty()) text += " nothing was left to try";
  return {text};
}

}  // namespace paraplan::detail
