// Uneven layer splits: stages of different GPU types, and layers that do not divide evenly over
// the pipeline (Megatron-LM --decoder-first/last-pipeline-num-layers or
// --pipeline-model-parallel-layout express any split).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "model/pipeline_model.hpp"

namespace paraplan::detail {

// Transformer layers of each of the `virtual_stages` chunks of a stage: spread as evenly as
// they go, and where they do not divide, the first chunk takes one more, then the last, then
// the second, third... `embedding` and `loss` count the embedding (first chunk) and the loss
// (last chunk) as a layer each, as Megatron-LM's --account-for-embedding/loss-in-pipeline-split
// do. The chunks of --pipeline-model-parallel-layout (output/megatron.cpp).
std::vector<int64_t> chunk_layers(int64_t layers, int64_t virtual_stages, bool embedding,
                                  bool loss);

// The share of a stage's work in its first and last chunk, on average: what one micro-batch's
// pipeline fill (first chunks) and drain (last chunks) wait for at that stage. 1/v when the
// chunks are even, never less.
double edge_chunk_share(int64_t layers, int64_t virtual_stages, bool embedding, bool loss);

// Layers per stage (each >= 1, summing to `layers`) that minimise the slowest stage's time
// `fixed_s[i] + layers_i * layer_s[i]`, keeping each stage within `max_layers[i]` (what fits
// in its memory) when the stages can hold them all. Empty when layers < stages.
std::vector<int64_t> balanced_split(int64_t layers, std::span<const double> layer_s,
                                    std::span<const double> fixed_s,
                                    std::span<const int64_t> max_layers);

// What a split works with, kept by a caller that splits often (the search's leaves) so that a
// split allocates nothing: the per-stage times and limits, and the greedy's offers.
struct SplitScratch {
  std::vector<double> layer_s, fixed_s;
  std::vector<int64_t> max_layers;
  std::vector<std::pair<double, size_t>> with_room, full;
};
// balanced_split into `split`, in `scratch`'s kept capacity.
void balanced_split(int64_t layers, std::span<const double> layer_s,
                    std::span<const double> fixed_s, std::span<const int64_t> max_layers,
                    std::vector<int64_t>& split, SplitScratch& scratch);

// The split of the model's layers over `stage_pools` (a GPU type per stage) that balances the
// stages' times under their memory: per-layer and fixed time and memory of each GPU type from
// a middle stage of one and of two layers, the embedding's and LM head's time on the first and
// last stage. `input` needs its costs, not its groups. Empty when layers < stages.
// stage_work in two parts: what no key the search's ZeRO level sets reads (the layers' and the
// edges' passes, parameters, recompute and activations: zero_stage, overlap_grad_reduce,
// overlap_param_gather and fp8_param_gather are not read), and data parallelism's
// per-micro-batch time on top of it (sharded traffic, DeepSpeed's gradient accumulation), which
// those keys change. stage_work is the one then the other (stage_work.cpp).
StageWork stage_work_before_data_parallel(const PipelineInput& input, const StageGroup& group);
void add_data_parallel(const PipelineInput& input, const StageGroup& group, StageWork& work);

// `reuse` keeps the one- and two-layer stages' work before data parallelism
// (stage_work_before_data_parallel) per GPU type: computed where it is not `valid`, read where it
// is. The caller keeps it valid only across strategies that differ in the ZeRO level's keys
// alone (the search's leaves under one recompute setting), which that work does not read.
// The split goes into `split`; `scratch` is kept beside the works for the next split.
struct SplitWorks {
  bool valid = false;
  std::vector<StageWork> one, two;  // per pool
  SplitScratch scratch;
};
void balanced_stage_layers(const PipelineInput& input, std::span<const int> stage_pools,
                           SplitWorks& reuse, std::vector<int64_t>& split);
// The same with works of its own.
std::vector<int64_t> balanced_stage_layers(const PipelineInput& input,
                                           std::span<const int> stage_pools);

}  // namespace paraplan::detail
