// Helpers shared by the unit tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "paraplan/errors.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::test {

// Whether this is the sanitized build (ASan and UBSan, scripts/test-robustness.sh). It checks
// memory and undefined behaviour; the exhaustive comparisons whose point is the search's
// results (brute force, recorded tops) run in full in the optimised build and are left out or
// sampled here, where they take minutes.
#ifdef PARAPLAN_SANITIZED
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

inline Scenario scenario(std::string_view json) {
  return parse_scenario(nlohmann::json::parse(json));
}

// The message of the InputError that parsing `json` raises, or "" when it parses.
inline std::string input_error(std::string_view json) {
  try {
    scenario(json);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// A GPT-style model of Korthikanti et al. 2022 (Table 3), as a JSON object.
inline std::string gpt_model(int layers, int hidden, int heads) {
  return R"({"name": "gpt", "num_layers": )" + std::to_string(layers) + R"(, "hidden_size": )" +
         std::to_string(hidden) + R"(, "ffn_hidden_size": )" + std::to_string(4 * hidden) +
         R"(, "num_attention_heads": )" + std::to_string(heads) +
         R"(, "vocab_size": 51200, "activation": "gelu"})";
}

}  // namespace paraplan::test
