// Per-layer costs by GPU type and layer shape, computed once and reused across strategies.
#pragma once

#include <map>
#include <utility>

#include "model/layer_cost.hpp"

namespace paraplan::detail {

class CostCache {
 public:
  CostCache(const ModelSpec& model, const Training& training, const Cluster& cluster)
      : model_(model), training_(training), cluster_(cluster) {}

  const ModelCosts& get(int pool, const LayerShape& shape) {
    const auto key = std::make_pair(pool, shape);
    auto it = costs_.find(key);
    if (it == costs_.end()) {
      it = costs_
               .emplace(key, compute_model_costs(model_, training_,
                                                 cluster_.pools[static_cast<size_t>(pool)].gpu,
                                                 cluster_.gpus_per_node, shape))
               .first;
    }
    return it->second;
  }

 private:
  const ModelSpec& model_;
  const Training& training_;
  const Cluster& cluster_;
  std::map<std::pair<int, LayerShape>, ModelCosts> costs_;
};

// The layer shape a strategy gives.
inline LayerShape layer_shape(const Strategy& s) {
  return {s.tensor_model_parallel_size,
          s.context_parallel_size,
          s.expert_model_parallel_size,
          s.micro_batch_size,
          s.sequence_parallel && s.tensor_model_parallel_size > 1,
          s.use_flash_attn,
          s.tp_comm_overlap};
}

}  // namespace paraplan::detail
