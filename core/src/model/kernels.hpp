// Kernel timings on one GPU at one precision: GEMMs on tensor cores (with Transformer Engine's
// fp8 quantisation of their inputs), fused attention, and memory-bound kernels.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <span>

#include "model/layer_cost.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// fp8 operands, and the fp32 gradient accumulator read and written by weight-gradient GEMMs
// (Megatron-LM gradient_accumulation_fusion).
constexpr double kFp8ElementBytes = 1;
constexpr double kMainGradBytes = 8;

// Transformer Engine's grouped GEMM (GroupedLinear, the experts of TEGroupedMLP) is one cuBLAS
// GEMM per expert, issued round-robin on its compute streams (common/gemm/cublaslt_gemm.cu
// multi_stream_cublas_gemm: `detail::get_compute_stream(i % num_streams)`; the CUTLASS grouped
// kernel only on Hopper with NVTE_USE_CUTLASS_GROUPED_GEMM set, off by default), and
// common/util/multi_stream.cpp `num_compute_streams = 4`. At most this many expert GEMMs share the
// GPU at once, so a wave fills the SMs as one GEMM of their summed work does, not as all experts'.
constexpr double kGroupedGemmStreams = 4;

// A GEMM's output rows m, output columns n, contraction k.
struct Gemm {
  double m = 0, n = 0, k = 0;
  double flops() const { return 2 * m * n * k; }
};

// Transformer Engine's quantisation of a GEMM input to fp8, per element of the 16-bit tensor:
// HBM bytes moved and kernels launched. Each input is quantised once for both of its uses, the
// row-wise copy for its own GEMM and the column-wise one for the other backward GEMM (the
// activation X for fprop and wgrad in the forward, the output gradient dY for dgrad and wgrad
// in the backward). TransformerEngine transformer_engine/pytorch/csrc/quantizer.cpp and
// common/util/cast_kernels.cuh:
//   delayed     cast_transpose with the scale from the amax history: read 2, write 1 + 1;
//   tensorwise  Float8CurrentScalingQuantizer::quantize_impl (TE 2.9): nvte_compute_amax (read
//               2; common/recipe/current_scaling.cu launch_amax_kernel: zero_amax_kernel, then
//               amax_kernel), nvte_compute_scale_from_amax, then the cast (read 2, write 1 + 1):
//               four kernels;
//   mxfp8       cast_mxfp8_2D_kernel, row- and column-wise blocks of 32 with one E8M0 scale
//               byte each: read 2, write 2 x (1 + 1/32);
//   blockwise   Float8BlockQuantizer, 1 x 128 blocks with fp32 scales: read 2, write
//               2 x (1 + 4/128).
// A grouped GEMM's inputs (GroupedLinear, one per local expert) go through tex.split_quantize
// (pytorch/csrc/extensions/cast.cpp multi_tensor_quantize_impl, TE 2.9 and later; TE 2.4's
// fused_multi_quantize the same): one fused nvte_multi_cast_transpose kernel over every expert's
// input for delayed scaling ("Currently only have fused kernel for FP8 delayed scaling"), and for
// every other recipe each expert's input quantized on its own ("Quantize kernels individually"),
// its kernels per expert at that expert's size: `fused_over_groups`. Per element, `read_bytes`
// (the 16-bit input, and once more for the amax under current scaling) and `copy_bytes`, written
// for each of the two copies (row- and column-wise).
struct Fp8Quantisation {
  double read_bytes;
  double copy_bytes;
  double kernels;
  bool fused_over_groups;
  double bytes_per_element() const { return read_bytes + 2 * copy_bytes; }
};
constexpr Fp8Quantisation kFp8Quantisation[] = {
    {2, 1, 1, true},               // delayed
    {2 + 2, 1, 4, false},          // tensorwise
    {2, 1 + 1.0 / 32, 1, false},   // mxfp8
    {2, 1 + 4.0 / 128, 1, false},  // blockwise
};

// A share of a FlashAttention-2 call's work and the rows its thread blocks loop over. The
// forward kernel gives a thread block one tile of query rows and loops it over the keys those
// rows attend; the backward gives one a tile of key rows and loops it over the queries that
// attend them (flash-attention csrc/flash_attn/src/flash_fwd_kernel.h compute_attn_1rowblock,
// n_block_max, and flash_bwd_kernel.h compute_dq_dk_dv_1colblock, m_block_min; causal: a tile
// stops at the diagonal). The loop's fixed cost per tile (loading the tile, rescaling and writing
// its output, its log-sum-exp) is spread over that loop's length, so the kernel's efficiency is
// set by `rows`, the mean number of keys a query row attends (forward) or of queries a key row
// is attended by (backward): L / 2 for a causal call over L tokens, the other side's length for
// a call without a mask (a ring attention step off the diagonal). The preset's flash curves are
// keyed by it (measured causal: L / 2).
struct FlashSpan {
  double share;  // of the call's FLOPs
  double rows;   // mean keys per query row (forward) or queries per key row (backward)
};

// The fused kernel's efficiency at a head dim, relative to head dim 128 at the same executed
// FLOPs (the attention curves are measured at 128). cuDNN 9.19 on a lent H100, micro-batch 1,
// 16-32 heads, 2,048-8,192 tokens (scripts/calibration/measured/h100-attention-b1-2026-11-26.json,
// presets/README.md); applied to Hopper and older GPUs.
struct HeadDimEfficiency {
  double head_dim, forward, backward;
};
constexpr HeadDimEfficiency kEqualHeadDims[] = {
    {64, 0.85, 0.95}, {128, 1.0, 1.0}, {192, 0.98, 0.71}, {256, 0.99, 0.79}};
// cuDNN on Blackwell (compute capability 10) at head dim 64, from NVIDIA's own SDPA benchmark
// (NVIDIA/cudnn-frontend df73764, benchmark/sdpa_benchmark_training/results/*_919_only_cudnn,
// cuDNN 9.19, bf16, non-deterministic backward, 64 query and 8 key-value heads): GPT-OSS's
// attention (head dim 64, a 1,024-token window, 16,384-32,768 tokens, every row attending
// about 1,024 keys) against Llama 3.1's (head dim 128, causal over 2,048 tokens, 1,024 keys a
// row on average), TFLOP/s over the executed pairs, forward / backward: GB200 632 / 660 against
// 1,042 / 836 (0.61 / 0.79), GB300 748 / 689 against 1,266 / 906 (0.59 / 0.76); the mean, 0.60
// / 0.78. The same comparison on the benchmark's H200 (358 / 299 against 484 / 370: 0.74 /
// 0.81) matches the lent H200's equal-length causal sweep (0.72 / 0.78, kFlashHeadDims below).
// The wider head dims, not in that benchmark, are Hopper's (kEqualHeadDims).
constexpr HeadDimEfficiency kBlackwellEqualHeadDims[] = {
    {64, 0.60, 0.78}, {128, 1.0, 1.0}, {192, 0.98, 0.71}, {256, 0.99, 0.79}};
// Multi-latent attention: query/key 192 (128 + 64 rotary), value 128; measured on the lent H100
// with kEqualHeadDims, applied to Hopper and older GPUs.
constexpr HeadDimEfficiency kLatentHeadDims = {192, 1.0, 0.865};
// cuDNN's multi-latent attention kernels on Blackwell (new in cuDNN 9.11), from NVIDIA's own SDPA
// benchmark (NVIDIA/cudnn-frontend 3929da2, benchmark/sdpa_benchmark_training/results/dsv3 and
// llama3.1, cuDNN backend 9.22, bf16, causal, non-deterministic backward): DeepSeek-V3's attention
// (128 heads, 192 / 128) at 4,096 tokens, batch 2, against Llama 3.1's (64 query and 8 key-value
// heads of 128) at the same executed FLOPs (between its 4,096 and 8,192 rows, log-interpolated),
// TFLOP/s forward / backward: GB200 1,406 / 1,057 against 1,518 / 1,270 (0.93 / 0.83), GB300
// 1,590 / 1,143 against 1,804 / 1,372 (0.88 / 0.83); the mean.
constexpr HeadDimEfficiency kBlackwellLatentHeadDims = {192, 0.90, 0.83};
// FlashAttention-2 (PyTorch 2.11's flash backend) keeps its efficiency at wide heads, where
// cuDNN's backward loses a quarter: on a lent H200, causal, micro-batch 1, 8 and 16 heads,
// 2,048-16,384 tokens, the median ratio to head dim 128 at equal length, forward from CUDA-graph
// replays, backward from its kernels' profiled time (scripts/calibration/measured/
// h200-head-dims-moe-2026-11-28.json, attention_head_dims_equal; derive_curves.py
// head_dim_ratios). The same sweep's cuDNN ratios (64: 0.72 / 0.78, 192: 1.09 / 0.72, 256:
// 1.13 / 0.85) bear out kEqualHeadDims's loss at 192; at 64 they are lower than the H100's.
constexpr HeadDimEfficiency kFlashHeadDims[] = {
    {64, 0.86, 0.87}, {128, 1.0, 1.0}, {192, 1.04, 1.02}, {256, 1.11, 0.97}};

// Whose fused attention kernels run, for their head-dim tables: cuDNN on Hopper and older GPUs
// (kEqualHeadDims), cuDNN on Blackwell (kBlackwellEqualHeadDims), FlashAttention-2
// (kFlashHeadDims).
enum class AttentionKernels { cudnn, cudnn_blackwell, flash };

// The measured head dims of those kernels.
inline std::span<const HeadDimEfficiency> head_dim_table(AttentionKernels kernels) {
  switch (kernels) {
    case AttentionKernels::cudnn_blackwell:
      return kBlackwellEqualHeadDims;
    case AttentionKernels::flash:
      return kFlashHeadDims;
    case AttentionKernels::cudnn:
      break;
  }
  return kEqualHeadDims;
}

// A model's per-head query/key and value widths: kv_channels, or multi-latent attention's (the
// rotary part joins the query/key).
struct HeadDims {
  double qk, v;
};
inline HeadDims attention_head_dims(const ModelSpec& model) {
  if (!model.mla) {
    const auto d = static_cast<double>(model.kv_channels);
    return {d, d};
  }
  return {static_cast<double>(model.mla->qk_head_dim + model.mla->qk_pos_emb_head_dim),
          static_cast<double>(model.mla->v_head_dim)};
}

// Piecewise linear in the head dim between the measured ones, clamped at both ends; a query/key
// head dim above the value's is multi-latent attention's (FlashAttention-2 takes equal ones).
inline double head_dim_efficiency(double qk_head_dim, double v_head_dim, bool backward,
                                  AttentionKernels kernels = AttentionKernels::cudnn) {
  const auto value = [&](const HeadDimEfficiency& e) { return backward ? e.backward : e.forward; };
  if (qk_head_dim > v_head_dim) {
    return value(kernels == AttentionKernels::cudnn_blackwell ? kBlackwellLatentHeadDims
                                                              : kLatentHeadDims);
  }
  const std::span<const HeadDimEfficiency> table = head_dim_table(kernels);
  const auto first = table.begin(), last = table.end();
  const auto upper = std::find_if(
      first, last, [&](const HeadDimEfficiency& e) { return e.head_dim >= qk_head_dim; });
  if (upper == first) return value(*upper);
  if (upper == last) return value(*std::prev(upper));
  const HeadDimEfficiency& lower = *std::prev(upper);
  const double fraction = (qk_head_dim - lower.head_dim) / (upper->head_dim - lower.head_dim);
  return value(lower) + fraction * (value(*upper) - value(lower));
}

// How a grouped GEMM's fp8 input is quantised: not at all (the weight gradient's operands are the
// column-wise copies the other two GEMMs' quantisation made), in one pass over every group (one
// kernel over the grouped tensor), or as Transformer Engine's GroupedLinear does it
// (kFp8Quantisation fused_over_groups).
enum class GroupedQuantisation { none, all_at_once, transformer_engine };

// Kernel timings on one GPU at one precision.
class Kernels {
 public:
  Kernels(const GpuSpec& gpu, Precision precision, Fp8Recipe recipe = Fp8Recipe::delayed)
      : gpu_(gpu),
        precision_(precision),
        element_bytes_(activation_element_bytes(precision)),
        operand_bytes_(precision == Precision::fp8 ? kFp8ElementBytes : element_bytes_),
        quantisation_(kFp8Quantisation[static_cast<size_t>(recipe)]) {}

  double element_bytes() const { return element_bytes_; }
  // Bytes per element of a GEMM input saved for the backward pass (fp8 in fp8 training).
  double operand_bytes() const { return operand_bytes_; }
  // Bytes per element of a GEMM input's quantised copy, scales included (kFp8Quantisation
  // copy_bytes; the 16-bit element outside fp8 training).
  double quantised_copy_bytes() const {
    return precision_ == Precision::fp8 ? quantisation_.copy_bytes : element_bytes_;
  }

  // Roofline of tensor-core time at the size's efficiency and the operands' HBM traffic; in
  // fp8 training, plus quantising the `m x k` input (the activation forward, the output
  // gradient in the input-gradient GEMM).
  double gemm_s(const Gemm& g, double batch = 1) const { return gemm_s(g, batch, element_bytes_); }

  double gemm_s(const Gemm& g, double batch, double output_bytes) const {
    const double time_s = tensor_core_s(g, batch, output_bytes);
    if (time_s <= 0 || precision_ != Precision::fp8) return time_s;
    return time_s + quantise_s(batch * g.m * g.k);
  }

  // `groups` equal GEMMs run `concurrent` at a time (Transformer Engine's grouped GEMM:
  // kGroupedGemmStreams; a single grouped kernel: all of them, framework_rules.hpp
  // grouped_gemm_concurrency), each wave at the efficiency of its summed FLOPs, and one kernel
  // overhead a wave. In fp8 training, plus quantising the `m x k` input as `quantisation` says.
  double grouped_gemm_s(const Gemm& g, double groups, double output_bytes,
                        double concurrent = kGroupedGemmStreams,
                        GroupedQuantisation quantisation = GroupedQuantisation::all_at_once) const {
    const double wave = std::min(groups, concurrent);
    const double time_s = tensor_core_s(g, groups, output_bytes, wave * g.flops(), groups / wave);
    if (time_s <= 0 || precision_ != Precision::fp8) return time_s;
    switch (quantisation) {
      case GroupedQuantisation::none:
        return time_s;
      case GroupedQuantisation::all_at_once:
        return time_s + quantise_s(groups * g.m * g.k);
      case GroupedQuantisation::transformer_engine:
        if (quantisation_.fused_over_groups) return time_s + quantise_s(groups * g.m * g.k);
        return time_s + groups * quantise_s(g.m * g.k);  // one expert's input at a time
    }
    return time_s;
  }
  double grouped_gemm_s(const Gemm& g, double groups) const {
    return grouped_gemm_s(g, groups, element_bytes_);
  }

  // A GEMM input kept in 16 bits for the backward (Transformer Engine's save_original_input,
  // module/linear.py: the forward quantises it row-wise only, the backward again from the kept
  // tensor, column-wise, for the weight gradient): what the second quantisation adds to
  // quantising `elements` once for both uses, the time gemm_s prices.
  double requantise_extra_s(double elements) const {
    if (precision_ != Precision::fp8) return 0;
    return 2 * quantise_one_use_s(elements) - quantise_s(elements);
  }

  // Forward GEMM and its two backward GEMMs (input gradient, weight gradient).
  double dgrad_s(const Gemm& g) const { return gemm_s({g.m, g.k, g.n}); }
  // The weight gradient accumulates into Megatron-LM's fp32 main_grad (read and written); its
  // fp8 operands are the column-wise copies made with the other two GEMMs' quantisation.
  double wgrad_s(const Gemm& g) const { return tensor_core_s({g.k, g.n, g.m}, 1, kMainGradBytes); }

  // A memory-bound kernel moving `bytes` through HBM.
  double memory_s(double bytes) const { return memory_bound_s(gpu_, bytes); }
  // PyTorch's scatter_add_ / index_add_ into bf16 rows (atomic adds), at the copy's rate times
  // GpuSpec::scatter_add_over_copy (the GPU preset's, hardware.hpp).
  double scatter_add_s(double bytes) const { return memory_s(bytes) / gpu_.scatter_add_over_copy; }

  // A fused attention kernel (FlashAttention, cuDNN) executing `flops` in `calls` launches of
  // equal size (context parallelism: one per ring step), each at its own size's efficiency
  // times `head_dim_factor` (head_dim_efficiency: the curves are at head dim 128). A call's size
  // on the curve is its FLOPs, or `curve_flops` where given (a sliding window's: the causal call
  // whose rows attend as many keys, attention_cost.cpp window_curve_share).
  double attention_s(double flops, bool backward, double calls = 1, double head_dim_factor = 1,
                     double curve_flops = 0) const {
    if (flops <= 0) return 0;
    const EfficiencyCurve& curve =
        backward ? gpu_.attention_backward_efficiency : gpu_.attention_forward_efficiency;
    const double size = curve_flops > 0 ? curve_flops : flops / calls;
    return flops / (gpu_.tensor_flops(precision_) * curve.at(size) * head_dim_factor) +
           calls * gpu_.kernel_overhead_s;
  }

  // FlashAttention-2's kernels (attention_backend flash) over the same `calls`, whose work is
  // split into `spans`: shares of the FLOPs, each at the preset's flash curve for the span of
  // its rows (FlashSpan), never faster than the fused curve at the call's size (`curve_flops` as
  // in attention_s; Shah et al. 2024, arXiv:2407.08608, Figs. 5-6: on an H100, cuDNN beats
  // FlashAttention-2 at every measured length, forward and backward); a preset without flash
  // curves prices them as fused.
  double flash_attention_s(double flops, bool backward, double calls, double head_dim_factor,
                           std::initializer_list<FlashSpan> spans, double curve_flops = 0) const {
    const EfficiencyCurve& flash_curve = backward ? gpu_.attention_backward_flash_efficiency
                                                  : gpu_.attention_forward_flash_efficiency;
    if (flops <= 0 || flash_curve.points().empty()) {
      return attention_s(flops, backward, calls, head_dim_factor, curve_flops);
    }
    const EfficiencyCurve& curve =
        backward ? gpu_.attention_backward_efficiency : gpu_.attention_forward_efficiency;
    const double fused = curve.at(curve_flops > 0 ? curve_flops : flops / calls);
    double compute_s = 0;
    for (const FlashSpan& span : spans) {
      const double efficiency = std::min(fused, flash_curve.at(span.rows));
      compute_s +=
          span.share * flops / (gpu_.tensor_flops(precision_) * efficiency * head_dim_factor);
    }
    return compute_s + calls * gpu_.kernel_overhead_s;
  }

 private:
  // `batch` GEMMs of shape `g` at the efficiency of `efficiency_flops` (their summed FLOPs unless
  // given), with `launches` kernel overheads.
  double tensor_core_s(const Gemm& g, double batch, double output_bytes,
                       double efficiency_flops = 0, double launches = 1) const {
    const double flops = batch * g.flops();
    if (flops <= 0) return 0;
    const EfficiencyCurve& curve =
        precision_ == Precision::fp8 ? gpu_.gemm_fp8_efficiency : gpu_.gemm_efficiency;
    const double at_flops = efficiency_flops > 0 ? efficiency_flops : flops;
    const double compute_s = flops / (gpu_.tensor_flops(precision_) * curve.at(at_flops));
    const double bytes =
        batch * (operand_bytes_ * (g.m * g.k + g.k * g.n) + output_bytes * g.m * g.n);
    return std::max(compute_s, memory_only_s(bytes)) + launches * gpu_.kernel_overhead_s;
  }

  // Quantising `elements` 16-bit values to fp8 for both their uses (kFp8Quantisation).
  double quantise_s(double elements) const {
    const double bytes = quantisation_.bytes_per_element() * elements;
    return memory_only_s(bytes) + quantisation_.kernels * gpu_.kernel_overhead_s;
  }
  // Quantising them for one use: one copy written.
  double quantise_one_use_s(double elements) const {
    const double bytes = (quantisation_.read_bytes + quantisation_.copy_bytes) * elements;
    return memory_only_s(bytes) + quantisation_.kernels * gpu_.kernel_overhead_s;
  }

  double memory_only_s(double bytes) const {
    return bytes / (gpu_.hbm_bytes_per_s * gpu_.memory_efficiency.at(bytes));
  }

  const GpuSpec& gpu_;
  Precision precision_;
  double element_bytes_;
  double operand_bytes_;
  Fp8Quantisation quantisation_;
};

}  // namespace paraplan::detail
