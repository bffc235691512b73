// The candidate values of each strategy dimension the search enumerates.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "paraplan/scenario.hpp"

namespace paraplan::detail {

std::vector<int64_t> divisors(int64_t n);  // ascending

// `pinned` if given, else every value in `all`.
std::vector<int64_t> pinned_or(const std::optional<int64_t>& pinned, std::vector<int64_t> all);
std::vector<bool> pinned_or(const std::optional<bool>& pinned, std::vector<bool> all);

// Tensor-parallel sizes that split heads, query groups and every MLP width.
std::vector<int64_t> tensor_candidates(const ModelSpec& model, int64_t max_size);

// Context-parallel sizes: the sequence splits into 2 x cp chunks (load-balanced causal).
std::vector<int64_t> context_candidates(const Training& training, int64_t max_size);

// Calls `visit(counts)` for every split of `stages` into stage counts per pool (one entry per
// pool) within each pool's cap of GPUs (`gpus_per_stage` each), one at a time.
void for_each_stage_composition(const Cluster& cluster, int64_t stages, int64_t gpus_per_stage,
                                const std::function<void(const std::vector<int64_t>&)>& visit);

}  // namespace paraplan::detail
