// Per-layer costs by GPU type and layer shape, computed once and reused across strategies. The
// shape is the values of the strategy keys marked layer_cost in strategy_keys(): a key that
// changes per-layer costs is part of the cache key by being marked so (tested per key).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/key_values_map.hpp"
#include "model/layer_cost.hpp"

namespace paraplan::detail {

// The layer_cost keys that only a MoE layer's costs read: the MoE block (moe_layer_cost.cpp,
// moe_dispatch.cpp), the MoE regions of the host's time (host_time.cpp) and the routed experts of
// torchtitan's per-op checkpoint (torchtitan_sac.cpp); not overlap_moe_expert_parallel_comm, whose
// device connections decide whether every layer's tensor-parallel collectives overlap their GEMMs
// (device_connections.hpp). The dense layer, the embedding, the LM head,
// the multi-token-prediction depth and a MoE layer's attention block read none of them, so
// CostCache builds those once per value of the other keys, across expert parallelism and the MoE
// switches, and only the rest of the MoE layer per layer shape (a test varies each of
// these keys and fails naming one that changes them: cost_cache_test.cpp).
inline constexpr KeySet kMoeLayerOnlyKeys = {
    StrategyKeyId::expert_model_parallel_size, StrategyKeyId::expert_tensor_parallel_size,
    StrategyKeyId::moe_token_dispatcher_type,  StrategyKeyId::moe_flex_dispatcher_backend,
    StrategyKeyId::moe_grouped_gemm,           StrategyKeyId::moe_permute_fusion,
    StrategyKeyId::moe_router_fusion,          StrategyKeyId::moe_shared_expert_overlap,
    StrategyKeyId::delay_wgrad_compute,        StrategyKeyId::moe_router_force_load_balancing,
    StrategyKeyId::moe_expert_capacity_factor, StrategyKeyId::moe_pad_expert_input_to_capacity,
};

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
      : model_(model), training_(training), cluster_(cluster), framework_(framework) {
    for (const StrategyKey& key : strategy_keys()) {
      if (!key.layer_cost) continue;
      layer_keys_.push_back(&key);
      if (!kMoeLayerOnlyKeys.contains(key.id)) shared_keys_.push_back(&key);
    }
  }

  // Looked up once per layer shape of a search (hot): the key is built into kept capacity and
  // hashed, and entries never move, so a reference stays valid as the cache grows. A new shape
  // builds only its MoE layer where its other parts are known (by the keys they read).
  const ModelCosts& get(int pool, const Strategy& strategy) {
    fill_key(pool, strategy, layer_keys_, key_);
    if (const ModelCosts* found = costs_.find(key_)) return *found;
    ModelCosts built = build(pool, strategy);
    return costs_.emplace(key_, std::move(built));
  }

  // The same costs without keeping them: the kept ones where known, else built into `scratch`
  // (valid until its next use). For shapes that are priced once and rarely again: the search's
  // micro-batch bound prices every shape of some 30 thousand floor keys on DeepSeek-V3, most of
  // which it never walks, and keeping each (a few KiB, in fresh memory) cost more than building
  // it.
  const ModelCosts& get_unkept(int pool, const Strategy& strategy, ModelCosts& scratch) {
    fill_key(pool, strategy, layer_keys_, key_);
    if (const ModelCosts* found = costs_.find(key_)) return *found;
    scratch = build(pool, strategy);
    return scratch;
  }

 private:
  const GpuSpec& gpu(int pool) const { return cluster_.pools[static_cast<size_t>(pool)].gpu; }

  // The pool, then the values of `keys` in `strategy`, into `values`.
  static void fill_key(int pool, const Strategy& strategy,
                       const std::vector<const StrategyKey*>& keys, std::vector<int64_t>& values) {
    values.clear();
    values.push_back(pool);
    for (const StrategyKey* key : keys) {
      values.push_back(key->get(strategy, key->per_gpu ? static_cast<size_t>(pool) : 0));
    }
  }

  // compute_model_costs(strategy) from its parts: the shared ones looked up by the keys they
  // read, the MoE layer built.
  ModelCosts build(int pool, const Strategy& strategy) {
    const GpuSpec& g = gpu(pool);
    fill_key(pool, strategy, shared_keys_, shared_key_);
    const SharedCosts* shared = shared_.find(shared_key_);
    if (shared == nullptr) {
      shared = &shared_.emplace(
          shared_key_,
          compute_shared_costs(model_, training_, g, g.nvlink_domain_gpus, strategy, framework_));
    }
    const SharedCosts& parts = *shared;
    ModelCosts costs;
    costs.dense = parts.dense;
    costs.moe = model_.moe ? compute_moe_layer_cost(model_, training_, g, g.nvlink_domain_gpus,
                                                    strategy, parts.moe_attention, framework_)
                           : parts.dense;
    costs.embedding = parts.embedding;
    costs.head = parts.head;
    costs.mtp = parts.mtp;
    set_ungraphed_passes(costs);
    return costs;
  }

  const ModelSpec& model_;
  const Training& training_;
  const Cluster& cluster_;
  Framework framework_;
  std::vector<const StrategyKey*> layer_keys_;   // the keys marked layer_cost
  std::vector<const StrategyKey*> shared_keys_;  // those less kMoeLayerOnlyKeys
  std::vector<int64_t> key_;                     // scratch: the pool, then their values
  std::vector<int64_t> shared_key_;              // scratch: the pool, then shared_keys_' values
  KeyValuesMap<ModelCosts> costs_;
  KeyValuesMap<SharedCosts> shared_;
};

}  // namespace paraplan::detail
