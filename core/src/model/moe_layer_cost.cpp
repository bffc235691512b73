// The MoE block of one layer: router, permutation, token dispatch, routed and shared experts.
#include <algorithm>
#include <cmath>

#include "model/a2a_pair_schedule.hpp"
#include "model/collectives.hpp"
#include "model/cost_builder.hpp"
#include "model/host_time.hpp"
#include "model/kernels.hpp"
#include "model/moe_dispatch.hpp"
#include "model/moe_memory.hpp"
#include "model/tp_comm_overlap.hpp"

namespace paraplan::detail {

double a2a_overlap_exposed_s(const A2aOverlapPair& p) {
  // The pair's time on the two streams (a2a_pair_schedule.hpp) over its compute alone.
  const double compute_s = p.pre_dispatch_forward_s + p.pre_dispatch_backward_s + p.mlp_forward_s +
                           p.mlp_backward_s + p.combine_compute_forward_s +
                           p.combine_compute_backward_s;
  return std::max(0.0, a2a_pair_period_s(p) - compute_s);
}

double a2a_overlap_exposed_s(double attention_forward_s, double attention_backward_s,
                             double experts_forward_s, double experts_backward_s, double dispatch_s,
                             double combine_s, bool delay_wgrad_compute) {
  return a2a_overlap_exposed_s(A2aOverlapPair{.pre_dispatch_forward_s = attention_forward_s,
                                              .pre_dispatch_backward_s = attention_backward_s,
                                              .mlp_forward_s = experts_forward_s,
                                              .mlp_backward_s = experts_backward_s,
                                              .dispatch_s = dispatch_s,
                                              .combine_s = combine_s,
                                              .delay_wgrad_compute = delay_wgrad_compute});
}

// The SMs the dispatcher's kernels hold while they run beside the other micro-batch's compute
// (--overlap-moe-expert-parallel-comm), and what that costs the compute per second hidden. On
// the SMs left it runs k / (SMs - k) longer (as Transformer Engine's SM margin,
// tp_comm_overlap.hpp), and at least the preset's overlap_slowdown: where measured (the Hopper
// presets) a GEMM beside a copy kernel of 4-48 thread blocks, NCCL's and DeepEP's range, lost
// more than the SMs' share, for its last wave waits on the SMs the blocks hold
// (scripts/calibration/measured/h200-overlap-2026-11-28.json: 0.09-0.43 by shape at 16 blocks,
// whose share is 0.14). NCCL's all-to-all takes one CTA per channel (the communicator's
// channels, the preset's memory_reserve nccl_channels_*); DeepEP's kernels take
// Buffer.num_sms, 20 by default (deep_ep/buffer.py; Megatron-LM --moe-deepep-num-sms, default
// 20), HybridEP's 16 (--moe-hybridep-num-sms; moe_dispatch.hpp). A GPU of unknown SM count: the
// preset's overlap_slowdown.
double a2a_overlap_slowdown(const GpuSpec& gpu, const Strategy& s, const Group& ep_group) {
  const double sms = sm_count(gpu);
  const double taken =
      s.moe_token_dispatcher_type == MoeDispatcher::flex
          ? flex_dispatcher_sms(s)
          : static_cast<double>(ep_group.spans_nodes ? gpu.memory_reserve.nccl_channels_inter_node
                                                     : gpu.memory_reserve.nccl_channels_intra_node);
  if (sms <= taken) return gpu.overlap_slowdown;
  return std::max(gpu.overlap_slowdown, taken / (sms - taken));
}

// What the parts of the MoE block share: the dispatch's rows and times, the block's own forward
// and backward (for the overlaps), and the all-to-all overlap's pair.
struct CostBuilder::MoeBlock {
  MoeDispatch d;
  double n = 0;        // this GPU's tokens at the MoE input
  double experts = 0;  // routed experts
  LayerCost block;     // the block's own forward and backward, for the overlaps below
  A2aOverlapPair pair;
  double permutation_s = 0;  // the permute and unpermute, each direction
};

void CostBuilder::moe_router(LayerCost& cost, MoeBlock& m) const {
  // Router on this GPU's tokens: gating GEMM, fp32 softmax and top-k over the experts. Its
  // forward launches the router region's kernels (host_time.cpp: 72, or 31 with
  // --moe-router-fusion, per Megatron-LM's DeepSeek-V3 GB200 guide, section 2.1.4), each at
  // least the GPU's gap between dependent kernels: two are priced here (the GEMM, one memory
  // pass), the rest add their kernel overhead. The backward's kernel count is not published.
  const Gemm router{m.n, m.experts, h_};
  const double router_kernels = host_ops(HostRegion::moe_router, model_, s_).torch_ops;
  m.block.forward.compute_s += kernels_.gemm_s(router) +
                               kernels_.memory_s(3 * 4 * m.n * m.experts) +
                               std::max(0.0, router_kernels - 2) * gpu_.kernel_overhead_s;
  m.block.backward.compute_s += kernels_.dgrad_s(router) + kernels_.wgrad_s(router) +
                                kernels_.memory_s(3 * 4 * m.n * m.experts);
  // What the overlap's schedule runs before the dispatch (pre_dispatch_computation, below).
  m.pair = {.pre_dispatch_forward_s = m.block.forward.compute_s,
            .pre_dispatch_backward_s = m.block.backward.compute_s};
  cost.parameters += h_ * m.experts;
  cost.forward_flops += router.flops();
  // The dispatcher syncs the host after the router (host_time.hpp): what the GPU runs before.
  cost.pre_sync_forward_s = cost.forward.total_s() + m.block.forward.total_s();
}

void CostBuilder::moe_permutation(MoeBlock& m) const {
  // Permutation into expert order and the unpermute (moe_utils.py permute/unpermute): a row
  // gather (read and write), then reading the expert rows into the token rows. Unfused, the
  // unpermute zero-fills its output and scatter-adds (read, and read-modify-write of the sum
  // per row added). The probs weight the rows inside the experts' activation (experts.py
  // weighted_bias_swiglu_impl; since Megatron-Core 0.12, before it in the unpermute).
  const double row = e_ * h_;
  const double permute_bytes = 2 * row * m.d.permuted_rows;
  const double unpermute_bytes = s_.moe_permute_fusion
                                     ? row * (m.d.unpermute_in_rows + m.d.unpermute_out_rows)
                                     : row * (3 * m.d.unpermute_in_rows + m.d.unpermute_out_rows);
  // Unfused, the unpermute's scatter-add runs with atomics (GpuSpec::scatter_add_over_copy), and so
  // does the permute's backward (index_add_, over as many rows), while the unpermute's backward
  // gathers: each direction has one gather and one scatter-add. Transformer Engine's fused
  // kernels (moe_permute_fusion) gather both ways.
  const double gather_s = kernels_.memory_s(permute_bytes);
  const double scatter_s = s_.moe_permute_fusion ? kernels_.memory_s(unpermute_bytes)
                                                 : kernels_.scatter_add_s(unpermute_bytes);
  // The all-to-all dispatcher's sort back by source rank (MoeDispatch::unsorted_rows): a read
  // and a write of the experts' output rows, in the experts' node (combine_preprocess runs
  // after the experts, before the combine), and its backward a sort into expert order again.
  const double unsort_s = kernels_.memory_s(2 * row * m.d.unsorted_rows);
  m.permutation_s = gather_s + scatter_s + unsort_s;
  m.block.forward.compute_s += m.permutation_s;
  m.block.backward.compute_s += m.permutation_s;
  // The all-to-all dispatcher permutes before its dispatch and unpermutes after its combine
  // (token_dispatcher.py MoEAlltoAllTokenDispatcher dispatch_preprocess, combine_postprocess):
  // in the overlap's schedule the permute runs in pre_dispatch_computation and the unpermute in
  // the combine's node, on the communication stream (fine_grained_callables.py
  // submodule_combine_forward). The flex dispatcher does both between dispatch and combine
  // (dispatch_postprocess, combine_preprocess), in the mlp node.
  if (s_.moe_token_dispatcher_type == MoeDispatcher::alltoall) {
    m.pair.pre_dispatch_forward_s += gather_s;
    m.pair.pre_dispatch_backward_s += scatter_s;
    m.pair.combine_compute_forward_s = scatter_s;
    m.pair.combine_compute_backward_s = gather_s;
  }
}

void CostBuilder::moe_routed_experts(LayerCost& cost, MoeBlock& m) {
  const MoeSpec& moe = *model_.moe;
  const double top_k = static_cast<double>(moe.top_k);
  const double local_experts = m.experts / static_cast<double>(s_.expert_model_parallel_size);
  const double expert_ffn = static_cast<double>(moe.moe_ffn_hidden_size);
  const double et = static_cast<double>(s_.expert_tensor_parallel());
  // Routed experts on the rows the busiest GPU receives, width split by expert tensor parallel.
  const double before_experts_s = m.block.forward.compute_s;
  const MlpTime routed =
      mlp(m.block, m.d.expert_rows, expert_ffn, local_experts, et, s_.moe_grouped_gemm);
  // SequentialMLP's loop starts behind `tokens_per_expert.tolist()`, a host sync that empties
  // the GPU's queue (experts.py), so the GPU runs its experts no faster than the host issues
  // them. DeepSpeed's and Colossal-AI's experts loop the same way (deepspeed/moe/experts.py;
  // DeepSpeed's behind its all-to-all, not a sync: a head start not credited). The backward has
  // no sync: the host catches up behind the rest of the stage's backward (pipeline_model.cpp).
  // The host's time per expert: the GPU preset's (hardware.hpp HostIssueCost).
  if (!s_.moe_grouped_gemm && local_experts > 1) {
    const double experts_forward_s = m.block.forward.compute_s - before_experts_s;
    const HostIssueCost& host = gpu_.host_issue;
    m.block.forward.compute_s +=
        std::max(0.0, local_experts * host.sequential_mlp_expert_forward_s - experts_forward_s);
    cost.expert_loop_host_backward_s = local_experts * host.sequential_mlp_expert_backward_s;
  }
  cost.unit(RecomputeModule::moe_act) = routed.activation;
  // experts.py: expert_fc1's region saves the permuted rows (fc1's input), moe_act's the fc1
  // output (the activation's input).
  cost.offload(OffloadModule::expert_fc1) += saved_input_bytes_ * h_ * m.d.expert_rows;
  cost.offload(OffloadModule::moe_act) += routed.fc1_output_bytes;
  cost.expert_parameters += local_experts * mlp_weights(expert_ffn) / et;
  cost.forward_flops += 2 * m.n * top_k * et * mlp_weights(expert_ffn) / et;
}

// The rows each local expert's fp8 GEMMs need to be a multiple of, by recipe (Megatron-LM
// fp8_utils.py get_fp8_align_size at 92c8482e6d and get_align_size_for_quantization after it:
// 32 for MXFP8's blocks of 32, 16 otherwise).
namespace {
double fp8_rows_alignment(Fp8Recipe recipe) { return recipe == Fp8Recipe::mxfp8 ? 32 : 16; }
}  // namespace

// Whether Megatron-Core's experts copy their rows to pad each local expert's to the fp8 GEMMs'
// alignment (experts.py TEGroupedMLP: quantization_padding / fp8_padding, Transformer Engine's
// Fp8Padding and Fp8Unpadding; SequentialMLP _pad_tensor_for_quantization), Megatron-Core 0.14
// to 0.18 (the pins of Megatron-Bridge 25.09 to 26.06: 92c8482e6d, 4415119414, 002255075c).
// Not where the dispatcher has padded them already (HybridEP pads its dispatch to the alignment,
// token_dispatcher.py pad_multiple; moe_utils.py skip_routed_expert_padding), nor where every
// expert's rows are aligned (Fp8Padding.forward returns its input when `m_splits ==
// padded_m_splits`): a dropless layer's routed counts vary, so some are not; padded to capacity
// every expert gets capacity x expert tensor x expert parallel rows (token_dispatcher.py
// num_tokens_per_local_expert), capacity = ceil(tokens x top_k / experts x factor)
// (moe_utils.py get_capacity). Megatron-LM --moe-router-padding-for-fp8 (padding the routing map
// instead) is off by default and in the Qwen3 and DeepSeek recipes (Megatron-Bridge
// qwen3_moe.py, deepseek_v3.py): not a strategy key.
bool CostBuilder::experts_pad_rows_for_fp8(const MoeBlock& m) const {
  if (training_.precision != Precision::fp8 || !framework_.transformer_engine) return false;
  if (s_.moe_token_dispatcher_type == MoeDispatcher::flex &&
      s_.moe_flex_dispatcher_backend == MoeFlexBackend::hybridep) {
    return false;
  }
  if (!s_.drop_and_pad()) return true;
  const double top_k = static_cast<double>(model_.moe->top_k);
  const double capacity = std::ceil(m.n * top_k / m.experts * s_.moe_expert_capacity_factor);
  const double rows = capacity * static_cast<double>(s_.expert_tensor_parallel()) *
                      static_cast<double>(s_.expert_model_parallel_size);
  return std::fmod(rows, fp8_rows_alignment(s_.fp8_recipe)) != 0;
}

// The padding's copies (experts_pad_rows_for_fp8): tex.fused_multi_row_padding of the experts'
// input rows and of their probs (fp32, one a row) before them, fused_multi_row_unpadding of
// their output rows after them, each a read and a write of the rows; the backward copies the
// three gradients back the other way (fp8_padding.py, fp8_unpadding.py _Fp8Padding.backward,
// _Fp8Unpadding.backward).
void CostBuilder::moe_fp8_padding(MoeBlock& m) const {
  if (!experts_pad_rows_for_fp8(m)) return;
  constexpr double kProbBytes = 4;  // the dispatcher's fp32 probs
  const double row_copy_s = kernels_.memory_s(2 * e_ * h_ * m.d.expert_rows);
  const double probs_copy_s = kernels_.memory_s(2 * kProbBytes * m.d.expert_rows);
  const double copies_s = 2 * row_copy_s + probs_copy_s;
  m.block.forward.compute_s += copies_s;
  m.block.backward.compute_s += copies_s;
}

void CostBuilder::moe_shared_experts_and_dispatch(LayerCost& cost, MoeBlock& m) {
  const MoeSpec& moe = *model_.moe;
  const double expert_ffn = static_cast<double>(moe.moe_ffn_hidden_size);
  // Dispatch and combine collectives; their backward mirrors them.
  const double dispatch_s = m.d.dispatch_s + m.d.combine_s;
  double& comm_forward =
      s_.expert_model_parallel_size > 1 ? m.block.forward.ep_comm_s : m.block.forward.tp_comm_s;
  double& comm_backward =
      s_.expert_model_parallel_size > 1 ? m.block.backward.ep_comm_s : m.block.backward.tp_comm_s;

  // Shared experts: a dense MLP over tensor parallel with its own sequence-parallel
  // collectives; with --moe-shared-expert-overlap on a side stream, its compute under the
  // dispatcher's communication and its collectives under the permutation.
  LayerCost shared;
  if (moe.num_shared_experts > 0) {
    const double shared_ffn = static_cast<double>(moe.num_shared_experts) * expert_ffn;
    const MlpTime time = mlp(shared, tokens_, shared_ffn, 1.0, t_);
    block_tp_comm(shared, time.fc1, time.fc2);
    const double flops = 2 * tokens_ * mlp_weights(shared_ffn) / t_;
    cost.unit(RecomputeModule::shared_experts) = {shared.activation_bytes, shared.forward, flops};
    cost.parameters += mlp_weights(shared_ffn) / t_;
    cost.forward_flops += flops;
  }
  const bool shared_overlap = s_.moe_shared_expert_overlap && moe.num_shared_experts > 0 &&
                              s_.moe_token_dispatcher_type != MoeDispatcher::allgather;
  if (shared_overlap) {
    comm_forward += exposed_s(gpu_, dispatch_s, shared.forward.compute_s);
    comm_backward += exposed_s(gpu_, dispatch_s, shared.backward.compute_s);
    m.block.forward.compute_s += shared.forward.compute_s;
    m.block.backward.compute_s += shared.backward.compute_s;
    m.block.forward.tp_comm_s += exposed_s(gpu_, shared.forward.tp_comm_s, m.permutation_s);
    m.block.backward.tp_comm_s += exposed_s(gpu_, shared.backward.tp_comm_s, m.permutation_s);
  } else {
    comm_forward += dispatch_s;
    comm_backward += dispatch_s;
    m.block.forward += shared.forward;
    m.block.backward += shared.backward;
    // pre_dispatch_computation runs the shared experts before the router
    // (fine_grained_callables.py submodule_pre_dispatch_forward: shared_experts_compute).
    m.pair.pre_dispatch_forward_s += shared.forward.compute_s;
    m.pair.pre_dispatch_backward_s += shared.backward.compute_s;
  }
  // HybridEP's routing-map all-gather runs before its dispatch, with nothing beside it.
  comm_forward += m.d.routing_map_gather_s;
  m.block.activation_bytes += shared.activation_bytes;
}

void CostBuilder::moe_elementwise(MoeBlock& m) {
  // The pre-MLP norm and the residual add: counted with pre_dispatch_computation.
  const double before_elementwise_forward_s = m.block.forward.compute_s;
  const double before_elementwise_backward_s = m.block.backward.compute_s;
  block_elementwise(m.block);
  m.pair.pre_dispatch_forward_s += m.block.forward.compute_s - before_elementwise_forward_s;
  m.pair.pre_dispatch_backward_s += m.block.backward.compute_s - before_elementwise_backward_s;
}

void CostBuilder::moe_a2a_overlap(LayerCost& cost, MoeBlock& m) const {
  if (s_.overlap_moe_expert_parallel_comm) {
    const double comm = m.block.forward.ep_comm_s + m.block.backward.ep_comm_s;
    // The attention block before the MoE block runs in pre_dispatch_computation too; the mlp
    // node is the rest of the MoE block's compute.
    m.pair.mlp_forward_s = m.block.forward.compute_s - m.pair.pre_dispatch_forward_s -
                           m.pair.combine_compute_forward_s;
    m.pair.mlp_backward_s = m.block.backward.compute_s - m.pair.pre_dispatch_backward_s -
                            m.pair.combine_compute_backward_s;
    m.pair.pre_dispatch_forward_s += cost.forward.compute_s;
    m.pair.pre_dispatch_backward_s += cost.backward.compute_s;
    m.pair.dispatch_s = m.d.dispatch_s;
    m.pair.combine_s = m.d.combine_s;
    m.pair.delay_wgrad_compute = s_.delay_wgrad_compute;
    // The all-to-all the streams alone leave exposed, and what the host adds: it issues both
    // micro-batches' nodes in one order and waits at the forward's dispatcher sync
    // (a2a_pair_schedule.hpp); that wait is charged with the exposed all-to-all.
    const double exposed = a2a_overlap_exposed_s(m.pair);
    const LayerHostTime host =
        layer_host_time(model_, s_, gpu_, true, framework_.transformer_engine,
                        training_.precision == Precision::fp8);
    set_a2a_pair_host_s(host, s_, m.pair);
    m.pair.host_sync = a2a_host_sync(s_, host);
    if (m.pair.host_sync != A2aHostSync::none) m.pair.sync_gap_s = host.sync_gap_s;
    // The all-to-all dispatcher's permute runs after its count copy (its gather, which the
    // combine's backward repeats: moe_permutation).
    m.pair.pre_dispatch_forward_after_copy_s = m.pair.combine_compute_backward_s;
    const double host_exposed = a2a_overlap_exposed_s(m.pair);
    const Group ep_group =
        place_group(s_.expert_model_parallel_size, s_.expert_tensor_parallel(), gpus_per_node_);
    const double charged = std::max(exposed, host_exposed) +
                           a2a_overlap_slowdown(gpu_, s_, ep_group) * std::max(0.0, comm - exposed);
    const double forward_s = m.block.forward.ep_comm_s, backward_s = m.block.backward.ep_comm_s;
    m.block.forward.ep_comm_s = comm > 0 ? charged * forward_s / comm : 0;
    m.block.backward.ep_comm_s = comm > 0 ? charged * backward_s / comm : 0;
    // An unpaired pass runs its all-to-all alone: the pair's charge replaced by the all-to-all,
    // less than nothing where the pair's host wait (host_exposed) outlasts the whole all-to-all
    // (layer_passes_s, the search's floor of a layer, takes that into account).
    cost.a2a_unpaired_forward_s = forward_s - m.block.forward.ep_comm_s;
    cost.a2a_unpaired_backward_s = backward_s - m.block.backward.ep_comm_s;
    cost.a2a_paired = true;
    cost.a2a_send_window_s = std::max(
        0.0, m.pair.pre_dispatch_backward_s - m.pair.combine_s - m.pair.combine_compute_forward_s);
  }
}

// Router, token dispatch, routed and shared experts (Megatron-LM MoELayer: router.py,
// token_dispatcher.py, experts.py, shared_experts.py).
void CostBuilder::moe_block(LayerCost& cost) {
  const MoeSpec& moe = *model_.moe;
  MoeBlock m;
  m.experts = static_cast<double>(moe.num_experts);
  m.n = norm_tokens_;  // this GPU's tokens at the MoE input
  m.d = moe_dispatch(gpu_, model_, s_, gpus_per_node_, m.n, e_);
  add_norm_recompute(cost);  // the pre-MLP norm stands alone before the router
  const double flops_before = cost.forward_flops;

  moe_router(cost, m);
  moe_permutation(m);
  moe_routed_experts(cost, m);
  moe_fp8_padding(m);
  moe_shared_experts_and_dispatch(cost, m);
  moe_elementwise(m);
  moe_a2a_overlap(cost, m);
  cost.forward += m.block.forward;
  cost.backward += m.block.backward;

  // Kept for backward: the experts' own (in mlp: the activation's input serves the gradient of
  // the probs too) and their fc1 input; the router's fp32 scores and its routing map. The
  // unpermute keeps only its row map (moe_utils.py; Transformer Engine's moe_unpermute saves
  // its input only when it merges probs, which Megatron-Core leaves to the experts).
  const double kept = m.block.activation_bytes + saved_input_bytes_ * h_ * m.d.expert_rows +
                      (4 + 1) * m.n * m.experts;
  cost.activation_bytes += kept;
  // The dispatcher's rows and the attention's buffers are never held at once.
  cost.transient_bytes =
      std::max(cost.transient_bytes, moe_transient_bytes(m.d, h_, m.n, m.experts, e_));
  // --recompute-modules moe: the whole layer, dispatch included, again from its input.
  cost.unit(RecomputeModule::moe) = {kept, m.block.forward, cost.forward_flops - flops_before};
}

}  // namespace paraplan::detail
