#include "model/torchtitan_fsdp.hpp"

#include "model/collectives.hpp"
#include "model/data_parallel.hpp"
#include "model/layer_cost.hpp"

namespace paraplan::detail {

bool torchtitan_fsdp2(Framework framework, const Strategy& s) {
  return framework == Framework::torchtitan && s.zero_stage >= 2;
}

double torchtitan_loss_bytes_per_logit(const Strategy& s, double logit_element_bytes) {
  if (s.tensor_model_parallel_size > 1) return kTorchtitanLossParallelBytesPerLogit;
  if (s.cross_entropy_loss_fusion)
    return kTorchtitanCompiledLossLogitElements * logit_element_bytes;
  return kTorchtitanLossBytesPerLogit;
}

bool fsdp2_keeps_unsharded(int64_t pipeline_stages) { return pipeline_stages > 1; }

double torchtitan_head_gathered_input_bytes(const ModelSpec& model, const Training& training,
                                            const Strategy& s) {
  const double t = static_cast<double>(s.tensor_model_parallel_size);
  if (t <= 1 || !s.sequence_parallel) return 0;
  const double tokens = static_cast<double>(s.micro_batch_size) *
                        static_cast<double>(training.seq_length) /
                        static_cast<double>(s.context_parallel_size);
  return activation_element_bytes(training.precision) * static_cast<double>(model.hidden_size) *
         tokens * (1 - 1 / t);
}

namespace {

// The groups a unit's dense and expert parameters are sharded over: torchtitan v0.2.2
// distributed/parallel_dims.py shards the dense parameters over dp_shard x cp ("fsdp") and the
// routed experts over efsdp = dp_shard x cp x tp / (etp x ep) (the mesh ("pp", "dp_replicate",
// "efsdp", "ep", "etp")), llama4/infra/parallelize.py apply_fsdp wrapping each block's
// moe.experts over the efsdp mesh: expert_data_parallel_group's size.
struct Fsdp2Groups {
  Group dense;
  Group experts;
};

Fsdp2Groups fsdp2_groups(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp) {
  return {data_parallel_group(gpu, s, data_parallel_cp),
          expert_data_parallel_group(gpu, s, data_parallel_cp)};
}

// A collective over both groups, one after the other on FSDP2's stream.
template <typename Collective>
double both_s(Collective collective, const GpuSpec& gpu, const Fsdp2Groups& groups,
              const Fsdp2Unit& unit, double bytes_per_parameter) {
  return collective(gpu, groups.dense, bytes_per_parameter * unit.parameters) +
         collective(gpu, groups.experts, bytes_per_parameter * unit.expert_parameters);
}

// The copy-out after a gather and the copy-in before a reduce-scatter of one group's share
// (nothing is copied where the group has one rank: the parameters are not sharded).
double group_copy_s(const GpuSpec& gpu, const Group& group, double parameters, double gather_bytes,
                    bool reshard_after_forward) {
  if (group.size <= 1 || parameters <= 0) return 0;
  const double copy_out = memory_bound_s(gpu, 2 * gather_bytes * parameters);
  const double copy_in =
      memory_bound_s(gpu, (kFsdp2UnshardedGradientBytes + kFsdp2ReduceBytes) * parameters);
  return (reshard_after_forward ? 2 : 1) * copy_out + copy_in;
}

}  // namespace

double fsdp2_unit_comm_s(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp,
                         const Fsdp2Unit& unit, double forward_s, double backward_s) {
  if (data_parallel_cp <= 1 || unit.parameters + unit.expert_parameters <= 0) return 0;
  const Fsdp2Groups groups = fsdp2_groups(gpu, s, data_parallel_cp);
  const double gather = both_s(all_gather_s, gpu, groups, unit, unit.gather_bytes);
  const double scatter = both_s(reduce_scatter_s, gpu, groups, unit, kFsdp2ReduceBytes);
  const double backward_comm = (unit.reshard_after_forward ? gather : 0) + scatter;
  return exposed_s(gpu, gather, forward_s) + exposed_s(gpu, backward_comm, backward_s);
}

double fsdp2_unit_copy_s(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp,
                         const Fsdp2Unit& unit) {
  if (data_parallel_cp <= 1) return 0;
  const Fsdp2Groups groups = fsdp2_groups(gpu, s, data_parallel_cp);
  return group_copy_s(gpu, groups.dense, unit.parameters, unit.gather_bytes,
                      unit.reshard_after_forward) +
         group_copy_s(gpu, groups.experts, unit.expert_parameters, unit.gather_bytes,
                      unit.reshard_after_forward);
}

}  // namespace paraplan::detail
