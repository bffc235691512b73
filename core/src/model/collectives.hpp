// Time of NCCL-style collectives on a group of GPUs placed in Megatron-LM's rank order
// (tensor innermost, then context, expert/data, pipeline outermost), as NCCL runs them: rings
// whose latency grows with their length, bandwidth read at the per-step chunk, tree all-reduce
// where NCCL's own cost model picks it, and groups that span NVLink domains over the NIC rails.
#pragma once

#include <cstdint>

#include "paraplan/hardware.hpp"

namespace paraplan::detail {

// Where a parallel group's members sit: `size` GPUs whose ranks are `stride` apart.
struct Group {
  int64_t size = 1;
  int64_t members_per_node = 1;  // members sharing one NVLink domain
  bool spans_nodes = false;

  // NVLink domains the group spans (NCCL's nNodes).
  int64_t nodes() const {
    return spans_nodes ? (size + members_per_node - 1) / members_per_node : 1;
  }
};

// `domain_gpus`: GPUs one NVLink domain joins (the GPU type's intra_node.gpus).
Group place_group(int64_t size, int64_t stride, int64_t domain_gpus);

// Ring reduce-scatter or all-gather of a buffer of `bytes` (the full, unsharded size).
double all_gather_s(const GpuSpec& gpu, const Group& group, double bytes);
double reduce_scatter_s(const GpuSpec& gpu, const Group& group, double bytes);
// Ring or tree, whichever NCCL's cost model finds faster.
double all_reduce_s(const GpuSpec& gpu, const Group& group, double bytes);
// An all-reduce of a few bytes (one fp32 scalar): all latency, at NCCL's LL protocol, the one its
// cost model picks for such a buffer (collectives.cpp).
double scalar_all_reduce_s(const Group& group);
// Each member exchanges `bytes_per_gpu` evenly with all others.
double all_to_all_s(const GpuSpec& gpu, const Group& group, double bytes_per_gpu);
// One point-to-point message between neighbours.
double p2p_s(const GpuSpec& gpu, bool inter_node, double bytes);

// Latency of one collective as NCCL's cost model gives it (src/graph/tuning.cc,
// ncclTopoTuneModel, Simple protocol), exposed for tests.
enum class Collective { all_gather, reduce_scatter, all_reduce };
double nccl_ring_latency_s(const GpuSpec& gpu, Collective collective, int64_t ranks, int64_t nodes);
double nccl_tree_latency_s(const GpuSpec& gpu, int64_t ranks, int64_t nodes);

}  // namespace paraplan::detail
