// Bytes per parameter of what Megatron-LM keeps and moves in training, from the training
// precision and the dtype keys: weights (with Transformer Engine's fp8 copies), main gradients,
// optimizer state, the parameter all-gather and the optimizer step's HBM traffic.
#pragma once

#include "paraplan/hardware.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

struct ParameterBytes {
  double layer_weight = 2;   // a transformer-layer weight as held for compute (fp8 copies in)
  double edge_weight = 2;    // embedding, LM head, norms: never fp8
  double gradient = 4;       // main_grad buffer element, and what the gradient reduction moves
  double fsdp_gradient = 2;  // Megatron-FSDP (ZeRO 2-3) main gradient
  double optimizer = 12;     // per parameter of the optimizer's shard: master copy and moments
  double layer_gather = 2;   // what the parameter all-gather moves per transformer-layer weight
  double edge_gather = 2;
  double optimizer_step = 38;  // HBM bytes per parameter of the shard in one optimizer step
};

// `gpu` decides the layouts Transformer Engine keeps fp8 weights in (fp8_gemm_any_layout).
ParameterBytes parameter_bytes(Precision precision, const Strategy& strategy, const GpuSpec& gpu);

// As on a GPU whose fp8 GEMMs take only the TN layout (Hopper and earlier; a GpuSpec without a
// compute capability).
inline ParameterBytes parameter_bytes(Precision precision, const Strategy& strategy) {
  return parameter_bytes(precision, strategy, GpuSpec{});
}

// Whether the GPU's fp8 GEMMs take operands in any layout, so that Transformer Engine keeps one
// fp8 copy of a tensor-scaled (delayed or tensorwise) weight for both GEMMs instead of a row-wise
// copy and its transpose (transformer_engine/common/transformer_engine.cpp
// nvte_is_non_tn_fp8_gemm_supported at d0067d0: compute capability 10.x-11.x or 13.0 and above;
// pytorch/csrc/quantizer.cpp Float8Quantizer and Float8CurrentScalingQuantizer create_tensor:
// `with_transpose = columnwise_usage && !is_non_tn_fp8_gemm_supported`).
bool fp8_gemm_any_layout(const GpuSpec& gpu);

}  // namespace paraplan::detail
