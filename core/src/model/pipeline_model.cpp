#include "model/pipeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/collectives.hpp"
#include "model/cuda_graph_memory.hpp"
#include "model/data_parallel.hpp"
#include "model/deepspeed_zero.hpp"
#include "model/host_time.hpp"
#include "model/memory_reserve.hpp"
#include "model/optimizer_offload.hpp"
#include "model/parameter_bytes.hpp"
#include "model/pipelining_memory.hpp"
#include "model/rules.hpp"
#include "model/stage_split.hpp"
#include "model/torchtitan_fsdp.hpp"

namespace paraplan::detail {
namespace {

bool is_first(const StageGroup& g) { return g.first == 0; }
bool is_last(const StageGroup& g, int64_t stages) { return g.first + g.count == stages; }

// `bytes` copied to host memory during the forward pass and back during the backward, each copy
// hidden under that pass's compute as far as it goes.
double host_round_trip_s(const GpuSpec& gpu, double bytes, double forward_compute_s,
                         double backward_compute_s) {
  const double copy_s = bytes / gpu.host.bandwidth_bytes_per_s;
  return exposed_s(gpu, copy_s, forward_compute_s) + exposed_s(gpu, copy_s, backward_compute_s);
}

// Megatron-LM activation offloading (--cpu-offloading-num-layers, TransformerConfig
// cpu_offloading, cpu_offload.py): the first N layers' saved activations go to host memory after
// their forward and come back for their backward over the host link, each copy overlapped with
// those layers' compute on a side stream; one layer's activations stay on the GPU while in transit
// (no double buffering). Needs no pipeline parallelism and no recompute (rules.cpp).
void offload_activations(const PipelineInput& in, const StageGroup& group, double activation,
                         StageWork& work) {
  const double layers = static_cast<double>(group.layers);
  const double offloaded =
      std::min(static_cast<double>(in.strategy->cpu_offloading_num_layers), layers - 1);
  if (offloaded <= 0) return;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  const double fraction = offloaded / layers;
  work.offloaded_bytes = fraction * activation;
  work.stored_activation_bytes -= work.offloaded_bytes - activation / layers;
  work.offload_s = host_round_trip_s(gpu, work.offloaded_bytes, fraction * work.forward.compute_s,
                                     fraction * work.backward.compute_s);
}

// What Megatron-LM's fine-grained activation offloading (--offload-modules) sends to host memory
// from one layer: the chosen modules' saved tensors, less what selective recompute already drops
// (the core attention's own and, with mla_up_proj, Q, K and V; with layernorm, the standalone
// input norm's output).
double module_offload_bytes(const LayerCost& l, const Strategy& s, const Recompute& r) {
  double bytes = 0;
  for (size_t m = 0; m < kNumOffloadModules; ++m) {
    if (s.offloads(static_cast<OffloadModule>(m))) bytes += l.offload_bytes[m];
  }
  if (s.offloads(OffloadModule::core_attn)) {
    for (const RecomputeModule dropped :
         {RecomputeModule::core_attn, RecomputeModule::mla_up_proj}) {
      if (r.recomputes(dropped)) bytes -= l.unit(dropped).saved_bytes;
    }
  }
  if (s.offloads(OffloadModule::qkv_linear) && r.recomputes(RecomputeModule::layernorm)) {
    bytes -= l.qkv_norm_output_bytes;
  }
  return std::max(0.0, bytes);
}

// Fine-grained activation offloading (pipeline_parallel/fine_grained_activation_offload.py): each
// chosen module's saved tensors go to host memory on a side stream during the forward pass and
// come back before its backward, overlapped with the stage's compute; the last group of each
// module stays on the GPU so that the first backward waits for no reload (post_warmup_callback's
// offload margin). Under full recompute the layers keep only their inputs: nothing to offload.
void offload_module_activations(const PipelineInput& in, const StageGroup& group,
                                double dense_layers, double moe_layers, StageWork& work) {
  const Strategy& s = *in.strategy;
  const Recompute& recompute = s.recompute[static_cast<size_t>(group.pool)];
  if (recompute.granularity == RecomputeGranularity::full) return;
  const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
  const double dense = module_offload_bytes(c.dense, s, recompute);
  const double moe = module_offload_bytes(c.moe, s, recompute);
  const double offloaded = dense * dense_layers + moe * moe_layers;
  if (offloaded <= 0) return;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  work.stored_activation_bytes -= offloaded;
  work.working_bytes += std::max(dense_layers > 0 ? dense : 0.0, moe_layers > 0 ? moe : 0.0);
  work.offloaded_bytes += offloaded;
  work.offload_s +=
      host_round_trip_s(gpu, offloaded, work.forward.compute_s, work.backward.compute_s);
}

// A layer's forward and backward as the host lets the GPU run them: a pass takes at least the
// host's time to issue what no CUDA graph captured (host_time.hpp); a MoE layer's forward
// issues what follows its sync only after the GPU finished what came before. The wait is
// charged as compute (the GPU idles within the pass).
struct LayerPasses {
  PassTime forward, backward;
};
LayerPasses host_bound(const LayerCost& layer, const Strategy& s) {
  LayerPasses bound{layer.forward, layer.backward};
  const HostPassTime host = eager_host_forward_s(layer.host, s);
  const double forward_s = layer.forward.total_s();
  double bound_forward_s = std::max(forward_s, host.total_s());
  if (layer.host.syncs) {
    const double before_s = std::min(layer.pre_sync_forward_s, forward_s);
    bound_forward_s =
        std::max(before_s, host.before_sync_s) + std::max(forward_s - before_s, host.after_sync_s);
  }
  bound.forward.compute_s += bound_forward_s - forward_s;
  bound.backward.compute_s += std::max(0.0, host.backward_s - layer.backward.total_s());
  return bound;
}

}  // namespace

double layer_passes_s(const LayerCost& layer, const Strategy& strategy) {
  const LayerPasses passes = host_bound(layer, strategy);
  return passes.forward.total_s() + passes.backward.total_s();
}

bool recomputes_on_its_own(const Recompute& recompute, RecomputeModule module) {
  // --recompute-modules; whole MoE layers include their experts' activation and the shared
  // experts.
  const bool within_moe =
      module == RecomputeModule::moe_act || module == RecomputeModule::shared_experts;
  return recompute.recomputes(module) &&
         !(within_moe && recompute.recomputes(RecomputeModule::moe));
}

double layer_recompute_floor_s(const LayerCost& layer, const Recompute& recompute,
                               Framework framework) {
  switch (recompute.granularity) {
    case RecomputeGranularity::none:
      return 0;
    case RecomputeGranularity::selective: {
      if (framework == Framework::torchtitan) return layer.per_op_checkpoint.forward.total_s();
      double time_s = 0;
      for (size_t m = 0; m < kNumRecomputeModules; ++m) {
        const auto module = static_cast<RecomputeModule>(m);
        if (recomputes_on_its_own(recompute, module))
          time_s += layer.unit(module).forward.total_s();
      }
      return time_s;
    }
    case RecomputeGranularity::full:
      break;
  }
  // Uniform recomputes every layer's forward; block as few as one layer a chunk.
  return recompute.method == RecomputeMethod::uniform ? layer.forward.total_s() : 0;
}

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
  // The loss's transient and a recomputed layer's working set are never held together: the
  // loss's backward ends before the first layer's recompute begins (Megatron-LM schedules.py
  // backward_step from the loss; torchtitan train.py deletes the logits before backward).
  double edge_transient = 0, recompute_working = 0;
  const LayerPasses dense_bound = host_bound(c.dense, s), moe_bound = host_bound(c.moe, s);
  PassTime layers_forward = dense_bound.forward * dense_layers;
  layers_forward += moe_bound.forward * moe_layers;
  work.backward = dense_bound.backward * dense_layers;
  work.backward += moe_bound.backward * moe_layers;
  if (in.framework == Framework::torchtitan) {  // PyTorch's ring attention (attention_cost.cpp)
    layers_forward += c.dense.torch_ring_forward * dense_layers;
    layers_forward += c.moe.torch_ring_forward * moe_layers;
    work.backward += c.dense.torch_ring_backward * dense_layers;
    work.backward += c.moe.torch_ring_backward * moe_layers;
  }
  work.forward = layers_forward;
  if (s.overlap_moe_expert_parallel_comm) {
    const double unpaired =
        unpaired_pass_share(group.first, in.stages, s.virtual_pipeline_model_parallel_size,
                            in.micro_batches) *
        moe_layers;
    work.forward.ep_comm_s += unpaired * c.moe.a2a_unpaired_forward_s;
    work.backward.ep_comm_s += unpaired * c.moe.a2a_unpaired_backward_s;
  }
  work.parameters = sum([](const LayerCost& l) { return l.parameters; });
  work.expert_parameters = sum([](const LayerCost& l) { return l.expert_parameters; });
  double edge_stored = 0;
  const auto add_edge = [&](const EdgeCost& edge, double parameters) {
    work.forward += edge.forward;
    work.backward += edge.backward;
    work.parameters += parameters;
    work.edge_parameters += parameters;
    work.stored_activation_bytes += edge.activation_bytes;
    edge_stored += edge.activation_bytes;
    edge_transient += in.framework == Framework::torchtitan
                          ? torchtitan_loss_bytes_per_logit(s) * edge.logit_elements
                          : edge.transient_bytes;
  };
  if (is_first(group)) add_edge(c.embedding, c.embedding.parameters);
  if (is_last(group, in.stages)) {
    // With one stage, tied embeddings are one table: the LM head adds its final norm only
    // (Megatron-LM theoretical_memory_usage.py counts the output layer only when untied).
    const bool shared_table = in.stages == 1 && !in.model->untie_embeddings_and_output_weights;
    add_edge(c.head, shared_table ? c.head.parameters - c.embedding.parameters : c.head.parameters);
  }
  for (double depth = 0; depth < mtp; ++depth) add_edge(c.mtp, c.mtp.parameters);
  // The MTP depths look up the shared embedding: the last stage keeps a copy.
  if (mtp > 0 && in.stages > 1) {
    work.parameters += c.embedding.parameters;
    work.edge_parameters += c.embedding.parameters;
  }

  // Recompute (Korthikanti et al. 2022 §5): selective redoes the chosen modules; full keeps only
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
      work.stored_activation_bytes += activation;
      if (in.framework == Framework::torchtitan) {
        // torchtitan's selective checkpointing is per op (torchtitan_sac.cpp).
        work.recompute += c.dense.per_op_checkpoint.forward * dense_layers;
        work.recompute += c.moe.per_op_checkpoint.forward * moe_layers;
        work.recompute_flops +=
            sum([](const LayerCost& l) { return l.per_op_checkpoint.forward_flops; });
        work.stored_activation_bytes -=
            sum([](const LayerCost& l) { return l.per_op_checkpoint.saved_bytes; });
        break;
      }
      for (size_t m = 0; m < kNumRecomputeModules; ++m) {
        const auto module = static_cast<RecomputeModule>(m);
        if (!recomputes_on_its_own(recompute, module)) continue;
        work.recompute += c.dense.unit(module).forward * dense_layers;
        work.recompute += c.moe.unit(module).forward * moe_layers;
        work.recompute_flops +=
            sum([&](const LayerCost& l) { return l.unit(module).forward_flops; });
        work.stored_activation_bytes -=
            sum([&](const LayerCost& l) { return l.unit(module).saved_bytes; });
      }
      break;
    case RecomputeGranularity::full: {
      const double checkpoint = c.dense.checkpoint_bytes;
      double recomputed = layers;
      if (recompute.method == RecomputeMethod::uniform) {
        work.stored_activation_bytes += v * std::ceil(chunk_layers / chunk_group) * checkpoint;
        recompute_working = chunk_group * mean_activation;
      } else {
        recomputed = chunk_group * v;
        work.stored_activation_bytes +=
            recomputed * checkpoint + (layers - recomputed) * mean_activation;
        recompute_working = mean_activation;
      }
      work.recompute = layers_forward * (recomputed / layers);
      work.recompute_flops =
          sum([](const LayerCost& l) { return l.forward_flops; }) * (recomputed / layers);
      break;
    }
  }
  // A layer's own transients (the MoE dispatcher's buffers) join the recomputed layers' working
  // set, or the stored activations at the peak without recompute; never the loss's.
  const double layer_transient = std::max(dense_layers > 0 ? c.dense.transient_bytes : 0.0,
                                          moe_layers > 0 ? c.moe.transient_bytes : 0.0);
  work.working_bytes = std::max(edge_transient, recompute_working + layer_transient);
  // The experts' loops in the backward have no host sync (moe_layer_cost.cpp): the GPU waits for
  // the host only when issuing them takes longer than the stage's whole backward and recompute.
  work.backward.compute_s += std::max(0.0, c.moe.expert_loop_host_backward_s * moe_layers -
                                               work.backward.total_s() - work.recompute.total_s());
  if (s.cpu_offloading_num_layers > 0) offload_activations(in, group, activation, work);
  if (s.offload_modules != 0) offload_module_activations(in, group, dense_layers, moe_layers, work);
  work.layer_stored_bytes =
      layers > 0 ? std::max(0.0, work.stored_activation_bytes - edge_stored) / layers : 0;

  // Megatron-FSDP: ZeRO-2 reduce-scatters each unit's gradients with every micro-batch, ZeRO-3
  // also gathers its parameters before the forward and the backward, prefetched under the
  // neighbouring unit's compute (model-review P1, P8).
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  if (deepspeed_zero3(in.framework, s) && dp_cp > 1) {
    // DeepSpeed ZeRO-3 (deepspeed_zero.hpp): one gather per submodule, gradients in buckets, in
    // the model's 16-bit dtype.
    const double element = parameter_bytes(in.training->precision, s, gpu).edge_weight;
    const auto unit = [&](double parameters, double fetches, const PassTime& forward,
                          const PassTime& backward) {
      return deepspeed_zero3_unit_comm_s(gpu, s, element, dp_cp, parameters, fetches,
                                         work.parameters + work.expert_parameters,
                                         forward.total_s(), backward.total_s());
    };
    const double dense_fetches = zero3_fetches_per_layer(*in.model, s, false);
    const double moe_fetches = zero3_fetches_per_layer(*in.model, s, true);
    const auto layer = [&](const LayerCost& l, double fetches) {
      return unit(l.parameters + l.expert_parameters, fetches, l.forward, l.backward);
    };
    work.zero3_comm_s =
        layer(c.dense, dense_fetches) * dense_layers + layer(c.moe, moe_fetches) * moe_layers;
    if (is_first(group)) {
      work.zero3_comm_s +=
          unit(c.embedding.parameters, 1, c.embedding.forward, c.embedding.backward);
    }
    if (is_last(group, in.stages)) {
      work.zero3_comm_s += unit(c.head.parameters, 1, c.head.forward, c.head.backward);
    }
  } else if (s.zero_stage == 2 && dp_cp > 1 &&
             deepspeed_zero_optimizer(in.framework, in.training->precision, s)) {
    // DeepSpeed ZeRO-2: every micro-batch's gradients all-reduced in buckets, exposed.
    work.zero3_comm_s =
        deepspeed_zero2_micro_batch_s(gpu, s, dp_cp, work.parameters, work.expert_parameters,
                                      parameter_bytes(in.training->precision, s, gpu).edge_weight);
  } else if (s.zero_stage >= 2 && dp_cp > 1) {
    const ParameterBytes bytes = parameter_bytes(in.training->precision, s, gpu);
    // torchtitan's FSDP2 (torchtitan_fsdp.hpp): fp32 reduce-scatters and the copies around them;
    // with pipelines one gather and one reduce-scatter per iteration, under the first forward and
    // the last backward; ZeRO-2 and its norm and LM head unit are never resharded after forward.
    const bool fsdp2 = torchtitan_fsdp2(in.framework, s);
    const bool keeps = fsdp2_keeps_unsharded(in.stages);
    const double share = keeps ? 1 / static_cast<double>(in.micro_batches) : 1;
    const auto unit = [&](double parameters, double experts, double gather_bytes,
                          const PassTime& forward, const PassTime& backward, bool head = false) {
      if (fsdp2) {
        const Fsdp2Unit u{parameters, experts, gather_bytes, s.zero_stage == 3 && !keeps && !head};
        return share * (fsdp2_unit_comm_s(gpu, s, dp_cp, u, forward.total_s(), backward.total_s()) +
                        fsdp2_unit_copy_s(gpu, s, dp_cp, u));
      }
      return fsdp_unit_comm_s(gpu, s, bytes.fsdp_gradient, gather_bytes, dp_cp, parameters, experts,
                              forward.total_s(), backward.total_s());
    };
    work.zero3_comm_s = sum([&](const LayerCost& l) {
      return unit(l.parameters, l.expert_parameters, bytes.layer_gather, l.forward, l.backward);
    });
    if (is_first(group)) {
      work.zero3_comm_s += unit(c.embedding.parameters, 0, bytes.edge_gather, c.embedding.forward,
                                c.embedding.backward);
    }
    if (is_last(group, in.stages)) {
      work.zero3_comm_s +=
          unit(c.head.parameters, 0, bytes.edge_gather, c.head.forward, c.head.backward, true);
    }
  }
  if (deepspeed_bf16_optimizer(in.framework, in.training->precision, s) && dp_cp > 1) {
    work.grad_accumulate_s =
        deepspeed_bf16_accumulate_s(gpu, work.parameters + work.expert_parameters);
  }
  return work;
}

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
  return v * (exposed_s(gpu, send_forward, work.forward.total_s() / v) +
              exposed_s(gpu, send_backward, work.backward.total_s() / v));
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

namespace {

// Megatron-LM's interleaved warm-up before stage `index`'s first backward: (p - i - 1) x 2 +
// (v - 1) x p chunk forwards (schedules.py get_pp_rank_microbatches).
double interleaved_warmup_chunks(int64_t index, int64_t stages, int64_t virtual_stages) {
  return static_cast<double>((stages - index - 1) * 2 + (virtual_stages - 1) * stages);
}

}  // namespace

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

// What side streams' freed blocks keep cached at the peak. FSDP2 gathers each unit into one flat
// buffer allocated on its all-gather copy-in stream (torch/distributed/fsdp/_fully_shard/
// _fsdp_collectives.py all_gather_copy_in: all_gather_output, world x the shard) and copies it out
// into the parameters on the default stream (foreach_all_gather_copy_out); once copied, the flat
// buffer is freed into the copy-in stream's cache, where only the next gather can reuse it: the
// unit in use and the one prefetched keep two (the unsharded weights they copy into are counted
// in weights_bytes). Its reduce-scatter allocates each unit's output on the reduce-scatter stream
// and the sharded gradients are views of it (_fsdp_collectives.py foreach_reduce: `reduce_output
// = reduce_scatter_input.new_empty(...)` under `device_handle.stream(reduce_scatter_stream)`,
// `new_sharded_grad = torch.as_strided(reduce_output, ...)`); torchtitan frees them before the
// next forward (train.py optimizers.zero_grad(), set_to_none), into that stream's cache, where
// only the next step's reduce-scatters reuse them: the fp32 shard of every parameter stays
// reserved, not allocated, through the forward and backward that peak.
double side_stream_cache_bytes(const PipelineInput& in, const Strategy& s,
                               const ParameterBytes& bytes, double unit_parameters,
                               double sharded_parameters, int zero) {
  if (zero >= 2 && torchtitan_fsdp2(in.framework, s)) {
    return 2 * bytes.layer_gather * unit_parameters + kFsdp2ReduceBytes * sharded_parameters;
  }
  return 0;
}

// --overlap-moe-expert-parallel-comm (Megatron-LM schedules.py get_pp_rank_microbatches): the
// interleaved schedule runs one more warm-up forward, one more model chunk in flight, so that each
// steady-state step can pair a chunk's forward with another's backward; without pipelining the
// first micro-batch's forward runs alone, then each next forward is paired with the last one's
// backward (combined_1f1b.py, combined_1f1b_schedule_for_no_pipelining).
double a2a_overlap_chunk(const Strategy& s) {
  if (!s.overlap_moe_expert_parallel_comm) return 0;
  return s.pipeline_model_parallel_size > 1 ? 1.0 / s.virtual_pipeline_model_parallel_size : 1.0;
}

// What the pairing holds beyond the micro-batches in flight: TransformerModelChunkSchedulePlan.run
// (models/common/model_chunk_schedule_plan.py) runs the forward's layer i beside the backward's
// layer N-1-i (`get_layer(i)`, `pop_layer()`) and releases that backward layer's state after each
// pair (`b_layer.release_state()`): the forward chunk's activations grow a layer at a time as the
// backward chunk's shrink, so the pair holds one chunk's worth plus the one layer in both. The
// extra warm-up forward (interleaved) is that chunk; without pipelining the backward micro-batch
// is the one in flight. One layer, not one chunk, is added.
double a2a_overlap_extra_bytes(const Strategy& s, const StageWork& work) {
  return s.overlap_moe_expert_parallel_comm ? work.layer_stored_bytes : 0;
}

// torch.distributed.pipelining's receive buffers and the last chunk's kept outputs
// (pipelining_memory.hpp), for torchtitan's pipelines: the layer input between chunks, the
// 16-bit logits (bf16 in fp8 training too) on the last.
double pipelining_bytes(const PipelineInput& in, const StageGroup& group, double in_flight) {
  if (in.framework != Framework::torchtitan || in.stages <= 1) return 0;
  const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
  const double element = activation_element_bytes(in.training->precision);
  return torch_pipelining_bytes(
      group.first, in.stages, in.strategy->virtual_pipeline_model_parallel_size, in.micro_batches,
      in_flight, c.dense.checkpoint_bytes, element * c.head.logit_elements);
}

}  // namespace

double held_activation_bytes(const Strategy& s, const StageWork& work, double in_flight) {
  return in_flight * work.stored_activation_bytes + a2a_overlap_extra_bytes(s, work) +
         work.working_bytes;
}

StageMemory stage_memory(const PipelineInput& in, const StageGroup& group, const StageWork& work,
                         int64_t index) {
  const Strategy& s = *in.strategy;
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  const int zero = dp_cp > 1 ? s.zero_stage : 0;
  const ParameterBytes bytes = parameter_bytes(
      in.training->precision, s, in.cluster->pools[static_cast<size_t>(group.pool)].gpu);
  const double edges = work.edge_parameters;
  const double layers = work.parameters - edges + work.expert_parameters;
  const double all = layers + edges;
  const double shard = 1 / static_cast<double>(dp_cp);
  const double expert_shard = 1 / static_cast<double>(s.expert_data_parallel(in.data_parallel));
  const double sharded = work.parameters * shard + work.expert_parameters * expert_shard;
  // One layer's parameters (what Megatron-FSDP gathers, and reduces, at a time).
  const double unit = layers / static_cast<double>(std::max<int64_t>(1, group.layers));
  StageMemory memory;
  // Weights and gradients as the framework keeps them (deepspeed_zero.hpp, torchtitan_fsdp.hpp),
  // else as Megatron-LM does.
  const Precision precision = in.training->precision;
  if (zero == 3 && deepspeed_zero3(in.framework, s)) {
    // DeepSpeed ZeRO-3: this GPU's 16-bit shard, the submodule being used and the one
    // prefetched, as far as stage3_max_live_parameters lets prefetch go (the one in use is
    // always gathered).
    const double fetch = unit / zero3_fetches_per_layer(*in.model, s, group.moe_layers > 0);
    const double live = std::max(fetch, std::min(kDeepSpeed.max_live_parameters, 2 * fetch));
    memory.weights_bytes = bytes.edge_weight * (sharded + live);
  } else if (zero >= 2 && torchtitan_fsdp2(in.framework, s)) {
    // FSDP2: the sharded parameters are the fp32 masters (counted with the optimizer state);
    // held as gathered are the block in use and the one prefetched, and the last stage's norm
    // and LM head, never resharded after forward; every unit of the stage between its forward
    // and backward with ZeRO-2 (fsdp_reshard_after_forward "never") and through the iteration
    // with pipelines (fsdp2_keeps_unsharded). Blocks are gathered in 16 bits, or in fp8 with
    // enable_fsdp_float8_all_gather, which keeps the gathered weights in fp8 (torchao
    // float8/fsdp_utils.py fsdp_post_all_gather); the norm and the LM head stay 16-bit.
    const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
    const double head =
        group.first + group.count == in.stages ? std::min(c.head.parameters, edges) : 0;
    const bool whole = zero == 2 || fsdp2_keeps_unsharded(in.stages);
    memory.weights_bytes = bytes.layer_gather * (whole ? layers : std::min(layers, 2 * unit)) +
                           bytes.edge_weight * (whole ? edges : head);
  } else if (zero == 3) {
    // Megatron-FSDP: this GPU's shard of the weights, plus the layers gathered for compute and
    // prefetch (double buffer).
    memory.weights_bytes = bytes.layer_weight * ((work.parameters - edges) * shard +
                                                 work.expert_parameters * expert_shard + 2 * unit) +
                           bytes.edge_weight * edges * shard;
  } else {
    memory.weights_bytes = bytes.layer_weight * layers + bytes.edge_weight * edges;
  }
  if (zero == 3 && deepspeed_zero3(in.framework, s)) {
    // DeepSpeed ZeRO-3: the gradient shard in the model dtype (grad_accum_dtype defaults to it
    // under ZeRO, engine.py get_data_types) and the contiguous reduce bucket (stage3.py
    // __ipg_bucket_flat_buffer, reduce_bucket_size elements).
    memory.gradients_bytes = bytes.edge_weight * (sharded + kDeepSpeed.reduce_bucket_elements);
  } else if (zero >= 2 && torchtitan_fsdp2(in.framework, s)) {
    // FSDP2: one block's 16-bit gradients and their fp32 copy for the reduce-scatter are whole
    // until it is done. With pipelines every unit's fp32 gradients stay whole until the stage's
    // last backward (fsdp2_keeps_unsharded), whose reduce-scatters make the shards as they free
    // the whole ones. The fp32 shards (reduce_dtype) of the last step are freed before the
    // forward (torchtitan train.py optimizers.zero_grad(), set_to_none by default) and those of
    // this step made as the backward frees the activations: at the peak they are cached on the
    // reduce-scatter stream, not allocated (side_stream_cache_bytes).
    const bool keeps = fsdp2_keeps_unsharded(in.stages);
    memory.gradients_bytes = kFsdp2ReduceBytes * (keeps ? all : unit) + bytes.edge_weight * unit;
  } else if (zero == 1 && deepspeed_bf16_optimizer(in.framework, precision, s)) {
    // BF16_Optimizer: the fp32 gradient copies of every parameter (fp32_groups_gradients_flat),
    // and the bf16 gradients autograd makes in each backward, set to None only before the next
    // (clear_lp_grads, set_to_none unless graph_harvesting).
    memory.gradients_bytes = (4 + bytes.edge_weight) * all;
  } else if (zero >= 1 && deepspeed_zero_optimizer(in.framework, precision, s)) {
    // DeepSpeed's ZeRO optimizer: 16-bit gradients (grad_accum_dtype defaults to the model
    // dtype under ZeRO), whole under ZeRO-1 and reduced into this rank's partition under
    // ZeRO-2, and the contiguous reduce bucket (stage_1_and_2.py ipg_buffer, reduce_bucket_size
    // elements).
    memory.gradients_bytes =
        bytes.edge_weight * ((zero == 2 ? sharded : all) + kDeepSpeed.reduce_bucket_elements);
  } else if (zero >= 2) {
    // Megatron-FSDP shards the main gradients in the weights' dtype; one layer's gradients are
    // whole until they are reduce-scattered.
    memory.gradients_bytes = bytes.fsdp_gradient * (sharded + unit);
  } else {
    memory.gradients_bytes = bytes.gradient * all;
  }
  // The optimizer's parameters; with --optimizer-cpu-offload a share of them in host memory.
  const double optimized = zero >= 1 ? sharded : all;
  const double on_host = s.optimizer_host_fraction() * optimized;
  memory.optimizer_bytes = bytes.optimizer * (optimized - on_host);
  const double in_flight = in_flight_micro_batches(
      index, in.stages, s.virtual_pipeline_model_parallel_size, in.micro_batches);
  memory.activations_bytes = held_activation_bytes(s, work, in_flight);
  memory.graph_pool_bytes =
      cuda_graph_pool_bytes(in, group, work, memory.activations_bytes, in_flight);
  memory.reserve = memory_reserve(in, group, memory.activations_bytes,
                                  side_stream_cache_bytes(in, s, bytes, unit, sharded, zero));
  // PyTorch pipelining's buffers: allocated once per step's shapes, not fragmented.
  memory.activations_bytes += pipelining_bytes(in, group, in_flight);
  // CUDA graphs' static buffers (cuda_graph_memory.cpp): allocated once, not fragmented.
  memory.activations_bytes += cuda_graph_bytes(in, group, in_flight + a2a_overlap_chunk(s));
  memory.host_bytes = in_flight * work.offloaded_bytes + kHostOptimizerBytesPerParameter * on_host;
  return memory;
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
    out.at_risk |=
        memory_verdict_of(peak, gpu.hbm_bytes, expandable_segments_by_default(in.framework)) !=
        MemoryVerdict::fits;
  }
  out.fits = out.overflow_bytes <= 0 && out.host_fits;
}

}  // namespace

PipelineResult evaluate_pipeline(const PipelineInput& in, std::vector<GroupResult>& results) {
  const Strategy& s = *in.strategy;
  const std::span<const StageGroup> groups = in.groups;
  const double m = static_cast<double>(in.micro_batches);
  results.resize(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) results[g].work = stage_work(in, groups[g]);
  PipelineResult out;
  fit_memory(in, results, out);
  if (!out.fits && !in.time_unfit) {
    out.iteration_time_s = std::numeric_limits<double>::infinity();
    return out;
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    results[g].work.pp_comm_s = pipeline_comm_s(in, groups[g], results[g].work, groups, g);
  }

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
  // BF16_Optimizer's fp32 gradient accumulation after each micro-batch is optimizer work.
  time.optimizer_s = optimizer_s + m * b.grad_accumulate_s;
  time.bubble_s = fill_drain_s;
  time.offload_s = m * b.offload_s;
  return out;
}

}  // namespace paraplan::detail
