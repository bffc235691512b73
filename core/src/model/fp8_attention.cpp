// fp8 dot-product attention: the backend rule, the kernels' measured speed over 16 bits, and
// the casts and saved tensors Transformer Engine adds around them (fp8_attention.hpp).
#include "model/fp8_attention.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <span>

#include "model/device_connections.hpp"
#include "model/kernels.hpp"
#include "model/number_text.hpp"

namespace paraplan::detail {
namespace {

// Transformer Engine's backend choice under fp8_dpa (transformer_engine/pytorch/attention/
// dot_product_attention/utils.py get_attention_backend, TE d0067d0da, 2026-08): FlashAttention 2
// and 4 are disabled for fp8 attention (3 in training), the unfused path unless emulated, so
// only cuDNN's fused attention is left; it takes the delayed recipe from sm90, current scaling
// (tensorwise) and MXFP8 only from sm100 ("Disabling FusedAttention for FP8 current scaling on
// arch < sm100", "for MXFP8 on arch < sm100"), and never Float8BlockScaling ("Disabling
// FusedAttention for Float8BlockScaling"; Megatron-LM's get_fp8_recipe, fp8_utils.py, does not
// pass fp8_dpa to it either). Its fp8 kernels (transformer_engine/common/fused_attn/
// fused_attn.cpp nvte_get_fused_attn_backend, NVTE_FP8) train head dims 128 / 128 on Hopper,
// and up to 128 / 128 (cuDNN 9.7) or 192 / 128 (cuDNN 9.21) on Blackwell, multiples of 16.
constexpr double kFp8AttentionComputeCapability = 9.0;
constexpr double kHopperFp8HeadDim = 128;
constexpr double kBlackwellFp8QkHeadDim = 192;
constexpr double kBlackwellFp8VHeadDim = 128;
constexpr double kFp8HeadDimMultiple = 16;

// Why cuDNN's fp8 attention cannot run on `gpu` under `recipe` at these head dims, or empty.
std::string fp8_kernel_problem(const GpuSpec& gpu, Fp8Recipe recipe, double qk, double v) {
  const std::string on =
      " on " + gpu.id + " (compute capability " + number_text(gpu.compute_capability) + ")";
  if (gpu.compute_capability < kFp8AttentionComputeCapability) {
    return "fp8_dot_product_attention needs compute capability 9.0 or later" + on;
  }
  if (recipe == Fp8Recipe::blockwise) {
    return std::string("fp8_dot_product_attention has no blockwise fp8_recipe");
  }
  const bool blackwell = gpu.compute_capability >= kBlackwellComputeCapability;
  if (!blackwell && recipe != Fp8Recipe::delayed) {
    return "fp8_dot_product_attention with fp8_recipe " + std::string(to_string(recipe)) +
           " needs compute capability 10.0 or later" + on;
  }
  const bool multiples =
      std::fmod(qk, kFp8HeadDimMultiple) == 0 && std::fmod(v, kFp8HeadDimMultiple) == 0;
  const bool fits = blackwell ? qk <= kBlackwellFp8QkHeadDim && v <= kBlackwellFp8VHeadDim
                              : qk == kHopperFp8HeadDim && v == kHopperFp8HeadDim;
  if (multiples && fits) return {};
  return "fp8_dot_product_attention: cuDNN's fp8 attention does not train head dims " +
         number_text(qk) + " / " + number_text(v) + on;
}

// NVIDIA's cuDNN SDPA training benchmark (NVIDIA/cudnn-frontend 3929da2,
// benchmark/sdpa_benchmark_training/results): the fp8 kernel's time against bf16's at the same
// shape, causal (top_left), non-deterministic backward, batch 2 (H200: 1), at 2,048-32,768
// tokens. "fp8" is per-tensor scaling (Transformer Engine's delayed and tensorwise recipes
// hand cuDNN the same per-tensor scales), "mxfp8" 1 x 32 blocks. Heads: Llama 3.1's 64 / 8 at
// head dim 128 (`equal`), DeepSeek-V3's 128 at 192 / 128 (`latent`). Files:
// llama3.1/gb200/llama3.1_20260424_100750.csv, dsv3/gb200/dsv3_20260424_101009.csv and their
// gb300 twins (cuDNN 9.22), h200_919_only_cudnn/llama3.1_20260227_034703.csv (cuDNN 9.19.1; its
// fp8 runs at head dims other than 128 fail, as the rule above says). Each GPU's row applies
// from its compute capability up; head dims below 128 take the equal row.
constexpr double kFp8AttentionTokens[] = {2048, 4096, 8192, 16384, 32768};
enum class Fp8HeadDims { equal, latent };
struct Fp8AttentionSpeedup {
  double compute_capability;
  bool mx;
  Fp8HeadDims dims;
  double forward[std::size(kFp8AttentionTokens)];
  double backward[std::size(kFp8AttentionTokens)];
};
using D = Fp8HeadDims;
// clang-format off
constexpr Fp8AttentionSpeedup kFp8AttentionSpeedups[] = {
    // H200 (sm90): the causal backward falls behind bf16's from 8,192 tokens.
    {9.0, false, D::equal, {1.45, 1.44, 1.50, 1.50, 1.51}, {1.06, 0.99, 0.80, 0.65, 0.64}},
    // GB200 (sm100).
    {10.0, false, D::equal, {1.29, 1.28, 1.30, 1.26, 1.35}, {0.94, 1.03, 1.09, 1.23, 1.38}},
    {10.0, true, D::equal, {1.21, 1.20, 1.21, 1.17, 1.26}, {0.84, 0.92, 0.97, 1.08, 1.16}},
    {10.0, false, D::latent, {1.55, 1.49, 1.51, 1.48, 1.40}, {1.55, 1.60, 1.64, 1.74, 1.73}},
    {10.0, true, D::latent, {1.43, 1.37, 1.40, 1.40, 1.34}, {1.24, 1.29, 1.25, 1.37, 1.42}},
    // GB300 (sm103).
    {10.3, false, D::equal, {1.43, 1.49, 1.56, 1.59, 1.59}, {0.98, 1.12, 1.24, 1.35, 1.43}},
    {10.3, true, D::equal, {1.27, 1.33, 1.38, 1.42, 1.43}, {0.84, 0.92, 0.98, 1.04, 1.07}},
    {10.3, false, D::latent, {1.79, 1.75, 1.71, 1.68, 1.69}, {1.65, 1.73, 1.79, 1.89, 1.87}},
    {10.3, true, D::latent, {1.61, 1.58, 1.55, 1.52, 1.49}, {1.27, 1.33, 1.38, 1.42, 1.45}},
};
// clang-format on

// A sliding window's forward, from the same benchmark's GPT-OSS rows (a 128-token window, head
// dim 64, 128 heads, 2,048-16,384 tokens, gpt_oss/gb200/gpt_oss_20260424_100011.csv and its
// gb300 twin): the fp8 forward runs about as fast as bf16's. Its backward is not a speed-up:
// there the fp8 kernel takes as long as a causal call over the whole sequence (0.37 of bf16's
// speed at 2,048 tokens, 0.03 at 32,768; attention_cost.cpp prices it so).
struct Fp8WindowSpeedup {
  double compute_capability;
  bool mx;
  double forward;
};
constexpr Fp8WindowSpeedup kFp8WindowSpeedups[] = {
    {10.0, false, 1.08}, {10.0, true, 1.00}, {10.3, false, 1.21}, {10.3, true, 1.15}};

// Piecewise linear in log2 of the tokens between the measured ones, clamped at both ends.
double at_tokens(std::span<const double> ratios, double tokens) {
  const double x = std::log2(std::clamp(tokens, kFp8AttentionTokens[0],
                                        kFp8AttentionTokens[std::size(kFp8AttentionTokens) - 1]));
  for (size_t i = 1; i < std::size(kFp8AttentionTokens); ++i) {
    const double upper = std::log2(kFp8AttentionTokens[i]);
    if (x <= upper) {
      const double lower = std::log2(kFp8AttentionTokens[i - 1]);
      return ratios[i - 1] + (x - lower) / (upper - lower) * (ratios[i] - ratios[i - 1]);
    }
  }
  return ratios.back();
}

// The row of the newest GPU at or below `compute_capability` for which `matches`.
template <typename Row, size_t N, typename Matches>
const Row* newest_row(const Row (&rows)[N], double compute_capability, Matches matches) {
  const Row* found = nullptr;
  for (const Row& row : rows) {
    if (row.compute_capability <= compute_capability && matches(row)) found = &row;
  }
  return found;
}

// MXFP8 quantises each of these tensors row- and column-wise (utils.py get_attention_quantizers:
// columnwise_usage for QKV, O, dO and dQKV); the per-tensor recipes row-wise only.
double fp8_copies(Fp8Recipe recipe) { return recipe == Fp8Recipe::mxfp8 ? 2 : 1; }

}  // namespace

std::string fp8_attention_problem(const RuleContext& c, const Strategy& s) {
  if (!s.fp8_dot_product_attention) return {};
  if (c.training.precision != Precision::fp8) {
    return "fp8_dot_product_attention needs fp8 training (got " +
           std::string(to_string(c.training.precision)) + ")";
  }
  if (!s.use_flash_attn || s.attention_backend == AttentionBackend::flash) {
    return std::string(
        "fp8_dot_product_attention needs cuDNN's fused attention: use_flash_attn with "
        "attention_backend auto or fused");
  }
  const HeadDims dims = attention_head_dims(c.model);
  for (size_t pool = 0; pool < c.cluster.pools.size(); ++pool) {
    if (!runs_on_pool(s, pool)) continue;
    std::string problem =
        fp8_kernel_problem(c.cluster.pools[pool].gpu, s.fp8_recipe, dims.qk, dims.v);
    if (!problem.empty()) return problem;
  }
  return {};
}

double fp8_attention_speedup(const GpuSpec& gpu, Fp8Recipe recipe, const Fp8AttentionCall& call) {
  const bool mx = recipe == Fp8Recipe::mxfp8;
  if (call.window && !call.backward) {
    const Fp8WindowSpeedup* row = newest_row(kFp8WindowSpeedups, gpu.compute_capability,
                                             [&](const Fp8WindowSpeedup& r) { return r.mx == mx; });
    if (row != nullptr) return row->forward;
  }
  const Fp8HeadDims dims =
      call.qk_head_dim > call.v_head_dim ? Fp8HeadDims::latent : Fp8HeadDims::equal;
  const Fp8AttentionSpeedup* row =
      newest_row(kFp8AttentionSpeedups, gpu.compute_capability,
                 [&](const Fp8AttentionSpeedup& r) { return r.mx == mx && r.dims == dims; });
  if (row == nullptr) return 1;  // a GPU the rule refuses: priced as the 16-bit kernel
  return at_tokens(call.backward ? row->backward : row->forward, call.tokens);
}

double fp8_attention_saved_element_bytes(Fp8Recipe recipe) {
  return fp8_copies(recipe) * kFp8Quantisation[static_cast<size_t>(recipe)].copy_bytes;
}

Fp8AttentionCasts fp8_attention_casts(Fp8Recipe recipe, double element_bytes, double qkv_elements,
                                      double out_elements) {
  const Fp8Quantisation& q = kFp8Quantisation[static_cast<size_t>(recipe)];
  const double quantise = q.read_bytes + fp8_copies(recipe) * q.copy_bytes;
  const double dequantise = q.copy_bytes + element_bytes;
  return {.forward_bytes = quantise * qkv_elements + dequantise * out_elements,
          .backward_bytes = quantise * out_elements + dequantise * qkv_elements,
          .kernels_per_pass = q.kernels + 1};
}

}  // namespace paraplan::detail
