#include <algorithm>
#include <cmath>

#include "model/activation_offload.hpp"
#include "model/deepspeed_zero.hpp"
#include "model/host_time.hpp"
#include "model/parameter_bytes.hpp"
#include "model/pipeline_model.hpp"
#include "model/stage_split.hpp"
#include "model/torchtitan_fsdp.hpp"

namespace paraplan::detail {

// A layer's forward and backward as the host lets the GPU run them: a pass takes at least the
// host's time to issue what no CUDA graph captured (host_time.hpp); a MoE layer's forward
// issues what follows its sync only after the GPU finished what came before, and the GPU idles
// at the sync itself (HostIssueCost::sync_gap_s). The wait is
// charged as compute (the GPU idles within the pass).
LayerPasses host_bound(const LayerCost& layer, const Strategy& s) {
  LayerPasses bound{layer.forward, layer.backward};
  if (layer.a2a_paired) return bound;  // the pair's time holds the host's issue already
  const HostPassTime host = eager_host_forward_s(layer.host, s);
  const double forward_s = layer.forward.total_s();
  double bound_forward_s = std::max(forward_s, host.total_s());
  if (layer.host.syncs) {
    const double before_s = std::min(layer.pre_sync_forward_s, forward_s);
    bound_forward_s = std::max(before_s, host.before_sync_s) + host.sync_gap_s +
                      std::max(forward_s - before_s, host.after_sync_s);
  }
  bound.forward.compute_s += bound_forward_s - forward_s;
  bound.backward.compute_s += std::max(0.0, host.backward_s - layer.backward.total_s());
  return bound;
}

// Without CUDA graphs graph_captures is false for every region: the bound reads no key.
void set_ungraphed_passes(ModelCosts& costs) {
  Strategy ungraphed;
  ungraphed.cuda_graph_impl = CudaGraphImpl::none;
  costs.ungraphed_passes = {host_bound(costs.dense, ungraphed), host_bound(costs.moe, ungraphed)};
}

LayerPasses layer_passes(const ModelCosts& costs, bool moe, const Strategy& strategy) {
  if (costs.ungraphed_passes && strategy.cuda_graph_impl == CudaGraphImpl::none) {
    return (*costs.ungraphed_passes)[moe ? 1 : 0];
  }
  return host_bound(moe ? costs.moe : costs.dense, strategy);
}

double layer_passes_s(const ModelCosts& costs, bool moe, const Strategy& strategy) {
  const LayerPasses passes = layer_passes(costs, moe, strategy);
  // A share of at most one of a stage's MoE layers' passes runs unpaired (add_layer_passes), and
  // an unpaired pass may cost less than a paired one, whose host wait can outlast the all-to-all
  // it hides (moe_a2a_overlap).
  const double unpaired_saving_s = moe ? std::min(0.0, costs.moe.a2a_unpaired_forward_s) +
                                             std::min(0.0, costs.moe.a2a_unpaired_backward_s)
                                       : 0.0;
  return passes.forward.total_s() + passes.backward.total_s() + unpaired_saving_s;
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
namespace {

// A stage's layers: their costs on its GPU type and how many of each kind it runs.
struct StageLayers {
  const ModelCosts& c;
  double dense_layers, moe_layers;
  template <class Field>
  double sum(Field field) const {
    return field(c.dense) * dense_layers + field(c.moe) * moe_layers;
  }
};

// DeepSpeed ZeRO-3 (deepspeed_zero.hpp): one gather per submodule, gradients in buckets, in
// the model's 16-bit dtype.
double deepspeed_zero3_stage_s(const PipelineInput& in, const StageGroup& group,
                               const StageLayers& stage, const StageWork& work, int64_t dp_cp) {
  const Strategy& s = *in.strategy;
  const ModelCosts& c = stage.c;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  const double dense_layers = stage.dense_layers, moe_layers = stage.moe_layers;
  const double element = parameter_bytes(in.training->precision, s, gpu).edge_weight;
  const auto unit = [&](double parameters, double fetches, const Zero3UnitPasses& passes) {
    return deepspeed_zero3_unit_comm_s(gpu, s, element, dp_cp, parameters, fetches,
                                       work.parameters + work.expert_parameters, passes);
  };
  const auto edge = [&](const EdgeCost& e) {
    return unit(e.parameters, 1, {e.forward.total_s(), e.backward.total_s(), 0, {}});
  };
  // Full recompute of every layer: the backward pass runs the forward again, gathering anew.
  const Recompute& recompute = s.recompute[static_cast<size_t>(group.pool)];
  const bool recomputed = recompute.granularity == RecomputeGranularity::full &&
                          recompute.method == RecomputeMethod::uniform;
  const auto layer = [&](const LayerCost& l, bool moe_layer) {
    Zero3UnitPasses passes{l.forward.total_s(), l.backward.total_s(), 0, {}};
    if (recomputed) {
      passes.recompute_s = l.forward.total_s();
      passes.regather = zero3_recompute_regather(*in.model, s, moe_layer);
    }
    return unit(l.parameters + l.expert_parameters,
                zero3_fetches_per_layer(*in.model, s, moe_layer), passes);
  };
  double comm_s = layer(c.dense, false) * dense_layers + layer(c.moe, true) * moe_layers;
  if (is_first(group)) comm_s += edge(c.embedding);
  if (is_last(group, in.stages)) comm_s += edge(c.head);
  return comm_s;
}

// DeepSpeed ZeRO-2: every micro-batch's gradients all-reduced in buckets, exposed.
double deepspeed_zero2_stage_s(const PipelineInput& in, const StageGroup& group,
                               const StageWork& work, int64_t dp_cp) {
  const Strategy& s = *in.strategy;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  return deepspeed_zero2_micro_batch_s(gpu, s, dp_cp, work.parameters, work.expert_parameters,
                                       parameter_bytes(in.training->precision, s, gpu).edge_weight);
}

// Megatron-FSDP: ZeRO-2 reduce-scatters each unit's gradients with every micro-batch, ZeRO-3
// also gathers its parameters before the forward and the backward, prefetched under the
// neighbouring unit's compute (model-review P1, P8); torchtitan's FSDP2 (below).
double fsdp_stage_s(const PipelineInput& in, const StageGroup& group, const StageLayers& stage,
                    int64_t dp_cp) {
  const Strategy& s = *in.strategy;
  const ModelCosts& c = stage.c;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  const auto sum = [&](auto field) { return stage.sum(field); };
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
  double comm_s = sum([&](const LayerCost& l) {
    return unit(l.parameters, l.expert_parameters, bytes.layer_gather, l.forward, l.backward);
  });
  if (is_first(group)) {
    comm_s += unit(c.embedding.parameters, 0, bytes.edge_gather, c.embedding.forward,
                   c.embedding.backward);
  }
  if (is_last(group, in.stages)) {
    comm_s += unit(c.head.parameters, 0, bytes.edge_gather, c.head.forward, c.head.backward, true);
  }
  return comm_s;
}

// The exposed per-micro-batch traffic of sharded data parallelism (ZeRO-2/3), by the framework's
// mechanism: DeepSpeed's ZeRO-3 or ZeRO-2 optimizer, else Megatron-FSDP or FSDP2.
double sharded_data_parallel_s(const PipelineInput& in, const StageGroup& group,
                               const StageLayers& stage, const StageWork& work) {
  const Strategy& s = *in.strategy;
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  if (dp_cp <= 1) return 0;
  if (deepspeed_zero3(in.framework, s))
    return deepspeed_zero3_stage_s(in, group, stage, work, dp_cp);
  if (s.zero_stage == 2 && deepspeed_zero_optimizer(in.framework, in.training->precision, s)) {
    return deepspeed_zero2_stage_s(in, group, work, dp_cp);
  }
  if (s.zero_stage >= 2) return fsdp_stage_s(in, group, stage, dp_cp);
  return 0;
}

// Recompute (Korthikanti et al. 2022 §5): selective redoes the chosen modules; full keeps only
// checkpoints, per group of num_layers (uniform) or for the first num_layers of each
// virtual chunk (block), and redoes their forward.
// Adds the recompute's time, flops and kept activations to `work`; returns the working set of
// the layers recomputed at once.
double add_recompute(const PipelineInput& in, const StageGroup& group, const StageLayers& stage,
                     double layers, const PassTime& layers_forward, StageWork& work) {
  const Strategy& s = *in.strategy;
  const ModelCosts& c = stage.c;
  const double dense_layers = stage.dense_layers, moe_layers = stage.moe_layers;
  const auto sum = [&](auto field) { return stage.sum(field); };
  const double v = static_cast<double>(s.virtual_pipeline_model_parallel_size);
  double recompute_working = 0;
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
  return recompute_working;
}

// A stage's layers with its multi-token-prediction depths: they run on the last stage, each a
// layer like the last one (multi_token_prediction.py: MTP layers on the last pipeline stage).
struct StageShape {
  StageLayers stage;
  double mtp, layers;  // the MTP depths, and every layer with them
};
StageShape stage_shape(const PipelineInput& in, const StageGroup& group) {
  const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
  const double mtp = is_last(group, in.stages) ? static_cast<double>(in.model->mtp_num_layers) : 0;
  const bool mtp_moe = in.model->is_moe_layer(in.model->num_layers - 1);
  const double moe_layers = static_cast<double>(group.moe_layers) + (mtp_moe ? mtp : 0);
  const double dense_layers =
      static_cast<double>(group.layers - group.moe_layers) + (mtp_moe ? 0 : mtp);
  return {{c, dense_layers, moe_layers}, mtp, static_cast<double>(group.layers) + mtp};
}

// A paired MoE layer's passes where they run unpaired (the combined 1F1B's warm-up forwards and
// cool-down backwards): the all-to-all alone, and each pass held to the host's time to issue it
// as without the overlap.
LayerPasses unpaired_passes(const LayerCost& layer, const Strategy& s) {
  LayerCost alone = layer;
  alone.a2a_paired = false;
  alone.forward.ep_comm_s += layer.a2a_unpaired_forward_s;
  alone.backward.ep_comm_s += layer.a2a_unpaired_backward_s;
  return host_bound(alone, s);
}

// The layers' passes, each at least the host's time to issue it (host_bound), into `work`;
// returns their forward without the all-to-all that the combined 1F1B leaves unpaired.
PassTime add_layer_passes(const PipelineInput& in, const StageGroup& group,
                          const StageLayers& stage, StageWork& work) {
  const Strategy& s = *in.strategy;
  const ModelCosts& c = stage.c;
  const double dense_layers = stage.dense_layers, moe_layers = stage.moe_layers;
  const LayerPasses dense_bound = layer_passes(c, false, s), moe_bound = layer_passes(c, true, s);
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
    const LayerPasses alone = unpaired_passes(c.moe, s);
    work.forward.ep_comm_s += unpaired * c.moe.a2a_unpaired_forward_s;
    work.backward.ep_comm_s += unpaired * c.moe.a2a_unpaired_backward_s;
    work.forward.compute_s += unpaired * (alone.forward.compute_s - moe_bound.forward.compute_s);
    work.backward.compute_s += unpaired * (alone.backward.compute_s - moe_bound.backward.compute_s);
  }
  return layers_forward;
}

// What the stage's edges hold: their stored activations, and the loss's transient.
struct EdgeBytes {
  double stored = 0, transient = 0;
};

// The edges: the embedding on the first stage, the LM head and the MTP depths on the last (their
// passes and parameters into `work`).
EdgeBytes add_edges(const PipelineInput& in, const StageGroup& group, const ModelCosts& c,
                    double mtp, StageWork& work) {
  const Strategy& s = *in.strategy;
  EdgeBytes edge_bytes;
  const auto add_edge = [&](const EdgeCost& edge, double parameters) {
    work.forward += edge.forward;
    work.backward += edge.backward;
    work.parameters += parameters;
    work.edge_parameters += parameters;
    work.stored_activation_bytes += edge.activation_bytes;
    edge_bytes.stored += edge.activation_bytes;
    edge_bytes.transient +=
        in.framework == Framework::torchtitan
            ? torchtitan_loss_bytes_per_logit(s, activation_element_bytes(in.training->precision)) *
                  edge.logit_elements
            : edge.transient_bytes;
  };
  if (is_first(group)) {
    add_edge(c.embedding, c.embedding.parameters);
    work.embedding_parameters = c.embedding.parameters;
  }
  if (is_last(group, in.stages)) {
    // With one stage, tied embeddings are one table: the LM head adds its final norm only
    // (Megatron-LM theoretical_memory_usage.py counts the output layer only when untied).
    const bool shared_table = in.stages == 1 && !in.model->untie_embeddings_and_output_weights;
    add_edge(c.head, shared_table ? c.head.parameters - c.embedding.parameters : c.head.parameters);
    if (in.framework == Framework::torchtitan) {
      edge_bytes.transient += torchtitan_head_gathered_input_bytes(*in.model, *in.training, s);
    }
  }
  for (double depth = 0; depth < mtp; ++depth) add_edge(c.mtp, c.mtp.parameters);
  // The MTP depths look up the shared embedding: the last stage keeps a copy.
  if (mtp > 0 && in.stages > 1) {
    work.parameters += c.embedding.parameters;
    work.edge_parameters += c.embedding.parameters;
  }
  return edge_bytes;
}

// Activation memory: recompute (add_recompute), the working set held once, the host's wait on
// the experts' backward loops, activation offloading, and one layer's stored bytes.
void add_activations(const PipelineInput& in, const StageGroup& group, const StageShape& shape,
                     const PassTime& layers_forward, const EdgeBytes& edge_bytes, StageWork& work) {
  const Strategy& s = *in.strategy;
  const StageLayers& stage = shape.stage;
  const ModelCosts& c = stage.c;
  const double dense_layers = stage.dense_layers, moe_layers = stage.moe_layers;
  const double layers = shape.layers;
  const double activation = stage.sum([](const LayerCost& l) { return l.activation_bytes; });
  const double recompute_working = add_recompute(in, group, stage, layers, layers_forward, work);
  // The loss's transient and a recomputed layer's working set are never held together: the
  // loss's backward ends before the first layer's recompute begins (Megatron-LM schedules.py
  // backward_step from the loss; torchtitan train.py deletes the logits before backward).
  // A layer's own transients (the MoE dispatcher's buffers) join the recomputed layers' working
  // set, or the stored activations at the peak without recompute; never the loss's.
  const double layer_transient = std::max(dense_layers > 0 ? c.dense.transient_bytes : 0.0,
                                          moe_layers > 0 ? c.moe.transient_bytes : 0.0);
  work.working_bytes = std::max(edge_bytes.transient, recompute_working + layer_transient);
  // The experts' loops in the backward have no host sync (moe_layer_cost.cpp): the GPU waits for
  // the host only when issuing them takes longer than the stage's whole backward and recompute.
  work.backward.compute_s += std::max(0.0, c.moe.expert_loop_host_backward_s * moe_layers -
                                               work.backward.total_s() - work.recompute.total_s());
  if (s.cpu_offloading_num_layers > 0) offload_activations(in, group, activation, work);
  if (s.offload_modules != 0) offload_module_activations(in, group, dense_layers, moe_layers, work);
  work.layer_stored_bytes =
      layers > 0 ? std::max(0.0, work.stored_activation_bytes - edge_bytes.stored) / layers : 0;
}

// Data parallelism's per-micro-batch time: sharded (ZeRO-2/3) traffic, and DeepSpeed's
// BF16_Optimizer accumulating the bf16 gradients into fp32 copies.
void add_stage_data_parallel(const PipelineInput& in, const StageGroup& group,
                             const StageLayers& stage, StageWork& work) {
  const Strategy& s = *in.strategy;
  work.zero3_comm_s = sharded_data_parallel_s(in, group, stage, work);
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  if (deepspeed_bf16_optimizer(in.framework, in.training->precision, s) && dp_cp > 1) {
    work.grad_accumulate_s =
        deepspeed_bf16_accumulate_s(gpu, work.parameters + work.expert_parameters);
  }
}

// stage_work_before_data_parallel of the stage's shape.
StageWork shaped_work_before_data_parallel(const PipelineInput& in, const StageGroup& group,
                                           const StageShape& shape) {
  const StageLayers& stage = shape.stage;
  StageWork work;
  const PassTime layers_forward = add_layer_passes(in, group, stage, work);
  work.parameters = stage.sum([](const LayerCost& l) { return l.parameters; });
  work.expert_parameters = stage.sum([](const LayerCost& l) { return l.expert_parameters; });
  const EdgeBytes edge_bytes = add_edges(in, group, stage.c, shape.mtp, work);
  add_activations(in, group, shape, layers_forward, edge_bytes, work);
  return work;
}

}  // namespace

StageWork stage_work_before_data_parallel(const PipelineInput& in, const StageGroup& group) {
  return shaped_work_before_data_parallel(in, group, stage_shape(in, group));
}

void add_data_parallel(const PipelineInput& in, const StageGroup& group, StageWork& work) {
  add_stage_data_parallel(in, group, stage_shape(in, group).stage, work);
}

StageWork stage_work(const PipelineInput& in, const StageGroup& group) {
  const StageShape shape = stage_shape(in, group);  // once for both parts
  StageWork work = shaped_work_before_data_parallel(in, group, shape);
  add_stage_data_parallel(in, group, shape.stage, work);
  return work;
}

}  // namespace paraplan::detail
