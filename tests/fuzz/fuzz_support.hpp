// Shared checks of the fuzz targets: bad input must be an InputError, everything else a bug.
#pragma once

#include <cmath>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

namespace paraplan::fuzz {

// Aborts (a finding) when an output number is not finite: nlohmann writes NaN and Inf as null.
inline void require_finite(const nlohmann::json& value) {
  if (value.is_null()) std::abort();
  if (value.is_number() && !std::isfinite(value.get<double>())) std::abort();
  if (value.is_structured()) {
    for (const auto& item : value) require_finite(item);
  }
}

}  // namespace paraplan::fuzz
