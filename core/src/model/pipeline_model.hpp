// One training iteration of a pipeline of stages: per-micro-batch stage times, the 1F1B
// schedule, data-parallel synchronisation, the optimizer step and memory per GPU. Stages that
// do identical work form groups evaluated once, so a strategy costs O(groups), not O(stages).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/layer_cost.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/report.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::detail {

// Consecutive pipeline stages with the same GPU type and layers. The first and the last stage
// (embedding, LM head) are always groups of their own.
struct StageGroup {
  int pool = 0;
  int64_t first = 0;  // index of the group's first stage
  int64_t count = 1;
  int64_t layers = 0;
  int64_t moe_layers = 0;
};

// Whether `g` holds the first stage (the embedding) or the last of `stages` (the LM head).
inline bool is_first(const StageGroup& g) { return g.first == 0; }
inline bool is_last(const StageGroup& g, int64_t stages) { return g.first + g.count == stages; }

// MoE layers among the `layers` consecutive layers from `first_layer`: the model's
// first_k_dense_layers lead with dense MLPs.
int64_t moe_layers_in(const ModelSpec& model, int64_t first_layer, int64_t layers);

// Stages as groups: consecutive stages of one pool and layer count share a group.
void group_stages(std::span<const int> stage_pools, std::span<const int64_t> stage_layers,
                  const ModelSpec& model, std::vector<StageGroup>& groups);

struct PipelineInput {
  const ModelSpec* model = nullptr;
  const Training* training = nullptr;
  const Cluster* cluster = nullptr;
  const Strategy* strategy = nullptr;
  Framework framework = Framework::megatron;  // whose mechanisms price it (deepspeed_zero.hpp)
  int64_t data_parallel = 1;
  int64_t micro_batches = 1;
  int64_t stages = 1;
  std::span<const StageGroup> groups;
  std::span<const ModelCosts* const> costs;  // per pool, for the strategy's layer shape
  // Memory kept free on each GPU for `fits` (the search's margin): bytes plus a fraction of the
  // GPU's capacity.
  double memory_margin_bytes = 0;
  double memory_margin_fraction = 0;
  // Whether a strategy that does not fit is timed too (the estimate reports its time; the search
  // ranks only strategies that fit, and skips the time of the others it does not need).
  bool time_unfit = true;
  // Whether only the memory verdict is asked, for a strategy that fits too (the search's probes
  // of block recompute depth, and leaves a time bound rules out): the time is left infinite.
  bool memory_only = false;

  // What a stage may use of a GPU of `capacity_bytes` under the margin.
  double usable_bytes(double capacity_bytes) const {
    return capacity_bytes * (1 - memory_margin_fraction) - memory_margin_bytes;
  }
};

// The input for `strategy` with `stages` pipeline stages (groups and costs still to set).
PipelineInput pipeline_input(const ModelSpec& model, const Training& training,
                             const Cluster& cluster, const Strategy& strategy,
                             int64_t data_parallel, int64_t micro_batches, int64_t stages);

// What one GPU of a group's stages does per micro-batch and holds.
struct StageWork {
  PassTime forward;
  PassTime backward;  // without recompute
  PassTime recompute;
  double pp_comm_s = 0;
  double zero3_comm_s = 0;  // ZeRO-2/3 (Megatron-FSDP, DeepSpeed, FSDP2): exposed per micro-batch
  double parameters = 0;    // dense ones, edges included
  double edge_parameters = 0;       // of which the embedding, LM head and final norm
  double embedding_parameters = 0;  // of which the first stage's input embedding
  double expert_parameters = 0;
  double stored_activation_bytes = 0;  // per micro-batch in flight
  double layer_stored_bytes = 0;       // of which one layer's, on the mean (edges left out)
  // Held once: the larger of a recomputed layer and the loss, and the fine-grained offload margin.
  double working_bytes = 0;
  double offloaded_bytes = 0;    // per micro-batch in flight, in host memory
  double offload_s = 0;          // activation copies to and from the host, exposed
  double grad_accumulate_s = 0;  // DeepSpeed BF16_Optimizer: bf16 gradients into fp32 copies
  double recompute_flops = 0;

  double per_micro_batch_s() const {
    return forward.total_s() + backward.total_s() + recompute.total_s() + pp_comm_s + zero3_comm_s +
           offload_s + grad_accumulate_s;
  }
};

// A group evaluated at its first stage, where memory, exposed data-parallel time and the
// parameter-gather window are worst.
struct GroupResult {
  StageWork work;
  StageMemory memory;
  double in_flight = 0;
  double grad_exposed_s = 0;
  double param_exposed_s = 0;
  double optimizer_s = 0;
  double host_copy_bytes = 0;  // one iteration over the host link, both directions
};

struct PipelineResult {
  double iteration_time_s = 0;
  TimeBreakdown breakdown;
  size_t bottleneck_group = 0;
  bool fits = true;  // in GPU memory and in host memory
  bool host_fits = true;
  double peak_bytes = 0;       // largest peak over the stages
  double overflow_bytes = 0;   // largest peak minus usable memory (<= 0 when everything fits)
  bool at_risk = false;        // a stage's peak inside the default margin (MemoryVerdict)
  double recompute_flops = 0;  // whole cluster, one iteration
};

// Whether selective recompute runs `module` on its own (not inside a recomputed MoE layer).
bool recomputes_on_its_own(const Recompute& recompute, RecomputeModule module);

// The least time recompute adds to one layer's backward (stage_work's recompute, per layer):
// selective its modules' forwards, full uniform the whole forward, full block none (as few as one
// layer of a chunk).
double layer_recompute_floor_s(const LayerCost& layer, const Recompute& recompute,
                               Framework framework);

// One layer's (of the dense or the MoE kind) forward and backward as stage_work runs them, each at
// least the host's time to issue it (recompute and the stage's additions left out), less what
// an unpaired all-to-all pass may save: a floor of its share of a stage's time, for the search's
// bounds.
double layer_passes_s(const ModelCosts& costs, bool moe, const Strategy& strategy);

// The work of one GPU of `group` (its stages' layers, edges, recompute and ZeRO-3 traffic).
StageWork stage_work(const PipelineInput& input, const StageGroup& group);

// Evaluates the pipeline; `groups_out` receives one result per group.
PipelineResult evaluate_pipeline(const PipelineInput& input, std::vector<GroupResult>& groups_out);

// The share of a stage's passes that the combined 1F1B of --overlap-moe-expert-parallel-comm
// runs unpaired: the warm-up's forwards and as many cool-down backwards (schedules.py
// get_pp_rank_microbatches: (p - i - 1) x 2 + (v - 1) x p chunks, "one extra micro-batch forward
// step before the 1f1b stages" with the overlap; without pipelining, the first forward and the
// last backward).
double unpaired_pass_share(int64_t index, int64_t stages, int64_t virtual_stages,
                           int64_t micro_batches);

// Megatron-LM's interleaved warm-up before stage `index`'s first backward: (p - i - 1) x 2 +
// (v - 1) x p chunk forwards (schedules.py get_pp_rank_microbatches).
double interleaved_warmup_chunks(int64_t index, int64_t stages, int64_t virtual_stages);

// Micro-batches whose activations stage `index` holds at its peak (whole-stage units).
double in_flight_micro_batches(int64_t index, int64_t stages, int64_t virtual_stages,
                               int64_t micro_batches);

// The activations a stage holds at its peak with `in_flight` micro-batches in flight: theirs, the
// layer the expert-parallel overlap adds (stage_memory.cpp a2a_overlap_extra_bytes) and the
// working set held once (stage_memory's activations before pipelining and CUDA-graph buffers).
double held_activation_bytes(const Strategy& s, const StageWork& work, double in_flight);

// Memory of stage `index` of `group` (the group's result gives its first stage's).
StageMemory stage_memory(const PipelineInput& input, const StageGroup& group, const StageWork& work,
                         int64_t index);

}  // namespace paraplan::detail
