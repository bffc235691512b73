#include "model/moe_dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace paraplan::detail {
namespace {

// Per-expert load imbalance MaxVio = max_i load_i / mean load - 1 of a trained router, by how it
// balances its experts (Wang et al. 2024, "Auxiliary-Loss-Free Load Balancing Strategy for
// Mixture-of-Experts", arXiv:2408.15664, Table 2, 3B model). Not a property of the GPU or host
// but of the router's training, measured on one model: every MoE model takes its balancing
// method's row whatever its size or expert count.
struct RouterMaxVio {
  bool expert_bias;  // balanced by a per-expert bias (moe_router_enable_expert_bias)
  double max_vio;
  std::string_view source;
};
constexpr RouterMaxVio kRouterMaxVio[] = {
    {false, 0.52, "Wang et al. 2024 Table 2, 3B: auxiliary balancing loss, coefficient 0.001"},
    {true, 0.04, "Wang et al. 2024 Table 2, 3B: loss-free balancing by expert bias (DeepSeek-V3)"},
};

// The row of a router balanced by expert bias, or else by an auxiliary loss.
double router_max_vio(bool expert_bias) { return kRouterMaxVio[expert_bias ? 1 : 0].max_vio; }
static_assert(!kRouterMaxVio[0].expert_bias && kRouterMaxVio[1].expert_bias);

double tier_rate(const NetworkTier& tier, double chunk_bytes) {
  return tier.bandwidth_bytes_per_s * tier.efficiency.at(std::max(chunk_bytes, 1.0));
}

// DeepEP/HybridEP: a token travels once to each node it needs (RDMA, this GPU's NIC) and once
// over NVLink to each destination GPU it does not arrive on (DeepEP README, "normal kernels":
// NVLink and RDMA forwarding); both networks run at once. The kernels stream whole tokens to
// all peers at once, so efficiency follows the GPU's whole buffer, not a per-peer chunk (DeepEP
// README: 153 GB/s intranode on H800, about 0.77 of its 200 GB/s NVLink, for 4096 tokens of
// hidden 7168).
double deduplicated_all_to_all_s(const GpuSpec& gpu, const Group& group, double token_bytes,
                                 double rank_copies, double node_copies) {
  if (group.size <= 1 || token_bytes <= 0) return 0;
  const double n = static_cast<double>(group.size);
  const double m = static_cast<double>(group.members_per_node);
  const double nodes = group.spans_nodes ? n / m : 1.0;
  const double remote_nodes = group.spans_nodes ? node_copies * (1 - 1 / nodes) : 0.0;
  const double nvlink_copies = rank_copies * (1 - 1 / m);
  const double intra_s = nvlink_copies * token_bytes / tier_rate(gpu.intra_node, token_bytes) +
                         gpu.intra_node.latency_s;
  const double inter_s = group.spans_nodes
                             ? remote_nodes * token_bytes / tier_rate(gpu.inter_node, token_bytes) +
                                   gpu.inter_node.latency_s
                             : 0.0;
  return std::max(intra_s, inter_s);
}

}  // namespace

double dropless_load_imbalance(const ModelSpec& model, const Strategy& s) {
  const int64_t ep = s.expert_model_parallel_size;
  if (!model.moe || ep <= 1 || s.moe_router_force_load_balancing) return 1.0;
  const double experts = static_cast<double>(model.moe->num_experts);
  const double max_vio = router_max_vio(model.moe->moe_router_enable_expert_bias);
  // Expected maximum of `ep` Gaussian loads, each the sum of experts/ep independent experts:
  // the per-expert MaxVio over `experts` loads scaled by sqrt(ln ep / ln experts) for the
  // maximum and 1/sqrt(experts/ep) for the sum (extreme value sigma sqrt(2 ln n)).
  const double ranks = static_cast<double>(ep);
  const double scale = std::sqrt(std::log(ranks) / std::log(std::max(experts, 2.0))) /
                       std::sqrt(std::max(experts / ranks, 1.0));
  return 1.0 + max_vio * scale;
}

// Token dropping (Megatron-LM --moe-expert-capacity-factor): the router keeps at most
// ceil(tokens x top_k / experts x factor) of each expert's tokens (moe_utils.py get_capacity,
// apply_router_token_dropping), so no GPU's experts take more than the factor times the balanced
// share; with --moe-pad-expert-input-to-capacity every expert's input is padded to exactly that
// (token_dispatcher.py: num_tokens_per_local_expert = capacity x tp x ep), balanced or not.
// NeMo's MegatronTokenDropCallback sets a factor of 1.0 with padding.
double expert_load_imbalance(const ModelSpec& model, const Strategy& s) {
  const double dropless = dropless_load_imbalance(model, s);
  if (!model.moe || s.moe_expert_capacity_factor <= 0) return dropless;
  if (s.moe_pad_expert_input_to_capacity) return s.moe_expert_capacity_factor;
  return std::min(dropless, s.moe_expert_capacity_factor);
}

double distinct_destinations(double experts, double top_k, double ranks) {
  if (ranks <= 1) return 1.0;
  // A member holds experts/ranks of them; it is missed when all top_k picks (without
  // replacement) fall on the others.
  const double own = experts / ranks;
  double miss = 1.0;
  for (double i = 0; i < top_k; ++i) miss *= std::max(0.0, (experts - own - i) / (experts - i));
  return ranks * (1 - miss);
}

MoeDispatch moe_dispatch(const GpuSpec& gpu, const ModelSpec& model, const Strategy& s,
                         int64_t gpus_per_node, double local_tokens, double element_bytes) {
  MoeDispatch d;
  if (!model.moe) return d;
  const MoeSpec& moe = *model.moe;
  const double experts = static_cast<double>(moe.num_experts);
  const double top_k = static_cast<double>(moe.top_k);
  const int64_t ep = s.expert_model_parallel_size;
  const int64_t etp = s.expert_tensor_parallel();
  const double et = static_cast<double>(etp);
  const double local_experts = experts / static_cast<double>(ep);
  const double imbalance = expert_load_imbalance(model, s);
  const double h = static_cast<double>(model.hidden_size);
  const double row_bytes = element_bytes * h;
  // Experts' ranks: expert tensor parallel innermost, then expert parallel (parallel_state.py,
  // the expert RankGenerator's order tp-ep-dp-pp).
  const Group tp_ep = place_group(etp * ep, 1, gpus_per_node);
  const Group ep_group = place_group(ep, etp, gpus_per_node);
  const Group etp_group = place_group(etp, 1, gpus_per_node);
  d.expert_rows = local_tokens * top_k * et * imbalance;
  switch (s.moe_token_dispatcher_type) {
    case MoeDispatcher::allgather: {
      // MoEAllGatherTokenDispatcher: all-gather the group's un-duplicated tokens with their
      // probs and routing map, permute the local experts' rows, reduce-scatter back.
      const double gathered = local_tokens * et * static_cast<double>(ep);
      d.permuted_rows = d.expert_rows;
      d.unpermute_in_rows = d.expert_rows;
      d.unpermute_out_rows = gathered;
      d.dispatch_s =
          all_gather_s(gpu, tp_ep, gathered * (row_bytes + experts * (element_bytes + 1)));
      d.combine_s = reduce_scatter_s(gpu, tp_ep, gathered * row_bytes);
      break;
    }
    case MoeDispatcher::alltoall: {
      // MoEAlltoAllTokenDispatcher: permute top_k copies, all-to-all over expert parallel,
      // all-gather over expert tensor parallel, sort by local expert; the combine reverses it.
      const double sent = local_tokens * top_k;
      d.permuted_rows = sent + (local_experts > 1 ? d.expert_rows : 0.0);
      d.unpermute_in_rows = sent;
      d.unpermute_out_rows = local_tokens;
      const double a2a = all_to_all_s(gpu, ep_group, sent * imbalance * row_bytes);
      d.dispatch_s = a2a + all_gather_s(gpu, etp_group, d.expert_rows * row_bytes);
      d.combine_s = reduce_scatter_s(gpu, etp_group, d.expert_rows * row_bytes) + a2a;
      break;
    }
    case MoeDispatcher::flex: {
      // MoEFlexTokenDispatcher over the expert tensor x expert parallel group: each expert
      // shard is a destination (topk x ETP); permutation is fused into the communication.
      const double rank_copies =
          et * distinct_destinations(experts, top_k, static_cast<double>(ep));
      const double nodes = tp_ep.spans_nodes ? static_cast<double>(tp_ep.size) /
                                                   static_cast<double>(tp_ep.members_per_node)
                                             : 1.0;
      const double node_copies = distinct_destinations(experts, top_k, nodes);
      d.permuted_rows = d.expert_rows;
      d.unpermute_in_rows = d.expert_rows;
      d.unpermute_out_rows = local_tokens * rank_copies * imbalance;
      d.dispatch_s = deduplicated_all_to_all_s(gpu, tp_ep, local_tokens * imbalance * row_bytes,
                                               rank_copies, node_copies);
      d.combine_s = d.dispatch_s;
      // HybridEP's metadata preprocessing gathers every member's boolean routing map (tokens x
      // experts, one byte each) before it routes (DeepEP hybrid-ep branch, csrc/hybrid_ep/
      // hybrid_ep.cu HybridEPBuffer::metadata_preprocessing: executor.allgather_routing_map over
      // the group; Megatron-LM token_dispatcher.py _HybridEPManager.dispatch passes routing_map
      // each forward, and the combine and the backward reuse the handle). DeepEP's normal kernels
      // exchange per-rank and per-expert counts instead (Buffer.get_dispatch_layout, notify).
      if (s.moe_flex_dispatcher_backend == MoeFlexBackend::hybridep) {
        d.routing_map_gather_s =
            all_gather_s(gpu, tp_ep, local_tokens * static_cast<double>(tp_ep.size) * experts);
      }
      break;
    }
  }
  return d;
}

}  // namespace paraplan::detail
