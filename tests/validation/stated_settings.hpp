// How the validation reads a published run: the settings its source states that the entry leaves
// out, and, where its recompute is only assumed and does not fit, the least that fits.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "paraplan/estimate.hpp"

namespace paraplan::validation {

// The scenario with the settings `source` (an entry's `source`) states but the entry leaves out.
nlohmann::json with_stated_settings(nlohmann::json scenario, const std::string& source);

// Where a run's recompute is an assumption (the source does not state it) and the assumed one
// does not fit, the run evidently fitted: the least recompute that fits, every other key as
// estimated, chosen by the search with no memory margin. Returns the scenario unchanged otherwise.
nlohmann::json with_unstated_recompute_fitted(nlohmann::json scenario, const nlohmann::json& entry,
                                              const Report& stated);

}  // namespace paraplan::validation
