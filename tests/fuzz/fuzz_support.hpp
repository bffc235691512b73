// Shared checks of the fuzz targets: bad input must be an InputError, everything else a bug.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "paraplan/errors.hpp"
#include "paraplan/request.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::fuzz {

// The scenario in the fuzzer's bytes (and its document); false when rejected with an
// InputError (the expected outcome for bad input). Any other exception escapes: a finding.
inline bool parse(const uint8_t* data, size_t size, Scenario& scenario,
                  nlohmann::json* document = nullptr) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    nlohmann::json parsed = parse_json_text(text, "input");
    scenario = parse_scenario(parsed);
    if (document != nullptr) *document = std::move(parsed);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Aborts (a finding) when an output number is not finite. In the JSON value NaN and Inf are
// still numbers (only the text nlohmann writes turns them into null), so a null here is a value
// the contract leaves empty (the trace's otherData.elided) and is not a finding.
inline void require_finite(const nlohmann::json& value) {
  if (value.is_number() && !std::isfinite(value.get<double>())) std::abort();
  if (value.is_structured()) {
    for (const auto& item : value) require_finite(item);
  }
}

}  // namespace paraplan::fuzz
