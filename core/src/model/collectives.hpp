// Time of NCCL-style collectives on a group of GPUs placed in Megatron-LM's rank order
// (tensor innermost, then context, expert/data, pipeline outermost).
#pragma once

#include <cstdint>

#include "paraplan/hardware.hpp"

namespace paraplan::detail {

// Where a parallel group's members sit: `size` GPUs whose ranks are `stride` apart.
struct Group {
  int64_t size = 1;
  int64_t members_per_node = 1;  // members sharing one node (NVLink domain)
  bool spans_nodes = false;
};

Group place_group(int64_t size, int64_t stride, int64_t gpus_per_node);

// Ring reduce-scatter or all-gather of a buffer of `bytes` (the full, unsharded size).
double all_gather_s(const GpuSpec& gpu, const Group& group, double bytes);
double reduce_scatter_s(const GpuSpec& gpu, const Group& group, double bytes);
double all_reduce_s(const GpuSpec& gpu, const Group& group, double bytes);
// Each member exchanges `bytes_per_gpu` evenly with all others.
double all_to_all_s(const GpuSpec& gpu, const Group& group, double bytes_per_gpu);
// One point-to-point message between neighbours.
double p2p_s(const GpuSpec& gpu, bool inter_node, double bytes);

}  // namespace paraplan::detail
