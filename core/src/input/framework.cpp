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

// Megatron-Core's minor releases (NVIDIA/Megatron-LM tags core_v0.5.0 to core_v0.19.0, 2024-02
// to 2026-08) and the main branch after them.
constexpr std::array<std::string_view, 16> kFrameworkVersions = {
    "core_v0.5",  "core_v0.6",  "core_v0.7",  "core_v0.8",  "core_v0.9",  "core_v0.10",
    "core_v0.11", "core_v0.12", "core_v0.13", "core_v0.14", "core_v0.15", "core_v0.16",
    "core_v0.17", "core_v0.18", "core_v0.19", "dev"};

// Which frameworks run on Megatron-Core, indexed by Framework: Megatron-LM itself, Megatron-Bridge
// (3rdparty/Megatron-LM), MindSpeed-LLM (on Megatron-LM core_v0.12.1, mindspeed_launch.cpp);
// DeepSpeed, ColossalAI and torchtitan have their own layers.
constexpr std::array<bool, 6> kRunsOnMegatronCore = {true, true, true, false, false, false};

}  // namespace

bool expandable_segments_by_default(Framework framework) {
  return kExpandableSegmentsByDefault[static_cast<size_t>(framework)];
}

std::span<const std::string_view> framework_names() { return kFrameworks; }

std::span<const std::string_view> framework_version_names() { return kFrameworkVersions; }

bool runs_on_megatron_core(Framework framework) {
  return kRunsOnMegatronCore[static_cast<size_t>(framework)];
}

std::string_view to_string(Framework framework) {
  return kFrameworks[static_cast<size_t>(framework)];
}

}  // namespace paraplan
