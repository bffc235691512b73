// Activation offloading to host memory (activation_offload.cpp): what a stage sends to the host
// and the copy time left exposed, added to the stage's work (stage_work.cpp).
#pragma once

#include "model/pipeline_model.hpp"

namespace paraplan::detail {

// Megatron-LM activation offloading by layer (--cpu-offloading-num-layers) of `activation`, the
// group's saved activation bytes.
void offload_activations(const PipelineInput& in, const StageGroup& group, double activation,
                         StageWork& work);

// Fine-grained activation offloading by module (--offload-modules).
void offload_module_activations(const PipelineInput& in, const StageGroup& group,
                                double dense_layers, double moe_layers, StageWork& work);

}  // namespace paraplan::detail
