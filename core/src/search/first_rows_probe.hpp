// The probe that gives a page's search its first rows before the walk (first_rows_probe.cpp).
#pragma once

#include "paraplan/scenario.hpp"
#include "paraplan/search.hpp"

namespace paraplan::detail {

// Where `options` asks for the probe (SearchOptions::first_rows_probe) and for rows in its
// progress reports: searches a narrow corner of the strategies, largest tensor parallel size
// first, and reports the first rows it finds as the search's first, provisional ones. Returns
// false when the progress callback cancelled at that report.
bool probe_first_rows(const Scenario& scenario, const SearchOptions& options);

// What a search cancelled at the probe's report returns: nothing, stopped as cancelled.
SearchResult cancelled_by_probe();

// The largest tensor parallel size the search tries (the smallest NVLink domain of the cluster's
// GPU types, or every GPU where tensor parallelism may cross nodes); tensor_level tries its
// divisors.
int64_t tensor_parallel_limit(const Cluster& cluster, bool across_nodes);

}  // namespace paraplan::detail
