// Megatron-LM command-line flags that launch a strategy.
#pragma once

#include <string>
#include <vector>

#include "paraplan/scenario.hpp"

namespace paraplan {

// Flags for the parallel layout, batch and precision, as run by the GPUs of cluster pool
// `pool` (recompute may differ between GPU types of a mixed cluster).
std::vector<std::string> megatron_arguments(const Strategy& strategy, const ModelSpec& model,
                                            const Training& training, int pool = 0);

// The flags joined into one command-line fragment.
std::string join_arguments(const std::vector<std::string>& arguments);

}  // namespace paraplan
