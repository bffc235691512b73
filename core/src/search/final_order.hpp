// After a search: an order that, among rows within the noise of published throughput, puts the
// safer first (a memory verdict of fits before at_risk, then fewer risky switches); the rows the
// model cannot tell from the first (their uncertainty bands overlap); and the listed rank of each
// family's best.
#pragma once

#include <vector>

#include "paraplan/search.hpp"

namespace paraplan::detail {

// Relative throughput difference below which two strategies' order says nothing: published
// numbers of the same configuration vary by about this much between releases of one table
// (shared/validation/README.md, "treat that as the noise floor").
inline constexpr double kRankNoiseFraction = 0.05;

// Switches that trade a launch's robustness for speed or memory: the optimizer stepped on the
// CPU (host memory and PCIe contention the model prices only in part), CUDA graphs (static
// buffers and pool fragmentation, oom-outcomes.json), activations offloaded by layer.
int risky_switches(const Strategy& strategy);

// Reorders `strategies` (ordered by time) within runs of rows no more than the noise floor
// slower than the run's fastest, safest first, noting why where a row moves above a faster
// one.
void order_by_risk(std::vector<RankedStrategy>& strategies);

// The final order of a search's result: by risk unless `by_time_only` (the user allowed at-risk
// strategies and asked for time alone), the ties with the first row, the family bests' ranks.
void finish_order(SearchResult& result, bool by_time_only);

}  // namespace paraplan::detail
