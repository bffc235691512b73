// What CUDA graphs (Megatron-LM --cuda-graph-impl, --cuda-graph-scope) hold on a GPU of a pipeline
// stage beyond the tensors the same iteration holds without them. Their time: the host's issue time
// of what they capture goes (host_time.hpp, stage_work.cpp).
#pragma once

#include "model/pipeline_model.hpp"

namespace paraplan::detail {

// Bytes one GPU of `group`'s stages holds for its CUDA graphs through the iteration, with
// `in_flight` micro-batches in flight on the stage (each a 1/v share of its layers).
double cuda_graph_bytes(const PipelineInput& input, const StageGroup& group, double in_flight);

// Of the activations a GPU of `group`'s stages holds at its peak (`held_bytes`, with `in_flight`
// micro-batches in flight), the bytes the captured graphs' own saved tensors keep in the graphs'
// private memory pool. PyTorch's caching allocator counts a private pool's blocks as allocated
// only while a tensor holds them: the graphs' intermediates are freed when their capture ends
// (TE graph.py: the backward capture frees the forward's saved tensors, make_weak_ref on the
// static outputs; Megatron cuda_graphs.py likewise), so once the graphs replay they stay in
// reserved memory (the pool lives while its graphs do: CUDACachingAllocator.cpp PrivatePool
// use_count, releasePool) and out of max_memory_allocated(). Zero where the graphs' scope is
// not priced this way (attention-only and MoE scopes).
double cuda_graph_pool_bytes(const PipelineInput& input, const StageGroup& group,
                             const StageWork& work, double held_bytes, double in_flight);

// What a full-iteration graph's capture keeps reserved beyond the live tensors with Megatron-LM's
// A2A overlap: the MoE rows its schedule nodes free after another stream used them, which PyTorch's
// caching allocator does not reuse while a capture is underway (cuda_graph_memory.cpp). Zero
// without that overlap, without MoE layers, and with graph_capture_record_stream_reuse (the
// allocator setting Megatron-Bridge's full-iteration recipes launch with).
double cuda_graph_deferred_bytes(const PipelineInput& input, const StageGroup& group);

}  // namespace paraplan::detail
