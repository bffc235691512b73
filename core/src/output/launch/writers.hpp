// One launch writer per framework (launch-targets.md names each one's flags and sources).
#pragma once

#include <string>

#include "output/launch/hosts.hpp"
#include "paraplan/launch.hpp"

namespace paraplan::detail {

struct LaunchInput {
  const Strategy& strategy;
  const Scenario& scenario;
  int64_t data_parallel_size;
  int64_t num_micro_batches;
  Hosts hosts;
};

Launch megatron_launch(const LaunchInput& in);
Launch bridge_launch(const LaunchInput& in);
Launch mindspeed_launch(const LaunchInput& in);
Launch deepspeed_launch(const LaunchInput& in);
Launch colossalai_launch(const LaunchInput& in);
Launch torchtitan_launch(const LaunchInput& in);

// A boolean as Python writes it, for the frameworks whose configuration is a Python file.
inline std::string py_bool(bool value) { return value ? "True" : "False"; }

// The recompute of the GPU types the stages run on (one config file holds one; the framework
// rules make the types agree).
inline const Recompute& stage_recompute(const LaunchInput& in) {
  return in.strategy.recompute.at(static_cast<size_t>(in.hosts.groups.front().pool));
}

// The caching allocator's settings (Strategy::expandable_segments,
// Strategy::graph_capture_record_stream_reuse) as the variable the framework's PyTorch reads:
// PYTORCH_CUDA_ALLOC_CONF, or torch_npu's PYTORCH_NPU_ALLOC_CONF for MindSpeed-LLM (its
// examples/mcore scripts export that one). Both off: nothing, PyTorch's defaults.
std::string allocator_environment(const Strategy& strategy, Framework framework);

// The CUDA_DEVICE_MAX_CONNECTIONS line of a Megatron-family launch with tensor or context
// parallelism: 1, which orders their communication before the compute it overlaps, unless the
// strategy needs more (device_connections.hpp needs_many_device_connections), then 32 (Megatron-LM
// arguments.py: "1 or 32"; Megatron-Bridge's performance launches on Blackwell and with DeepEP or
// HybridEP).
std::string device_connections_export(const Strategy& strategy);

// Megatron-LM's arguments for GPU type `pool`: the model's, the strategy's, and mock data.
std::vector<std::string> megatron_program_arguments(const LaunchInput& in, int pool);

}  // namespace paraplan::detail
