// fp8 dot-product attention (Megatron-Core's fp8_dot_product_attention, Transformer Engine's
// fp8_dpa): where cuDNN runs it, how fast its kernels run against the 16-bit ones, and the
// casts and saved tensors around them.
#pragma once

#include <string>

#include "model/rules.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// Why fp8 attention cannot run the strategy (one clause naming the numbers), or empty where it
// runs or is off: the rulebook's rule (rules_memory_precision.cpp).
std::string fp8_attention_problem(const RuleContext& context, const Strategy& strategy);

// cuDNN's fp8 fused attention kernel's speed over its 16-bit one for a causal call over
// `tokens` keys (or a sliding window's forward) on `gpu` under `recipe`
// (kFp8AttentionSpeedups, fp8_attention.cpp).
struct Fp8AttentionCall {
  double qk_head_dim, v_head_dim;
  double tokens;
  bool window;
  bool backward;
};
double fp8_attention_speedup(const GpuSpec& gpu, Fp8Recipe recipe, const Fp8AttentionCall& call);

// Bytes one element of Q, K, V (or O) costs where fp8 attention keeps it for its backward.
double fp8_attention_saved_element_bytes(Fp8Recipe recipe);

// HBM bytes and kernel launches of Transformer Engine's casts around the fp8 kernels
// (FusedAttnFunc): forward, Q, K, V quantised and O dequantised; backward, dO quantised and dQ,
// dK, dV dequantised.
struct Fp8AttentionCasts {
  double forward_bytes, backward_bytes;
  double kernels_per_pass;
};
Fp8AttentionCasts fp8_attention_casts(Fp8Recipe recipe, double element_bytes, double qkv_elements,
                                      double out_elements);

}  // namespace paraplan::detail
