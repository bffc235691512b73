// Where a MoE layer's tokens go and what moving them costs, by Megatron-LM token dispatcher
// (megatron/core/transformer/moe/token_dispatcher.py), per GPU and micro-batch: the rows each
// GPU's experts receive, the load imbalance of the busiest expert-parallel rank, and the time of
// the dispatch and combine collectives.
#pragma once

#include <cstdint>

#include "model/collectives.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// The busiest expert-parallel rank's routed rows over the mean (1 without expert parallelism or
// with --moe-router-force-load-balancing). Per-expert imbalance MaxVio from Wang et al. 2024,
// spread over a rank's experts as independent Gaussian loads (docs/model.md, "MoE").
double expert_load_imbalance(const ModelSpec& model, const Strategy& strategy);

// Expected distinct members of a group of `ranks` (each holding an equal share of `experts`)
// that one token routed to `top_k` distinct experts reaches.
double distinct_destinations(double experts, double top_k, double ranks);

// What one GPU's MoE layer moves and computes for one micro-batch of `local_tokens` (the
// tokens it holds at the MoE input, a 1/t slice under sequence parallelism).
struct MoeDispatch {
  double expert_rows = 0;         // rows the GPU's local experts compute (busiest rank)
  double permuted_rows = 0;       // rows permuted into expert order on this GPU
  double unpermute_in_rows = 0;   // expert-output rows the unpermute reads
  double unpermute_out_rows = 0;  // token rows the unpermute sums them into
  double unsorted_rows = 0;       // expert-output rows sorted back by source rank (alltoall)
  double dispatch_s = 0;          // forward dispatch collectives (the combine's backward mirrors)
  double combine_s = 0;           // forward combine collectives (the dispatch's backward mirrors)
  // Forward only, before the dispatch: HybridEP's all-gather of the routing map over the
  // expert group (its metadata preprocessing; the backward reuses the handle).
  double routing_map_gather_s = 0;
};

MoeDispatch moe_dispatch(const GpuSpec& gpu, const ModelSpec& model, const Strategy& strategy,
                         int64_t gpus_per_node, double local_tokens, double element_bytes);

// DeepEP's SMs per dispatch or combine kernel: deep_ep/buffer.py Buffer.num_sms = 20 (set by
// Megatron-LM's --moe-deepep-num-sms, default 20).
inline constexpr double kDeepEpSms = 20;
// HybridEP's SMs per dispatch or combine kernel: Megatron-LM --moe-hybridep-num-sms, default 16
// ("In pure NVL scenarios, 16 SMs can generally achieve good bandwidth"; transformer_config.py
// at 92c8482e6d and 23265d2db3, the Megatron-LM of Megatron-Bridge 25.11 and 26.04).
inline constexpr double kHybridEpSms = 16;
// The SMs the flex dispatcher's kernels take from the GEMMs beside them.
inline double flex_dispatcher_sms(const Strategy& s) {
  return s.moe_flex_dispatcher_backend == MoeFlexBackend::hybridep ? kHybridEpSms : kDeepEpSms;
}

// What the dispatcher's kernels cost the compute they run beside under
// --overlap-moe-expert-parallel-comm, per second of all-to-all hidden (moe_layer_cost.cpp).
double a2a_overlap_slowdown(const GpuSpec& gpu, const Strategy& s, const Group& ep_group);

}  // namespace paraplan::detail
