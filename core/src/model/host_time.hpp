// The host's (CPU's) time to issue one layer's kernels in PyTorch eager mode, per region that
// CUDA graphs capture (Megatron-LM --cuda-graph-scope). A pass over a layer takes at least the
// time its host needs to issue it: the GPU cannot run ahead of the host (docs/model.md
// section 1c). Internal to core/src/model.
#pragma once

#include <array>
#include <cstddef>

#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// What one CUDA-graph scope captures (cuda_graph_scope: attn, mlp, moe_router, moe_preprocess),
// and the MoE block's rest (token dispatch, routed experts, unpermute and combine), which dropless
// MoE layers keep outside partial graphs (their shapes change with the routing).
enum class HostRegion { attention, mlp, moe_router, moe_preprocess, moe_experts, shared_experts };
inline constexpr size_t kNumHostRegions = 6;

// The ops a region issues per forward pass: Transformer Engine module calls and other PyTorch
// ops (each a dispatch and about one kernel launch).
struct HostOps {
  double te_modules = 0;
  double torch_ops = 0;
};

// The backward's host time over the forward's, Megatron-Core r0.9's own layers on a lent H200
// where the host, not the GPU, bound the pass (scripts/calibration/measured/
// host-h200-2026-11-26-megatron-layers.json, the two cases at sequence 512, device time 2.5
// and 15 ms against 17 and 163 ms of host): GPT-1.7B's dense layers 8.63 / 8.43 ms, the
// MegaScale-MoE layers 93.9 / 69.5 ms. (At sequence 4096 the GPU bound the pass and the host's
// measured time includes its waits.)
inline constexpr double kHostBackwardOverForwardDense = 1.02;
inline constexpr double kHostBackwardOverForwardMoe = 1.35;

// The host time of one layer's forward per region, in seconds (zero where the GPU's host has
// no measured issue cost, GpuSpec::host_issue).
struct LayerHostTime {
  std::array<double, kNumHostRegions> forward_s{};
  double backward_over_forward = kHostBackwardOverForwardDense;
  // A MoE layer's forward syncs the host with the GPU before its token dispatch (the
  // dispatcher's device-to-host copy of the token counts): the regions from moe_experts on are
  // issued only after the GPU has finished everything before.
  bool syncs = false;
  // The GPU's idle time at that sync (the GPU preset's host.sync_gap_us, HostIssueCost), zero
  // where the host's issue cost is not priced.
  double sync_gap_s = 0;
  // Transformer Engine's GroupedLinear issues each local expert's GEMM (and in fp8 its input's
  // quantisation) on its own, after the sync: the routed experts' per-expert host time of a
  // forward and of a backward (host_time.cpp grouped_linear_ops_per_expert), part of the
  // moe_experts region (captured with it).
  double expert_forward_s = 0;
  double expert_backward_s = 0;

  double& operator[](HostRegion region) { return forward_s[static_cast<size_t>(region)]; }
  double operator[](HostRegion region) const { return forward_s[static_cast<size_t>(region)]; }
  bool operator==(const LayerHostTime&) const = default;
};

// The ops of a region (host_time.cpp's table) for this layer shape.
HostOps host_ops(HostRegion region, const ModelSpec& model, const Strategy& strategy);

// `transformer_engine`: the framework's modules are Transformer Engine's (framework_rules.hpp),
// else PyTorch's, each call priced as one torch.nn.Linear.
// `fp8`: the layer trains in fp8 (GroupedLinear quantises each expert's input on its own).
LayerHostTime layer_host_time(const ModelSpec& model, const Strategy& strategy, const GpuSpec& gpu,
                              bool moe, bool transformer_engine = true, bool fp8 = false);

// Ops per local expert of one Transformer Engine GroupedLinear (host_time.cpp).
struct GroupedLinearOps {
  double forward = 0, backward = 0;
};
GroupedLinearOps grouped_linear_ops_per_expert(const Strategy& strategy, bool fp8, bool bias);
// Ops per local expert of one GroupedLinear for Megatron-Core DDP's per-parameter hooks
// (host_time.cpp): each expert's weight and bias is a parameter of its own.
GroupedLinearOps ddp_ops_per_expert(const Strategy& strategy, bool bias);

// Whether the strategy's CUDA graphs capture a region (per-layer graphs by scope; whole layers
// with no scope, less the routed experts of a dropless MoE layer; full_iteration everything).
bool graph_captures(const Strategy& strategy, HostRegion region);

// The host's time a forward pass leaves to be issued eagerly: before the MoE sync and after it;
// and the backward's (the regions' forward times the measured ratio, plus the routed experts'
// per-expert backward ops).
struct HostPassTime {
  double before_sync_s = 0;
  double after_sync_s = 0;
  double backward_s = 0;
  // The GPU's idle time at the MoE sync, zero where a graph captures the routed experts (their
  // shapes are then static and the layer does not sync).
  double sync_gap_s = 0;
  double total_s() const { return before_sync_s + after_sync_s; }
};
HostPassTime eager_host_forward_s(const LayerHostTime& host, const Strategy& strategy);

}  // namespace paraplan::detail
