// CUDA graphs' memory, as Megatron-LM (d98e8a64ddf3) and Transformer Engine (d0067d0) allocate it
// (docs/model.md section 2, "CUDA graphs").
//
// What every implementation shares, and so adds nothing here: a graph's saved activations live in
// its private memory pool from its forward to its backward, as the same tensors would without
// graphs (the pool is captured in execution order, TE graph.py "All captures here share a
// mempool", Megatron cuda_graphs.py CudaGraphManager.global_mempool), so the activations term
// already prices them.
#include "model/cuda_graph_memory.hpp"

#include <algorithm>

#include "model/layer_cost.hpp"
#include "model/moe_dispatch.hpp"

namespace paraplan::detail {
namespace {

// megatron/core/transformer/module.py get_layer_static_inputs: the hidden-state input of each
// graphed layer is torch.bfloat16, [s / cp (/ tp with sequence parallelism), b, h].
constexpr double kStaticHiddenBytes = 2;
// megatron/core/transformer/transformer_layer.py get_layer_static_inputs: a graph that captures
// the attention also takes a causal attention_mask, torch.bool [b, 1, s / cp, s].
constexpr double kStaticMaskBytes = 1;
// megatron/core/full_cuda_graph.py StaticBufferLoader: each micro-batch's batch is copied into a
// static buffer of its own: tokens, labels, position_ids (int64) and loss_mask (float32) per token.
constexpr double kFullIterationBatchBytesPerToken = 8 + 8 + 8 + 4;

}  // namespace

double cuda_graph_bytes(const PipelineInput& in, const StageGroup& group, double in_flight) {
  const Strategy& s = *in.strategy;
  if (s.cuda_graph_impl == CudaGraphImpl::none) return 0;
  const double b = static_cast<double>(s.micro_batch_size);
  const double seq = static_cast<double>(in.training->seq_length);
  const double cp_seq = seq / static_cast<double>(s.context_parallel_size);
  if (s.full_iteration_graph()) {
    // The whole forward-backward is one graph: its activations are the same tensors in its pool;
    // what it adds is every micro-batch's input batch, read before the replay (data_read).
    return kFullIterationBatchBytesPerToken * b * cp_seq * static_cast<double>(in.micro_batches);
  }
  // CudaGraphManager (local): an input that is another graph's output reuses that graph's buffer
  // (cuda_graphs.py create_fwd_graph, _resolve_input_buffer: fwd_cudagraph_buffer), one that
  // comes from eager code is a fresh pool buffer standing for the eager tensor, which nothing
  // else keeps; it records the arguments the layer is called with (no mask of its own).
  if (s.cuda_graph_impl == CudaGraphImpl::local) return 0;

  // Transformer Engine's make_graphed_callables (Megatron's TECudaGraphHelper): a forward and a
  // backward graph per layer and micro-batch (num_layers * num_microbatches callables, one
  // micro-batch without pipeline parallelism), each with static inputs from
  // TECudaGraphHelper._get_sample_arguments. A micro-batch's buffers are reused by a later one
  // once its backward is done (_reuse_graph_input_output_buffers), so a stage holds one set per
  // layer and micro-batch in flight, for the whole run.
  const double layers = static_cast<double>(group.layers);
  const double pairs = in_flight * layers;
  const double sp = s.sequence_parallel ? static_cast<double>(s.tensor_model_parallel_size) : 1.0;
  const double hidden =
      kStaticHiddenBytes * cp_seq / sp * b * static_cast<double>(in.model->hidden_size);
  const bool whole_layer = s.cuda_graph_scope == 0;
  double bytes = 0;
  // The attention mask: only graphs that capture the attention take one, and nothing else holds
  // it (the eager layer gets none with causal fused attention).
  if (whole_layer || s.graphs(CudaGraphScope::attn))
    bytes += pairs * kStaticMaskBytes * b * cp_seq * seq;
  // Whole-layer graphs chain: a layer's static output stays in the pool until its backward is
  // captured (graph.py: per_callable_static_outputs, weak-referenced only then) while the next
  // layer's graph copies it into its own static input (Graphed.forward copy_). Where a graph
  // captures part of a layer its input is an eager tensor that nothing else keeps after the copy,
  // and its output is the tensor the eager code saves: no second copy.
  if (whole_layer) bytes += pairs * hidden;
  // The output gradients' buffers, one per output signature and shared by every graph
  // (graph.py static_grad_outputs_dict): the layers of a stage share one.
  bytes += hidden;
  return bytes;
}

double cuda_graph_pool_bytes(const PipelineInput& in, const StageGroup& group,
                             const StageWork& work, double held_bytes, double in_flight) {
  const Strategy& s = *in.strategy;
  if (s.cuda_graph_impl == CudaGraphImpl::none) return 0;
  // One graph of the whole forward-backward: every activation is its intermediate.
  if (s.full_iteration_graph()) return held_bytes;
  const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
  const double layers = static_cast<double>(group.layers);
  const double dense_layers = static_cast<double>(group.layers - group.moe_layers);
  const bool whole_layer = s.cuda_graph_impl == CudaGraphImpl::local || s.cuda_graph_scope == 0;
  double bytes = 0;
  if (whole_layer && group.moe_layers == 0) {
    // Whole-layer graphs of a dense stage: what each layer keeps for its backward is captured.
    // Transformer Engine's static input is a sample argument allocated outside the capture
    // (Megatron cuda_graphs.py TECudaGraphHelper._get_sample_arguments), so the layer's input
    // stays in the allocator's account; the local implementation's input buffer is a pool
    // buffer (cuda_graphs.py _resolve_input_buffer).
    const double input = s.cuda_graph_impl == CudaGraphImpl::local ? 0 : c.dense.checkpoint_bytes;
    bytes = in_flight * layers * std::max(0.0, work.layer_stored_bytes - input);
  } else if (!whole_layer && s.graphs(CudaGraphScope::mlp) &&
             !recomputes_on_its_own(s.recompute[static_cast<size_t>(group.pool)],
                                    RecomputeModule::mlp)) {
    // The dense MLP's graph: what the MLP keeps beyond its input (the FC1 output and the
    // activation's output; layer_cost.cpp dense_mlp_block), for each dense layer and micro-batch
    // in flight. With --recompute-modules mlp the graph keeps only its input, the sample
    // argument.
    bytes = in_flight * dense_layers * c.dense.unit(RecomputeModule::mlp).saved_bytes;
  }
  return std::min(bytes, held_bytes);
}

// PyTorch's caching allocator under capture (c10/cuda/CUDACachingAllocator.cpp, free): a freed
// block that another stream used (recordStream) waits for that stream's event before it is found
// again, and "it's forbidden to cudaEventQuery an event recorded during CUDA graph capture", so
// the allocator defers it (`needs_events_deferred_until_no_capture`) until no capture is
// underway; malloc skips process_events while one is ("Cross-stream memory use is uncommon, so
// the deferral's effect on memory use during capture should be small"), unless
// PYTORCH_CUDA_ALLOC_CONF sets graph_capture_record_stream_reuse, whose
// free_safe_blocks_in_capture reuses them. Megatron-LM's A2A overlap
// (--overlap-moe-expert-parallel-comm) makes exactly that use: its schedule nodes run on the
// computation and communication streams in turn, and a node that frees its input records the
// input on its own stream first (pipeline_parallel/utils.py ScheduleNode._forward:
// `input.record_stream(self.stream)`, then `untyped_storage().resize_(0)`). Which nodes free
// their input (models/common/utils.py should_free_input): `moe_combine` always (the experts'
// output rows); `mlp` (the dispatched rows) with fp8, or with more than one local expert or a
// dispatcher other than alltoall (Paraplan's flex dispatcher is DeepEP's); `moe_dispatch` (the
// permuted rows) except with the flex dispatcher. Inside a full-iteration graph
// (full_cuda_graph.py: one capture of forward_backward_func) none of those blocks is reused until
// the capture ends: every MoE layer's and micro-batch's freed rows stay reserved. The forward's
// alone are priced (the backward's output gradients, `g.record_stream(self.stream)`, are left out:
// this is the least the capture holds). Megatron-Bridge issue #4587 (OOM14, Qwen3 30B-A3B in
// mxfp8 with a full-iteration graph and the A2A overlap) ran out of memory when launched without
// the performance launcher's "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,
// graph_capture_record_stream_reuse:True"; with it the same launch ran (RAN15). The strategy key
// graph_capture_record_stream_reuse is that setting; expandable_segments alone does not lift the
// deferral (scripts/calibration/measured/h200-capture-reuse-2026-11-28.json: 16 captured steps
// freeing 64 MiB after a side stream's use keep 1,090 MiB reserved by default, 1,122 MiB with
// expandable_segments alone, 130 MiB with graph_capture_record_stream_reuse).
double cuda_graph_deferred_bytes(const PipelineInput& in, const StageGroup& group) {
  const Strategy& s = *in.strategy;
  if (!s.full_iteration_graph() || !s.overlap_moe_expert_parallel_comm ||
      s.graph_capture_record_stream_reuse || group.moe_layers == 0 || !in.model->moe) {
    return 0;
  }
  const MoeSpec& moe = *in.model->moe;
  const double element = activation_element_bytes(in.training->precision);
  const double tokens = static_cast<double>(s.micro_batch_size) *
                        static_cast<double>(in.training->seq_length) /
                        static_cast<double>(s.context_parallel_size);
  const bool sp = s.sequence_parallel && s.tensor_model_parallel_size > 1;
  const double local_tokens =
      sp ? tokens / static_cast<double>(s.tensor_model_parallel_size) : tokens;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  const MoeDispatch d =
      moe_dispatch(gpu, *in.model, s, in.cluster->gpus_per_node, local_tokens, element);
  const bool flex = s.moe_token_dispatcher_type == MoeDispatcher::flex;
  const bool fp8 = in.training->precision == Precision::fp8;
  const bool several_local = moe.num_experts > s.expert_model_parallel_size;
  const bool free_mlp =
      fp8 || several_local || s.moe_token_dispatcher_type != MoeDispatcher::alltoall;
  double rows = d.expert_rows;  // moe_combine's input: the experts' output
  if (free_mlp) rows += d.expert_rows;
  if (!flex) rows += d.permuted_rows;
  return rows * static_cast<double>(in.model->hidden_size) * element *
         static_cast<double>(group.moe_layers) * static_cast<double>(in.micro_batches);
}

}  // namespace paraplan::detail
