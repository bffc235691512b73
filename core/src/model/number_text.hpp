// Numbers as the core writes them into its texts (reasons, notes, sweep values, launch files):
// one way for each kind, so that a value reads the same wherever it appears.
#pragma once

#include <cstdio>
#include <string>

namespace paraplan {

// Up to 10 significant digits, no trailing zeros (printf "%.10g"): 0.1, 8, 10.3, 1.5e-05.
inline std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// Exactly `decimals` digits after the point (printf "%.*f"): fixed_text(0.8125, 2) is "0.81".
inline std::string fixed_text(double value, int decimals) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace paraplan
