// The builder of one layer shape's costs (layer_cost.hpp), shared by the files that price its
// parts: layer_cost.cpp (the layer, its norms, dense MLP and tensor-parallel communication),
// attention_cost.cpp (the attention block), moe_layer_cost.cpp (the MoE block) and edge_cost.cpp
// (embedding, LM head and loss, multi-token prediction). Internal to core/src/model.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

#include "model/collectives.hpp"
#include "model/device_connections.hpp"
#include "model/framework_rules.hpp"
#include "model/kernels.hpp"
#include "model/layer_cost.hpp"

namespace paraplan::detail {

// Forward, input-gradient and weight-gradient time of one linear layer (or of a grouped GEMM
// over experts).
struct LinearTime {
  double forward_s = 0;
  double dgrad_s = 0;
  double wgrad_s = 0;  // including the bias gradient
};

// Who adds a linear layer's bias (Megatron-LM's skip_bias_add): the linear module itself
// (skip_bias_add=False: linear_qkv and the attention's other input projections, the grouped
// experts' linear_fc1), or Megatron-LM after it, in the bias-activation or bias-dropout-add
// fusion (skip_bias_add=True: linear_proj, an MLP's linear_fc1 and linear_fc2), whose autograd
// sums the output gradient for the bias gradient, or Megatron-Core's grouped experts after their
// linear_fc2, expert by expert, weighted by the routing probabilities (TEGroupedMLP._apply_bias:
// its passes, the bias gradient's included, priced by CostBuilder::expert_output_bias).
enum class BiasAdd { after_module, in_module, expert_output };

// What a block's column-parallel modules take in over tensor parallel
// (CostBuilder::block_tp_comm).
struct TpColumnInput {
  double bytes = -1;           // the 16-bit input (default: the hidden state)
  double gathered_bytes = -1;  // what a sequence-parallel all-gather of it moves
  double modules = 1;          // the column-parallel modules that gather it
};

// Builds the costs of one layer shape (the values of the layer_cost strategy keys). Token counts
// are per micro-batch on one GPU: `tokens_` is the GPU's sequence chunk gathered over tensor
// parallelism, `norm_tokens_` what element-wise ops see (a 1/t slice with sequence parallelism).
class CostBuilder {
 public:
  CostBuilder(const ModelSpec& model, const Training& training, const GpuSpec& gpu,
              int64_t gpus_per_node, const Strategy& strategy, FrameworkKernels framework);

  ModelCosts build();
  // The parts of build(): all but the MoE layer, and the MoE layer (cost_cache.hpp caches them
  // apart, keyed by the keys each reads).
  SharedCosts build_shared();
  // The MoE layer finished from its attention block (build_shared's moe_attention).
  LayerCost build_moe_layer(const LayerCost& moe_attention) {
    return finish_layer(moe_attention, /*moe=*/true);
  }

 private:
  // Bytes of the layer's [tokens, hidden] activation (whole, before any sharding).
  double hidden_bytes() const { return e_ * h_ * tokens_; }

  HeadDims head_dims() const { return attention_head_dims(model_); }

  // layer_cost.cpp
  LinearTime linear(const Kernels& kernels, const Gemm& g, double groups = 1,
                    bool grouped_gemm = false, BiasAdd bias_add = BiasAdd::after_module) const;
  bool bias_gradient_fused(BiasAdd bias_add) const;
  static void add_linear(LayerCost& cost, const LinearTime& time) {
    cost.forward.compute_s += time.forward_s;
    cost.backward.compute_s += time.dgrad_s + time.wgrad_s;
  }
  // A layer: its attention block alone (which reads no MoE key), then the rest of it.
  LayerCost attention(bool moe);
  LayerCost finish_layer(LayerCost cost, bool moe);
  LayerCost layer(bool moe) { return finish_layer(attention(moe), moe); }
  void add_norm_recompute(LayerCost& cost) const;
  void block_elementwise(LayerCost& cost) const;
  void block_tp_comm(LayerCost& cost, const LinearTime& column, const LinearTime& row,
                     TpColumnInput input = {}) const;
  double gathered_input_element_bytes() const;
  double amax_reduction_s() const;
  // A tensor-parallel collective of `comm_s` issued ahead of a GEMM: `overlapped_s` of it stays
  // exposed where it runs beside the GEMM, all of it where it waits for the GEMM's end
  // (device_connections.hpp tp_collectives_overlap_gemms).
  double tp_overlap_exposed_s(double comm_s, double overlapped_s) const {
    return tp_collectives_overlap_gemms(s_, gpu_) ? overlapped_s : comm_s;
  }
  double mlp_weights(double ffn) const {
    return (is_gated(model_.activation) ? 3.0 : 2.0) * h_ * ffn;
  }

  struct MlpTime {
    LinearTime fc1, fc2;          // for the block's communication
    RecomputeUnit activation;     // the activation function alone (--recompute-modules moe_act)
    double fc1_output_bytes = 0;  // the activation's input, kept for its backward
  };
  MlpTime mlp(LayerCost& cost, double rows, double ffn, double groups, double tp,
              bool grouped_gemm = false);
  // The eager clamp before a clamped gated activation (layer_cost.cpp clamped_activation).
  struct ClampTime {
    double forward_s = 0, backward_s = 0;
    double saved_bytes = 0;  // the clamped copy the activation keeps beside the fc1 output
  };
  ClampTime clamped_activation(double fc1_output_elements, bool grouped_gemm) const;
  // The routed experts' weighted fc2 bias added eagerly (layer_cost.cpp expert_output_bias).
  struct ExpertBiasTime {
    double forward_s = 0, backward_s = 0;
  };
  ExpertBiasTime expert_output_bias(double output_elements, double groups) const;
  bool eager_grouped_experts(bool grouped_gemm) const;
  void dense_mlp_block(LayerCost& cost, double ffn);

  // attention_cost.cpp: the block, its input projections, and the core attention with its
  // context-parallel exchange.
  void attention_block(LayerCost& cost, bool moe);
  struct AttentionShape;
  struct AttentionProjections;
  AttentionShape attention_shape() const;
  void add_attention_column(AttentionProjections& p, const Gemm& g, bool split) const;
  void mla_projections(LayerCost& cost, const AttentionShape& a, AttentionProjections& p) const;
  void qkv_projection(LayerCost& cost, const AttentionShape& a, AttentionProjections& p) const;
  void qk_layernorm(LayerCost& cost, const AttentionShape& a, AttentionProjections& p) const;
  struct RotaryTime {
    double forward_s = 0, backward_s = 0;
  };
  RotaryTime rotary_embedding(const AttentionShape& a, double rotated_heads) const;
  bool projection_keeps_16bit_input() const;
  double core_attention_saved_bytes(const AttentionShape& a) const;
  void fp8_attention_casts(LayerCost& cost, const AttentionShape& a, AttentionProjections& p) const;
  std::pair<PassTime, PassTime> fused_attention_kernels(const AttentionShape& a, double score_flops,
                                                        double fraction, bool torch_ring) const;
  std::pair<PassTime, PassTime> unfused_attention_kernels(const AttentionShape& a) const;
  void add_cp_exchange(const AttentionShape& a, PassTime& core_forward,
                       PassTime& core_backward) const;
  std::pair<PassTime, PassTime> core_attention_passes(const AttentionShape& a, double score_flops,
                                                      double fraction, bool torch_ring) const;
  std::pair<PassTime, PassTime> torch_ring_passes(const AttentionShape& a,
                                                  const PassTime& forward_kernels,
                                                  const PassTime& backward_kernels) const;
  PassTime core_attention(LayerCost& cost, const AttentionShape& a, double score_flops,
                          bool moe) const;

  // moe_layer_cost.cpp: the block and its parts, in the order they run.
  void moe_block(LayerCost& cost);
  struct MoeBlock;
  void moe_router(LayerCost& cost, MoeBlock& m) const;
  void moe_permutation(MoeBlock& m) const;
  void moe_routed_experts(LayerCost& cost, MoeBlock& m);
  bool experts_pad_rows_for_fp8(const MoeBlock& m) const;
  void moe_fp8_padding(MoeBlock& m) const;
  void moe_shared_experts_and_dispatch(LayerCost& cost, MoeBlock& m);
  void moe_elementwise(MoeBlock& m);
  void moe_a2a_overlap(LayerCost& cost, MoeBlock& m) const;

  // torchtitan_sac.cpp: sets cost.per_op_checkpoint from the finished layer.
  void per_op_checkpoint(LayerCost& cost, bool moe) const;

  // edge_cost.cpp
  // The vocabulary padded to a multiple of 128 x tensor parallel (Megatron-LM
  // training/tokenizer: _vocab_size_with_padding, --make-vocab-size-divisible-by 128).
  double padded_vocab() const {
    const double multiple = 128 * t_;
    return std::ceil(static_cast<double>(model_.vocab_size) / multiple) * multiple;
  }
  EdgeCost embedding() const;
  EdgeCost head() const;
  EdgeCost mtp_depth(const EdgeCost& embedding, const EdgeCost& head) const;

  const ModelSpec& model_;
  const Training& training_;
  const GpuSpec& gpu_;
  const Strategy& s_;  // only its keys marked layer_cost are read (see strategy_keys())
  Kernels kernels_;
  Kernels kernels16_;
  double e_;                  // bytes per activation element
  double saved_input_bytes_;  // bytes per element of GEMM inputs saved for backward
  double t_;
  double h_;
  double tokens_;
  bool sequence_parallel_;
  double norm_tokens_;
  double hidden_mask_bytes_;
  Group tp_group_;
  Group cp_group_;
  int64_t gpus_per_node_;
  FrameworkKernels framework_;
};

}  // namespace paraplan::detail
