#include "model/torchtitan_fsdp.hpp"

#include "model/collectives.hpp"
#include "model/data_parallel.hpp"
#include "model/layer_cost.hpp"

namespace paraplan::detail {

bool torchtitan_fsdp2(Framework framework, const Strategy& s) {
  return framework == Framework::torchtitan && s.zero_stage >= 2;
}

double torchtitan_loss_bytes_per_logit(const Strategy& s) {
  return s.tensor_model_parallel_size > 1 ? kTorchtitanLossParallelBytesPerLogit
                                          : kTorchtitanLossBytesPerLogit;
}

bool fsdp2_keeps_unsharded(int64_t pipeline_stages) { return pipeline_stages > 1; }

double fsdp2_unit_comm_s(const GpuSpec& gpu, const Strategy& s, double gather_bytes,
                         int64_t data_parallel_cp, double parameters, bool reshard_after_forward,
                         double forward_s, double backward_s) {
  if (data_parallel_cp <= 1 || parameters <= 0) return 0;
  const Group dp = data_parallel_group(gpu, s, data_parallel_cp);
  const double gather = all_gather_s(gpu, dp, gather_bytes * parameters);
  const double scatter = reduce_scatter_s(gpu, dp, kFsdp2ReduceBytes * parameters);
  const double backward_comm = (reshard_after_forward ? gather : 0) + scatter;
  return exposed_s(gpu, gather, forward_s) + exposed_s(gpu, backward_comm, backward_s);
}

double fsdp2_unit_copy_s(const GpuSpec& gpu, double gather_bytes, int64_t data_parallel_cp,
                         double parameters, bool reshard_after_forward) {
  if (data_parallel_cp <= 1 || parameters <= 0) return 0;
  const double copy_out = memory_bound_s(gpu, 2 * gather_bytes * parameters);
  const double copy_in =
      memory_bound_s(gpu, (kFsdp2UnshardedGradientBytes + kFsdp2ReduceBytes) * parameters);
  return (reshard_after_forward ? 2 : 1) * copy_out + copy_in;
}

}  // namespace paraplan::detail
