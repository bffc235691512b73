// DeepSpeed's data parallelism where it differs from Megatron-LM's, for scenarios whose framework
// is "deepspeed" (docs/model.md, "Frameworks"): ZeRO-3 gathers each submodule's parameters on
// its own and reduce-scatters gradients in buckets; ZeRO-1 and 2 all-reduce gradient buckets
// (ZeRO-2 with every micro-batch) and gather the updated parameters, none of it overlapped;
// Megatron-DeepSpeed's bf16 ZeRO-1 (DeepSpeed's BF16_Optimizer) does the same with gradients
// accumulated in fp32. Sources: microsoft/DeepSpeed v0.16.5 (commit 38327e0)
// unless a line says otherwise.
#pragma once

#include <cstdint>

#include "model/data_parallel.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/model.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// DeepSpeed's defaults, in elements (parameters).
struct DeepSpeedDefaults {
  // zero/config.py: reduce_bucket_size = Field(pp_int(5e8)); stage3.py allocates the contiguous
  // gradient buffer (__ipg_bucket_flat_buffer) of that many elements in the model dtype.
  double reduce_bucket_elements = 5e8;
  // runtime/engine.py: MEMORY_OPT_ALLREDUCE_SIZE = 500000000, the pipeline engine's bucket
  // (pipe/engine.py _bf16_reduce_grads); the ZeRO optimizer all-reduces reduce_bucket_size
  // (5e8) at a time.
  double allreduce_bucket_elements = 5e8;
  // zero/config.py: stage3_max_live_parameters = Field(pp_int(1e9)): gathered parameters held.
  double max_live_parameters = 1e9;
  // zero/config.py: stage3_max_reuse_distance = Field(pp_int(1e9)): "Do not release a parameter
  // if it will be reused within this threshold of parameters" (partitioned_param_coordinator.py
  // __params_to_release scans the recorded submodule trace from the next step on, counting the
  // elements of every submodule it passes, until this many).
  double max_reuse_distance_elements = 1e9;
};
inline constexpr DeepSpeedDefaults kDeepSpeed{};

// DeepSpeed ZeRO-3 prices this strategy (framework deepspeed, zero_stage 3).
bool deepspeed_zero3(Framework framework, const Strategy& s);
// DeepSpeed's BF16_Optimizer prices it: Megatron-DeepSpeed's bf16 ZeRO-1 ("ZERO_STAGE=0 #
// important: bf16 must use z0! it implements its own zero stage 1 equivalent", bigscience
// tr11-176B-ml; engine.py _do_optimizer_sanity_check returns BFLOAT16 for bf16 + stage 1 with
// fp32 gradient accumulation).
bool deepspeed_bf16_optimizer(Framework framework, Precision precision, const Strategy& s);
// DeepSpeed's ZeRO optimizer (zero/stage_1_and_2.py DeepSpeedZeroOptimizer) prices it: ZeRO-2,
// and ZeRO-1 outside the BF16_Optimizer.
bool deepspeed_zero_optimizer(Framework framework, Precision precision, const Strategy& s);

// Submodules of one layer whose parameters ZeRO-3 gathers, each with one coalesced all-gather
// (partitioned_param_coordinator.py fetch_sub_module -> __all_gather_params ->
// all_gather_coalesced, partition_parameters.py): Megatron-DeepSpeed's attention
// query_key_value and dense, the MLP's dense_h_to_4h and dense_4h_to_h; an MoE layer's router
// and two per local expert. Norms and biases (under stage3_param_persistence_threshold, 1e5
// elements) stay whole and are not gathered.
double zero3_fetches_per_layer(const ModelSpec& model, const Strategy& s, bool moe_layer);

// What ZeRO-3 gathers again in the backward of a layer that recomputes its forward (full
// recompute, every layer). The recomputed forward gathers each submodule (its pre-forward hook,
// fetch_sub_module) and releases it after (release_sub_module) unless the trace reaches its
// next use within max_reuse_distance elements: the submodule's own backward comes after the
// recomputed forwards and the backwards of the submodules after it, 2 x their elements. Those
// further off are gathered a second time for their backward. Dense layers only (query_key_value,
// dense, dense_h_to_4h, dense_4h_to_h, this rank's tensor-parallel share); an MoE layer's
// experts are not traced here (none).
struct Zero3Regather {
  double fetches = 0;     // submodules gathered again
  double parameters = 0;  // their parameters (this rank's)
};
Zero3Regather zero3_recompute_regather(const ModelSpec& model, const Strategy& s, bool moe_layer);

// ZeRO-3's collectives of one unit (a layer, the embedding, the LM head) per micro-batch.
struct Zero3UnitTraffic {
  double gathers = 0;               // all-gathers per pass (forward, and again backward)
  double gather_bytes = 0;          // each, full size
  double reduce_scatters = 0;       // reduce-scatter buckets of the unit's gradients (fraction)
  double reduce_scatter_bytes = 0;  // each, full size
};
// `stage_parameters`: what the stage's backward reduces; a stage smaller than one bucket sends
// it as one partial bucket at the end of each backward (stage3.py
// independent_gradient_partition_epilogue).
Zero3UnitTraffic zero3_unit_traffic(double parameters, double fetches, double element_bytes,
                                    double stage_parameters);

// The exposed time of a unit's ZeRO-3 traffic per micro-batch: each pass gathers its
// submodules one prefetch ahead (stage3_prefetch_bucket_size 5e7: at least the next
// submodule) under the unit's compute, and the backward reduce-scatters its gradients in
// reduce_bucket_size buckets on a side stream (overlap_comm, True for stage 3:
// config.py overlap_comm_valid) in the model dtype (engine.py communication_data_type). A
// recomputed unit's backward pass is its recomputed forward (`recompute_s`, gathering like the
// forward) and its backward, which gathers `regather` again.
struct Zero3UnitPasses {
  double forward_s = 0;
  double backward_s = 0;
  double recompute_s = 0;  // the forward run again inside the backward pass (0: none)
  Zero3Regather regather;  // gathered again after the recomputed forward
};
double deepspeed_zero3_unit_comm_s(const GpuSpec& gpu, const Strategy& s, double element_bytes,
                                   int64_t data_parallel_cp, double parameters, double fetches,
                                   double stage_parameters, const Zero3UnitPasses& passes);

// `parameters` gradients all-reduced in `element_bytes` in buckets of 5e8 elements, one after
// the other: a bucket goes out once it holds more than that (engine.py allreduce_no_retain;
// stage_1_and_2.py allreduce_and_scatter, which with use_multi_rank_bucket_allreduce (default
// True) all-reduces the whole bucket rather than reducing each rank's slice to it).
double deepspeed_bucketed_all_reduce_s(const GpuSpec& gpu, const Group& group, double parameters,
                                       double element_bytes);

// ZeRO-2's gradients with every micro-batch (stage_1_and_2.py: the gradient hooks reduce
// whenever partition_gradients, else only at the accumulation boundary), on the compute stream
// (overlap_comm False unless stage 3: config.py overlap_comm_valid): exposed.
double deepspeed_zero2_micro_batch_s(const GpuSpec& gpu, const Strategy& s,
                                     int64_t data_parallel_cp, double parameters,
                                     double expert_parameters, double element_bytes);

// Once per iteration. Gradients (unless `gradients_per_micro_batch`): the BF16_Optimizer under
// the pipeline engine all-reduces them at ReduceGrads, after the schedule's last backward
// (pipe/schedule.py TrainSchedule), cast to bf16 (engine.py allreduce_bucket,
// communication_data_type); ZeRO-1 at the accumulation boundary; both exposed, earlier stages
// under the later ones' drain. Parameters: after the step all_gather_dp_groups
// (runtime/utils.py; BF16_Optimizer.step, DeepSpeedZeroOptimizer.step) gathers the 16-bit
// parameters, exposed, with one all_gather_into_tensor of the flat group where torch has it
// (all_gather_into_tensor_dp_groups; allgather_bucket_size shards only without it).
SyncTime deepspeed_iteration_sync(const StageSync& in, double element_bytes,
                                  bool gradients_per_micro_batch);

// BF16_Optimizer's update_hp_grads after every micro-batch's backward (pipe/engine.py
// _exec_backward_pass; bf16_optimizer.py): each bf16 gradient added into its fp32 copy,
// reading 2 + 4 and writing 4 bytes per parameter.
constexpr double kBf16AccumulateBytesPerParameter = 2 + 4 + 4;
double deepspeed_bf16_accumulate_s(const GpuSpec& gpu, double parameters);

}  // namespace paraplan::detail
