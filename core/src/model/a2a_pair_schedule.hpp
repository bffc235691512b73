// --overlap-moe-expert-parallel-comm as it runs: one micro-batch's forward of a MoE layer issued
// with another's backward of it on a compute and a communication stream, node by node, with the
// host that issues them (Megatron-LM model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run,
// pipeline_parallel/utils.py ScheduleNode). Internal to core/src/model.
#pragma once

#include "paraplan/strategy.hpp"

namespace paraplan::detail {

struct A2aOverlapPair;  // layer_cost.hpp
struct LayerHostTime;   // host_time.hpp

// Where the forward's dispatch node blocks the host until the GPU has the token counts
// (token_dispatcher.py). `compute_stream`: the all-to-all dispatcher copies the counts to the
// host on a side stream behind the router, in pre_dispatch_computation on the compute stream
// (cuda_dtoh_point before_permutation_1), and waits for that copy before its all-to-all
// (cuda_sync_point before_ep_alltoall, d2h_event.synchronize()). `communication_stream`: the
// copy is made in the dispatch node itself (the all-to-all dispatcher with a moe_preprocess
// CUDA graph: cuda_dtoh_point before_ep_alltoall), or the flex dispatcher's own kernels make
// the host wait for the received counts (DeepEP's Buffer.dispatch; HybridEP without
// num_permuted_tokens, fused_a2a.py non_blocking=False): the host waits until the
// communication stream reaches the dispatch.
enum class A2aHostSync { none, compute_stream, communication_stream };

A2aHostSync a2a_host_sync(const Strategy& strategy, const LayerHostTime& host);

// The host's issue time per node of the pair from the layer's eager host time (host_time.hpp):
// the attention block, router, preprocess and shared experts in pre_dispatch_computation, the
// routed experts, dispatch and combine in the mlp node; the backward's by the measured ratio.
void set_a2a_pair_host_s(const LayerHostTime& host, const Strategy& strategy, A2aOverlapPair& pair);

// The time one forward and one backward of a MoE layer take paired, in steady state (every
// layer of a model chunk pairs with the next the same way): each node starts when its stream
// is free, the node before it in its own micro-batch has finished (each micro-batch's nodes
// share one CUDA event: ScheduleNode.stream_acquire_context waits on it and records it;
// backward_dw records nothing), and the host has issued it; the host issues the nodes in
// TransformerLayerSchedulePlan.run's order and, at `host_sync`, waits for the GPU.
double a2a_pair_period_s(const A2aOverlapPair& pair);

}  // namespace paraplan::detail
