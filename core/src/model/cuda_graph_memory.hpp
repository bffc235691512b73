// What CUDA graphs (Megatron-LM --cuda-graph-impl, --cuda-graph-scope) hold on a GPU of a pipeline
// stage beyond the tensors the same iteration holds without them. Their time: the host's issue time
// of what they capture goes (host_time.hpp, pipeline_model.cpp).
#pragma once

#include "model/pipeline_model.hpp"

namespace paraplan::detail {

// Bytes one GPU of `group`'s stages holds for its CUDA graphs through the iteration, with
// `in_flight` micro-batches in flight on the stage (each a 1/v share of its layers).
double cuda_graph_bytes(const PipelineInput& input, const StageGroup& group, double in_flight);

}  // namespace paraplan::detail
