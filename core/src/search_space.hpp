// The candidate values of each strategy dimension the search enumerates.
#pragma once

#include <cstdint>
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

// Standard Megatron-LM split of `layers` over `stages` x `virtual_stages`: even, or with the
// loss and embedding counted as layers; empty when neither divides.
std::vector<int64_t> standard_split(int64_t layers, int64_t stages, int64_t virtual_stages);

// Stage counts per pool (one entry per pool) summing to `stages`, each within its pool's cap
// of GPUs (`gpus_per_stage` each).
std::vector<std::vector<int64_t>> stage_compositions(const Cluster& cluster, int64_t stages,
                                                     int64_t gpus_per_stage);

}  // namespace paraplan::detail
