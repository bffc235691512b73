#include "model/optimizer_offload.hpp"

#include <algorithm>

#include "model/layer_cost.hpp"

namespace paraplan::detail {
namespace {

// torch.optim.AdamW(fused=True) on the CPU streams each offloaded parameter's fp32 value,
// gradient and two moments in, and the value and moments out: 28 bytes of host DRAM traffic.
constexpr double kCpuAdamBytesPerParameter = 28;
// The CPU copy of a parameter, sent back to the GPU's parameter after the step
// (hybrid_optimizer.py, param_copy_back_gpu_hook: gpu_param.data.copy_(param.data), the fp32 CPU
// copy).
constexpr double kParameterCopyBytes = 4;

}  // namespace

OffloadedStep optimizer_step(const GpuSpec& gpu, const Strategy& strategy,
                             const ParameterBytes& bytes, double parameters) {
  const double on_host = strategy.optimizer_host_fraction() * parameters;
  OffloadedStep step;
  step.gpu_step_s = memory_bound_s(gpu, bytes.optimizer_step * (parameters - on_host));
  if (on_host <= 0) return step;
  // Gradients go to the host in the main-gradient dtype (decoupled_grad), parameters come back.
  const double d2h_s = on_host * bytes.gradient / gpu.host.bandwidth_bytes_per_s;
  const double h2d_s = on_host * kParameterCopyBytes / gpu.host.bandwidth_bytes_per_s;
  // At the preset's host.cpu_stream_efficiency of the host DRAM's peak (hardware.hpp).
  const double cpu_s = on_host * kCpuAdamBytesPerParameter /
                       (gpu.host.cpu_stream_efficiency * gpu.host.cpu_memory_bytes_per_s);
  // --overlap-cpu-optimizer-d2h-h2d: one CPU optimizer per parameter, each copy on its own
  // stream, so the copies (both directions of the link at once) run under the CPU step; without
  // it, all gradients arrive, the CPU steps, then all parameters return.
  step.host_step_s = strategy.overlap_cpu_optimizer_d2h_h2d ? std::max({d2h_s, cpu_s, h2d_s})
                                                            : d2h_s + cpu_s + h2d_s;
  step.link_bytes = on_host * (bytes.gradient + kParameterCopyBytes);
  return step;
}

}  // namespace paraplan::detail
