// CUDA_DEVICE_MAX_CONNECTIONS (the GPU's hardware work queues a process's streams share) as
// Megatron-family runs set it, and what its setting orders. Internal to core/src.
#pragma once

#include "paraplan/hardware.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// Blackwell's compute capability (sm_100).
inline constexpr double kBlackwellComputeCapability = 10.0;

// Whether the run needs more than one connection: --overlap-moe-expert-parallel-comm runs one
// micro-batch's all-to-all on a communication stream beside another's compute (Megatron-LM
// megatron/core/transformer/moe/README.md, "Requirements for EP A2A Overlap: ...
// CUDA_DEVICE_MAX_CONNECTIONS > 1"; arguments.py at d98e8a64ddf3 warns that tensor or context
// parallelism wants 1 while the overlap wants more, "1 or 32"). Megatron-Bridge's performance
// launches keep 8 (Hopper) or 32 (DeepEP, HybridEP, Blackwell) with the overlap and set 1 only
// without it (scripts/performance/perf_plugins.py _set_num_cuda_device_max_connections at
// 97ad8cc6f, 25.11; utils/overrides.py _apply_flat_cli_environment_compatibility at 067f987df).
inline bool needs_many_device_connections(const Strategy& s) {
  return s.overlap_moe_expert_parallel_comm;
}

// Whether the tensor-parallel collectives Megatron-LM and Transformer Engine issue ahead of the
// GEMM they overlap run beside it. Before Blackwell they do only with one connection, which
// makes the GPU start kernels in the order the host issued them (tensor_parallel/layers.py:
// "Here we rely on CUDA_DEVICE_MAX_CONNECTIONS=1 to ensure that the reduce scatter is scheduled
// before the weight gradient computation", likewise the input all-gather and the all-reduce);
// with more, "communication kernel will be pushed to the end of the GEMM kernel, failing to
// overlap the kernels" (Megatron-Bridge perf_plugins.py; performance-guide.md, "Common reason
// for TP comm overlap failure at Hopper"). From Blackwell on the requirement "no longer exists"
// (arguments.py at d98e8a64ddf3).
inline bool tp_collectives_overlap_gemms(const Strategy& s, const GpuSpec& gpu) {
  return gpu.compute_capability >= kBlackwellComputeCapability || !needs_many_device_connections(s);
}

}  // namespace paraplan::detail
