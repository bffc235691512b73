// Uneven layer splits for pipelines whose stages run on different GPU types.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace paraplan::detail {

// Layers per stage (each >= 1, summing to `layers`) that minimise the slowest stage's time
// `fixed_s[i] + layers_i * layer_s[i]`, keeping each stage within `max_layers[i]` (what fits
// in its memory) when the stages can hold them all. Empty when layers < stages.
std::vector<int64_t> balanced_split(int64_t layers, std::span<const double> layer_s,
                                    std::span<const double> fixed_s,
                                    std::span<const int64_t> max_layers);

}  // namespace paraplan::detail
