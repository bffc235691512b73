#include "model/pipeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/collectives.hpp"
#include "model/data_parallel.hpp"
#include "model/deepspeed_zero.hpp"
#include "model/even_split.hpp"
#include "model/optimizer_offload.hpp"
#include "model/parameter_bytes.hpp"
#include "model/stage_split.hpp"
#include "paraplan/estimate.hpp"

namespace paraplan::detail {
namespace {

// Point-to-point activations forward and gradients backward at every stage boundary (and
// every virtual chunk's). Ranks run tensor, context, data, then pipeline: boundaries stay in
// an NVLink domain only when the whole pipeline of one data-parallel replica does, and never
// between GPU types.
double pipeline_comm_s(const PipelineInput& in, const StageGroup& group, const StageWork& work,
                       std::span<const StageGroup> groups, size_t index) {
  const Strategy& s = *in.strategy;
  if (in.stages < 2) return 0;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  const int64_t stride = s.gpus_per_stage(in.data_parallel);
  const bool node_local = stride * in.stages <= gpu.nvlink_domain_gpus;
  const auto inter = [&](int other_pool) { return !node_local || other_pool != group.pool; };
  const bool sequence_parallel = s.sequence_parallel && s.tensor_model_parallel_size > 1;
  const double bytes = activation_element_bytes(in.training->precision) *
                       static_cast<double>(in.model->hidden_size) * s.micro_batch_size *
                       in.training->seq_length / s.context_parallel_size /
                       (sequence_parallel ? s.tensor_model_parallel_size : 1);
  const double v = static_cast<double>(s.virtual_pipeline_model_parallel_size);
  const int next_pool = index + 1 < groups.size() ? groups[index + 1].pool : groups.front().pool;
  const int previous_pool = index > 0 ? groups[index - 1].pool : groups.back().pool;
  const bool has_next = !is_last(group, in.stages) || v > 1;  // interleaving wraps around
  const bool has_previous = !is_first(group) || v > 1;
  const double send_forward = has_next ? p2p_s(gpu, inter(next_pool), bytes) : 0;
  const double send_backward = has_previous ? p2p_s(gpu, inter(previous_pool), bytes) : 0;
  if (v == 1) return send_forward + send_backward;  // blocking in 1F1B
  // Interleaved 1F1B overlaps each chunk's transfers with the next chunk's compute
  // (Megatron-LM overlap_p2p_comm).
  const double overlapped = v * (exposed_s(gpu, send_forward, work.forward.total_s() / v) +
                                 exposed_s(gpu, send_backward, work.backward.total_s() / v));
  if (!s.overlap_moe_expert_parallel_comm) return overlapped;
  // The combined 1F1B runs a chunk's forward and another's backward as one step and sends
  // both chunks' outputs after it (model_chunk_schedule_plan.py
  // TransformerModelChunkSchedulePlan.run): the activations on the communication stream once
  // the forward's last combine is done (post_forward after wait_current_stream), beside the
  // rest of the backward's last attention block (the layer's a2a_send_window_s); the gradients
  // on the compute stream after that block (post_backward). The next step's compute waits for
  // both receives before its first node (schedules.py pp_pre_forward, pp_pre_backward: the
  // recv wait handles make the current stream wait, then record_current_stream). Only the
  // first layer's delayed attention weight gradients run between (not credited). With two
  // stages both directions go to one peer over one NCCL send/recv communicator, the gradients
  // after the activations; with more, side by side. Warm-up and cool-down chunks run
  // unpaired, as interleaved 1F1B.
  const double window_s = in.costs[static_cast<size_t>(group.pool)]->moe.a2a_send_window_s;
  const double forward_past_s = std::max(0.0, send_forward - window_s);
  const double step_s =
      in.stages == 2 ? forward_past_s + send_backward : std::max(forward_past_s, send_backward);
  const double unpaired = unpaired_pass_share(
      group.first, in.stages, s.virtual_pipeline_model_parallel_size, in.micro_batches);
  return unpaired * overlapped + (1 - unpaired) * v * step_s;
}

}  // namespace

PipelineInput pipeline_input(const ModelSpec& model, const Training& training,
                             const Cluster& cluster, const Strategy& strategy,
                             int64_t data_parallel, int64_t micro_batches, int64_t stages) {
  PipelineInput input;
  input.model = &model;
  input.training = &training;
  input.cluster = &cluster;
  input.strategy = &strategy;
  input.data_parallel = data_parallel;
  input.micro_batches = micro_batches;
  input.stages = stages;
  return input;
}

int64_t moe_layers_in(const ModelSpec& model, int64_t first_layer, int64_t layers) {
  const int64_t dense_end = model.moe ? model.moe->first_k_dense_layers : model.num_layers;
  return layers - std::clamp<int64_t>(dense_end - first_layer, 0, layers);
}

void group_stages(std::span<const int> stage_pools, std::span<const int64_t> stage_layers,
                  const ModelSpec& model, std::vector<StageGroup>& groups) {
  groups.clear();
  const int64_t stages = static_cast<int64_t>(stage_layers.size());
  int64_t first_layer = 0;
  for (int64_t i = 0; i < stages; ++i) {
    const int64_t layers = stage_layers[static_cast<size_t>(i)];
    const int64_t moe_layers = moe_layers_in(model, first_layer, layers);
    first_layer += layers;
    const int pool = stage_pools[static_cast<size_t>(i)];
    const bool edge = i == 0 || i + 1 == stages;
    if (!groups.empty() && !edge && groups.back().first != 0 && groups.back().pool == pool &&
        groups.back().layers == layers && groups.back().moe_layers == moe_layers) {
      ++groups.back().count;
    } else {
      groups.push_back({pool, i, 1, layers, moe_layers});
    }
  }
}

double interleaved_warmup_chunks(int64_t index, int64_t stages, int64_t virtual_stages) {
  return static_cast<double>((stages - index - 1) * 2 + (virtual_stages - 1) * stages);
}

double unpaired_pass_share(int64_t index, int64_t stages, int64_t virtual_stages,
                           int64_t micro_batches) {
  const double passes = static_cast<double>(micro_batches * virtual_stages);
  if (passes <= 0) return 0;
  const double warmup =
      stages == 1 ? 1.0 : interleaved_warmup_chunks(index, stages, virtual_stages) + 1;
  return std::min(passes, warmup) / passes;
}

double in_flight_micro_batches(int64_t index, int64_t stages, int64_t virtual_stages,
                               int64_t micro_batches) {
  // 1F1B holds p - i micro-batches; interleaving holds Megatron-LM's warm-up chunks plus one,
  // each a 1/v of the stage.
  const double i = static_cast<double>(index);
  const double p = static_cast<double>(stages);
  const double v = static_cast<double>(virtual_stages);
  const double m = static_cast<double>(micro_batches);
  return virtual_stages == 1
             ? std::min(p - i, m)
             : std::min(m * v, interleaved_warmup_chunks(index, stages, virtual_stages) + 1) / v;
}

namespace {

// Each group's memory at its first stage, and whether every stage fits in GPU and host memory.
void fit_memory(const PipelineInput& in, std::vector<GroupResult>& results, PipelineResult& out) {
  const Strategy& s = *in.strategy;
  for (size_t g = 0; g < in.groups.size(); ++g) {
    const StageGroup& group = in.groups[g];
    GroupResult& r = results[g];
    const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
    r.in_flight = in_flight_micro_batches(group.first, in.stages,
                                          s.virtual_pipeline_model_parallel_size, in.micro_batches);
    r.memory = stage_memory(in, group, r.work, group.first);
    out.host_fits &= r.memory.host_bytes <= gpu.host.bytes;
    const double capacity = in.usable_bytes(gpu.hbm_bytes);
    const double peak = r.memory.peak_bytes();
    out.peak_bytes = std::max(out.peak_bytes, peak);
    out.overflow_bytes = g == 0 ? peak - capacity : std::max(out.overflow_bytes, peak - capacity);
    out.at_risk |= memory_verdict_of(peak, gpu.hbm_bytes, margin_class_of(s, in.framework)) !=
                   MemoryVerdict::fits;
  }
  out.fits = out.overflow_bytes <= 0 && out.host_fits;
}

// The pipeline of m micro-batches: its bottleneck group (set in `out`), the time of its fill and
// drain, and the whole.
struct PipelinePace {
  double fill_drain_s = 0, pipeline_s = 0;
};
PipelinePace pipeline_pace(const PipelineInput& in, const std::vector<GroupResult>& results,
                           PipelineResult& out) {
  const Strategy& s = *in.strategy;
  const std::span<const StageGroup> groups = in.groups;
  const double m = static_cast<double>(in.micro_batches);
  // Pipeline: the slowest stage sets the pace of m micro-batches; filling and draining the
  // others costs their time once, divided by v with interleaving (Narayanan et al. 2021 §2.2):
  // the fill runs each stage's first chunk, the drain its last (edge_chunk_share, 1/v for even
  // chunks).
  const int64_t vs = s.virtual_pipeline_model_parallel_size;
  // Megatron-LM's even split may count the embedding and the loss as layers of their chunks.
  const int64_t accounted = accounted_edges(in.model->num_layers, in.stages, vs);
  bool even = accounted >= 0;
  for (const StageGroup& g : groups) {
    even &= g.layers == (in.model->num_layers + accounted) / in.stages -
                            (is_first(g) && accounted == 2 ? 1 : 0) -
                            (is_last(g, in.stages) && accounted >= 1 ? 1 : 0);
  }
  const auto share = [&](const StageGroup& g) {
    return edge_chunk_share(g.layers, vs, even && accounted == 2 && is_first(g),
                            even && accounted >= 1 && is_last(g, in.stages));
  };
  double edge_sum_s = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const double t = results[g].work.per_micro_batch_s();
    edge_sum_s += static_cast<double>(groups[g].count) * t * share(groups[g]);
    if (t > results[out.bottleneck_group].work.per_micro_batch_s()) out.bottleneck_group = g;
  }
  const double pace_s = results[out.bottleneck_group].work.per_micro_batch_s();
  const double fill_drain_s = edge_sum_s - pace_s * share(groups[out.bottleneck_group]);
  const double pipeline_s = m * pace_s + fill_drain_s;
  return {fill_drain_s, pipeline_s};
}

// The data-parallel tails after the pipeline: the slowest group's exposed gradient reduction
// (the tied embeddings' all-reduce added), parameter gather and optimizer step; each group's own
// are set in `results`, the recomputed FLOPs in `out`.
struct SyncTails {
  double grad_tail_s = 0, param_tail_s = 0, optimizer_s = 0;
};
SyncTails data_parallel_tails(const PipelineInput& in, std::vector<GroupResult>& results,
                              PipelineResult& out) {
  const Strategy& s = *in.strategy;
  const std::span<const StageGroup> groups = in.groups;
  const double m = static_cast<double>(in.micro_batches);
  // Data parallel (core/src/model/data_parallel.cpp): gradients reduced over data x context
  // ranks (experts over expert-data ranks), the optimizer step, then (ZeRO >= 1) parameters
  // gathered.
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  const int64_t edp = s.expert_data_parallel(in.data_parallel);
  const int64_t t = s.tensor_model_parallel_size;
  // The gathers and the step: bytes no GPU type changes (only the weights held do).
  const ParameterBytes bytes =
      parameter_bytes(in.training->precision, s, in.cluster->pools.front().gpu);
  const int zero = dp_cp > 1 ? s.zero_stage : 0;
  double forward_before = 0, backward_before = 0;  // earlier stages' passes, summed
  double grad_tail_s = 0, param_tail_s = 0, optimizer_s = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    GroupResult& r = results[g];
    const StageWork& w = r.work;
    const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(groups[g].pool)].gpu;
    const double dense = w.parameters;
    const double experts = w.expert_parameters;
    StageSync sync;
    sync.gpu = &gpu;
    sync.strategy = &s;
    sync.bytes = &bytes;
    sync.data_parallel = dp_cp;
    sync.stages = in.stages;
    sync.first_stage = is_first(groups[g]);
    sync.parameters = dense;
    sync.edge_parameters = w.edge_parameters;
    sync.embedding_parameters = w.embedding_parameters;
    sync.expert_parameters = experts;
    sync.forward_s = w.forward.total_s();
    sync.backward_s = w.backward.total_s() + w.recompute.total_s();
    sync.forward_before_s = forward_before;
    sync.backward_before_s = backward_before;
    const bool deepspeed = deepspeed_bf16_optimizer(in.framework, in.training->precision, s) ||
                           deepspeed_zero_optimizer(in.framework, in.training->precision, s);
    const SyncTime time = deepspeed ? deepspeed_iteration_sync(sync, bytes.edge_weight, zero == 2)
                                    : iteration_sync(sync);
    r.grad_exposed_s = time.grad_exposed_s;
    r.param_exposed_s = time.param_exposed_s;
    const double count = static_cast<double>(groups[g].count);
    forward_before += count * w.forward.total_s();
    backward_before += count * (w.backward.total_s() + w.recompute.total_s());
    const double sharded =
        zero >= 1 ? dense / static_cast<double>(dp_cp) + experts / static_cast<double>(edp)
                  : dense + experts;
    // The optimizer over this GPU's shard, plus zeroing the full gradient buffer.
    const double grad_bytes = zero >= 2 ? bytes.fsdp_gradient : bytes.gradient;
    const OffloadedStep step = optimizer_step(gpu, s, bytes, sharded);
    r.optimizer_s = step.step_s() + memory_bound_s(gpu, grad_bytes * (dense + experts));
    r.host_copy_bytes = step.link_bytes + 2 * m * w.offloaded_bytes;
    grad_tail_s = std::max(grad_tail_s, r.grad_exposed_s);
    param_tail_s = std::max(param_tail_s, r.param_exposed_s);
    optimizer_s = std::max(optimizer_s, r.optimizer_s);

    out.recompute_flops +=
        m * w.recompute_flops * count * static_cast<double>(s.gpus_per_stage(in.data_parallel));
  }
  // Tied embeddings: the first stage's embedding and the last stage's LM head are copies whose
  // fp32 gradients Megatron-LM all-reduces after the data-parallel sync.
  if (!in.model->untie_embeddings_and_output_weights && in.stages > 1) {
    const Group pair{2, 1, true};
    grad_tail_s +=
        all_reduce_s(in.cluster->pools[static_cast<size_t>(groups.back().pool)].gpu, pair,
                     bytes.gradient * static_cast<double>(in.model->vocab_size) *
                         static_cast<double>(in.model->hidden_size) / static_cast<double>(t));
  }
  return {grad_tail_s, param_tail_s, optimizer_s};
}

// The bottleneck group's time by kind over the iteration (the report's breakdown).
void fill_breakdown(const PipelineInput& in, const std::vector<GroupResult>& results,
                    const PipelinePace& pace, const SyncTails& tails, PipelineResult& out) {
  const double m = static_cast<double>(in.micro_batches);
  const double fill_drain_s = pace.fill_drain_s;
  const double grad_tail_s = tails.grad_tail_s, param_tail_s = tails.param_tail_s;
  const double optimizer_s = tails.optimizer_s;
  const StageWork& b = results[out.bottleneck_group].work;
  TimeBreakdown& time = out.breakdown;
  time.compute_s = m * (b.forward.compute_s + b.backward.compute_s);
  time.recompute_s = m * b.recompute.total_s();
  time.tp_comm_s = m * (b.forward.tp_comm_s + b.backward.tp_comm_s);
  time.cp_comm_s = m * (b.forward.cp_comm_s + b.backward.cp_comm_s);
  time.ep_comm_s = m * (b.forward.ep_comm_s + b.backward.ep_comm_s);
  time.pp_comm_s = m * b.pp_comm_s;
  time.dp_comm_s = m * b.zero3_comm_s + grad_tail_s + param_tail_s;
  // BF16_Optimizer's fp32 gradient accumulation after each micro-batch is optimizer work.
  time.optimizer_s = optimizer_s + m * b.grad_accumulate_s;
  time.bubble_s = fill_drain_s;
  time.offload_s = m * b.offload_s;
}

}  // namespace

PipelineResult evaluate_pipeline(const PipelineInput& in, std::vector<GroupResult>& results) {
  const std::span<const StageGroup> groups = in.groups;
  results.resize(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) results[g].work = stage_work(in, groups[g]);
  PipelineResult out;
  fit_memory(in, results, out);
  if (in.memory_only || (!out.fits && !in.time_unfit)) {
    out.iteration_time_s = std::numeric_limits<double>::infinity();
    return out;
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    results[g].work.pp_comm_s = pipeline_comm_s(in, groups[g], results[g].work, groups, g);
  }

  const PipelinePace pace = pipeline_pace(in, results, out);
  const SyncTails tails = data_parallel_tails(in, results, out);
  out.iteration_time_s =
      pace.pipeline_s + tails.grad_tail_s + tails.optimizer_s + tails.param_tail_s;
  fill_breakdown(in, results, pace, tails, out);
  return out;
}

}  // namespace paraplan::detail