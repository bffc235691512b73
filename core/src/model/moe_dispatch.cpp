#include "model/moe_dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
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

// The flex dispatcher's published bandwidth through its Torch API (the Python call Megatron-Core's
// MoEFlexTokenDispatcher makes: kernel, D2D copy to PyTorch memory and stream sync), BF16
// dispatch and combine, GB/s as the benchmark counts them (DeepEP tests/test_hybrid_ep.py
// _report_bw: received token rows x hidden x 2 bytes on one NVLink domain; across nodes the
// rows sent per node reached, the local node counted too, count_rdma_send_from_routing_map).
// DeepEP hybrid-ep branch 17cfb817bc, docs/README_Hybrid-EP.md "Performance Results": 4,096
// tokens x hidden 7,168 per rank, top-8, 8 local experts, random uniform router. H100: the
// HybridEP "IB Bandwidth" table, 8 GPUs a node; B200: the 8-rank comparison table (DeepEP's
// normal kernels and HybridEP); GB200: the HybridEP and DeepEP tables, all ranks in one NVL72
// domain. No table measures H100 within one node, B200 across nodes, DeepEP's normal kernels on
// H100, or another GPU: those keep the network tiers' curves.
enum class FlexCounted { nvlink_received, node_sent };
struct FlexMeasurement {
  std::string_view gpu_preset;
  MoeFlexBackend backend;
  int64_t ranks;
  double sms;
  FlexCounted counted;
  double dispatch_gb_per_s;  // BF16
  double combine_gb_per_s;
};
constexpr double kFlexMeasuredTokens = 4096;
constexpr double kFlexMeasuredHidden = 7168;
constexpr double kFlexMeasuredTopK = 8;
constexpr double kFlexMeasuredLocalExperts = 8;
constexpr double kFlexMeasuredRowBytes = 2 * kFlexMeasuredHidden;
using Backend = MoeFlexBackend;
using Counted = FlexCounted;
constexpr FlexMeasurement kFlexMeasured[] = {
    {"h100", Backend::hybridep, 16, 4, Counted::node_sent, 37.08, 42.47},
    {"h100", Backend::hybridep, 16, 8, Counted::node_sent, 57.74, 56.96},
    {"h100", Backend::hybridep, 16, 16, Counted::node_sent, 54.47, 53.35},
    {"h100", Backend::hybridep, 32, 4, Counted::node_sent, 44.88, 43.60},
    {"h100", Backend::hybridep, 32, 8, Counted::node_sent, 46.54, 50.68},
    {"h100", Backend::hybridep, 32, 16, Counted::node_sent, 47.36, 52.53},
    {"h100", Backend::hybridep, 64, 4, Counted::node_sent, 40.63, 41.00},
    {"h100", Backend::hybridep, 64, 8, Counted::node_sent, 41.46, 47.68},
    {"h100", Backend::hybridep, 64, 16, Counted::node_sent, 41.24, 46.57},
    {"b200", Backend::deepep, 8, 16, Counted::nvlink_received, 348, 302},
    {"b200", Backend::deepep, 8, 24, Counted::nvlink_received, 494, 420},
    {"b200", Backend::deepep, 8, 28, Counted::nvlink_received, 560, 477},
    {"b200", Backend::deepep, 8, 32, Counted::nvlink_received, 619, 524},
    {"b200", Backend::deepep, 8, 36, Counted::nvlink_received, 635, 549},
    {"b200", Backend::deepep, 8, 40, Counted::nvlink_received, 629, 570},
    {"b200", Backend::deepep, 8, 44, Counted::nvlink_received, 640, 577},
    {"b200", Backend::deepep, 8, 48, Counted::nvlink_received, 646, 586},
    {"b200", Backend::hybridep, 8, 16, Counted::nvlink_received, 535.94, 530.86},
    {"gb200", Backend::hybridep, 8, 16, Counted::nvlink_received, 550.10, 538.44},
    {"gb200", Backend::hybridep, 8, 32, Counted::nvlink_received, 545.71, 568.94},
    {"gb200", Backend::hybridep, 16, 16, Counted::nvlink_received, 472.84, 474.48},
    {"gb200", Backend::hybridep, 16, 32, Counted::nvlink_received, 523.48, 521.55},
    {"gb200", Backend::hybridep, 24, 16, Counted::nvlink_received, 441.89, 444.40},
    {"gb200", Backend::hybridep, 24, 32, Counted::nvlink_received, 507.32, 483.76},
    {"gb200", Backend::hybridep, 32, 16, Counted::nvlink_received, 485.50, 423.19},
    {"gb200", Backend::hybridep, 32, 32, Counted::nvlink_received, 484.22, 464.54},
    {"gb200", Backend::hybridep, 36, 16, Counted::nvlink_received, 469.96, 418.27},
    {"gb200", Backend::hybridep, 36, 32, Counted::nvlink_received, 479.02, 447.89},
    {"gb200", Backend::deepep, 8, 16, Counted::nvlink_received, 362.01, 310.21},
    {"gb200", Backend::deepep, 8, 24, Counted::nvlink_received, 512.72, 425.95},
    {"gb200", Backend::deepep, 8, 32, Counted::nvlink_received, 615.78, 519.57},
    {"gb200", Backend::deepep, 16, 16, Counted::nvlink_received, 328.80, 278.34},
    {"gb200", Backend::deepep, 16, 24, Counted::nvlink_received, 442.47, 378.32},
    {"gb200", Backend::deepep, 16, 32, Counted::nvlink_received, 520.76, 442.51},
    {"gb200", Backend::deepep, 24, 16, Counted::nvlink_received, 324.64, 126.53},
    {"gb200", Backend::deepep, 24, 24, Counted::nvlink_received, 450.22, 163.62},
    {"gb200", Backend::deepep, 24, 32, Counted::nvlink_received, 502.84, 207.10},
};

// A measured bandwidth of the flex dispatcher at one group size and SM count.
struct FlexRate {
  int64_t ranks = 0;
  FlexCounted counted = FlexCounted::nvlink_received;
  double dispatch_gb_per_s = 0;
  double combine_gb_per_s = 0;
};

// The rows of this GPU preset and backend at the measured group size nearest the expert
// group's (by ratio; beyond the table its end), linear in SMs between measured counts (clamped
// at the ends). Nothing for a GPU no table measured or a preset with fields overridden.
std::optional<FlexRate> measured_flex_rate(const GpuSpec& gpu, MoeFlexBackend backend,
                                           int64_t ranks, double sms) {
  std::optional<int64_t> nearest;
  for (const FlexMeasurement& m : kFlexMeasured) {
    if (m.gpu_preset != gpu.preset || m.backend != backend) continue;
    const auto distance = [&](int64_t r) {
      return std::abs(std::log(static_cast<double>(r) / static_cast<double>(ranks)));
    };
    if (!nearest || distance(m.ranks) < distance(*nearest)) nearest = m.ranks;
  }
  if (!nearest) return std::nullopt;
  const FlexMeasurement* below = nullptr;
  const FlexMeasurement* above = nullptr;
  for (const FlexMeasurement& m : kFlexMeasured) {
    if (m.gpu_preset != gpu.preset || m.backend != backend || m.ranks != *nearest) continue;
    if (m.sms <= sms && (!below || m.sms > below->sms)) below = &m;
    if (m.sms >= sms && (!above || m.sms < above->sms)) above = &m;
  }
  if (!below) below = above;
  if (!above) above = below;
  const double w = above->sms > below->sms ? (sms - below->sms) / (above->sms - below->sms) : 0.0;
  const auto lerp = [w](double a, double b) { return a + w * (b - a); };
  return FlexRate{*nearest, below->counted,
                  lerp(below->dispatch_gb_per_s, above->dispatch_gb_per_s),
                  lerp(below->combine_gb_per_s, above->combine_gb_per_s)};
}

// What the flex dispatcher's modelled dispatch and combine times are multiplied by: the
// measured time of the measured shape (kFlexMeasured) over the time the network tiers give the
// same shape on this GPU, so that the tiers' curves carry it to other tokens, hidden sizes and
// routings. 1 where nothing was measured, or where the measurement and the expert group differ
// in whether they leave one NVLink domain.
struct FlexScale {
  double dispatch = 1;
  double combine = 1;
};
FlexScale measured_flex_scale(const GpuSpec& gpu, const Strategy& s, const Group& expert_group,
                              int64_t gpus_per_node) {
  const std::optional<FlexRate> rate = measured_flex_rate(
      gpu, s.moe_flex_dispatcher_backend, expert_group.size, flex_dispatcher_sms(s));
  if (!rate) return {};
  const Group measured = place_group(rate->ranks, 1, gpus_per_node);
  const bool across_nodes = rate->counted == FlexCounted::node_sent;
  if (measured.spans_nodes != across_nodes || expert_group.spans_nodes != across_nodes) return {};
  const double experts = kFlexMeasuredLocalExperts * static_cast<double>(rate->ranks);
  const double rank_copies =
      distinct_destinations(experts, kFlexMeasuredTopK, static_cast<double>(rate->ranks));
  const double node_copies =
      distinct_destinations(experts, kFlexMeasuredTopK, static_cast<double>(measured.nodes()));
  const double token_bytes = kFlexMeasuredTokens * kFlexMeasuredRowBytes;
  const double modelled_s =
      deduplicated_all_to_all_s(gpu, measured, token_bytes, rank_copies, node_copies);
  const double counted_bytes = token_bytes * (across_nodes ? node_copies : rank_copies);
  constexpr double kBytesPerGb = 1e9;
  return {counted_bytes / (rate->dispatch_gb_per_s * kBytesPerGb) / modelled_s,
          counted_bytes / (rate->combine_gb_per_s * kBytesPerGb) / modelled_s};
}

// HybridEP's metadata preprocessing gathers every member's boolean routing map (tokens x
// experts, one byte each) before it routes (DeepEP hybrid-ep branch, csrc/hybrid_ep/
// hybrid_ep.cu HybridEPBuffer::metadata_preprocessing: executor.allgather_routing_map over the
// group; Megatron-LM token_dispatcher.py _HybridEPManager.dispatch passes routing_map each
// forward, and the combine and the backward reuse the handle). DeepEP's normal kernels exchange
// per-rank and per-expert counts instead (Buffer.get_dispatch_layout, notify): nothing here.
double hybridep_routing_map_gather_s(const GpuSpec& gpu, const Strategy& s, const Group& tp_ep,
                                     double local_tokens, double experts) {
  if (s.moe_flex_dispatcher_backend != MoeFlexBackend::hybridep) return 0;
  return all_gather_s(gpu, tp_ep, local_tokens * static_cast<double>(tp_ep.size) * experts);
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
      // all-gather over expert tensor parallel, sort by local expert; the combine reverses it:
      // with more than one local expert it first sorts the experts' output back by source rank
      // (combine_preprocess, "Unpermutation 2": sort_chunks_by_idxs, or a transpose copy when
      // padded to capacity; Megatron-Core 0.12 token_unpermutation to d98e8a64dd).
      const double sent = local_tokens * top_k;
      const double sorted_rows = local_experts > 1 ? d.expert_rows : 0.0;
      d.permuted_rows = sent + sorted_rows;
      d.unsorted_rows = sorted_rows;
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
      const double modelled_s = deduplicated_all_to_all_s(
          gpu, tp_ep, local_tokens * imbalance * row_bytes, rank_copies, node_copies);
      const FlexScale measured = measured_flex_scale(gpu, s, tp_ep, gpus_per_node);
      d.dispatch_s = modelled_s * measured.dispatch;
      d.combine_s = modelled_s * measured.combine;
      d.routing_map_gather_s = hybridep_routing_map_gather_s(gpu, s, tp_ep, local_tokens, experts);
      break;
    }
  }
  return d;
}

}  // namespace paraplan::detail
