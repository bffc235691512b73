// What the validation tests share: the data files (tests/validation/data) and how to read a report
// against them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "paraplan/estimate.hpp"

namespace paraplan::validation {

// A file of tests/validation/data, parsed.
nlohmann::json load(const std::string& name);

// An entry's scenario: its model, training, cluster, strategy and framework (where it names
// one), nothing else.
nlohmann::json scenario_of(const nlohmann::json& entry);

// Infeasible for memory alone: every reason is a stage's peak over its capacity (the reasons for
// sizes that do not divide are not memory).
bool out_of_memory_only(const Report& report);

// The smallest GPU memory over the report's stages.
double smallest_capacity_bytes(const Report& report);

}  // namespace paraplan::validation
