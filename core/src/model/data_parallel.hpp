// Data-parallel synchronisation of one pipeline stage as Megatron-LM runs it: DDP all-reduce,
// the distributed optimizer's reduce-scatter and all-gather (ZeRO-1), Megatron-FSDP's
// per-micro-batch reduce-scatters (ZeRO-2) and per-layer gathers (ZeRO-3), each chunk's
// gradient sync overlapped with the rest of the backward under interleaving.
#pragma once

#include <cstdint>

#include "model/collectives.hpp"
#include "model/layer_cost.hpp"
#include "model/parameter_bytes.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::detail {

// What one GPU of a stage synchronises over data parallelism, and the compute around it.
struct StageSync {
  const GpuSpec* gpu = nullptr;
  const Strategy* strategy = nullptr;
  const ParameterBytes* bytes = nullptr;  // what each element moves (parameter_bytes.hpp)
  int64_t data_parallel = 1;              // data x context parallel ranks (dense parameters)
  int64_t stages = 1;               // pipeline size: the interleaved schedule's micro-batch group
  bool first_stage = true;          // Megatron-LM buckets only the first stage's gradients
  double parameters = 0;            // dense, on this GPU
  double edge_parameters = 0;       // of which the embedding, LM head and norms (never fp8)
  double embedding_parameters = 0;  // of which the input embedding (first stage, first chunk)
  double expert_parameters = 0;     // reduced over expert-data parallelism
  double forward_s = 0;             // the stage's forward of one micro-batch
  double backward_s = 0;            // its backward (with recompute) of one micro-batch
  double forward_before_s = 0;      // the earlier stages' forward of one micro-batch, summed
  double backward_before_s = 0;     // and their backward
};

struct SyncTime {
  double grad_exposed_s = 0;   // once per iteration, after the last backward
  double param_exposed_s = 0;  // once per iteration, before the first forward
};

// The data-parallel and expert-data-parallel groups of a GPU type.
Group data_parallel_group(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp);
Group expert_data_parallel_group(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp);

// The exposed per-iteration synchronisation of a stage (ZeRO 0-2).
SyncTime iteration_sync(const StageSync& in);

// Megatron-FSDP's exposed communication per micro-batch of one unit (a layer, the embedding,
// the LM head) holding `parameters` (over data x context parallel) and this GPU's
// `expert_parameters` (over expert-data parallel): ZeRO-2 reduce-scatters its gradients under
// its backward, ZeRO-3 also gathers its parameters under the neighbouring unit's forward and
// backward; bytes per element of each from parameter_bytes.hpp.
double fsdp_unit_comm_s(const GpuSpec& gpu, const Strategy& s, double gradient_bytes,
                        double gather_bytes, int64_t data_parallel_cp, double parameters,
                        double expert_parameters, double forward_s, double backward_s);

}  // namespace paraplan::detail
