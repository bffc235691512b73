// Time, memory and parameters of one transformer layer (and of the embedding and the LM head)
// for one micro-batch on one GPU. These depend on the model, the GPU type and the strategy keys
// marked layer_cost only (the layer shape), so a search computes them once per shape and reuses
// them for every pipeline, data-parallel, ZeRO and recompute choice.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "model/a2a_pair_schedule.hpp"
#include "model/host_time.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::detail {

// One pass over one micro-batch; communication is the part not hidden under compute.
struct PassTime {
  double compute_s = 0;
  double tp_comm_s = 0;
  double cp_comm_s = 0;
  double ep_comm_s = 0;

  double total_s() const { return compute_s + tp_comm_s + cp_comm_s + ep_comm_s; }
  // Inline: every stage's work sums layers' passes (hot in the search).
  PassTime& operator+=(const PassTime& other) {
    compute_s += other.compute_s;
    tp_comm_s += other.tp_comm_s;
    cp_comm_s += other.cp_comm_s;
    ep_comm_s += other.ep_comm_s;
    return *this;
  }
  PassTime operator*(double factor) const {
    return {compute_s * factor, tp_comm_s * factor, cp_comm_s * factor, ep_comm_s * factor};
  }
  bool operator==(const PassTime&) const = default;
};

// What selective recompute of one --recompute-modules module does not keep, and runs again.
struct RecomputeUnit {
  double saved_bytes = 0;
  PassTime forward;
  double forward_flops = 0;
  bool operator==(const RecomputeUnit&) const = default;
};

struct LayerCost {
  PassTime forward;
  PassTime backward;
  // torchtitan's context parallelism is PyTorch's ring attention (attention_cost.cpp): what it
  // costs beyond the core attention priced above, forward and backward (zero without context
  // parallelism); stage_work.cpp adds it for the torchtitan framework.
  PassTime torch_ring_forward;
  PassTime torch_ring_backward;
  double activation_bytes = 0;   // kept for backward without recompute
  double checkpoint_bytes = 0;   // the layer input, kept under full recompute
  double transient_bytes = 0;    // held while the layer runs, not kept (moe_memory.hpp)
  double parameters = 0;         // on this GPU, reduced over data parallel
  double expert_parameters = 0;  // on this GPU, reduced over expert-data parallel
  double forward_flops = 0;      // model FLOPs of the forward pass on this GPU
  std::array<RecomputeUnit, kNumRecomputeModules> recompute_units{};  // zero where absent
  // torchtitan's per-op selective checkpointing of the whole layer (torchtitan_sac.cpp): what
  // it does not keep and the forward it runs again.
  RecomputeUnit per_op_checkpoint;
  // What each --offload-modules region saves for the backward (its input, and what its ops
  // keep), zero where the module is absent (a norm fused into the next GEMM is an IdentityOp).
  std::array<double, kNumOffloadModules> offload_bytes{};
  // Of qkv_linear's, the standalone input norm's output (multi-latent attention), which
  // --recompute-modules layernorm already drops.
  double qkv_norm_output_bytes = 0;
  // --overlap-moe-expert-parallel-comm: what a forward (backward) pass that runs unpaired, in the
  // schedule's warm-up (cool-down), pays on top of its paired share of the all-to-all.
  double a2a_unpaired_forward_s = 0;
  double a2a_unpaired_backward_s = 0;
  // --overlap-moe-expert-parallel-comm: the passes are priced as one forward paired with another
  // micro-batch's backward, whose time holds the host's issue of both (a2a_pair_period_s):
  // stage_work.cpp's host_bound holds them to it again only where they run unpaired.
  bool a2a_paired = false;
  // --overlap-moe-expert-parallel-comm: how long the paired layer's attention backward runs past
  // its forward combine, which a chunk's last pair ends with: the window its pipeline send of
  // activations has on the communication stream (pipeline_model.cpp pipeline_comm_s).
  double a2a_send_window_s = 0;
  // A per-expert loop's backward (SequentialMLP): the host's time to issue it, which has no sync
  // to wait behind (the stage's floor, stage_work.cpp).
  double expert_loop_host_backward_s = 0;
  // The host's time to issue the layer per region (host_time.hpp), and the GPU's forward before
  // a MoE layer's host sync (the attention block and the router): the pass times above are the
  // GPU's; stage_work.cpp holds them to the host's.
  LayerHostTime host;
  double pre_sync_forward_s = 0;

  RecomputeUnit& unit(RecomputeModule module) {
    return recompute_units[static_cast<size_t>(module)];
  }
  const RecomputeUnit& unit(RecomputeModule module) const {
    return recompute_units[static_cast<size_t>(module)];
  }
  double& offload(OffloadModule module) { return offload_bytes[static_cast<size_t>(module)]; }
  double offload(OffloadModule module) const { return offload_bytes[static_cast<size_t>(module)]; }
  bool operator==(const LayerCost&) const = default;
};

// The embedding (first stage) or the final norm, LM head and loss (last stage).
struct EdgeCost {
  PassTime forward;
  PassTime backward;
  double activation_bytes = 0;  // kept per micro-batch in flight
  double transient_bytes = 0;   // held while one micro-batch passes (logits in fp32)
  double logit_elements = 0;    // the LM head's logits on this GPU (for another framework's loss)
  double parameters = 0;
  double forward_flops = 0;
  bool operator==(const EdgeCost&) const = default;
};

// ModelCosts less its MoE layer (compute_shared_costs).
struct SharedCosts {
  LayerCost dense;
  EdgeCost embedding;
  EdgeCost head;
  EdgeCost mtp;
  // A MoE model's MoE layer after its attention block only: the rest of the layer is built on
  // it (compute_moe_layer_cost).
  LayerCost moe_attention;
  bool operator==(const SharedCosts&) const = default;
};

// A layer's forward and backward as the host lets the GPU run them (stage_work.cpp host_bound).
struct LayerPasses {
  PassTime forward, backward;
  bool operator==(const LayerPasses&) const = default;
};

struct ModelCosts {
  LayerCost dense;
  LayerCost moe;  // equal to dense for a dense model
  EdgeCost embedding;
  EdgeCost head;
  EdgeCost mtp;  // one multi-token-prediction depth besides its transformer layer
  // The dense and the MoE layer's passes under a strategy without CUDA graphs, which capture no
  // host region, so that their bound reads the layer alone: computed once the layers are final
  // (set_ungraphed_passes) instead of at every stage of every strategy; none where not set.
  std::optional<std::array<LayerPasses, 2>> ungraphed_passes;
  // The costs themselves: the passes above derive from the layers (and are NaN where a layer's
  // time is infinite).
  bool operator==(const ModelCosts& other) const {
    return dense == other.dense && moe == other.moe && embedding == other.embedding &&
           head == other.head && mtp == other.mtp;
  }
};

// A layer's passes under `strategy`, each at least the host's time to issue it (stage_work.cpp).
LayerPasses host_bound(const LayerCost& layer, const Strategy& strategy);
// Sets costs.ungraphed_passes from its final dense and MoE layers.
void set_ungraphed_passes(ModelCosts& costs);
// host_bound of the dense (`moe` false) or MoE layer, from costs.ungraphed_passes where set and
// `strategy` has no CUDA graphs.
LayerPasses layer_passes(const ModelCosts& costs, bool moe, const Strategy& strategy);

// `nvlink_domain_gpus`: GPUs one NVLink domain joins, where groups are placed (not the GPUs per
// host, which only says what launches: docs/contract.md section 2).
// `framework`: whose kernels run the layers (framework_rules.hpp framework_kernels).
ModelCosts compute_model_costs(const ModelSpec& model, const Training& training, const GpuSpec& gpu,
                               int64_t nvlink_domain_gpus, const Strategy& strategy,
                               Framework framework = Framework::megatron);

// compute_model_costs in two parts, equal to its fields: everything but the MoE layer (the dense
// layer, embedding, LM head and multi-token-prediction depth, and the MoE layer's attention
// block), which reads none of the keys only a MoE layer reads (cost_cache.hpp
// kMoeLayerOnlyKeys), and the MoE layer built on that attention block (a MoE model only).
SharedCosts compute_shared_costs(const ModelSpec& model, const Training& training,
                                 const GpuSpec& gpu, int64_t nvlink_domain_gpus,
                                 const Strategy& strategy,
                                 Framework framework = Framework::megatron);
LayerCost compute_moe_layer_cost(const ModelSpec& model, const Training& training,
                                 const GpuSpec& gpu, int64_t nvlink_domain_gpus,
                                 const Strategy& strategy, const LayerCost& moe_attention,
                                 Framework framework = Framework::megatron);

// --overlap-moe-expert-parallel-comm: one micro-batch's forward of a MoE layer runs with another's
// backward of it (Megatron-LM's combined 1F1B, model_chunk_schedule_plan.py
// TransformerLayerSchedulePlan.run), in three phases of a communication and a compute stream:
//   comm: combine_bwd       | dispatch_fwd -> dispatch_bwd       | combine_fwd
//   comp: pre_dispatch_fwd  | mlp_bwd -> mlp_bwd_dw -> mlp_fwd   | pre_dispatch_bwd
// Returns how much longer the pair takes than its compute alone (one dispatch and one combine
// each way; `pair` says which compute runs in which node). Without
// `delay_wgrad_compute` mlp_bwd_dw is empty: mlp_bwd computes the weight gradients too, and
// dispatch_bwd waits for them.
struct A2aOverlapPair {
  // The compute stream's nodes: attention, pre-MLP norm, shared experts, router and (all-to-all
  // dispatcher) the permute; then the experts (fine_grained_callables.py).
  double pre_dispatch_forward_s = 0, pre_dispatch_backward_s = 0;
  double mlp_forward_s = 0, mlp_backward_s = 0;
  double dispatch_s = 0, combine_s = 0;
  // Compute the combine's node runs on the communication stream (the all-to-all dispatcher's
  // unpermute, combine_postprocess), serial with the combine.
  double combine_compute_forward_s = 0, combine_compute_backward_s = 0;
  bool delay_wgrad_compute = false;
  // The host's time to issue each compute node (HostPassTime; zero where the GPU's host cost is
  // not priced or a graph captures the region): the forward's before its dispatcher sync (the
  // attention block, router and preprocess), after it (the experts and the combine), and the
  // backward's, split the same way.
  double host_pre_dispatch_forward_s = 0, host_mlp_forward_s = 0;
  double host_pre_dispatch_backward_s = 0, host_mlp_backward_s = 0;
  // Where the forward's dispatch node blocks the host (a2a_pair_schedule.hpp A2aHostSync), and
  // the compute pre_dispatch_forward runs after the all-to-all dispatcher's device-to-host copy
  // (its permute, token_dispatcher.py dispatch_preprocess: the copy precedes permutation 1).
  A2aHostSync host_sync = A2aHostSync::none;
  double pre_dispatch_forward_after_copy_s = 0;
  // The GPU's idle time after that sync (LayerHostTime::sync_gap_s), as without the overlap.
  double sync_gap_s = 0;
};
double a2a_overlap_exposed_s(const A2aOverlapPair& pair);
// The same with no compute on the communication stream.
double a2a_overlap_exposed_s(double attention_forward_s, double attention_backward_s,
                             double experts_forward_s, double experts_backward_s, double dispatch_s,
                             double combine_s, bool delay_wgrad_compute);

// Communication hidden under a kernel of `window_s`: what sticks out, plus the compute the
// overlap steals from that kernel.
double exposed_s(const GpuSpec& gpu, double comm_s, double window_s);

// A memory-bound kernel moving `bytes` through HBM.
double memory_bound_s(const GpuSpec& gpu, double bytes);

// Whether the core attention runs FlashAttention-2's kernels rather than cuDNN's fused ones:
// attention_backend flash, or auto where Transformer Engine's cuDNN backend does not train the
// head dims on `gpu` (attention_cost.cpp).
bool runs_flash_attention(const Strategy& strategy, const GpuSpec& gpu, bool transformer_engine,
                          double qk_head_dim, double v_head_dim);

// Bytes per element of activations for a training precision.
double activation_element_bytes(Precision precision);

}  // namespace paraplan::detail
