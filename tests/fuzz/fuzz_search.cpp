// Scenario text -> parse -> a short search -> result JSON, and the search's promise: every
// strategy it returns is one the public estimate accepts, on the GPUs it uses, with its pins.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_support.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/search.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paraplan;
  Scenario scenario;
  nlohmann::json document;
  if (!fuzz::parse(data, size, scenario, &document)) return 0;
  SearchOptions options;
  options.top = 3;
  options.time_budget_s = 0.5;
  options.progress_every = 256;
  const SearchResult result = search(scenario, options);
  const nlohmann::json output = to_json(result, scenario);
  fuzz::require_finite(output);
  if (result.stats.rejected_on_estimate != 0) std::abort();
  for (const nlohmann::json& ranked : output["strategies"]) {
    // The scenario of the strategy: its keys, and exactly the GPUs it uses of each type.
    nlohmann::json pinned = document;
    pinned["strategy"] = ranked["strategy"];
    nlohmann::json gpus = nlohmann::json::array();
    for (size_t pool = 0; pool < scenario.cluster.pools.size(); ++pool) {
      const std::string& id = scenario.cluster.pools[pool].gpu.id;
      if (!ranked["gpus_used"].contains(id)) continue;
      nlohmann::json gpu = document["cluster"]["gpus"][pool];
      gpu["count"] = ranked["gpus_used"][id];
      gpus.push_back(gpu);
    }
    pinned["cluster"]["gpus"] = gpus;
    pinned["cluster"].erase("num_gpus");
    for (auto& [key, value] : pinned["strategy"].items()) {  // per-GPU keys: used types only
      if (!value.is_object()) continue;
      for (auto it = value.begin(); it != value.end();) {
        it = ranked["gpus_used"].contains(it.key()) ? std::next(it) : value.erase(it);
      }
    }
    if (!estimate(parse_scenario(pinned)).feasible) std::abort();
  }
  return 0;
}
