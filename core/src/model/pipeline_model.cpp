#include "model/pipeline_model.hpp"

#include <algorithm>
#include <cmath>

#include "model/collectives.hpp"

namespace paraplan::detail {
namespace {

// Gradients are accumulated and reduced in fp32 (Megatron-LM main_grad; forced for bf16).
constexpr double kGradientBytes = 4;
// Adam state: fp32 master weights and two moments, 12 of the 18 bytes per parameter in the
// Megatron-LM distributed-optimizer table; fp32 training keeps no separate master copy.
constexpr double kOptimizerBytes = 12;
constexpr double kOptimizerBytesFp32 = 8;
// Optimizer step HBM traffic per parameter of the shard (Megatron-LM mixed-precision
// optimizer): gradient norm (read 4), Adam reading fp32 weight, gradient, m, v and writing
// weight, m, v (28), copy to the 16-bit model weights (read 4, write 2); fp16 adds loss-scale
// unscaling and the inf check (read and write 4 each).
constexpr double kOptimizerStepBytes = 4 + 28 + 6;
constexpr double kFp16UnscaleBytes = 8;
// Megatron-LM DDP buckets: max(40M, 1M x data-parallel size) parameters.
constexpr double kBucketParameters = 40e6;
constexpr double kBucketParametersPerRank = 1e6;
// Memory beyond tensors: the CUDA context (about 0.5 GiB with PyTorch on Hopper), cuBLAS
// workspaces and NCCL buffers. Allocator fragmentation is not added: activations of equal
// shapes are reused from micro-batch to micro-batch by PyTorch's caching allocator.
constexpr double kReservedBytes = 0.75 * 1024 * 1024 * 1024;

bool is_first(const StageGroup& g) { return g.first == 0; }
bool is_last(const StageGroup& g, int64_t stages) { return g.first + g.count == stages; }

}  // namespace

StageWork stage_work(const PipelineInput& in, const StageGroup& group) {
  const Strategy& s = *in.strategy;
  const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
  // Multi-token-prediction depths run on the last stage, each a layer like the last one
  // (multi_token_prediction.py: MTP layers on the last pipeline stage).
  const double mtp = is_last(group, in.stages) ? static_cast<double>(in.model->mtp_num_layers) : 0;
  const bool mtp_moe = in.model->is_moe_layer(in.model->num_layers - 1);
  const double moe_layers = static_cast<double>(group.moe_layers) + (mtp_moe ? mtp : 0);
  const double dense_layers =
      static_cast<double>(group.layers - group.moe_layers) + (mtp_moe ? 0 : mtp);
  const double layers = static_cast<double>(group.layers) + mtp;
  const double v = static_cast<double>(s.virtual_pipeline_model_parallel_size);
  const auto sum = [&](auto field) {
    return field(c.dense) * dense_layers + field(c.moe) * moe_layers;
  };

  StageWork work;
  PassTime layers_forward = c.dense.forward * dense_layers;
  layers_forward += c.moe.forward * moe_layers;
  work.forward = layers_forward;
  work.backward = c.dense.backward * dense_layers;
  work.backward += c.moe.backward * moe_layers;
  work.parameters = sum([](const LayerCost& l) { return l.parameters; });
  work.expert_parameters = sum([](const LayerCost& l) { return l.expert_parameters; });
  const auto add_edge = [&](const EdgeCost& edge) {
    work.forward += edge.forward;
    work.backward += edge.backward;
    work.parameters += edge.parameters;
    work.stored_activation_bytes += edge.activation_bytes;
    work.working_bytes += edge.transient_bytes;
  };
  if (is_first(group)) add_edge(c.embedding);
  if (is_last(group, in.stages)) add_edge(c.head);
  for (double depth = 0; depth < mtp; ++depth) add_edge(c.mtp);
  // The MTP depths look up the shared embedding: the last stage keeps a copy.
  if (mtp > 0 && in.stages > 1) work.parameters += c.embedding.parameters;

  // Recompute (Korthikanti et al. 2022 §5): selective redoes core attention; full keeps only
  // checkpoints, per group of num_layers (uniform) or for the first num_layers of each
  // virtual chunk (block), and redoes their forward.
  const Recompute& recompute = s.recompute[static_cast<size_t>(group.pool)];
  const double activation = sum([](const LayerCost& l) { return l.activation_bytes; });
  const double mean_activation = activation / layers;
  const double chunk_layers = layers / v;
  const double chunk_group = std::min(static_cast<double>(recompute.num_layers), chunk_layers);
  switch (recompute.granularity) {
    case RecomputeGranularity::none:
      work.stored_activation_bytes += activation;
      break;
    case RecomputeGranularity::selective:
      work.recompute = c.dense.attention_forward * layers;
      work.recompute_flops = layers * c.dense.attention_forward_flops;
      work.stored_activation_bytes +=
          activation - sum([](const LayerCost& l) { return l.selective_saved_bytes; });
      break;
    case RecomputeGranularity::full: {
      const double checkpoint = c.dense.checkpoint_bytes;
      double recomputed = layers;
      if (recompute.method == RecomputeMethod::uniform) {
        work.stored_activation_bytes += v * std::ceil(chunk_layers / chunk_group) * checkpoint;
        work.working_bytes += chunk_group * mean_activation;
      } else {
        recomputed = chunk_group * v;
        work.stored_activation_bytes +=
            recomputed * checkpoint + (layers - recomputed) * mean_activation;
        work.working_bytes += mean_activation;
      }
      work.recompute = layers_forward * (recomputed / layers);
      work.recompute_flops =
          sum([](const LayerCost& l) { return l.forward_flops; }) * (recomputed / layers);
      break;
    }
  }

  // ZeRO-3: each layer's parameters are gathered before its forward and backward and its
  // gradients scattered after, prefetched under the neighbouring layer's compute.
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  if (s.zero_stage == 3 && dp_cp > 1) {
    const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
    const Group dp_group =
        place_group(dp_cp, s.tensor_model_parallel_size, in.cluster->gpus_per_node);
    const double param_bytes = in.training->precision == Precision::fp32 ? 4 : 2;
    const auto layer_comm = [&](const LayerCost& l) {
      const double weights = l.parameters + l.expert_parameters;
      const double gather = all_gather_s(gpu, dp_group, param_bytes * weights);
      const double scatter = reduce_scatter_s(gpu, dp_group, kGradientBytes * weights);
      return exposed_s(gpu, gather, l.forward.total_s()) +
             exposed_s(gpu, gather + scatter, l.backward.total_s());
    };
    work.zero3_comm_s = sum(layer_comm);
  }
  return work;
}

namespace {

// Point-to-point activations forward and gradients backward at every stage boundary (and
// every virtual chunk's). Ranks run tensor, context, data, then pipeline: boundaries stay in
// a node only when the whole pipeline of one data-parallel replica does, and never between
// GPU types.
double pipeline_comm_s(const PipelineInput& in, const StageGroup& group, const StageWork& work,
                       std::span<const StageGroup> groups, size_t index) {
  const Strategy& s = *in.strategy;
  if (in.stages < 2) return 0;
  const int64_t stride = s.gpus_per_stage(in.data_parallel);
  const bool node_local = stride * in.stages <= in.cluster->gpus_per_node;
  const auto inter = [&](int other_pool) { return !node_local || other_pool != group.pool; };
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
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
  return v * (exposed_s(gpu, send_forward, work.forward.total_s() / v) +
              exposed_s(gpu, send_backward, work.backward.total_s() / v));
}

double optimizer_bytes_per_parameter(Precision precision) {
  return precision == Precision::fp32 ? kOptimizerBytesFp32 : kOptimizerBytes;
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

void group_stages(std::span<const int> stage_pools, std::span<const int64_t> stage_layers,
                  const ModelSpec& model, std::vector<StageGroup>& groups) {
  groups.clear();
  const int64_t stages = static_cast<int64_t>(stage_layers.size());
  const int64_t dense_end = model.moe ? model.moe->first_k_dense_layers : model.num_layers;
  int64_t first_layer = 0;
  for (int64_t i = 0; i < stages; ++i) {
    const int64_t layers = stage_layers[static_cast<size_t>(i)];
    const int64_t moe_layers = layers - std::clamp<int64_t>(dense_end - first_layer, 0, layers);
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

double in_flight_micro_batches(int64_t index, int64_t stages, int64_t virtual_stages,
                               int64_t micro_batches) {
  // 1F1B holds p - i micro-batches; interleaving holds Megatron-LM's warm-up chunks
  // (p - i - 1) * 2 + (v - 1) * p plus one, each a 1/v of the stage.
  const double i = static_cast<double>(index);
  const double p = static_cast<double>(stages);
  const double v = static_cast<double>(virtual_stages);
  const double m = static_cast<double>(micro_batches);
  return virtual_stages == 1 ? std::min(p - i, m)
                             : std::min(m * v, (p - i - 1) * 2 + (v - 1) * p + 1) / v;
}

StageMemory stage_memory(const PipelineInput& in, const StageGroup& group, const StageWork& work,
                         int64_t index) {
  const Strategy& s = *in.strategy;
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  const int zero = dp_cp > 1 ? s.zero_stage : 0;
  const double dense = work.parameters;
  const double experts = work.expert_parameters;
  const double all = dense + experts;
  const double sharded = dense / static_cast<double>(dp_cp) +
                         experts / static_cast<double>(s.expert_data_parallel(in.data_parallel));
  const double weight_bytes = weight_element_bytes(in.training->precision);
  StageMemory memory;
  if (zero == 3) {  // sharded, plus the layers gathered for compute and prefetch
    memory.weights_bytes = weight_bytes * (sharded + 2 * all / static_cast<double>(group.layers));
  } else {
    memory.weights_bytes = weight_bytes * all;
  }
  memory.gradients_bytes = kGradientBytes * (zero >= 2 ? sharded : all);
  memory.optimizer_bytes =
      optimizer_bytes_per_parameter(in.training->precision) * (zero >= 1 ? sharded : all);
  // --overlap-moe-expert-parallel-comm schedules one more warm-up micro-batch (schedules.py,
  // get_pp_rank_microbatches): one more model chunk in flight.
  const double a2a_overlap_chunk =
      s.overlap_moe_expert_parallel_comm ? 1.0 / s.virtual_pipeline_model_parallel_size : 0.0;
  memory.activations_bytes =
      (in_flight_micro_batches(index, in.stages, s.virtual_pipeline_model_parallel_size,
                               in.micro_batches) +
       a2a_overlap_chunk) *
          work.stored_activation_bytes +
      work.working_bytes;
  memory.other_bytes = kReservedBytes;
  return memory;
}

PipelineResult evaluate_pipeline(const PipelineInput& in, std::vector<GroupResult>& results) {
  const Strategy& s = *in.strategy;
  const std::span<const StageGroup> groups = in.groups;
  const double v = static_cast<double>(s.virtual_pipeline_model_parallel_size);
  const double m = static_cast<double>(in.micro_batches);
  results.resize(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) results[g].work = stage_work(in, groups[g]);
  for (size_t g = 0; g < groups.size(); ++g) {
    results[g].work.pp_comm_s = pipeline_comm_s(in, groups[g], results[g].work, groups, g);
  }

  // Pipeline: the slowest stage sets the pace of m micro-batches; filling and draining the
  // others costs their time once, divided by v with interleaving (Narayanan et al. 2021 §2.2).
  PipelineResult out;
  double stage_sum_s = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const double t = results[g].work.per_micro_batch_s();
    stage_sum_s += static_cast<double>(groups[g].count) * t;
    if (t > results[out.bottleneck_group].work.per_micro_batch_s()) out.bottleneck_group = g;
  }
  const double pace_s = results[out.bottleneck_group].work.per_micro_batch_s();
  const double fill_drain_s = (stage_sum_s - pace_s) / v;
  const double pipeline_s = m * pace_s + fill_drain_s;

  // Data parallel: gradients reduced over data x context ranks (experts over expert-data
  // ranks), the optimizer step, then (ZeRO >= 1) parameters gathered.
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  const int64_t ep = s.expert_model_parallel_size;
  const int64_t t = s.tensor_model_parallel_size;
  const int64_t node = in.cluster->gpus_per_node;
  const Group dp_group = place_group(dp_cp, t, node);
  const int64_t edp = s.expert_data_parallel(in.data_parallel);
  const Group edp_group = place_group(edp, s.expert_tensor_parallel() * ep, node);
  const double param_bytes = in.training->precision == Precision::fp32 ? 4 : 2;
  const double bucket = std::max(kBucketParameters, kBucketParametersPerRank * dp_cp);
  const double step_bytes =
      kOptimizerStepBytes + (in.training->precision == Precision::fp16 ? kFp16UnscaleBytes : 0);
  const int zero = dp_cp > 1 ? s.zero_stage : 0;
  double forward_before = 0, backward_before = 0;  // earlier stages' passes, summed
  double grad_tail_s = 0, param_tail_s = 0, optimizer_s = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    GroupResult& r = results[g];
    const StageWork& w = r.work;
    const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(groups[g].pool)].gpu;
    const double dense = w.parameters;
    const double experts = w.expert_parameters;
    double grad_s = 0, param_s = 0;
    if (zero == 0) {
      grad_s = all_reduce_s(gpu, dp_group, kGradientBytes * dense) +
               all_reduce_s(gpu, edp_group, kGradientBytes * experts);
    } else if (zero <= 2) {
      grad_s = reduce_scatter_s(gpu, dp_group, kGradientBytes * dense) +
               reduce_scatter_s(gpu, edp_group, kGradientBytes * experts);
      param_s = all_gather_s(gpu, dp_group, param_bytes * dense) +
                all_gather_s(gpu, edp_group, param_bytes * experts);
    }
    const double last_bucket = std::min(1.0, bucket / std::max(1.0, dense + experts));
    // With overlap, buckets go out during the last micro-batch's backward; the last bucket
    // is always exposed. Earlier stages finish their last backward sooner, by the passes of
    // the stages before them (pipeline drain).
    double grad = grad_s;
    if (s.overlap_grad_reduce) {
      const double window = w.backward.total_s() + w.recompute.total_s();
      grad = std::max(last_bucket * grad_s, exposed_s(gpu, grad_s, window));
    }
    r.grad_exposed_s = std::max(0.0, grad - backward_before / v);
    r.param_exposed_s = param_s;
    if (s.overlap_param_gather) {
      // Gathered during the next iteration's first forward, started when this stage starts.
      const double window = w.forward.total_s() + forward_before / v;
      r.param_exposed_s = std::max(last_bucket * param_s, exposed_s(gpu, param_s, window));
    }
    const double count = static_cast<double>(groups[g].count);
    forward_before += count * w.forward.total_s();
    backward_before += count * (w.backward.total_s() + w.recompute.total_s());
    const double sharded =
        zero >= 1 ? dense / static_cast<double>(dp_cp) + experts / static_cast<double>(edp)
                  : dense + experts;
    // The optimizer over this GPU's shard, plus zeroing the full fp32 gradient buffer.
    r.optimizer_s = memory_bound_s(gpu, step_bytes * sharded) +
                    memory_bound_s(gpu, kGradientBytes * (dense + experts));
    grad_tail_s = std::max(grad_tail_s, r.grad_exposed_s);
    param_tail_s = std::max(param_tail_s, r.param_exposed_s);
    optimizer_s = std::max(optimizer_s, r.optimizer_s);

    r.in_flight = in_flight_micro_batches(groups[g].first, in.stages,
                                          s.virtual_pipeline_model_parallel_size, in.micro_batches);
    r.memory = stage_memory(in, groups[g], w, groups[g].first);
    const double capacity = in.cluster->pools[static_cast<size_t>(groups[g].pool)].gpu.hbm_bytes;
    const double peak = r.memory.peak_bytes();
    out.peak_bytes = std::max(out.peak_bytes, peak);
    out.overflow_bytes = g == 0 ? peak - capacity : std::max(out.overflow_bytes, peak - capacity);
    out.recompute_flops +=
        m * w.recompute_flops * count * static_cast<double>(s.gpus_per_stage(in.data_parallel));
  }
  out.fits = out.overflow_bytes <= 0;
  // Tied embeddings: the first stage's embedding and the last stage's LM head are copies whose
  // fp32 gradients Megatron-LM all-reduces after the data-parallel sync.
  if (!in.model->untie_embeddings_and_output_weights && in.stages > 1) {
    const Group pair{2, 1, true};
    grad_tail_s +=
        all_reduce_s(in.cluster->pools[static_cast<size_t>(groups.back().pool)].gpu, pair,
                     kGradientBytes * static_cast<double>(in.model->vocab_size) *
                         static_cast<double>(in.model->hidden_size) / static_cast<double>(t));
  }

  out.iteration_time_s = pipeline_s + grad_tail_s + optimizer_s + param_tail_s;
  const StageWork& b = results[out.bottleneck_group].work;
  TimeBreakdown& time = out.breakdown;
  time.compute_s = m * (b.forward.compute_s + b.backward.compute_s);
  time.recompute_s = m * b.recompute.total_s();
  time.tp_comm_s = m * (b.forward.tp_comm_s + b.backward.tp_comm_s);
  time.cp_comm_s = m * (b.forward.cp_comm_s + b.backward.cp_comm_s);
  time.ep_comm_s = m * (b.forward.ep_comm_s + b.backward.ep_comm_s);
  time.pp_comm_s = m * b.pp_comm_s;
  time.dp_comm_s = m * b.zero3_comm_s + grad_tail_s + param_tail_s;
  time.optimizer_s = optimizer_s;
  time.bubble_s = fill_drain_s;
  return out;
}

}  // namespace paraplan::detail
