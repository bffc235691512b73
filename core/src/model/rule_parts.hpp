// What the rulebook's parts (rules_<responsibility>.cpp) share: the helpers their rules use and
// each part's table, which rules() joins in this order (rules.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "model/rules.hpp"

namespace paraplan::detail::rule_parts {

using K = StrategyKeyId;
using C = const RuleContext&;
using S = const Strategy&;

inline std::string str(int64_t value) { return std::to_string(value); }

inline std::string does_not_divide(std::string_view divisor_name, int64_t divisor,
                                   std::string_view value_name, int64_t value) {
  return std::string(divisor_name) + " (" + str(divisor) + ") does not divide " +
         std::string(value_name) + " (" + str(value) + ")";
}

inline bool divides(int64_t divisor, int64_t value) { return divisor > 0 && value % divisor == 0; }

inline bool sequence_parallel_on(S s) {
  return s.sequence_parallel && s.tensor_model_parallel_size > 1;
}

// Each part's rules, in the order rules() joins them (the CUDA graph rules, cuda_graph_rules.cpp,
// come last).
std::span<const Rule> tensor_expert_rules();
std::span<const Rule> sequence_pipeline_data_rules();
std::span<const Rule> memory_precision_rules();

}  // namespace paraplan::detail::rule_parts
