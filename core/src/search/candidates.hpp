// The values the search tries for a key. Generators give a superset of what Megatron-LM
// accepts where that is cheap; the rulebook (model/rules.hpp) filters.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "paraplan/scenario.hpp"

namespace paraplan::detail {

std::vector<int64_t> divisors(int64_t n);  // ascending

// Divisors of a / b, or {1} when b does not divide a (the rules then say why).
std::vector<int64_t> divisors_of_quotient(int64_t a, int64_t b);

// The pinned value if given, else every value in `all`.
std::vector<int64_t> pinned_or(const std::optional<int64_t>& pinned, std::vector<int64_t> all);

// Calls `visit(counts)` for every split of `stages` into stage counts per pool (one entry per
// pool) within each pool's cap of GPUs (`gpus_per_stage` each), one at a time.
void for_each_stage_composition(const Cluster& cluster, int64_t stages, int64_t gpus_per_stage,
                                const std::function<void(const std::vector<int64_t>&)>& visit);

}  // namespace paraplan::detail
