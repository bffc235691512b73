// One layer priced alone: a model on 8 H100s whose kernels have no fixed overhead (so a pass's
// time is its bytes at the HBM curve), and the dense layer's cost with flash attention.
#pragma once

#include <string>

#include "model/layer_cost.hpp"
#include "support.hpp"

namespace paraplan::test {

// `model` is the model's JSON object; training: global batch 8, sequence 4096, bf16.
inline Scenario no_overhead_h100_job(const std::string& model) {
  return scenario(R"({"model": )" + model + R"(,
      "training": {"global_batch_size": 8, "seq_length": 4096, "precision": "bf16"},
      "cluster": {"gpus": [{"type": {"base": "h100", "id": "no-overhead",
      "kernel_overhead_us": 0}, "count": 8}]}})");
}

inline detail::LayerCost flash_dense_layer(const Scenario& s) {
  Strategy strategy;
  strategy.use_flash_attn = true;
  return detail::compute_model_costs(s.model, s.training, s.cluster.pools.front().gpu, 8, strategy)
      .dense;
}

}  // namespace paraplan::test
