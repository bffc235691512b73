// Memory a GPU of a pipeline stage holds besides the model's tensors: the CUDA context, library
// workspaces, NCCL buffers of every communicator the strategy uses, Transformer Engine's
// tensor-parallel overlap buffers, and the caching allocator's fragmentation.
#pragma once

#include "model/pipeline_model.hpp"

namespace paraplan::detail {

// The reserve of one GPU of `group`'s stages, whose activations at the peak are
// `activations_bytes`; `side_stream_cache_bytes` is what freed blocks of side streams' allocations
// keep cached at the peak (PyTorch's caching allocator reuses a block only on the stream it was
// allocated on).
MemoryReserve memory_reserve(const PipelineInput& input, const StageGroup& group,
                             double activations_bytes, double side_stream_cache_bytes = 0);

// NCCL buffers of one communicator, per member GPU (exposed for the tests).
double nccl_ring_bytes(const MemoryReserveSpec& spec, bool spans_nodes);
double nccl_nvls_bytes(const MemoryReserveSpec& spec, int64_t members_per_node);
double nccl_p2p_bytes(const MemoryReserveSpec& spec, double nvlink_peers, double network_peers);

}  // namespace paraplan::detail
