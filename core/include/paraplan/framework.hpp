// The training framework a strategy is launched with (docs/contract.md section 5's launch targets).
// The search keeps to strategies it can express and prices them with its own mechanisms where
// they differ from Megatron-LM's.
#pragma once

#include <span>
#include <string_view>

namespace paraplan {

enum class Framework {
  megatron,
  megatron_bridge,
  mindspeed_llm,
  deepspeed,
  colossalai,
  torchtitan
};

std::string_view to_string(Framework framework);
std::span<const std::string_view> framework_names();  // indexed by Framework

// Whether the framework's own launcher sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
// (the allocator mode the memory verdict's margin is chosen for; core/src/input/framework.cpp
// gives each framework's source).
bool expandable_segments_by_default(Framework framework);

}  // namespace paraplan
