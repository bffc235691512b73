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

ParameterBytes parameter_bytes(Precision precision, const Strategy& strategy);

}  // namespace paraplan::detail
