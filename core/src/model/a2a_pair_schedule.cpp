// The paired 1F1B schedule of a MoE layer, node by node (a2a_pair_schedule.hpp).
#include "model/a2a_pair_schedule.hpp"

#include <algorithm>
#include <array>

#include "model/host_time.hpp"
#include "model/layer_cost.hpp"

namespace paraplan::detail {

namespace {

enum Stream { kCompute = 0, kCommunication = 1 };
// The micro-batch whose event a node waits on and records; the delayed weight gradients
// (backward_dw) run on the compute stream outside the event.
enum Chain { kForward = 0, kBackward = 1, kNoChain = 2 };

struct Node {
  Stream stream;
  Chain chain;
  double gpu_s = 0;
  double host_s = 0;
};

struct Clock {
  double host_s = 0;
  std::array<double, 2> stream_free_s{};
  std::array<double, 3> chain_ready_s{};
};

// Issues `node` after the host's `host_s` of it: it runs once its stream and its micro-batch's
// previous node are done, and not before the host has issued it. Returns its end.
double issue(Clock& clock, const Node& node) {
  const double start =
      std::max({clock.stream_free_s[node.stream], clock.chain_ready_s[node.chain], clock.host_s});
  clock.host_s += node.host_s;
  const double end = std::max(start + node.gpu_s, clock.host_s);
  clock.stream_free_s[node.stream] = end;
  if (node.chain != kNoChain) clock.chain_ready_s[node.chain] = end;
  return end;
}

// One pair in TransformerLayerSchedulePlan.run's order:
//   comm: combine_bwd       | dispatch_fwd -> dispatch_bwd       | combine_fwd
//   comp: pre_dispatch_fwd  | mlp_bwd -> mlp_bwd_dw -> mlp_fwd   | pre_dispatch_bwd
// The combine's backward sends what the dispatch sent and the dispatch's backward what the
// combine sent; without delay_wgrad_compute the mlp's backward computes its weight gradients
// before the dispatch's backward may start.
void issue_pair(Clock& clock, const A2aOverlapPair& p) {
  const double dgrad_s = p.delay_wgrad_compute ? p.mlp_backward_s / 2 : p.mlp_backward_s;
  issue(clock, {kCommunication, kBackward, p.dispatch_s + p.combine_compute_backward_s, 0});
  const double pre_forward_end =
      issue(clock, {kCompute, kForward, p.pre_dispatch_forward_s, p.host_pre_dispatch_forward_s});
  issue(clock, {kCompute, kBackward, dgrad_s, p.host_mlp_backward_s});
  switch (p.host_sync) {
    case A2aHostSync::none:
      break;
    case A2aHostSync::compute_stream:
      clock.host_s = std::max(clock.host_s, pre_forward_end - p.pre_dispatch_forward_after_copy_s) +
                     p.sync_gap_s;
      break;
    case A2aHostSync::communication_stream:
      clock.host_s =
          std::max({clock.host_s, pre_forward_end, clock.stream_free_s[kCommunication]}) +
          p.sync_gap_s;
      break;
  }
  issue(clock, {kCommunication, kForward, p.dispatch_s, 0});
  issue(clock, {kCompute, kNoChain, p.mlp_backward_s - dgrad_s, 0});
  issue(clock, {kCommunication, kBackward, p.combine_s, 0});
  issue(clock, {kCompute, kForward, p.mlp_forward_s, p.host_mlp_forward_s});
  issue(clock, {kCommunication, kForward, p.combine_s + p.combine_compute_forward_s, 0});
  issue(clock, {kCompute, kBackward, p.pre_dispatch_backward_s, p.host_pre_dispatch_backward_s});
}

double busy_until_s(const Clock& clock) {
  return std::max(clock.stream_free_s[kCompute], clock.stream_free_s[kCommunication]);
}

}  // namespace

A2aHostSync a2a_host_sync(const Strategy& strategy, const LayerHostTime& host) {
  if (!host.syncs || graph_captures(strategy, HostRegion::moe_experts)) return A2aHostSync::none;
  const bool copy_on_compute_stream =
      strategy.moe_token_dispatcher_type == MoeDispatcher::alltoall &&
      !graph_captures(strategy, HostRegion::moe_preprocess);
  return copy_on_compute_stream ? A2aHostSync::compute_stream : A2aHostSync::communication_stream;
}

void set_a2a_pair_host_s(const LayerHostTime& host, const Strategy& strategy,
                         A2aOverlapPair& pair) {
  const auto eager_s = [&](HostRegion region) {
    return graph_captures(strategy, region) ? 0.0 : host[region];
  };
  const double pre_s = eager_s(HostRegion::attention) + eager_s(HostRegion::moe_router) +
                       eager_s(HostRegion::moe_preprocess) + eager_s(HostRegion::shared_experts);
  const bool experts_eager = !graph_captures(strategy, HostRegion::moe_experts);
  const double mlp_s = eager_s(HostRegion::moe_experts);
  pair.host_pre_dispatch_forward_s = pre_s;
  pair.host_mlp_forward_s = mlp_s + (experts_eager ? host.expert_forward_s : 0.0);
  pair.host_pre_dispatch_backward_s = host.backward_over_forward * pre_s;
  pair.host_mlp_backward_s =
      host.backward_over_forward * mlp_s + (experts_eager ? host.expert_backward_s : 0.0);
}

double a2a_pair_period_s(const A2aOverlapPair& pair) {
  // Pairs until the schedule repeats itself, then the time one more pair adds.
  constexpr int kWarmPairs = 4, kMeasuredPairs = 4;
  Clock clock;
  for (int i = 0; i < kWarmPairs; ++i) issue_pair(clock, pair);
  const double warm_s = busy_until_s(clock);
  for (int i = 0; i < kMeasuredPairs; ++i) issue_pair(clock, pair);
  return (busy_until_s(clock) - warm_s) / kMeasuredPairs;
}

}  // namespace paraplan::detail
