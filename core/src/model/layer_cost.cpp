#include "model/layer_cost.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "model/collectives.hpp"
#include "model/kernels.hpp"
#include "model/moe_dispatch.hpp"

namespace paraplan::detail {
namespace {

// FlashAttention-2 backward runs five GEMM-like products to the forward's two (Dao 2023, §3.1).
constexpr double kFlashBackwardFlopsRatio = 2.5;
// Causal masking: fused kernels skip the masked half of the score matrix.
constexpr double kCausalFraction = 0.5;

// Forward, input-gradient and weight-gradient time of one linear layer (or of a grouped GEMM
// over experts).
struct LinearTime {
  double forward_s = 0;
  double dgrad_s = 0;
  double wgrad_s = 0;  // including the bias gradient
};

// Builds the costs of one layer shape (the values of the layer_cost strategy keys). Token counts
// are per micro-batch on one GPU: `tokens_` is the GPU's sequence chunk gathered over tensor
// parallelism, `norm_tokens_` what element-wise ops see (a 1/t slice with sequence parallelism).
class CostBuilder {
 public:
  CostBuilder(const ModelSpec& model, const Training& training, const GpuSpec& gpu,
              int64_t gpus_per_node, const Strategy& strategy)
      : model_(model),
        training_(training),
        gpu_(gpu),
        s_(strategy),
        kernels_(gpu, training.precision, strategy.fp8_recipe),
        // The LM head and attention stay in 16-bit in fp8 training (Transformer Engine).
        kernels16_(gpu,
                   training.precision == Precision::fp8 ? Precision::bf16 : training.precision),
        e_(kernels_.element_bytes()),
        saved_input_bytes_(kernels_.operand_bytes()),
        t_(static_cast<double>(strategy.tensor_model_parallel_size)),
        h_(static_cast<double>(model.hidden_size)),
        tokens_(static_cast<double>(strategy.micro_batch_size) * training.seq_length /
                static_cast<double>(strategy.context_parallel_size)),
        sequence_parallel_(strategy.sequence_parallel && strategy.tensor_model_parallel_size > 1),
        norm_tokens_(sequence_parallel_ ? tokens_ / t_ : tokens_),
        hidden_mask_bytes_(model.hidden_dropout > 0 ? 1.0 : 0.0),
        tp_group_(place_group(strategy.tensor_model_parallel_size, 1, gpus_per_node)),
        cp_group_(place_group(strategy.context_parallel_size, strategy.tensor_model_parallel_size,
                              gpus_per_node)),
        gpus_per_node_(gpus_per_node) {}

  ModelCosts build() {
    ModelCosts costs;
    costs.dense = layer(/*moe=*/false);
    costs.moe = model_.moe ? layer(/*moe=*/true) : costs.dense;
    costs.embedding = embedding();
    costs.head = head();
    if (model_.mtp_num_layers > 0) costs.mtp = mtp_depth(costs.embedding, costs.head);
    return costs;
  }

 private:
  // Bytes of the layer's [tokens, hidden] activation (whole, before any sharding).
  double hidden_bytes() const { return e_ * h_ * tokens_; }

  // A linear layer on this GPU, `groups` times over `g` (local experts). With biases
  // (Megatron-LM --add-bias-linear), the bias gradient is one more pass over the output
  // gradient.
  LinearTime linear(const Kernels& kernels, const Gemm& g, double groups = 1,
                    bool grouped_gemm = false) const {
    LinearTime time;
    if (grouped_gemm) {
      // TEGroupedMLP (--moe-grouped-gemm): one grouped GEMM over all local experts, as efficient
      // as one GEMM of their summed work (Transformer Engine GroupedLinear).
      time.forward_s = kernels.gemm_s(g, groups);
      time.dgrad_s = kernels.gemm_s({g.m, g.k, g.n}, groups);
      time.wgrad_s = kernels.gemm_s({g.k, g.n, g.m}, groups, kMainGradBytes);
    } else {
      // One GEMM per group at its own size (SequentialMLP for experts).
      time.forward_s = groups * kernels.gemm_s(g);
      time.dgrad_s = groups * kernels.dgrad_s(g);
      time.wgrad_s = groups * kernels.wgrad_s(g);
    }
    if (model_.add_bias_linear) time.wgrad_s += kernels.memory_s(e_ * groups * g.m * g.n);
    return time;
  }

  static void add_linear(LayerCost& cost, const LinearTime& time) {
    cost.forward.compute_s += time.forward_s;
    cost.backward.compute_s += time.dgrad_s + time.wgrad_s;
  }

  LayerCost layer(bool moe) {
    LayerCost cost;
    attention_block(cost, moe);
    if (moe) {
      moe_block(cost);
    } else {
      dense_mlp_block(cost, static_cast<double>(model_.ffn_hidden_size));
    }
    // Kept per layer besides the blocks' own: the two norm inputs, the inputs of the first
    // GEMM of each block and the two dropout masks, replicated over tensor parallelism unless
    // sequence parallel (Korthikanti et al. 2022, eq. 2: the "10sbh" term).
    cost.activation_bytes +=
        (2 * e_ + 2 * saved_input_bytes_ + 2 * hidden_mask_bytes_) * h_ * norm_tokens_;
    cost.checkpoint_bytes = e_ * h_ * norm_tokens_;
    return cost;
  }

  // --recompute-modules layernorm: a norm outside a fused norm-linear (the input norm before
  // MLA's down-projections, the pre-MLP norm before a router; gpt_layer_specs.py) drops its
  // output, the next GEMM's saved input, and makes it again before the backward
  // (transformer_layer.py, CheckpointWithoutOutput). Fused norms are IdentityOp and unaffected.
  void add_norm_recompute(LayerCost& cost) const {
    const double n = h_ * norm_tokens_;
    RecomputeUnit& unit = cost.unit(RecomputeModule::layernorm);
    unit.saved_bytes += saved_input_bytes_ * n;
    unit.forward.compute_s += kernels_.memory_s(2 * e_ * n);  // norm: read x, write y
  }

  // Norm + bias/dropout/residual add of a block, forward and backward.
  void block_elementwise(LayerCost& cost) const {
    const double n = h_ * norm_tokens_;
    cost.forward.compute_s += kernels_.memory_s(2 * e_ * n);   // norm: read x, write y
    cost.backward.compute_s += kernels_.memory_s(3 * e_ * n);  // norm backward
    // Fused bias-dropout-add: read two, write one (+ mask); backward adds the residual grads.
    cost.forward.compute_s += kernels_.memory_s((3 * e_ + hidden_mask_bytes_) * n);
    cost.backward.compute_s += kernels_.memory_s((5 * e_ + hidden_mask_bytes_) * n);
  }

  // Tensor-parallel communication of a block: column-parallel linear in, row-parallel out.
  // Megatron-LM communicates at the block edges: all-reduce, or all-gather + reduce-scatter
  // with sequence parallelism (Korthikanti et al. 2022, Fig. 5). `column_bytes` is what the
  // column-parallel side gathers (the hidden state, or multi-latent attention's latents); the
  // row-parallel side reduces the hidden state.
  void block_tp_comm(LayerCost& cost, const LinearTime& column, const LinearTime& row,
                     double column_bytes = -1) const {
    if (s_.tensor_model_parallel_size <= 1) return;
    const double row_bytes = hidden_bytes();
    if (column_bytes < 0) column_bytes = row_bytes;
    if (!sequence_parallel_) {
      // Forward all-reduce after the row-parallel GEMM; backward all-reduce of the column
      // GEMM's input gradient overlaps its weight-gradient GEMM (async all-reduce).
      cost.forward.tp_comm_s += all_reduce_s(gpu_, tp_group_, row_bytes);
      cost.backward.tp_comm_s +=
          exposed_s(gpu_, all_reduce_s(gpu_, tp_group_, column_bytes), column.wgrad_s);
      return;
    }
    const double column_gather = all_gather_s(gpu_, tp_group_, column_bytes);
    const double column_scatter = reduce_scatter_s(gpu_, tp_group_, column_bytes);
    const double row_gather = all_gather_s(gpu_, tp_group_, row_bytes);
    const double row_scatter = reduce_scatter_s(gpu_, tp_group_, row_bytes);
    if (s_.tp_comm_overlap) {
      // Transformer Engine userbuffers split each collective into t chunks pipelined with
      // chunks of its GEMM; the first chunk has nothing to hide under.
      const auto pipelined = [&](double comm_s, double gemm_s) {
        return comm_s / t_ + exposed_s(gpu_, comm_s * (t_ - 1) / t_, gemm_s);
      };
      cost.forward.tp_comm_s +=
          pipelined(column_gather, column.forward_s) + pipelined(row_scatter, row.forward_s);
      cost.backward.tp_comm_s += pipelined(row_gather, row.dgrad_s) +
                                 exposed_s(gpu_, column_gather, column.dgrad_s) +
                                 exposed_s(gpu_, column_scatter, column.wgrad_s);
      return;
    }
    cost.forward.tp_comm_s += column_gather + row_scatter;
    // Backward: the output-gradient all-gather before the row GEMM is exposed; the input
    // re-gather for the column weight gradient overlaps its input-gradient GEMM, and the
    // input-gradient reduce-scatter overlaps the weight-gradient GEMM.
    cost.backward.tp_comm_s += row_gather + exposed_s(gpu_, column_gather, column.dgrad_s) +
                               exposed_s(gpu_, column_scatter, column.wgrad_s);
  }

  void attention_block(LayerCost& cost, bool moe) {
    const double heads = static_cast<double>(model_.num_attention_heads) / t_;
    const double groups =
        std::max(1.0, static_cast<double>(model_.num_query_groups) / t_);  // replicated if t > g
    const double batch = static_cast<double>(s_.micro_batch_size);
    const double query_len = static_cast<double>(training_.seq_length) / s_.context_parallel_size;
    const double key_len = static_cast<double>(training_.seq_length);

    // Projections into attention (column-parallel) and out of it (row-parallel).
    double qk_head_dim = static_cast<double>(model_.kv_channels);
    double v_head_dim = qk_head_dim;
    LinearTime column;
    RecomputeUnit up_projections;           // the split (up-)projections' forward GEMMs
    double replicated_parameters = 2 * h_;  // norms
    double split_parameters = 0;            // this GPU's share of the tensor-parallel ones
    double projection_flops = 0;            // forward FLOPs of the projections on this GPU
    const auto add_column = [&](const Gemm& g, bool split) {
      const LinearTime time = linear(kernels_, g);
      column.forward_s += time.forward_s;
      column.dgrad_s += time.dgrad_s;
      column.wgrad_s += time.wgrad_s;
      (split ? split_parameters : replicated_parameters) += g.n * g.k;
      projection_flops += g.flops();
      if (split) {
        up_projections.forward.compute_s += time.forward_s;
        up_projections.forward_flops += g.flops();
      }
    };
    double qkv_bytes = 0;      // Q, K, V kept for the attention backward
    double column_bytes = -1;  // what the column-parallel side gathers (default: hidden state)
    if (model_.mla) {
      // DeepSeek-V2 §2.1.2 as Megatron-LM's MLASelfAttention runs it: the down-projections are
      // duplicated (not split) over tensor parallel and run on this GPU's sequence-parallel
      // tokens; their normed latents (and the shared rotary key) are all-gathered into the
      // column-parallel up-projections (multi_latent_attention.py).
      const MlaSpec& mla = *model_.mla;
      qk_head_dim = static_cast<double>(mla.qk_head_dim + mla.qk_pos_emb_head_dim);
      v_head_dim = static_cast<double>(mla.v_head_dim);
      const double kv_rank = static_cast<double>(mla.kv_lora_rank);
      const double q_rank = static_cast<double>(mla.q_lora_rank);
      const double rope = static_cast<double>(mla.qk_pos_emb_head_dim);
      if (q_rank > 0) {
        add_column({norm_tokens_, q_rank, h_}, false);
        add_column({tokens_, heads * qk_head_dim, q_rank}, true);
      } else {
        add_column({tokens_, heads * qk_head_dim, h_}, true);
      }
      add_column({norm_tokens_, kv_rank + rope, h_}, false);
      add_column({tokens_, heads * (mla.qk_head_dim + v_head_dim), kv_rank}, true);
      column_bytes = e_ * tokens_ * ((q_rank > 0 ? q_rank : h_) + kv_rank + rope);
      // q_layernorm and kv_layernorm on the latents, forward and backward.
      const double latents = (q_rank + kv_rank) * norm_tokens_;
      cost.forward.compute_s += kernels_.memory_s(2 * e_ * latents);
      cost.backward.compute_s += kernels_.memory_s(3 * e_ * latents);
      // Kept: the latents before their norms and the normed inputs of the up-projections.
      cost.activation_bytes += (e_ + saved_input_bytes_) * latents;
      qkv_bytes = e_ * tokens_ * heads * (2 * qk_head_dim + v_head_dim);
      // --recompute-modules mla_up_proj: Q, K and V are not kept but made again from the kept
      // latents before the attention backward (multi_latent_attention.py, CheckpointWithoutOutput
      // around the up-projections and rotary embedding).
      up_projections.saved_bytes = qkv_bytes;
      cost.unit(RecomputeModule::mla_up_proj) = up_projections;
      add_norm_recompute(cost);  // MLA's input norm stands alone (no fused norm-linear)
    } else {
      add_column({tokens_, (heads + 2 * groups) * qk_head_dim, h_}, true);
      qkv_bytes = e_ * tokens_ * (heads + 2 * groups) * qk_head_dim;
    }
    const Gemm out_proj{tokens_, h_, heads * v_head_dim};
    const LinearTime row = linear(kernels_, out_proj);
    split_parameters += out_proj.n * out_proj.k;
    add_linear(cost, column);
    add_linear(cost, row);
    block_tp_comm(cost, column, row, column_bytes);
    block_elementwise(cost);

    // Core attention: scores and context per head over this GPU's query chunk.
    const double score_flops = 2 * batch * heads * query_len * key_len * (qk_head_dim + v_head_dim);
    double core_bytes = 0;  // what the core attention keeps beyond Q, K, V
    if (s_.use_flash_attn) {
      core_bytes = 4 * batch * heads * query_len;  // fp32 log-sum-exp per row
      // In fp8 the output projection saves its input in fp8, while the fused attention kernel
      // keeps its 16-bit output O for its own backward (model-review P5).
      if (training_.precision == Precision::fp8) core_bytes += e_ * tokens_ * heads * v_head_dim;
    } else {
      // Softmax output, and with dropout its mask and output (the "5as^2b" of Korthikanti).
      const double elements = batch * heads * query_len * key_len;
      core_bytes = (model_.attention_dropout > 0 ? 2 * e_ + 1 : e_) * elements;
    }
    // The core attention's forward and backward when the fused kernel attends `fraction` of the
    // causal (query, key) pairs (a sliding window: window_attention_fraction).
    const auto core_passes = [&](double fraction) {
      PassTime core_forward, core_backward;
      if (s_.use_flash_attn) {
        const double executed = fraction * kCausalFraction * score_flops;
        // Context parallelism over a ring runs one kernel per ring step, each over 1/cp of the
        // work (Megatron-LM's load-balanced causal chunks), at that size's efficiency;
        // all-gathered K and V meet this GPU's two query chunks in two kernels, and all-to-all
        // gives one kernel over the whole sequence with 1/cp of the heads (Transformer Engine
        // context_parallel.py). A window shrinks every chunk's work alike.
        const double cp = static_cast<double>(s_.context_parallel_size);
        const double calls = cp == 1                                    ? 1
                             : s_.cp_comm_type == CpCommType::p2p       ? cp
                             : s_.cp_comm_type == CpCommType::allgather ? 2
                                                                        : 1;
        core_forward.compute_s = kernels16_.attention_s(executed, false, calls);
        core_backward.compute_s =
            kernels16_.attention_s(kFlashBackwardFlopsRatio * executed, true, calls);
      } else {
        // Megatron-LM's unfused path: two batched GEMMs around scale-mask-softmax and dropout,
        // all on the full s x s score matrix whatever the mask (Korthikanti et al. 2022, §4.1).
        const double bmm_batch = batch * heads;
        const Gemm scores{query_len, key_len, qk_head_dim};
        const Gemm context{query_len, v_head_dim, key_len};
        const double elements = bmm_batch * query_len * key_len;
        // Attention dropout: read and write the scores plus a one-byte mask, both ways.
        const bool dropout = model_.attention_dropout > 0;
        const double dropout_s = dropout ? kernels_.memory_s((2 * e_ + 1) * elements) : 0;
        core_forward.compute_s = kernels16_.gemm_s(scores, bmm_batch) +
                                 kernels_.memory_s(2 * e_ * elements) +  // scale-mask-softmax
                                 dropout_s + kernels16_.gemm_s(context, bmm_batch);
        core_backward.compute_s = 2 * kernels16_.gemm_s(context, bmm_batch) +
                                  2 * kernels16_.gemm_s(scores, bmm_batch) + dropout_s +
                                  kernels_.memory_s(3 * e_ * elements);  // softmax: y, dy -> dx
      }
      if (s_.context_parallel_size > 1) {
        const double kv_chunk_bytes = e_ * batch * query_len * groups * (qk_head_dim + v_head_dim);
        const double cp = static_cast<double>(s_.context_parallel_size);
        switch (s_.cp_comm_type) {
          case CpCommType::p2p: {
            // Ring attention: K and V chunks travel around the context-parallel ring, each step
            // hidden under one chunk's attention (Megatron-LM context parallelism); backward also
            // returns their gradients.
            const bool inter = cp_group_.spans_nodes;
            core_forward.cp_comm_s = (cp - 1) * exposed_s(gpu_, p2p_s(gpu_, inter, kv_chunk_bytes),
                                                          core_forward.compute_s / cp);
            core_backward.cp_comm_s =
                (cp - 1) * exposed_s(gpu_, p2p_s(gpu_, inter, 2 * kv_chunk_bytes),
                                     core_backward.compute_s / cp);
            break;
          }
          case CpCommType::allgather:
            // AttnFuncWithCPAndKVAllGather: the whole K and V gathered before the kernels, and
            // again in backward, whose K and V gradients are reduce-scattered after.
            core_forward.cp_comm_s = all_gather_s(gpu_, cp_group_, cp * kv_chunk_bytes);
            core_backward.cp_comm_s = all_gather_s(gpu_, cp_group_, cp * kv_chunk_bytes) +
                                      reduce_scatter_s(gpu_, cp_group_, cp * kv_chunk_bytes);
            break;
          case CpCommType::a2a: {
            // AttnFuncWithCPAndQKVOA2A (DeepSpeed Ulysses): Q, K and V all-to-all before the
            // kernel, its output after; backward sends their gradients the same ways.
            const double q_bytes = e_ * batch * query_len * heads * qk_head_dim;
            const double out_bytes = e_ * batch * query_len * heads * v_head_dim;
            const double a2a_s = all_to_all_s(gpu_, cp_group_, q_bytes + kv_chunk_bytes) +
                                 all_to_all_s(gpu_, cp_group_, out_bytes);
            core_forward.cp_comm_s = a2a_s;
            core_backward.cp_comm_s = a2a_s;
            break;
          }
        }
      }
      return std::pair{core_forward, core_backward};
    };
    // Sliding-window layers (Megatron-LM --window-size, --window-attn-skip-freq): this layer
    // kind's cost is the mean over its layers, windowed and full, as the stages hold them in the
    // model's mix (exact where a stage's layer count is a multiple of the skip frequency).
    auto [core_forward, core_backward] = core_passes(1.0);
    const double windowed = window_attention_layer_share(model_, moe);
    if (windowed > 0 && s_.use_flash_attn) {
      const auto [window_forward, window_backward] =
          core_passes(window_attention_fraction(model_.window_size, training_.seq_length));
      core_forward = core_forward * (1 - windowed);
      core_forward += window_forward * windowed;
      core_backward = core_backward * (1 - windowed);
      core_backward += window_backward * windowed;
    }
    cost.forward += core_forward;
    cost.backward += core_backward;

    // Q, K, V; the core's own; the output projection's input.
    cost.activation_bytes +=
        qkv_bytes + core_bytes + saved_input_bytes_ * tokens_ * heads * v_head_dim;
    cost.unit(RecomputeModule::core_attn) = {core_bytes, core_forward, score_flops};
    cost.parameters += split_parameters + replicated_parameters;
    cost.forward_flops += projection_flops + out_proj.flops() + score_flops;
  }

  // The vocabulary padded to a multiple of 128 x tensor parallel (Megatron-LM
  // training/tokenizer: _vocab_size_with_padding, --make-vocab-size-divisible-by 128).
  double padded_vocab() const {
    const double multiple = 128 * t_;
    return std::ceil(static_cast<double>(model_.vocab_size) / multiple) * multiple;
  }

  double mlp_weights(double ffn) const {
    return (is_gated(model_.activation) ? 3.0 : 2.0) * h_ * ffn;
  }

  struct MlpTime {
    LinearTime fc1, fc2;       // for the block's communication
    RecomputeUnit activation;  // the activation function alone (--recompute-modules moe_act)
  };

  // FC1, activation, FC2 of width `ffn` split over `tp` GPUs, on `rows` token rows spread evenly
  // over `groups` experts.
  MlpTime mlp(LayerCost& cost, double rows, double ffn, double groups, double tp,
              bool grouped_gemm = false) {
    const double gate = is_gated(model_.activation) ? 2.0 : 1.0;
    const double rows_per_group = rows / groups;
    const LinearTime fc1 =
        linear(kernels_, {rows_per_group, gate * ffn / tp, h_}, groups, grouped_gemm);
    const LinearTime fc2 = linear(kernels_, {rows_per_group, h_, ffn / tp}, groups, grouped_gemm);
    add_linear(cost, fc1);
    add_linear(cost, fc2);
    const double activation_elements = rows * ffn / tp;
    const double activation_s = kernels_.memory_s(e_ * (gate + 1) * activation_elements);
    cost.forward.compute_s += activation_s;
    cost.backward.compute_s += kernels_.memory_s(e_ * (2 * gate + 1) * activation_elements);
    // FC1 output (the activation's input) and the activation's output (FC2's input), which
    // recomputing the activation does not keep.
    cost.activation_bytes += (e_ * gate + saved_input_bytes_) * activation_elements;
    MlpTime time{fc1, fc2, {}};
    time.activation.saved_bytes = saved_input_bytes_ * activation_elements;
    time.activation.forward.compute_s = activation_s;
    return time;
  }

  // A dense MLP on all tokens, with its TP communication.
  // --recompute-modules mlp runs the whole MLP again from its (kept) input.
  void dense_mlp_block(LayerCost& cost, double ffn) {
    LayerCost block;
    const MlpTime time = mlp(block, tokens_, ffn, 1.0, t_);
    block_tp_comm(block, time.fc1, time.fc2);
    const double flops = 2 * tokens_ * mlp_weights(ffn) / t_;
    cost.unit(RecomputeModule::mlp) = {block.activation_bytes, block.forward, flops};
    cost.forward += block.forward;
    cost.backward += block.backward;
    cost.activation_bytes += block.activation_bytes;
    cost.parameters += mlp_weights(ffn) / t_;
    cost.forward_flops += flops;
    block_elementwise(cost);
  }

  // Router, token dispatch, routed and shared experts (Megatron-LM MoELayer: router.py,
  // token_dispatcher.py, experts.py, shared_experts.py).
  void moe_block(LayerCost& cost) {
    const MoeSpec& moe = *model_.moe;
    const double experts = static_cast<double>(moe.num_experts);
    const double top_k = static_cast<double>(moe.top_k);
    const double local_experts = experts / static_cast<double>(s_.expert_model_parallel_size);
    const double expert_ffn = static_cast<double>(moe.moe_ffn_hidden_size);
    const double et = static_cast<double>(s_.expert_tensor_parallel());
    const double n = norm_tokens_;  // this GPU's tokens at the MoE input
    const MoeDispatch d = moe_dispatch(gpu_, model_, s_, gpus_per_node_, n, e_);
    add_norm_recompute(cost);  // the pre-MLP norm stands alone before the router
    LayerCost block;           // the block's own forward and backward, for the overlaps below
    const double flops_before = cost.forward_flops;

    // Router on this GPU's tokens: gating GEMM, fp32 softmax and top-k over the experts.
    const Gemm router{n, experts, h_};
    block.forward.compute_s += kernels_.gemm_s(router) + kernels_.memory_s(3 * 4 * n * experts);
    block.backward.compute_s += kernels_.dgrad_s(router) + kernels_.wgrad_s(router) +
                                kernels_.memory_s(3 * 4 * n * experts);
    cost.parameters += h_ * experts;
    cost.forward_flops += router.flops();

    // Permutation into expert order and the unpermute (moe_utils.py permute/unpermute): a row
    // gather (read and write), then reading the expert rows into the token rows. Unfused, the
    // unpermute zero-fills its output and scatter-adds (read, and read-modify-write of the sum
    // per row added). The probs weight the rows inside the experts' activation (experts.py
    // weighted_bias_swiglu_impl; since Megatron-Core 0.12, before it in the unpermute).
    const double row = e_ * h_;
    const double permute_bytes = 2 * row * d.permuted_rows;
    const double unpermute_bytes = s_.moe_permute_fusion
                                       ? row * (d.unpermute_in_rows + d.unpermute_out_rows)
                                       : row * (3 * d.unpermute_in_rows + d.unpermute_out_rows);
    const double permutation_s =
        kernels_.memory_s(permute_bytes) + kernels_.memory_s(unpermute_bytes);
    block.forward.compute_s += permutation_s;
    block.backward.compute_s += permutation_s;

    // Dispatch and combine collectives; their backward mirrors them.
    const double dispatch_s = d.dispatch_s + d.combine_s;
    double& comm_forward =
        s_.expert_model_parallel_size > 1 ? block.forward.ep_comm_s : block.forward.tp_comm_s;
    double& comm_backward =
        s_.expert_model_parallel_size > 1 ? block.backward.ep_comm_s : block.backward.tp_comm_s;

    // Routed experts on the rows the busiest GPU receives, width split by expert tensor parallel.
    const MlpTime routed =
        mlp(block, d.expert_rows, expert_ffn, local_experts, et, s_.moe_grouped_gemm);
    cost.unit(RecomputeModule::moe_act) = routed.activation;
    cost.expert_parameters += local_experts * mlp_weights(expert_ffn) / et;
    cost.forward_flops += 2 * n * top_k * et * mlp_weights(expert_ffn) / et;

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
      block.forward.compute_s += shared.forward.compute_s;
      block.backward.compute_s += shared.backward.compute_s;
      block.forward.tp_comm_s += exposed_s(gpu_, shared.forward.tp_comm_s, permutation_s);
      block.backward.tp_comm_s += exposed_s(gpu_, shared.backward.tp_comm_s, permutation_s);
    } else {
      comm_forward += dispatch_s;
      comm_backward += dispatch_s;
      block.forward += shared.forward;
      block.backward += shared.backward;
    }
    block.activation_bytes += shared.activation_bytes;
    block_elementwise(block);

    if (s_.overlap_moe_expert_parallel_comm) {
      // --overlap-moe-expert-parallel-comm: one micro-batch's dispatch and combine run under
      // another's forward or backward compute of the same layer (combined 1F1B schedule).
      const double window = cost.forward.compute_s + cost.backward.compute_s +
                            block.forward.compute_s + block.backward.compute_s;
      const double comm = block.forward.ep_comm_s + block.backward.ep_comm_s;
      const double exposed = exposed_s(gpu_, comm, window);
      block.forward.ep_comm_s = comm > 0 ? exposed * block.forward.ep_comm_s / comm : 0;
      block.backward.ep_comm_s = comm > 0 ? exposed * block.backward.ep_comm_s / comm : 0;
    }
    cost.forward += block.forward;
    cost.backward += block.backward;

    // Kept for backward: the experts' own (in mlp: the activation's input serves the gradient of
    // the probs too) and their fc1 input; the router's fp32 scores and its routing map. The
    // unpermute keeps only its row map (moe_utils.py; Transformer Engine's moe_unpermute saves
    // its input only when it merges probs, which Megatron-Core leaves to the experts).
    const double kept =
        block.activation_bytes + saved_input_bytes_ * h_ * d.expert_rows + (4 + 1) * n * experts;
    cost.activation_bytes += kept;
    // --recompute-modules moe: the whole layer, dispatch included, again from its input.
    cost.unit(RecomputeModule::moe) = {kept, block.forward, cost.forward_flops - flops_before};
  }

  // Vocabulary-parallel embedding: look-up, then a reduction over tensor parallelism.
  EdgeCost embedding() const {
    EdgeCost edge;
    const double n = h_ * norm_tokens_;
    edge.forward.compute_s = kernels_.memory_s(2 * hidden_bytes()) +                // gather rows
                             kernels_.memory_s((2 * e_ + hidden_mask_bytes_) * n);  // dropout
    // Backward: dropout, then the dense weight gradient of the whole table: zero-filled,
    // scattered into, and accumulated into the fp32 main_grad.
    const double table = h_ * padded_vocab() / t_;
    edge.backward.compute_s =
        kernels_.memory_s((2 * e_ + hidden_mask_bytes_) * n) + kernels_.memory_s(e_ * table) +
        kernels_.memory_s(2 * e_ * h_ * tokens_) + kernels_.memory_s((e_ + kMainGradBytes) * table);
    if (s_.tensor_model_parallel_size > 1) {
      edge.forward.tp_comm_s = sequence_parallel_
                                   ? reduce_scatter_s(gpu_, tp_group_, hidden_bytes())
                                   : all_reduce_s(gpu_, tp_group_, hidden_bytes());
      if (sequence_parallel_) {
        edge.backward.tp_comm_s = all_gather_s(gpu_, tp_group_, hidden_bytes());
      }
    }
    edge.activation_bytes = hidden_mask_bytes_ * n;
    // Learned absolute position embeddings (Megatron-LM's default position_embedding_type): a
    // [max_position_embeddings, hidden] table on every tensor-parallel rank (not vocabulary
    // parallel), max_position_embeddings taken as the sequence length.
    const double positions = model_.position_embedding_type == PositionEmbedding::learned_absolute
                                 ? h_ * static_cast<double>(training_.seq_length)
                                 : 0;
    edge.parameters = table + positions;
    return edge;
  }

  // Final norm, vocabulary-parallel LM head and cross-entropy in fp32.
  EdgeCost head() const {
    EdgeCost edge;
    const double vocab = padded_vocab() / t_;
    const Gemm logits{tokens_, vocab, h_};
    const double logit_elements = tokens_ * vocab;
    const double norm_elements = h_ * norm_tokens_;
    const double forward_s = kernels16_.gemm_s(logits);
    const double dgrad_s = kernels16_.dgrad_s(logits);
    const double wgrad_s = kernels16_.wgrad_s(logits);
    // Megatron-LM's vocab-parallel cross-entropy in fp32: cast, max, subtract, exp, sum and
    // normalise (six passes, 38 bytes per logit from 16-bit); backward scales the saved
    // softmax and casts it back (14 bytes per logit). With --cross-entropy-loss-fusion
    // (megatron/core/fusions/fused_cross_entropy.py) three fused kernels: the cast with the
    // max (read 2, write 4), subtract and exp with the sum (read 4, write 4), normalise (read
    // 4, write 4); backward one (read the fp32 softmax, write the 16-bit gradient). Transformer
    // Engine's Triton kernel (--cross-entropy-fusion-impl te; transformer_engine/pytorch/triton/
    // cross_entropy.py) reads the logits once forward (online softmax; the loss kernel reads only
    // the target's logit) and backward writes the gradient into them in place.
    const double cast_bytes = e_ < 4 ? e_ + 4 : 0;
    const bool te_loss =
        s_.cross_entropy_loss_fusion && s_.cross_entropy_fusion_impl == CrossEntropyFusionImpl::te;
    edge.forward.compute_s = kernels_.memory_s(2 * e_ * norm_elements) + forward_s;
    edge.backward.compute_s = kernels_.memory_s(3 * e_ * norm_elements) + dgrad_s + wgrad_s;
    if (te_loss) {
      edge.forward.compute_s += kernels_.memory_s(e_ * logit_elements);
      edge.backward.compute_s += kernels_.memory_s(2 * e_ * logit_elements);
    } else if (s_.cross_entropy_loss_fusion) {
      for (const double bytes : {e_ + 4, 8.0, 8.0}) {
        edge.forward.compute_s += kernels_.memory_s(bytes * logit_elements);
      }
      edge.backward.compute_s += kernels_.memory_s((4 + e_) * logit_elements);
    } else {
      for (const double bytes : {cast_bytes, 4.0, 8.0, 8.0, 4.0, 8.0}) {
        edge.forward.compute_s += kernels_.memory_s(bytes * logit_elements);
      }
      edge.backward.compute_s +=
          kernels_.memory_s(8 * logit_elements) + kernels_.memory_s(cast_bytes * logit_elements);
    }
    if (s_.tensor_model_parallel_size > 1) {
      // Three small all-reduces of per-token statistics (max, sum, target logit).
      edge.forward.tp_comm_s = 3 * all_reduce_s(gpu_, tp_group_, 4 * tokens_);
      if (sequence_parallel_) {
        edge.forward.tp_comm_s += all_gather_s(gpu_, tp_group_, hidden_bytes());
        edge.backward.tp_comm_s =
            exposed_s(gpu_, reduce_scatter_s(gpu_, tp_group_, hidden_bytes()), wgrad_s);
      } else {
        edge.backward.tp_comm_s =
            exposed_s(gpu_, all_reduce_s(gpu_, tp_group_, hidden_bytes()), wgrad_s);
      }
    }
    edge.activation_bytes = 2 * e_ * norm_elements;  // norm input, LM-head input
    // Megatron-LM's vocab-parallel cross-entropy casts the 16-bit logits to fp32
    // (tensor_parallel/cross_entropy.py calculate_logits_max: .float()) while they are alive,
    // and keeps the fp32 softmax for the backward, whose 16-bit gradient joins it: 6 bytes per
    // logit from 16-bit training (model-review P9), 4 in fp32. Transformer Engine's kernel keeps
    // only the logits (and 12 bytes of statistics per token).
    edge.transient_bytes = (te_loss ? e_ : e_ < 4 ? e_ + 4 : 4) * logit_elements;
    edge.parameters = h_ * vocab + h_;
    edge.forward_flops = logits.flops();
    return edge;
  }

  // One multi-token-prediction depth besides its transformer layer (Megatron-LM
  // multi_token_prediction.py, MultiTokenPredictionLayer): the shifted tokens' embedding, enorm
  // and hnorm, eh_proj (2h -> h, column-parallel, its output all-gathered over tensor parallel),
  // then the final norm, the shared LM head and the loss again.
  EdgeCost mtp_depth(const EdgeCost& embedding, const EdgeCost& head) const {
    EdgeCost edge;
    edge.forward = embedding.forward;
    edge.backward = embedding.backward;
    edge.forward += head.forward;
    edge.backward += head.backward;
    edge.activation_bytes = embedding.activation_bytes + head.activation_bytes;
    edge.transient_bytes = head.transient_bytes;
    edge.forward_flops = head.forward_flops;
    const Gemm eh_proj{tokens_, h_ / t_, 2 * h_};
    const LinearTime proj = linear(kernels_, eh_proj);
    edge.forward.compute_s += proj.forward_s;
    edge.backward.compute_s += proj.dgrad_s + proj.wgrad_s;
    const double n = h_ * norm_tokens_;
    edge.forward.compute_s += 2 * kernels_.memory_s(2 * e_ * n);  // enorm, hnorm
    edge.backward.compute_s += 2 * kernels_.memory_s(3 * e_ * n);
    if (s_.tensor_model_parallel_size > 1) {
      // The [tokens, 2h] input gathered under sequence parallelism, the [tokens, h/t] output
      // gathered along the hidden dimension; their backward reduce-scatters.
      const double input =
          sequence_parallel_ ? all_gather_s(gpu_, tp_group_, 2 * hidden_bytes()) : 0;
      const double output = all_gather_s(gpu_, tp_group_, hidden_bytes());
      edge.forward.tp_comm_s += input + output;
      edge.backward.tp_comm_s += input + output;
    }
    // enorm and hnorm inputs and eh_proj's input.
    edge.activation_bytes += (2 * e_ + 2 * saved_input_bytes_) * n;
    edge.parameters = eh_proj.n * eh_proj.k + 3 * h_;  // eh_proj, enorm, hnorm, final norm
    edge.forward_flops += eh_proj.flops();
    return edge;
  }

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
};

}  // namespace

PassTime& PassTime::operator+=(const PassTime& other) {
  compute_s += other.compute_s;
  tp_comm_s += other.tp_comm_s;
  cp_comm_s += other.cp_comm_s;
  ep_comm_s += other.ep_comm_s;
  return *this;
}

PassTime PassTime::operator*(double factor) const {
  return {compute_s * factor, tp_comm_s * factor, cp_comm_s * factor, ep_comm_s * factor};
}

double exposed_s(const GpuSpec& gpu, double comm_s, double window_s) {
  return std::max(0.0, comm_s - window_s) + gpu.overlap_slowdown * std::min(comm_s, window_s);
}

double memory_bound_s(const GpuSpec& gpu, double bytes) {
  if (bytes <= 0) return 0;
  return bytes / (gpu.hbm_bytes_per_s * gpu.memory_efficiency.at(bytes)) + gpu.kernel_overhead_s;
}

double activation_element_bytes(Precision precision) {
  return precision == Precision::fp32 ? 4.0 : 2.0;
}

ModelCosts compute_model_costs(const ModelSpec& model, const Training& training, const GpuSpec& gpu,
                               int64_t gpus_per_node, const Strategy& strategy) {
  return CostBuilder(model, training, gpu, gpus_per_node, strategy).build();
}

}  // namespace paraplan::detail
