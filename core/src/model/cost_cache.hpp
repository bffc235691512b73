// Per-layer costs by GPU type and layer shape, computed once and reused across strategies. The
// shape is the values of the strategy keys marked layer_cost in strategy_keys(): a key that
// changes per-layer costs is part of the cache key by being marked so (tested per key).
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "model/layer_cost.hpp"

namespace paraplan::detail {

// The values of the layer_cost keys of `s` as run by GPU type `pool`.
inline std::vector<int64_t> layer_shape(const Strategy& s, size_t pool) {
  std::vector<int64_t> shape;
  for (const StrategyKey& key : strategy_keys()) {
    if (key.layer_cost) shape.push_back(key.get(s, key.per_gpu ? pool : 0));
  }
  return shape;
}

class CostCache {
 public:
  CostCache(const ModelSpec& model, const Training& training, const Cluster& cluster,
            Framework framework = Framework::megatron)
      : model_(model), training_(training), cluster_(cluster), framework_(framework) {}

  const ModelCosts& get(int pool, const Strategy& strategy) {
    auto key = std::make_pair(pool, layer_shape(strategy, static_cast<size_t>(pool)));
    auto it = costs_.find(key);
    if (it == costs_.end()) {
      it = costs_
               .emplace(std::move(key),
                        compute_model_costs(model_, training_, gpu(pool),
                                            gpu(pool).nvlink_domain_gpus, strategy, framework_))
               .first;
    }
    return it->second;
  }

 private:
  const GpuSpec& gpu(int pool) const { return cluster_.pools[static_cast<size_t>(pool)].gpu; }

  const ModelSpec& model_;
  const Training& training_;
  const Cluster& cluster_;
  Framework framework_;
  std::map<std::pair<int, std::vector<int64_t>>, ModelCosts> costs_;
};

}  // namespace paraplan::detail
