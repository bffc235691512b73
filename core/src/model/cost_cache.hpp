// Per-layer costs by GPU type and layer shape, computed once and reused across strategies. The
// shape is the values of the strategy keys marked layer_cost in strategy_keys(): a key that
// changes per-layer costs is part of the cache key by being marked so (tested per key).
#pragma once

#include <cstdint>
#include <unordered_map>
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

// The hash of a sequence of key values (FNV-1a over the values, mixed).
struct KeyValuesHash {
  size_t operator()(const std::vector<int64_t>& values) const {
    uint64_t h = 14695981039346656037ull;
    for (const int64_t v : values) {
      h ^= static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 1099511628211ull;
    }
    return static_cast<size_t>(h);
  }
};

class CostCache {
 public:
  CostCache(const ModelSpec& model, const Training& training, const Cluster& cluster,
            Framework framework = Framework::megatron)
      : model_(model), training_(training), cluster_(cluster), framework_(framework) {
    for (const StrategyKey& key : strategy_keys()) {
      if (key.layer_cost) layer_keys_.push_back(&key);
    }
  }

  // Looked up once per layer shape of a search (hot): the key is built into kept capacity and
  // hashed, and entries never move, so a reference stays valid as the cache grows.
  const ModelCosts& get(int pool, const Strategy& strategy) {
    key_.clear();
    key_.push_back(pool);
    for (const StrategyKey* key : layer_keys_) {
      key_.push_back(key->get(strategy, key->per_gpu ? static_cast<size_t>(pool) : 0));
    }
    auto it = costs_.find(key_);
    if (it == costs_.end()) {
      it = costs_
               .emplace(key_,
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
  std::vector<const StrategyKey*> layer_keys_;  // the keys marked layer_cost
  std::vector<int64_t> key_;                    // scratch: the pool, then their values
  std::unordered_map<std::vector<int64_t>, ModelCosts, KeyValuesHash> costs_;
};

}  // namespace paraplan::detail
