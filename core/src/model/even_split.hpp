// Megatron-LM's even pipeline split of the layers over the stages and their virtual chunks
// (arguments.py --account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split).
#pragma once

#include <cstdint>
#include <vector>

namespace paraplan::detail {

// Megatron-LM's even split of `layers` over `stages` x `virtual_stages`, where it may count the
// embedding and the loss as one layer each so that the split comes out even
// (--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split): the first
// and last virtual stage then hold one transformer layer fewer. Empty when nothing divides.
std::vector<int64_t> standard_split(int64_t layers, int64_t stages, int64_t virtual_stages);

// The embedding and loss the even split counts as layers: 0, 1 (the loss) or 2 (both); -1 when
// no count makes the layers divide over stages x virtual_stages.
int64_t accounted_edges(int64_t layers, int64_t stages, int64_t virtual_stages);

}  // namespace paraplan::detail
