// Megatron-LM's optimizer CPU offload (--optimizer-cpu-offload, HybridDeviceOptimizer): a share of
// the optimizer's parameters keeps its fp32 copy, gradient copy and moments in host memory and
// steps on the CPU, while the rest steps on the GPU.
#pragma once

#include "model/parameter_bytes.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// Host bytes per offloaded parameter: the CPU copy of the parameter, of its gradient and the two
// Adam moments, all fp32 (hybrid_optimizer.py: param_update_in_fp32, torch.optim.AdamW states).
inline constexpr double kHostOptimizerBytesPerParameter = 16;

struct OffloadedStep {
  double gpu_step_s = 0;   // the GPU optimizer over the parameters it keeps
  double host_step_s = 0;  // copies over the host link and the CPU step
  double link_bytes = 0;   // gradients to the host and parameters back, one iteration
  double step_s() const { return gpu_step_s > host_step_s ? gpu_step_s : host_step_s; }
};

// The optimizer step over `parameters` (this GPU's shard), offloaded or not: the GPU's part runs
// while the CPU steps its own (HybridDeviceOptimizer.step launches the GPU optimizer first).
OffloadedStep optimizer_step(const GpuSpec& gpu, const Strategy& strategy,
                             const ParameterBytes& bytes, double parameters);

}  // namespace paraplan::detail
