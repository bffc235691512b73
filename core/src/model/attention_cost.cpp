// The attention block of one layer: its projections (multi-latent attention's included), their
// tensor-parallel communication, and the core attention with its context-parallel exchange.
#include <algorithm>
#include <utility>

#include "model/attention_memory.hpp"
#include "model/collectives.hpp"
#include "model/cost_builder.hpp"
#include "model/device_connections.hpp"
#include "model/fp8_attention.hpp"
#include "model/kernels.hpp"

namespace paraplan::detail {
namespace {

// FlashAttention-2 backward runs five GEMM-like products to the forward's two (Dao 2023, §3.1).
constexpr double kFlashBackwardFlopsRatio = 2.5;
// Causal masking: fused kernels skip the masked half of the score matrix.
constexpr double kCausalFraction = 0.5;

// PyTorch's ring attention, torchtitan's context parallelism (torch/distributed/tensor/
// experimental/_attention.py, 2025: _templated_ring_attention and its backward; torchtitan's
// model repeats K and V to every local head before SDPA, models/llama3/model/model.py repeat_kv).
// Its eager ops around each ring step move, in bytes per element of this GPU's attention output
// (forward) or of its query and K+V (backward):
// - forward, per step after the first: _SDPAMerger.step casts the step's output to fp32 (2 read,
//   4 written) and _merge_one runs out - sigmoid(lse diff) * (out - block_out) in fp32 (three
//   binary ops, 12 + 8 + 12); on the steps that attend only the second query chunk (half of them,
//   i > rank) the block is half the output and _partial_update's torch.cat rewrites the whole
//   fp32 output (4 + 4): (38 + 38 / 2 + 8) / 2 = 32.5 a step on average;
constexpr double kRingMergeBytesPerOutput = 32.5;
// - forward, once: the first step's output to fp32 (6) and the merged result back (4 + 2);
constexpr double kRingCastBytesPerOutput = 12;
// - backward, per step: the fp32 accumulation of the step's 16-bit dQ, dK and dV (grad += :
//   4 + 2 read, 4 written), on half the steps a half-chunk add and _partial_update's torch.cat of
//   the whole fp32 gradient (10 / 2 + 8): (10 + 13) / 2 = 11.5 per element of Q and of K+V; and
//   torch.cat of the fp32 dK and dV into the buffer the next rank receives (4 + 4 per K+V);
constexpr double kRingGradAccumulateBytes = 11.5;
constexpr double kRingGradConcatBytes = 8;
// - backward, once: the fp32 zeros of dQ, dK, dV (4) and their casts back to 16 bits (4 + 2).
constexpr double kRingGradInitCastBytes = 4 + 6;
// The dK and dV travelling the ring are fp32 (accum_dtype with convert_to_f32, the default).
constexpr double kRingGradBytesPerElement = 4;

// Transformer Engine's ring attention (cp_comm_type p2p: AttnFuncWithCPAndKVP2P in
// transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py, 2026; the
// same steps since TE 1.4's AttnFuncWithCP) merges the ring steps on the compute stream, in the
// 16-bit dtype of the attention, with jit-fused elementwise kernels:
// - forward, per ring step, per element of this GPU's attention output:
//   flash_attn_fwd_out_correction reads the step's output and the running output and writes it
//   (2 + 2 + 2 bytes); the steps below the diagonal (i <= rank) correct the whole output, those
//   above it only the second query chunk (flash_attn_fwd_second_half_out_correction), half of
//   the steps each on average over the ranks: 6 x (1 + 1/2) / 2 = 4.5;
constexpr double kTeRingOutCorrectionBytes = 4.5;
// - backward, per ring step, per element of Q and of K+V: dq.add_(dq_), dk.add_(dk_),
//   dv.add_(dv_) (2 + 2 read, 2 written) over the whole tensor or one of its two chunks, half of
//   the steps each on average: 4.5.
constexpr double kTeRingGradAccumulateBytes = 4.5;

// Transformer Engine's DotProductAttention under attention_backend auto runs cuDNN's fused
// attention where cuDNN trains the head dims, and FlashAttention where it does not
// (transformer_engine/common/fused_attn/fused_attn.cpp nvte_get_fused_attn_backend, "head
// dimension", TE 2.0 to 2026-08). On Blackwell (sm_100 and later) cuDNN's training kernels take
// head dims up to 128, multi-latent attention's 192 / 128 (cuDNN 9.11) and 256 / 256 (cuDNN
// 9.23); Hopper's take any up to 256. Equal head dims between 128 and 256 (Nemotron-4's 192)
// therefore run FlashAttention-2 on Blackwell (flash-attn 2.7.3 and later,
// dot_product_attention/utils.py version_required_blackwell).
constexpr double kBlackwellCudnnHeadDim = 128;

bool cudnn_trains_head_dims(double compute_capability, double qk_head_dim, double v_head_dim) {
  if (compute_capability < kBlackwellComputeCapability) return true;
  if (qk_head_dim <= kBlackwellCudnnHeadDim && v_head_dim <= kBlackwellCudnnHeadDim) return true;
  const bool latent = qk_head_dim == 192 && v_head_dim == 128;
  const bool wide = qk_head_dim == 256 && v_head_dim == 256;
  return latent || wide;
}

// Multi-latent attention's rotary embedding as Megatron-Core runs it with apply_rope_fusion
// (Megatron-LM's default, --no-rope-fusion unset; the Megatron-Bridge performance scripts set it,
// scripts/performance/utils/overrides.py): multi_latent_attention.py qkv_up_proj_and_rope_apply
// calls two Triton kernels each way (fusions/fused_mla_yarn_rope_apply.py, Megatron-LM 23e6471569
// of 2025-06-02 to 4415119, the pin of Megatron-Bridge 26.04), whose outputs the contiguous()
// after them leave as they are:
// - fused_apply_mla_rope_for_q rotates the query's positional part in place
//   (rotary_fwd_q_kernel: qk_pos_emb_head_dim read and written per head); its backward rotates
//   the query gradient's positional part back in place (rotary_bwd_q_kernel);
// - fused_apply_mla_rope_for_kv reads the key-value up-projection's key and value parts per head
//   and the shared positional key per token, and writes the key (its key part and the rotated
//   positional key for every head) and the value apart (rotary_fwd_kv_kernel); its backward reads
//   the key's and the value's gradients and writes the up-projection output's gradient and the
//   positional key's, summed over the heads (rotary_bwd_kv_kernel).
// Forward and backward move the same bytes: the time of either.
double mla_rotary_pass_s(const Kernels& kernels, double element_bytes, double tokens, double heads,
                         const MlaSpec& mla) {
  const double rope = static_cast<double>(mla.qk_pos_emb_head_dim);
  const double key = static_cast<double>(mla.qk_head_dim);
  const double value = static_cast<double>(mla.v_head_dim);
  const double q_bytes = element_bytes * tokens * heads * 2 * rope;
  const double kv_bytes =
      element_bytes * tokens * (heads * ((key + value) + (key + rope + value)) + rope);
  return kernels.memory_s(q_bytes) + kernels.memory_s(kv_bytes);
}

// A sliding window's fused kernel loops each query tile over its window's keys only (cuDNN's
// diagonal band, FlashAttention's n_block_min), so its tiles' fixed costs are spread over the
// keys a row attends, as in a causal call that short: it runs at the causal curve's efficiency
// for the call whose rows attend as many keys on average. The window's rows attend
// `fraction` (s + 1) / 2 keys on average (window_attention_fraction), as a causal call over
// L = fraction (s + 1) - 1 tokens does, whose FLOPs are the window's executed FLOPs times L / s:
// the share returned (1 without a window). Checked against NVIDIA's cuDNN SDPA benchmark of
// GPT-OSS's attention at windows of 128 and 1024 on GB200 and H200 (cudnn-frontend
// benchmark/sdpa_benchmark_training results, docs/model.md section 1b).
double window_curve_share(double fraction, double tokens) {
  if (fraction >= 1) return 1;
  return (fraction * (tokens + 1) - 1) / tokens;
}

// FlashAttention-2's work over a causal sequence of `tokens` (FlashSpan): without context
// parallelism, or with K and V all-gathered or all-to-all, each query row attends tokens / 2
// keys on average (all-gathered: this GPU's two query chunks, at mirrored positions, attend
// tokens / 2 between them). Over a ring of `cp` (Transformer Engine's AttnFuncWithCP since TE
// 1.4, attention.py; PyTorch's _templated_ring_attention alike) this GPU holds n = tokens / cp
// in two chunks and runs one call per step, each of equal work: the first causal over its own n
// (n / 2 a row), then (cp - 1) / 2 steps on average over the ranks without a mask with all n
// queries against one chunk of keys (i <= rank: n / 2 keys a query row, n queries a key row)
// and as many with the second query chunk against all n keys (i > rank: n and n / 2). Forward
// and backward therefore have the same spans: (cp + 1) / 2cp of the work at n / 2 and
// (cp - 1) / 2cp at n. A sliding window shrinks every row's span by the share of work it keeps.
std::pair<FlashSpan, FlashSpan> flash_spans(double tokens, double cp, double window_fraction) {
  const double local = tokens / cp * window_fraction;
  return {{(cp + 1) / (2 * cp), local / 2}, {(cp - 1) / (2 * cp), local}};
}

// fp8_dot_product_attention as it acts: fp8 training with Transformer Engine's fused attention
// (the rulebook refuses the rest, fp8_attention.cpp).
bool fp8_attention_on(const Strategy& s, const Training& training, bool transformer_engine) {
  return s.fp8_dot_product_attention && training.precision == Precision::fp8 &&
         transformer_engine && s.use_flash_attn;
}

}  // namespace

bool runs_flash_attention(const Strategy& strategy, const GpuSpec& gpu, bool transformer_engine,
                          double qk_head_dim, double v_head_dim) {
  switch (strategy.attention_backend) {
    case AttentionBackend::flash:
      return true;
    case AttentionBackend::fused:
      return false;
    case AttentionBackend::automatic:
      break;
  }
  return transformer_engine &&
         !cudnn_trains_head_dims(gpu.compute_capability, qk_head_dim, v_head_dim);
}

// One micro-batch's attention on this GPU: its heads, sequence chunk and head dims.
struct CostBuilder::AttentionShape {
  double heads;
  double groups;  // replicated if t > g
  double batch;
  double query_len;
  double key_len;
  double qk_head_dim, v_head_dim;
};

// The input projections (column-parallel) as the rest of the block needs them.
struct CostBuilder::AttentionProjections {
  LinearTime column;
  RecomputeUnit up_projections;      // the split (up-)projections' forward GEMMs
  double replicated_parameters = 0;  // norms and the duplicated down-projections
  double split_parameters = 0;       // this GPU's share of the tensor-parallel ones
  double projection_flops = 0;       // forward FLOPs of the projections on this GPU
  double qkv_bytes = 0;              // Q, K, V kept for the attention backward
  TpColumnInput column_input;  // what the column-parallel side gathers (default: hidden state)
};

CostBuilder::AttentionShape CostBuilder::attention_shape() const {
  const double heads = static_cast<double>(model_.num_attention_heads) / t_;
  const double groups =
      std::max(1.0, static_cast<double>(model_.num_query_groups) / t_);  // replicated if t > g
  const double batch = static_cast<double>(s_.micro_batch_size);
  const double query_len = static_cast<double>(training_.seq_length) / s_.context_parallel_size;
  const double key_len = static_cast<double>(training_.seq_length);
  const HeadDims dims = head_dims();
  return {heads, groups, batch, query_len, key_len, dims.qk, dims.v};
}

// The input projections add their own bias (attention.py and multi_latent_attention.py:
// skip_bias_add=False); linear_proj leaves it to bias-dropout-add (skip_bias_add=True).
void CostBuilder::add_attention_column(AttentionProjections& p, const Gemm& g, bool split) const {
  const LinearTime time = linear(kernels_, g, 1, false, BiasAdd::in_module);
  p.column.forward_s += time.forward_s;
  p.column.dgrad_s += time.dgrad_s;
  p.column.wgrad_s += time.wgrad_s;
  (split ? p.split_parameters : p.replicated_parameters) += g.n * g.k;
  p.projection_flops += g.flops();
  if (split) {
    p.up_projections.forward.compute_s += time.forward_s;
    p.up_projections.forward_flops += g.flops();
  }
}

// DeepSeek-V2 §2.1.2 as Megatron-LM's MLASelfAttention runs it: the down-projections are
// duplicated (not split) over tensor parallel and run on this GPU's sequence-parallel
// tokens; their normed latents (and the shared rotary key) are all-gathered into the
// column-parallel up-projections (multi_latent_attention.py).
void CostBuilder::mla_projections(LayerCost& cost, const AttentionShape& a,
                                  AttentionProjections& p) const {
  const double heads = a.heads, qk_head_dim = a.qk_head_dim, v_head_dim = a.v_head_dim;
  const MlaSpec& mla = *model_.mla;
  const double kv_rank = static_cast<double>(mla.kv_lora_rank);
  const double q_rank = static_cast<double>(mla.q_lora_rank);
  const double rope = static_cast<double>(mla.qk_pos_emb_head_dim);
  if (q_rank > 0) {
    add_attention_column(p, {norm_tokens_, q_rank, h_}, false);
    add_attention_column(p, {tokens_, heads * qk_head_dim, q_rank}, true);
  } else {
    add_attention_column(p, {tokens_, heads * qk_head_dim, h_}, true);
  }
  add_attention_column(p, {norm_tokens_, kv_rank + rope, h_}, false);
  add_attention_column(p, {tokens_, heads * (mla.qk_head_dim + v_head_dim), kv_rank}, true);
  // The query's and the key-value's up-projections gather their latents (quantised in fp8,
  // block_tp_comm); the shared rotary key is gathered on its own in 16 bits
  // (gather_from_sequence_parallel_region).
  const double gathered_latents = (q_rank > 0 ? q_rank : h_) + kv_rank;
  p.column_input = {
      .bytes = e_ * tokens_ * (gathered_latents + rope),
      .gathered_bytes = tokens_ * (gathered_input_element_bytes() * gathered_latents + e_ * rope),
      .modules = 2};
  // q_layernorm and kv_layernorm on the latents, forward and backward.
  const double latents = (q_rank + kv_rank) * norm_tokens_;
  cost.forward.compute_s += kernels_.memory_s(2 * e_ * latents);
  cost.backward.compute_s += kernels_.memory_s(3 * e_ * latents);
  // The rotary embedding after the up-projections, inside what mla_up_proj recomputes.
  const double rotary_s = mla_rotary_pass_s(kernels_, e_, tokens_, heads, mla);
  cost.forward.compute_s += rotary_s;
  cost.backward.compute_s += rotary_s;
  p.up_projections.forward.compute_s += rotary_s;
  // Kept: the latents before their norms and the normed inputs of the up-projections.
  cost.activation_bytes += (e_ + saved_input_bytes_) * latents;
  p.qkv_bytes = e_ * tokens_ * heads * (2 * qk_head_dim + v_head_dim);
  // --recompute-modules mla_up_proj: Q, K and V are not kept but made again from the kept
  // latents before the attention backward (multi_latent_attention.py, CheckpointWithoutOutput
  // around the up-projections and rotary embedding).
  p.up_projections.saved_bytes = p.qkv_bytes;
  cost.unit(RecomputeModule::mla_up_proj) = p.up_projections;
  // qkv_linear's region (multi_latent_attention.py get_query_key_value_tensors): the
  // down-projections' input (the input norm's output) and the latents around their norms.
  cost.qkv_norm_output_bytes = saved_input_bytes_ * h_ * norm_tokens_;
  cost.offload(OffloadModule::qkv_linear) +=
      cost.qkv_norm_output_bytes + (e_ + saved_input_bytes_) * latents;
  add_norm_recompute(cost);  // MLA's input norm stands alone (no fused norm-linear)
}

// One fused QKV projection, and the rotary embedding of the queries and keys.
void CostBuilder::qkv_projection(LayerCost& cost, const AttentionShape& a,
                                 AttentionProjections& p) const {
  const double heads = a.heads, groups = a.groups, qk_head_dim = a.qk_head_dim;
  add_attention_column(p, {tokens_, (heads + 2 * groups) * qk_head_dim, h_}, true);
  p.qkv_bytes = e_ * tokens_ * (heads + 2 * groups) * qk_head_dim;
  if (model_.qk_layernorm) qk_layernorm(cost, a, p);
  if (model_.position_embedding_type != PositionEmbedding::rope) return;
  for (const double rotated_heads : {heads, groups}) {
    const RotaryTime rotary = rotary_embedding(a, rotated_heads);
    cost.forward.compute_s += rotary.forward_s;
    cost.backward.compute_s += rotary.backward_s;
  }
}

// --qk-layernorm (Qwen3's q_norm and k_norm; Megatron-Bridge qwen3_bridge.py and
// qwen3_moe_bridge.py set provider.qk_layernorm = True): SelfAttention's q_layernorm and
// k_layernorm, each a TENorm over the head dimension (attention.py, Megatron-LM 002255075c, the
// pin of Megatron-Bridge 26.06), run on the query and on the key after the QKV split, before the
// rotary embedding (get_query_key_value_tensors). Each, as the block's norms: read and write
// forward, three passes backward, a weight of the head dimension, and its input kept for its
// backward (Transformer Engine's norms save their input; the split's query and key are views of
// the QKV output, so at least their elements stay allocated).
void CostBuilder::qk_layernorm(LayerCost& cost, const AttentionShape& a,
                               AttentionProjections& p) const {
  for (const double normed_heads : {a.heads, a.groups}) {
    const double elements = tokens_ * normed_heads * a.qk_head_dim;
    cost.forward.compute_s += kernels_.memory_s(2 * e_ * elements);
    cost.backward.compute_s += kernels_.memory_s(3 * e_ * elements);
    cost.activation_bytes += e_ * elements;
    p.replicated_parameters += a.qk_head_dim;
  }
}

// The rotary embedding of the queries or of the keys (`rotated_heads` heads). Megatron-LM's
// default fused kernel (apply_rope_fusion unless --no-rope-fusion; Transformer Engine
// FusedRoPEFunc) reads the tensor and writes it rotated, one kernel each way. With YaRN's
// concentration factor (mscale) other than 1, Megatron-Core's rope_utils.py
// apply_rotary_pos_emb refuses the fused kernel ("mscale=... is not supported by TE's fused
// RoPE. Using unfused implementation.") and runs _apply_rotary_pos_emb_bshd eagerly (Megatron-LM
// 0d8e0714cd, 4415119 and 24bad8e, the pins of Megatron-Bridge v0.2.0, 26.04.01 and 26.08; the
// GPT-OSS bridge sets position_embedding_type yarn, scaling factor 32, so mscale 1.35):
//   forward   the sine and the cosine tables, each torch.cos/sin, * mscale and .to(dtype) over
//             the [s, d] fp32 frequencies; then over the tensor t * cos_ (read, write),
//             _rotate_half's -x2 (half of it) and torch.cat, * sin_, the add, and the final
//             torch.cat with the empty pass-through part: 12 element passes;
//   backward  the product's gradient by sin_, neg's, the chunk's concatenation
//             (split_backward), the product's by cos_, and autograd's sum of the two branches:
//             10 element passes (the tables need no gradient; the cats' backwards are views).
// The other frameworks' YaRN (not examined) is priced as Megatron-Core's.
CostBuilder::RotaryTime CostBuilder::rotary_embedding(const AttentionShape& a,
                                                      double rotated_heads) const {
  const double elements = tokens_ * rotated_heads * a.qk_head_dim;
  RotaryTime rotary;
  if (model_.yarn_concentration_factor() == 1.0) {
    rotary.forward_s = kernels_.memory_s(2 * e_ * elements);
    rotary.backward_s = kernels_.memory_s(2 * e_ * elements);
    return rotary;
  }
  constexpr double kFp32Bytes = 4;
  const double table_elements = a.query_len * a.qk_head_dim;
  const double table_s = 2 * kernels_.memory_s(2 * kFp32Bytes * table_elements) +
                         kernels_.memory_s((kFp32Bytes + e_) * table_elements);
  const double times_table_s = kernels_.memory_s(2 * e_ * elements);  // t * cos_, t * sin_
  const double neg_s = kernels_.memory_s(e_ * elements);              // half read, half written
  const double cat_s = kernels_.memory_s(2 * e_ * elements);
  const double add_s = kernels_.memory_s(3 * e_ * elements);
  rotary.forward_s = 2 * table_s + 2 * times_table_s + neg_s + 2 * cat_s + add_s;
  rotary.backward_s = 2 * times_table_s + neg_s + cat_s + add_s;
  return rotary;
}

// Megatron-Core has linear_proj keep its 16-bit input for its backward under fp8 recipes other
// than delayed scaling (attention.py set_save_original_input: "the output of the fused core_attn
// is saved by itself, and linear_proj also saves the quantized tensor of this output"; Megatron-LM
// 781e765818 of 2025-08-19, with TE 2.6 and later; in the pins of Megatron-Bridge 25.11-26.06),
// and quantises it again for the weight gradient. The 16-bit tensor it keeps is the attention's
// own output O: one copy, held by the projection (and so also where the core attention is
// recomputed), and no fp8 copy (attention_block).
bool CostBuilder::projection_keeps_16bit_input() const {
  return framework_.transformer_engine && training_.precision == Precision::fp8 &&
         s_.fp8_recipe != Fp8Recipe::delayed;
}

// What the core attention keeps for its backward beyond Q, K, V.
double CostBuilder::core_attention_saved_bytes(const AttentionShape& a) const {
  const double batch = a.batch, heads = a.heads, query_len = a.query_len, key_len = a.key_len;
  double core_bytes = 0;
  if (s_.use_flash_attn) {
    core_bytes = 4 * batch * heads * query_len;  // fp32 log-sum-exp per row
    // In fp8 the output projection saves its input in fp8, while the fused attention kernel
    // keeps its 16-bit output O for its own backward (model-review P5); where the projection
    // keeps O itself, O is the projection's (attention_block).
    // Under fp8_dot_product_attention with delayed scaling that copy of O is fp8
    // (backends.py FusedAttnFunc: bwd_requires_o_fp8).
    if (training_.precision == Precision::fp8 && !projection_keeps_16bit_input()) {
      const bool fp8_o = fp8_attention_on(s_, training_, framework_.transformer_engine);
      core_bytes += (fp8_o ? fp8_attention_saved_element_bytes(s_.fp8_recipe) : e_) * tokens_ *
                    heads * a.v_head_dim;
    }
  } else {
    // Softmax output, and with dropout its mask and output (the "5as^2b" of Korthikanti).
    const double elements = batch * heads * query_len * key_len;
    core_bytes = (model_.attention_dropout > 0 ? 2 * e_ + 1 : e_) * elements;
  }
  return core_bytes;
}

// The fused kernel's forward and backward over `fraction` of the causal (query, key) pairs.
std::pair<PassTime, PassTime> CostBuilder::fused_attention_kernels(const AttentionShape& a,
                                                                   double score_flops,
                                                                   double fraction,
                                                                   bool torch_ring) const {
  const double qk_head_dim = a.qk_head_dim, v_head_dim = a.v_head_dim, key_len = a.key_len;
  PassTime core_forward, core_backward;
  const double executed = fraction * kCausalFraction * score_flops;
  // Context parallelism over a ring runs one kernel per ring step, each over 1/cp of the
  // work (Megatron-LM's load-balanced causal chunks), at that size's efficiency;
  // all-gathered K and V meet this GPU's two query chunks in two kernels, and all-to-all
  // gives one kernel over the whole sequence with 1/cp of the heads (Transformer Engine
  // context_parallel.py). A window shrinks every chunk's work alike.
  const double cp = static_cast<double>(s_.context_parallel_size);
  const double calls = cp == 1                                    ? 1
                       : torch_ring                               ? cp
                       : s_.cp_comm_type == CpCommType::p2p       ? cp
                       : s_.cp_comm_type == CpCommType::allgather ? 2
                                                                  : 1;
  const bool flash =
      runs_flash_attention(s_, gpu_, framework_.transformer_engine, qk_head_dim, v_head_dim);
  const AttentionKernels kernels = flash ? AttentionKernels::flash
                                   : gpu_.compute_capability >= kBlackwellComputeCapability
                                       ? AttentionKernels::cudnn_blackwell
                                       : AttentionKernels::cudnn;
  const double forward_factor = head_dim_efficiency(qk_head_dim, v_head_dim, false, kernels);
  const double backward_factor = head_dim_efficiency(qk_head_dim, v_head_dim, true, kernels);
  const double backward = kFlashBackwardFlopsRatio * executed;
  const double curve_share = window_curve_share(fraction, key_len);
  const double forward_curve_flops = executed / calls * curve_share;
  const double backward_curve_flops = backward / calls * curve_share;
  if (flash) {
    const bool ring = cp > 1 && (torch_ring || s_.cp_comm_type == CpCommType::p2p);
    const auto [diagonal, off_diagonal] =
        flash_spans(key_len, ring ? cp : 1, fraction);  // forward and backward alike
    core_forward.compute_s = kernels16_.flash_attention_s(
        executed, false, calls, forward_factor, {diagonal, off_diagonal}, forward_curve_flops);
    core_backward.compute_s = kernels16_.flash_attention_s(
        backward, true, calls, backward_factor, {diagonal, off_diagonal}, backward_curve_flops);
  } else {
    core_forward.compute_s =
        kernels16_.attention_s(executed, false, calls, forward_factor, forward_curve_flops);
    core_backward.compute_s =
        kernels16_.attention_s(backward, true, calls, backward_factor, backward_curve_flops);
    if (fp8_attention_on(s_, training_, framework_.transformer_engine)) {
      // cuDNN's fp8 kernels at their measured speed over the 16-bit ones (fp8_attention.cpp);
      // a window's fp8 backward takes as long as the causal call over the whole sequence.
      const bool window = fraction < 1;
      const Fp8AttentionCall call{qk_head_dim, v_head_dim, key_len / calls, window, false};
      core_forward.compute_s /= fp8_attention_speedup(gpu_, s_.fp8_recipe, call);
      if (window) {
        core_backward.compute_s = kernels16_.attention_s(
            kFlashBackwardFlopsRatio * kCausalFraction * score_flops, true, calls, backward_factor);
      }
      core_backward.compute_s /= fp8_attention_speedup(
          gpu_, s_.fp8_recipe, {qk_head_dim, v_head_dim, key_len / calls, false, true});
    }
  }
  return {core_forward, core_backward};
}

// Megatron-LM's unfused path: two batched GEMMs around scale-mask-softmax and dropout,
// all on the full s x s score matrix whatever the mask (Korthikanti et al. 2022, §4.1).
std::pair<PassTime, PassTime> CostBuilder::unfused_attention_kernels(
    const AttentionShape& a) const {
  const double batch = a.batch, heads = a.heads, query_len = a.query_len, key_len = a.key_len;
  PassTime core_forward, core_backward;
  const double bmm_batch = batch * heads;
  const Gemm scores{query_len, key_len, a.qk_head_dim};
  const Gemm context{query_len, a.v_head_dim, key_len};
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
  return {core_forward, core_backward};
}

// Megatron-LM's (Transformer Engine's) context-parallel exchange of K and V around the core
// attention's kernels, by cp_comm_type.
void CostBuilder::add_cp_exchange(const AttentionShape& a, PassTime& core_forward,
                                  PassTime& core_backward) const {
  const double batch = a.batch, heads = a.heads, groups = a.groups, query_len = a.query_len;
  const double qk_head_dim = a.qk_head_dim, v_head_dim = a.v_head_dim;
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
      core_backward.cp_comm_s = (cp - 1) * exposed_s(gpu_, p2p_s(gpu_, inter, 2 * kv_chunk_bytes),
                                                     core_backward.compute_s / cp);
      // The merges of the ring steps (kTeRingOutCorrectionBytes, kTeRingGradAccumulateBytes),
      // after the kernels they merge, on the compute stream.
      const double q_elements = batch * query_len * heads * qk_head_dim;
      const double out_elements = batch * query_len * heads * v_head_dim;
      const double kv_elements = batch * query_len * groups * (qk_head_dim + v_head_dim);
      core_forward.compute_s += cp * kernels_.memory_s(kTeRingOutCorrectionBytes * out_elements);
      core_backward.compute_s +=
          cp * kernels_.memory_s(kTeRingGradAccumulateBytes * (q_elements + kv_elements));
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

// The core attention's forward and backward when the fused kernel attends `fraction` of the
// causal (query, key) pairs (a sliding window: window_attention_fraction).
// `torch_ring`: the kernels as PyTorch's ring attention calls them (one per ring step), without
// the context-parallel exchange (priced by torch_ring_passes).
std::pair<PassTime, PassTime> CostBuilder::core_attention_passes(const AttentionShape& a,
                                                                 double score_flops,
                                                                 double fraction,
                                                                 bool torch_ring) const {
  auto [core_forward, core_backward] =
      s_.use_flash_attn ? fused_attention_kernels(a, score_flops, fraction, torch_ring)
                        : unfused_attention_kernels(a);
  if (s_.context_parallel_size > 1 && !torch_ring) add_cp_exchange(a, core_forward, core_backward);
  return std::pair{core_forward, core_backward};
}

// PyTorch's ring attention as torchtitan runs it (the constants above): one SDPA call per ring
// step whatever the rotate method; K and V (repeated to every local head) either all-gathered
// once at the first step and awaited at the second (context_parallel_rotate_method
// "allgather", cp_comm_type allgather) or passed to the next rank each step ("alltoall", here
// cp_comm_type p2p); backward gathers them again and passes the fp32 dK and dV around the ring
// each step (always all-to-all), the last one awaited after the loop; the merges and
// accumulations between steps run on the compute stream.
std::pair<PassTime, PassTime> CostBuilder::torch_ring_passes(
    const AttentionShape& a, const PassTime& forward_kernels,
    const PassTime& backward_kernels) const {
  const double batch = a.batch, heads = a.heads, query_len = a.query_len;
  const double qk_head_dim = a.qk_head_dim, v_head_dim = a.v_head_dim;
  PassTime forward, backward;
  const double cp = static_cast<double>(s_.context_parallel_size);
  if (cp <= 1 || !s_.use_flash_attn) return std::pair{forward, backward};
  const double steps = cp - 1;
  const double q_elements = batch * query_len * heads * qk_head_dim;
  const double out_elements = batch * query_len * heads * v_head_dim;
  const double kv_elements = batch * query_len * heads * (qk_head_dim + v_head_dim);
  const double kv_bytes = e_ * kv_elements;
  const double dkv_bytes = kRingGradBytesPerElement * kv_elements;
  const double step_forward_s = forward_kernels.compute_s / cp;
  const double step_backward_s = backward_kernels.compute_s / cp;
  const bool inter = cp_group_.spans_nodes;
  forward.compute_s = forward_kernels.compute_s +
                      kernels_.memory_s(kRingCastBytesPerOutput * out_elements) +
                      steps * kernels_.memory_s(kRingMergeBytesPerOutput * out_elements +
                                                2 * kv_bytes);  // torch.cat of K and V
  backward.compute_s =
      backward_kernels.compute_s +
      kernels_.memory_s(kRingGradInitCastBytes * (q_elements + kv_elements)) +
      cp * kernels_.memory_s(kRingGradAccumulateBytes * (q_elements + kv_elements) +
                             kRingGradConcatBytes * kv_elements) +
      steps * kernels_.memory_s(2 * kv_bytes);
  const double dkv_s = p2p_s(gpu_, inter, dkv_bytes);
  if (s_.cp_comm_type == CpCommType::allgather) {
    const double gather_s = all_gather_s(gpu_, cp_group_, cp * kv_bytes);
    forward.cp_comm_s = exposed_s(gpu_, gather_s, step_forward_s);
    backward.cp_comm_s = exposed_s(gpu_, gather_s, step_backward_s) +
                         steps * exposed_s(gpu_, dkv_s, step_backward_s) + dkv_s;
  } else {
    forward.cp_comm_s = steps * exposed_s(gpu_, p2p_s(gpu_, inter, kv_bytes), step_forward_s);
    backward.cp_comm_s =
        steps * exposed_s(gpu_, p2p_s(gpu_, inter, kv_bytes + dkv_bytes), step_backward_s) + dkv_s;
  }
  return std::pair{forward, backward};
}

// The core attention's passes into `cost` (and PyTorch's ring attention's difference from them);
// returns the forward pass (its recompute unit's).
PassTime CostBuilder::core_attention(LayerCost& cost, const AttentionShape& a, double score_flops,
                                     bool moe) const {
  // Sliding-window layers (Megatron-LM --window-size, --window-attn-skip-freq): this layer
  // kind's cost is the mean over its layers, windowed and full, as the stages hold them in the
  // model's mix (exact where a stage's layer count is a multiple of the skip frequency).
  auto [core_forward, core_backward] = core_attention_passes(a, score_flops, 1.0, false);
  const auto [ring_kernels_forward, ring_kernels_backward] =
      core_attention_passes(a, score_flops, 1.0, true);
  auto [ring_forward, ring_backward] =
      torch_ring_passes(a, ring_kernels_forward, ring_kernels_backward);
  const double windowed = window_attention_layer_share(model_, moe);
  if (windowed > 0 && s_.use_flash_attn) {
    const double fraction = window_attention_fraction(model_.window_size, training_.seq_length);
    const auto [window_forward, window_backward] =
        core_attention_passes(a, score_flops, fraction, false);
    const auto [window_ring_kernels_forward, window_ring_kernels_backward] =
        core_attention_passes(a, score_flops, fraction, true);
    const auto [window_ring_forward, window_ring_backward] =
        torch_ring_passes(a, window_ring_kernels_forward, window_ring_kernels_backward);
    core_forward = core_forward * (1 - windowed);
    core_forward += window_forward * windowed;
    core_backward = core_backward * (1 - windowed);
    core_backward += window_backward * windowed;
    ring_forward = ring_forward * (1 - windowed);
    ring_forward += window_ring_forward * windowed;
    ring_backward = ring_backward * (1 - windowed);
    ring_backward += window_ring_backward * windowed;
  }
  cost.forward += core_forward;
  cost.backward += core_backward;
  if (s_.context_parallel_size > 1 && s_.use_flash_attn) {
    cost.torch_ring_forward = ring_forward;
    cost.torch_ring_forward += core_forward * -1.0;
    cost.torch_ring_backward = ring_backward;
    cost.torch_ring_backward += core_backward * -1.0;
  }
  return core_forward;
}

// Transformer Engine's casts around the fp8 kernels (fp8_attention_casts), on the compute
// stream; Q, K and V are kept for the backward in fp8 (FusedAttnFunc saves q_fp8, k_fp8, v_fp8).
void CostBuilder::fp8_attention_casts(LayerCost& cost, const AttentionShape& a,
                                      AttentionProjections& p) const {
  const double qkv_elements = p.qkv_bytes / e_;
  const Fp8AttentionCasts casts = detail::fp8_attention_casts(s_.fp8_recipe, e_, qkv_elements,
                                                              tokens_ * a.heads * a.v_head_dim);
  const double launches_s = casts.kernels_per_pass * gpu_.kernel_overhead_s;
  cost.forward.compute_s += kernels_.memory_s(casts.forward_bytes) + launches_s;
  cost.backward.compute_s += kernels_.memory_s(casts.backward_bytes) + launches_s;
  p.qkv_bytes = qkv_elements * fp8_attention_saved_element_bytes(s_.fp8_recipe);
}

void CostBuilder::attention_block(LayerCost& cost, bool moe) {
  const AttentionShape a = attention_shape();
  const double heads = a.heads, groups = a.groups, batch = a.batch, query_len = a.query_len;
  const double key_len = a.key_len, qk_head_dim = a.qk_head_dim, v_head_dim = a.v_head_dim;

  // Projections into attention (column-parallel) and out of it (row-parallel).
  AttentionProjections p;
  p.replicated_parameters = 2 * h_;  // norms
  if (model_.mla) {
    mla_projections(cost, a, p);
  } else {
    qkv_projection(cost, a, p);
  }
  const Gemm out_proj{tokens_, h_, heads * v_head_dim};
  LinearTime row = linear(kernels_, out_proj);
  if (projection_keeps_16bit_input()) {
    row.wgrad_s += kernels_.requantise_extra_s(out_proj.m * out_proj.k);
  }
  p.split_parameters += out_proj.n * out_proj.k;
  add_linear(cost, p.column);
  add_linear(cost, row);
  block_tp_comm(cost, p.column, row, p.column_input);
  block_elementwise(cost);

  // Core attention: scores and context per head over this GPU's query chunk.
  const double score_flops = 2 * batch * heads * query_len * key_len * (qk_head_dim + v_head_dim);
  const double core_bytes = core_attention_saved_bytes(a);
  const PassTime core_forward = core_attention(cost, a, score_flops, moe);
  if (fp8_attention_on(s_, training_, framework_.transformer_engine))
    fp8_attention_casts(cost, a, p);

  // Q, K, V; the core's own; the output projection's input (16-bit where it keeps O itself).
  const double projection_input_bytes =
      (projection_keeps_16bit_input() ? e_ : saved_input_bytes_) * tokens_ * heads * v_head_dim;
  cost.activation_bytes += p.qkv_bytes + core_bytes + projection_input_bytes;
  cost.offload(OffloadModule::core_attn) += p.qkv_bytes + core_bytes;
  cost.offload(OffloadModule::attn_proj) += projection_input_bytes;
  cost.unit(RecomputeModule::core_attn) = {core_bytes, core_forward, score_flops};
  // Transformer Engine's ring attention holds its ring buffers and partial outputs while it runs
  // (attention_memory.hpp).
  if (framework_.transformer_engine && s_.use_flash_attn && s_.cp_comm_type == CpCommType::p2p) {
    const double rows = e_ * batch * query_len;
    cost.transient_bytes = ring_attention_transient_bytes(
        static_cast<double>(s_.context_parallel_size), rows * heads * qk_head_dim,
        rows * groups * (qk_head_dim + v_head_dim), rows * heads * v_head_dim);
  }
  cost.parameters += p.split_parameters + p.replicated_parameters;
  cost.forward_flops += p.projection_flops + out_proj.flops() + score_flops;
}

}  // namespace paraplan::detail
