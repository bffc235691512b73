#include "paraplan/framework.hpp"

#include <array>

namespace paraplan {
namespace {

// The launch targets' names (docs/contract.md section 5), indexed by Framework.
constexpr std::array<std::string_view, 6> kFrameworks = {
    "megatron", "megatron-bridge", "mindspeed-llm", "deepspeed", "colossalai", "torchtitan"};

// Whether each framework's own launcher sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,
// indexed by Framework (scripts/validation/allocator_modes.py records it per launch):
// - megatron: no script of Megatron-LM's examples/ sets PYTORCH_CUDA_ALLOC_CONF (NVIDIA/Megatron-LM
//   examples at HEAD); PyTorch's default is fixed segments.
// - megatron-bridge: scripts/performance/utils/executors.py PERF_ENV_VARS (v0.2.0, v0.3.0) leaves
//   it unset; perf_plugins.py sets it for named recipes only (Llama 3.1 405B GB200 fp8, DeepSeek-V3
//   H100), and PR #3107's SFT launches ran out of memory without it.
// - mindspeed-llm: no launcher of its own; 8 of the 16 example scripts read (c77308a1
//   examples/mcore) export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True, so the default is
//   torch_npu's (fixed segments).
// - deepspeed, colossalai: their launchers not read for it; PyTorch's default (fixed segments),
//   assumed.
// - torchtitan: run_llama_train.sh:22 (9dec370, December 2024) and run_train.sh:43 (b5bcd76c) set
//   expandable_segments:True.
constexpr std::array<bool, 6> kExpandableSegmentsByDefault = {false, false, false,
                                                              false, false, true};

}  // namespace

bool expandable_segments_by_default(Framework framework) {
  return kExpandableSegmentsByDefault[static_cast<size_t>(framework)];
}

std::span<const std::string_view> framework_names() { return kFrameworks; }

std::string_view to_string(Framework framework) {
  return kFrameworks[static_cast<size_t>(framework)];
}

}  // namespace paraplan
