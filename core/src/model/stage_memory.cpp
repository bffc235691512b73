#include <algorithm>

#include "model/cuda_graph_memory.hpp"
#include "model/deepspeed_zero.hpp"
#include "model/memory_reserve.hpp"
#include "model/optimizer_offload.hpp"
#include "model/parameter_bytes.hpp"
#include "model/pipeline_model.hpp"
#include "model/pipelining_memory.hpp"
#include "model/torchtitan_fsdp.hpp"

namespace paraplan::detail {

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

// What Megatron-LM's schedule keeps beyond the layers' saved activations when the strategy asks
// for it (nothing at Megatron-LM's defaults), `boundary_bytes` being one micro-batch's layer input
// and `logits_bytes` its 16-bit logits on this GPU:
// - deallocate_pipeline_outputs off: every in-flight micro-batch's output of each of the rank's
//   chunks that sends it on stays whole until that micro-batch's backward (pipeline_parallel/
//   schedules.py: output_tensors.append(output_tensor); deallocate_output_tensor returns at once
//   unless deallocate_pipeline_outputs); no layer saves it (a block's last op, the residual add,
//   saves no output). Without pipelining the schedule keeps nothing.
// - defer_embedding_wgrad_compute, on the last stage: the first wgrad_deferral_limit micro-batches
//   (0: all) keep the output layer's input (tensor_parallel/layers.py ColumnParallelLinear.forward:
//   embedding_activation_buffer.append(input_parallel)) and their logits gradient cast to the
//   input's dtype (LinearWithGradAccumulationAndAsyncCommunication.backward: grad_output.to(
//   ctx.input_dtype), grad_output_buffer.append) until the flush drains them (utils.py
//   drain_embedding_wgrad_compute, from schedules.py finish_embedding_wgrad_compute before
//   finalize_model_grads); with sequence parallelism the drain all-gathers each input into two
//   global buffers ("mpu_0", "mpu_1"), which stay allocated.
double megatron_schedule_bytes(const PipelineInput& in, const StageGroup& group, int64_t index,
                               double in_flight) {
  const Strategy& s = *in.strategy;
  if (in.stages <= 1) return 0;
  const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
  const double boundary_bytes = c.dense.checkpoint_bytes;
  const int64_t virtual_stages = s.virtual_pipeline_model_parallel_size;
  const int64_t chunks = in.stages * virtual_stages;
  double bytes = 0;
  if (!s.deallocate_pipeline_outputs) {
    int64_t senders = 0;
    for (int64_t k = 0; k < virtual_stages; ++k) senders += index + k * in.stages + 1 < chunks;
    bytes += in_flight * static_cast<double>(senders) * boundary_bytes;
  }
  if (s.defer_embedding_wgrad_compute && index + 1 == in.stages) {
    const int64_t deferred = s.wgrad_deferral_limit == 0
                                 ? in.micro_batches
                                 : std::min(s.wgrad_deferral_limit, in.micro_batches);
    const double logits_bytes =
        activation_element_bytes(in.training->precision) * c.head.logit_elements;
    const double gather_buffers = s.sequence_parallel && s.tensor_model_parallel_size > 1
                                      ? 2.0 * static_cast<double>(s.tensor_model_parallel_size)
                                      : 0;
    bytes += static_cast<double>(deferred) * (boundary_bytes + logits_bytes) +
             gather_buffers * boundary_bytes;
  }
  return bytes;
}

// The stage's parameters as one GPU of `group` holds them: the ZeRO stage in use, the bytes per
// parameter and the parameter counts, whole and sharded.
struct ParameterShares {
  int zero = 0;
  ParameterBytes bytes;
  double edges = 0, layers = 0, all = 0, shard = 0, expert_shard = 0, sharded = 0, unit = 0;
};

ParameterShares parameter_shares(const PipelineInput& in, const StageGroup& group,
                                 const StageWork& work) {
  const Strategy& s = *in.strategy;
  const int64_t dp_cp = in.data_parallel * s.context_parallel_size;
  ParameterShares p;
  p.zero = dp_cp > 1 ? s.zero_stage : 0;
  p.bytes = parameter_bytes(in.training->precision, s,
                            in.cluster->pools[static_cast<size_t>(group.pool)].gpu);
  p.edges = work.edge_parameters;
  p.layers = work.parameters - p.edges + work.expert_parameters;
  p.all = p.layers + p.edges;
  p.shard = 1 / static_cast<double>(dp_cp);
  p.expert_shard = 1 / static_cast<double>(s.expert_data_parallel(in.data_parallel));
  p.sharded = work.parameters * p.shard + work.expert_parameters * p.expert_shard;
  // One layer's parameters (what Megatron-FSDP gathers, and reduces, at a time).
  p.unit = p.layers / static_cast<double>(std::max<int64_t>(1, group.layers));
  return p;
}

// Weights and gradients as the framework keeps them (deepspeed_zero.hpp, torchtitan_fsdp.hpp),
// else as Megatron-LM does.
double weights_bytes(const PipelineInput& in, const StageGroup& group, const StageWork& work,
                     const ParameterShares& shares) {
  const Strategy& s = *in.strategy;
  const auto& [zero, bytes, edges, layers, all, shard, expert_shard, sharded, unit] = shares;
  if (zero == 3 && deepspeed_zero3(in.framework, s)) {
    // DeepSpeed ZeRO-3: this GPU's 16-bit shard, the submodule being used and the one
    // prefetched, as far as stage3_max_live_parameters lets prefetch go (the one in use is
    // always gathered).
    const double fetch = unit / zero3_fetches_per_layer(*in.model, s, group.moe_layers > 0);
    const double live = std::max(fetch, std::min(kDeepSpeed.max_live_parameters, 2 * fetch));
    return bytes.edge_weight * (sharded + live);
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
    return bytes.layer_gather * (whole ? layers : std::min(layers, 2 * unit)) +
           bytes.edge_weight * (whole ? edges : head);
  } else if (zero == 3) {
    // Megatron-FSDP: this GPU's shard of the weights, plus the layers gathered for compute and
    // prefetch (double buffer).
    return bytes.layer_weight * ((work.parameters - edges) * shard +
                                 work.expert_parameters * expert_shard + 2 * unit) +
           bytes.edge_weight * edges * shard;
  } else {
    return bytes.layer_weight * layers + bytes.edge_weight * edges;
  }
}

double gradients_bytes(const PipelineInput& in, const ParameterShares& shares) {
  const Strategy& s = *in.strategy;
  const Precision precision = in.training->precision;
  const auto& [zero, bytes, edges, layers, all, shard, expert_shard, sharded, unit] = shares;
  if (zero == 3 && deepspeed_zero3(in.framework, s)) {
    // DeepSpeed ZeRO-3: the gradient shard in the model dtype (grad_accum_dtype defaults to it
    // under ZeRO, engine.py get_data_types) and the contiguous reduce bucket (stage3.py
    // __ipg_bucket_flat_buffer, reduce_bucket_size elements).
    return bytes.edge_weight * (sharded + kDeepSpeed.reduce_bucket_elements);
  } else if (zero >= 2 && torchtitan_fsdp2(in.framework, s)) {
    // FSDP2: one block's 16-bit gradients and their fp32 copy for the reduce-scatter are whole
    // until it is done. With pipelines every unit's fp32 gradients stay whole until the stage's
    // last backward (fsdp2_keeps_unsharded), whose reduce-scatters make the shards as they free
    // the whole ones. The fp32 shards (reduce_dtype) of the last step are freed before the
    // forward (torchtitan train.py optimizers.zero_grad(), set_to_none by default) and those of
    // this step made as the backward frees the activations: at the peak they are cached on the
    // reduce-scatter stream, not allocated (side_stream_cache_bytes).
    const bool keeps = fsdp2_keeps_unsharded(in.stages);
    return kFsdp2ReduceBytes * (keeps ? all : unit) + bytes.edge_weight * unit;
  } else if (zero == 1 && deepspeed_bf16_optimizer(in.framework, precision, s)) {
    // BF16_Optimizer: the fp32 gradient copies of every parameter (fp32_groups_gradients_flat),
    // and the bf16 gradients autograd makes in each backward, set to None only before the next
    // (clear_lp_grads, set_to_none unless graph_harvesting).
    return (4 + bytes.edge_weight) * all;
  } else if (zero >= 1 && deepspeed_zero_optimizer(in.framework, precision, s)) {
    // DeepSpeed's ZeRO optimizer: 16-bit gradients (grad_accum_dtype defaults to the model
    // dtype under ZeRO), whole under ZeRO-1 and reduced into this rank's partition under
    // ZeRO-2, and the contiguous reduce bucket (stage_1_and_2.py ipg_buffer, reduce_bucket_size
    // elements).
    return bytes.edge_weight * ((zero == 2 ? sharded : all) + kDeepSpeed.reduce_bucket_elements);
  } else if (zero >= 2) {
    // Megatron-FSDP shards the main gradients in the weights' dtype; one layer's gradients are
    // whole until they are reduce-scattered.
    return bytes.fsdp_gradient * (sharded + unit);
  } else {
    return bytes.gradient * all;
  }
}

}  // namespace

double held_activation_bytes(const Strategy& s, const StageWork& work, double in_flight) {
  return in_flight * work.stored_activation_bytes + a2a_overlap_extra_bytes(s, work) +
         work.working_bytes;
}

StageMemory stage_memory(const PipelineInput& in, const StageGroup& group, const StageWork& work,
                         int64_t index) {
  const Strategy& s = *in.strategy;
  const ParameterShares shares = parameter_shares(in, group, work);
  StageMemory memory;
  memory.weights_bytes = weights_bytes(in, group, work, shares);
  memory.gradients_bytes = gradients_bytes(in, shares);
  // The optimizer's parameters; with --optimizer-cpu-offload a share of them in host memory.
  const double optimized = shares.zero >= 1 ? shares.sharded : shares.all;
  const double on_host = s.optimizer_host_fraction() * optimized;
  memory.optimizer_bytes = shares.bytes.optimizer * (optimized - on_host);
  const double in_flight = in_flight_micro_batches(
      index, in.stages, s.virtual_pipeline_model_parallel_size, in.micro_batches);
  memory.activations_bytes = held_activation_bytes(s, work, in_flight);
  memory.graph_pool_bytes =
      cuda_graph_pool_bytes(in, group, work, memory.activations_bytes, in_flight);
  memory.reserve = memory_reserve(
      in, group, memory.activations_bytes,
      side_stream_cache_bytes(in, s, shares.bytes, shares.unit, shares.sharded, shares.zero));
  // The MoE rows a full-iteration graph's capture frees but cannot reuse (cuda_graph_memory.cpp):
  // reserved by the caching allocator, not allocated, so counted with what it holds beyond the
  // live tensors.
  memory.reserve.fragmentation_bytes += cuda_graph_deferred_bytes(in, group);
  // PyTorch pipelining's buffers: allocated once per step's shapes, not fragmented.
  memory.activations_bytes += pipelining_bytes(in, group, in_flight);
  // Megatron-LM's kept stage outputs and deferred output-layer gradients: whole tensors kept
  // until a micro-batch's backward or the flush, counted with the activations, not fragmented.
  memory.activations_bytes += megatron_schedule_bytes(in, group, index, in_flight);
  // CUDA graphs' static buffers (cuda_graph_memory.cpp): allocated once, not fragmented.
  memory.activations_bytes += cuda_graph_bytes(in, group, in_flight + a2a_overlap_chunk(s));
  memory.host_bytes = in_flight * work.offloaded_bytes + kHostOptimizerBytesPerParameter * on_host;
  return memory;
}

}  // namespace paraplan::detail
