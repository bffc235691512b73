// The training framework a strategy is launched with (docs/contract.md section 5's launch targets).
// The search keeps to strategies it can express and prices them with its own mechanisms where
// they differ from Megatron-LM's.
#pragma once

#include <optional>
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

// The software release that ran a job ("framework_version", docs/contract.md section 2): the
// Megatron-Core release under the framework (Megatron-Bridge's and NeMo's containers and
// MindSpeed-LLM each pin one), by minor release, oldest first; "dev" is Megatron-LM's main
// branch, newer than every release. An index into this list orders releases.
std::span<const std::string_view> framework_version_names();

// Whether the framework runs on Megatron-Core, so that a Megatron-Core release names its software.
bool runs_on_megatron_core(Framework framework);

}  // namespace paraplan
