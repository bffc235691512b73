// Scenario text -> parse -> a short search -> result JSON.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "paraplan/search.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paraplan;
  Scenario scenario;
  if (!fuzz::parse(data, size, scenario)) return 0;
  SearchOptions options;
  options.top = 3;
  options.time_budget_s = 0.5;
  options.progress_every = 256;
  const SearchResult result = search(scenario, options);
  fuzz::require_finite(to_json(result, scenario));
  return 0;
}
