#include "paraplan/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <utility>

#include "collectives.hpp"
#include "layer_cost.hpp"
#include "layout.hpp"
#include "paraplan/errors.hpp"

namespace paraplan {
namespace {

using detail::EdgeCost;
using detail::Group;
using detail::LayerCost;
using detail::LayerShape;
using detail::Layout;
using detail::ModelCosts;
using detail::PassTime;
using detail::StagePlan;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
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
constexpr double kReservedBytes = 0.75 * kGiB;

// What one GPU of a stage does for one micro-batch, and what it holds.
struct StageWork {
  PassTime forward;
  PassTime backward;  // without recompute
  PassTime recompute;
  double pp_comm_s = 0;
  double zero3_comm_s = 0;  // per micro-batch parameter gathers and gradient scatters
  double parameters = 0;
  double expert_parameters = 0;
  double stored_activation_bytes = 0;  // per micro-batch in flight
  double working_bytes = 0;            // held once: recompute working set, logits
  double recompute_flops = 0;
  double in_flight = 0;  // micro-batches whose activations are held at the peak

  double per_micro_batch_s() const {
    return forward.total_s() + backward.total_s() + recompute.total_s() + pp_comm_s +
           zero3_comm_s;
  }
};

double exposed_s(const GpuSpec& gpu, double comm_s, double window_s) {
  return std::max(0.0, comm_s - window_s) + gpu.overlap_slowdown * std::min(comm_s, window_s);
}

double memory_bound_s(const GpuSpec& gpu, double bytes) {
  if (bytes <= 0) return 0;
  return bytes / (gpu.hbm_bytes_per_s * gpu.memory_efficiency.at(bytes)) + gpu.kernel_overhead_s;
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / kGiB);
  return text;
}

}  // namespace

struct Estimator::Impl {
  ModelSpec model;
  Training training;
  Cluster cluster;
  ParameterCounts parameters;
  double model_flops_per_token = 0;
  std::map<std::pair<int, LayerShape>, ModelCosts> costs_cache;

  const ModelCosts& costs(int pool, const LayerShape& shape);
  StageWork stage_work(const Strategy& s, const Layout& layout, size_t index,
                       const LayerShape& shape);
  void pipeline_comm(const Strategy& s, const Layout& layout, std::vector<StageWork>& work);
  Report estimate(const Strategy& s);
};

const ModelCosts& Estimator::Impl::costs(int pool, const LayerShape& shape) {
  const auto key = std::make_pair(pool, shape);
  auto it = costs_cache.find(key);
  if (it == costs_cache.end()) {
    it = costs_cache
             .emplace(key, detail::compute_model_costs(model, training, cluster.pools[pool].gpu,
                                                       cluster.gpus_per_node, shape))
             .first;
  }
  return it->second;
}

StageWork Estimator::Impl::stage_work(const Strategy& s, const Layout& layout, size_t index,
                                      const LayerShape& shape) {
  const StagePlan& stage = layout.stages[index];
  const ModelCosts& c = costs(stage.pool, shape);
  const double moe_layers = static_cast<double>(stage.moe_layers);
  const double dense_layers = static_cast<double>(stage.layers - stage.moe_layers);
  const double layers = static_cast<double>(stage.layers);
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
  if (index == 0) add_edge(c.embedding);
  if (index + 1 == layout.stages.size()) add_edge(c.head);

  // Recompute (Korthikanti et al. 2022 §5): selective redoes core attention; full keeps only
  // checkpoints, per group of num_layers (uniform) or for the first num_layers of each
  // virtual chunk (block), and redoes their forward.
  const Recompute& recompute = s.recompute[static_cast<size_t>(stage.pool)];
  const double activation = sum([](const LayerCost& l) { return l.activation_bytes; });
  const double mean_activation = activation / layers;
  const double chunk_layers = layers / v;
  const double group = std::min(static_cast<double>(recompute.num_layers), chunk_layers);
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
        work.stored_activation_bytes += v * std::ceil(chunk_layers / group) * checkpoint;
        work.working_bytes += group * mean_activation;
      } else {
        recomputed = group * v;
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

  // Micro-batches held at the peak under 1F1B: p - i; with interleaving, Megatron-LM's
  // warm-up chunks (p - i - 1) * 2 + (v - 1) * p plus one, in whole-stage units.
  const double i = static_cast<double>(index);
  const double p = static_cast<double>(layout.stages.size());
  const double m = static_cast<double>(layout.micro_batches);
  work.in_flight = v == 1 ? std::min(p - i, m) : std::min(m * v, (p - i - 1) * 2 + (v - 1) * p + 1) / v;

  // ZeRO-3: each layer's parameters are gathered before its forward and backward and its
  // gradients scattered after, prefetched under the neighbouring layer's compute.
  const int64_t dp_cp = layout.data_parallel * s.context_parallel_size;
  if (s.zero_stage == 3 && dp_cp > 1) {
    const GpuSpec& gpu = cluster.pools[stage.pool].gpu;
    const Group dp_group =
        detail::place_group(dp_cp, s.tensor_model_parallel_size, cluster.gpus_per_node);
    const double param_bytes = training.precision == Precision::fp32 ? 4 : 2;
    const auto layer_comm = [&](const LayerCost& l) {
      const double weights = l.parameters + l.expert_parameters;
      const double gather = detail::all_gather_s(gpu, dp_group, param_bytes * weights);
      const double scatter = detail::reduce_scatter_s(gpu, dp_group, kGradientBytes * weights);
      return exposed_s(gpu, gather, l.forward.total_s()) +
             exposed_s(gpu, gather + scatter, l.backward.total_s());
    };
    work.zero3_comm_s = sum(layer_comm);
  }
  return work;
}

void Estimator::Impl::pipeline_comm(const Strategy& s, const Layout& layout,
                                    std::vector<StageWork>& work) {
  const size_t p = layout.stages.size();
  if (p < 2) return;
  // Ranks run tensor, context, data, then pipeline: a boundary stays inside a node only if
  // both stages' ranks do, and never between GPU types.
  const int64_t stride = s.gpus_per_stage(layout.data_parallel);
  const int64_t node = cluster.gpus_per_node;
  const bool sequence_parallel = s.sequence_parallel && s.tensor_model_parallel_size > 1;
  const double bytes = detail::activation_element_bytes(training.precision) *
                       static_cast<double>(model.hidden_size) * s.micro_batch_size *
                       training.seq_length / s.context_parallel_size /
                       (sequence_parallel ? s.tensor_model_parallel_size : 1);
  const double v = static_cast<double>(s.virtual_pipeline_model_parallel_size);
  for (size_t i = 0; i < p; ++i) {
    const GpuSpec& gpu = cluster.pools[layout.stages[i].pool].gpu;
    const auto boundary_s = [&](size_t a, size_t b) {
      const int64_t rank_a = static_cast<int64_t>(a) * stride;
      const int64_t rank_b = static_cast<int64_t>(b) * stride;
      const bool inter = layout.stages[a].pool != layout.stages[b].pool ||
                         rank_a / node != rank_b / node ||
                         (rank_a + stride - 1) / node != (rank_b + stride - 1) / node;
      return detail::p2p_s(gpu, inter, bytes);
    };
    // Send activations forward and gradients backward; with interleaving also across the
    // wrap-around from the last stage to the first.
    const double send_forward = i + 1 < p ? boundary_s(i, i + 1) : (v > 1 ? boundary_s(i, 0) : 0);
    const double send_backward = i > 0 ? boundary_s(i - 1, i) : (v > 1 ? boundary_s(p - 1, 0) : 0);
    if (v == 1) {
      work[i].pp_comm_s = send_forward + send_backward;  // blocking in 1F1B
    } else {
      // Interleaved 1F1B overlaps each chunk's transfers with the next chunk's compute
      // (Megatron-LM overlap_p2p_comm).
      work[i].pp_comm_s =
          v * (exposed_s(gpu, send_forward, work[i].forward.total_s() / v) +
               exposed_s(gpu, send_backward, work[i].backward.total_s() / v));
    }
  }
}

Report Estimator::Impl::estimate(const Strategy& s) {
  Report report;
  report.model_parameters = parameters.total;
  report.model_flops_per_token = model_flops_per_token;
  const std::optional<Layout> planned =
      detail::plan_layout(model, training, cluster, s, report.infeasible_reasons);
  if (!planned) {
    report.feasible = false;
    return report;
  }
  const Layout& layout = *planned;
  report.num_gpus = layout.num_gpus;
  report.data_parallel_size = layout.data_parallel;
  report.num_micro_batches = layout.micro_batches;

  const LayerShape shape{s.tensor_model_parallel_size,
                         s.context_parallel_size,
                         s.expert_model_parallel_size,
                         s.micro_batch_size,
                         s.sequence_parallel && s.tensor_model_parallel_size > 1,
                         s.use_flash_attn,
                         s.tp_comm_overlap};
  const size_t p = layout.stages.size();
  const double v = static_cast<double>(s.virtual_pipeline_model_parallel_size);
  const double m = static_cast<double>(layout.micro_batches);
  std::vector<StageWork> work(p);
  for (size_t i = 0; i < p; ++i) work[i] = stage_work(s, layout, i, shape);
  pipeline_comm(s, layout, work);

  // Pipeline: the slowest stage sets the pace of m micro-batches; filling and draining the
  // others costs their time once, divided by v with interleaving (Narayanan et al. 2021 §2.2).
  size_t bottleneck = 0;
  double stage_sum_s = 0;
  for (size_t i = 0; i < p; ++i) {
    stage_sum_s += work[i].per_micro_batch_s();
    if (work[i].per_micro_batch_s() > work[bottleneck].per_micro_batch_s()) bottleneck = i;
  }
  const double pace_s = work[bottleneck].per_micro_batch_s();
  const double fill_drain_s = (stage_sum_s - pace_s) / v;
  const double pipeline_s = m * pace_s + fill_drain_s;

  // Data parallel: gradients reduced over data x context parallel ranks (experts over
  // expert-data-parallel ranks), then the optimizer step, then (ZeRO >= 1) parameters gathered.
  const int64_t dp_cp = layout.data_parallel * s.context_parallel_size;
  const int64_t ep = s.expert_model_parallel_size;
  const int64_t t = s.tensor_model_parallel_size;
  const Group dp_group = detail::place_group(dp_cp, t, cluster.gpus_per_node);
  const Group edp_group = detail::place_group(dp_cp / ep, t * ep, cluster.gpus_per_node);
  const double param_bytes = training.precision == Precision::fp32 ? 4 : 2;
  const double optimizer_bytes =
      training.precision == Precision::fp32 ? kOptimizerBytesFp32 : kOptimizerBytes;
  const double bucket = std::max(kBucketParameters, kBucketParametersPerRank * dp_cp);
  const double step_bytes =
      kOptimizerStepBytes + (training.precision == Precision::fp16 ? kFp16UnscaleBytes : 0);
  const int zero = dp_cp > 1 ? s.zero_stage : 0;
  std::vector<double> grad_exposed(p), param_exposed(p), optimizer(p);
  double forward_before = 0, backward_before = 0;  // earlier stages' pass times
  for (size_t i = 0; i < p; ++i) {
    const GpuSpec& gpu = cluster.pools[layout.stages[i].pool].gpu;
    const StageWork& w = work[i];
    const double dense = w.parameters;
    const double experts = w.expert_parameters;
    double grad_s = 0, param_s = 0;
    if (zero == 0) {
      grad_s = detail::all_reduce_s(gpu, dp_group, kGradientBytes * dense) +
               detail::all_reduce_s(gpu, edp_group, kGradientBytes * experts);
    } else if (zero <= 2) {
      grad_s = detail::reduce_scatter_s(gpu, dp_group, kGradientBytes * dense) +
               detail::reduce_scatter_s(gpu, edp_group, kGradientBytes * experts);
      param_s = detail::all_gather_s(gpu, dp_group, param_bytes * dense) +
                detail::all_gather_s(gpu, edp_group, param_bytes * experts);
    }
    const double last_bucket = std::min(1.0, bucket / std::max(1.0, dense + experts));
    // With overlap, buckets go out during the last micro-batch's backward; the last bucket
    // is always exposed. Earlier stages finish their last backward sooner by the passes of
    // the stages before them (pipeline drain).
    double grad = grad_s;
    if (s.overlap_grad_reduce) {
      const double window = w.backward.total_s() + w.recompute.total_s();
      grad = std::max(last_bucket * grad_s, exposed_s(gpu, grad_s, window));
    }
    grad_exposed[i] = std::max(0.0, grad - backward_before / v);
    param_exposed[i] = param_s;
    if (s.overlap_param_gather) {
      // Gathered during the next iteration's first forward, started when this stage starts.
      const double window = w.forward.total_s() + forward_before / v;
      param_exposed[i] = std::max(last_bucket * param_s, exposed_s(gpu, param_s, window));
    }
    forward_before += w.forward.total_s();
    backward_before += w.backward.total_s() + w.recompute.total_s();
    const double sharded = zero >= 1 ? dense / dp_cp + experts / (dp_cp / ep) : dense + experts;
    // The optimizer over this GPU's shard, plus zeroing the full fp32 gradient buffer.
    optimizer[i] = memory_bound_s(gpu, step_bytes * sharded) +
                   memory_bound_s(gpu, kGradientBytes * (dense + experts));
  }
  // Tied embeddings: the first stage's embedding and the last stage's LM head are copies whose
  // fp32 gradients Megatron-LM all-reduces after the data-parallel sync.
  double embedding_sync_s = 0;
  if (!model.untie_embeddings_and_output_weights && p > 1) {
    const Group pair{2, 1, true};
    embedding_sync_s = detail::all_reduce_s(
        cluster.pools[layout.stages.back().pool].gpu, pair,
        kGradientBytes * static_cast<double>(model.vocab_size) * model.hidden_size /
            s.tensor_model_parallel_size);
  }
  const double grad_tail_s =
      *std::max_element(grad_exposed.begin(), grad_exposed.end()) + embedding_sync_s;
  const double param_tail_s = *std::max_element(param_exposed.begin(), param_exposed.end());
  const double optimizer_s = *std::max_element(optimizer.begin(), optimizer.end());

  report.iteration_time_s = pipeline_s + grad_tail_s + optimizer_s + param_tail_s;
  const StageWork& b = work[bottleneck];
  report.bottleneck_stage = static_cast<int>(bottleneck);
  TimeBreakdown& time = report.time_breakdown;
  time.compute_s = m * (b.forward.compute_s + b.backward.compute_s);
  time.recompute_s = m * b.recompute.total_s();
  time.tp_comm_s = m * (b.forward.tp_comm_s + b.backward.tp_comm_s);
  time.cp_comm_s = m * (b.forward.cp_comm_s + b.backward.cp_comm_s);
  time.ep_comm_s = m * (b.forward.ep_comm_s + b.backward.ep_comm_s);
  time.pp_comm_s = m * b.pp_comm_s;
  time.dp_comm_s = m * b.zero3_comm_s + grad_tail_s + param_tail_s;
  time.optimizer_s = optimizer_s;
  time.bubble_s = fill_drain_s;

  // Memory per GPU of each stage at its peak.
  const double weight_bytes = detail::weight_element_bytes(training.precision);
  double recompute_flops = 0;
  for (size_t i = 0; i < p; ++i) {
    const StagePlan& stage = layout.stages[i];
    const GpuPool& pool = cluster.pools[stage.pool];
    const StageWork& w = work[i];
    const double dense = w.parameters;
    const double experts = w.expert_parameters;
    const double all = dense + experts;
    const double sharded = dense / dp_cp + experts / (dp_cp / ep);
    StageReport out;
    out.gpu = pool.gpu.id;
    out.layers = stage.layers;
    out.capacity_bytes = pool.gpu.hbm_bytes;
    StageMemory& mem = out.memory;
    if (zero == 3) {  // sharded, plus the layers gathered for compute and prefetch
      const double layer_params = all / static_cast<double>(stage.layers);
      mem.weights_bytes = weight_bytes * (sharded + 2 * layer_params);
    } else {
      mem.weights_bytes = weight_bytes * all;
    }
    mem.gradients_bytes = kGradientBytes * (zero >= 2 ? sharded : all);
    mem.optimizer_bytes = optimizer_bytes * (zero >= 1 ? sharded : all);
    mem.activations_bytes = w.in_flight * w.stored_activation_bytes + w.working_bytes;
    mem.other_bytes = kReservedBytes;
    out.in_flight_micro_batches = w.in_flight;
    out.forward_s = w.forward.total_s();
    out.backward_s = w.backward.total_s() + w.recompute.total_s();
    out.recompute_s = w.recompute.total_s();
    out.pp_comm_s = w.pp_comm_s;
    out.dp_comm_exposed_s = grad_exposed[i] + param_exposed[i] + m * w.zero3_comm_s;
    out.optimizer_s = optimizer[i];
    if (mem.peak_bytes() > out.capacity_bytes) {
      report.feasible = false;
      report.infeasible_reasons.push_back(
          "pipeline stage " + std::to_string(i) + " (" + out.gpu + ", " +
          std::to_string(stage.layers) + " layers) needs " + gib(mem.peak_bytes()) +
          " per GPU, more than the " + gib(out.capacity_bytes) + " it has");
    }
    recompute_flops += m * w.recompute_flops * static_cast<double>(s.gpus_per_stage(layout.data_parallel));
    report.stages.push_back(std::move(out));
  }

  // Throughput and utilisation (MFU counts model FLOPs only; HFU adds recompute).
  const double tokens = static_cast<double>(training.global_batch_size) * training.seq_length;
  double peak_flops = 0;
  for (const GpuPool& pool : cluster.pools) {
    peak_flops += static_cast<double>(pool.count) * pool.gpu.tensor_flops(training.precision);
  }
  const double model_flops = model_flops_per_token * tokens;
  report.tokens_per_s = tokens / report.iteration_time_s;
  report.tokens_per_s_per_gpu = report.tokens_per_s / static_cast<double>(layout.num_gpus);
  report.samples_per_s = static_cast<double>(training.global_batch_size) / report.iteration_time_s;
  report.model_tflops_per_gpu =
      model_flops / report.iteration_time_s / static_cast<double>(layout.num_gpus) / 1e12;
  report.mfu = model_flops / report.iteration_time_s / peak_flops;
  report.hfu = (model_flops + recompute_flops) / report.iteration_time_s / peak_flops;
  return report;
}

Estimator::Estimator(ModelSpec model, Training training, Cluster cluster)
    : impl_(std::make_unique<Impl>()) {
  impl_->model = std::move(model);
  impl_->training = training;
  impl_->cluster = std::move(cluster);
  impl_->parameters = count_parameters(impl_->model);
  impl_->model_flops_per_token = model_flops_per_token(impl_->model, impl_->training.seq_length);
}

Estimator::~Estimator() = default;
Estimator::Estimator(Estimator&&) noexcept = default;
Estimator& Estimator::operator=(Estimator&&) noexcept = default;

Report Estimator::estimate(const Strategy& strategy) { return impl_->estimate(strategy); }
const ModelSpec& Estimator::model() const { return impl_->model; }
const Training& Estimator::training() const { return impl_->training; }
const Cluster& Estimator::cluster() const { return impl_->cluster; }

Report estimate(const Scenario& scenario) {
  if (scenario.cluster.pools.size() > 1 && !scenario.strategy.pipeline_stage_gpus) {
    throw InputError("strategy.pipeline_stage_gpus",
                     "is required when cluster.gpus lists several GPU types (one type per "
                     "pipeline stage)");
  }
  Estimator estimator(scenario.model, scenario.training, scenario.cluster);
  return estimator.estimate(complete_strategy(scenario.strategy, scenario.cluster));
}

}  // namespace paraplan
