// The N fastest strategies a search has seen, in a deterministic order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// A strategy as a sequence of numbers, from the key table: every scalar key (per-GPU keys for
// each GPU type), then the stage lists.
inline std::vector<int64_t> ordering_key(const Strategy& s) {
  std::vector<int64_t> key;
  for (const StrategyKey& k : strategy_keys()) {
    if (!k.scalar()) continue;
    const size_t pools = k.per_gpu ? s.recompute.size() : 1;
    for (size_t pool = 0; pool < pools; ++pool) key.push_back(k.get(s, pool));
  }
  key.insert(key.end(), s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end());
  key.insert(key.end(), s.pipeline_stage_layers.begin(), s.pipeline_stage_layers.end());
  return key;
}

// Kept sorted by time; times within a relative 1e-9 count as equal and are ordered by
// ordering_key, so that native and WebAssembly builds rank alike.
class TopStrategies {
 public:
  explicit TopStrategies(size_t capacity) : capacity_(capacity) {}

  bool full() const { return items_.size() >= capacity_; }
  double worst_s() const {
    return full() ? items_.back().time_s : std::numeric_limits<double>::infinity();
  }
  double best_s() const { return items_.empty() ? 0 : items_.front().time_s; }

  void offer(const Strategy& strategy, double time_s) {
    if (full() && !(time_s < items_.back().time_s * (1 + 1e-9))) return;
    Item item{time_s, strategy, ordering_key(strategy)};
    const auto position = std::upper_bound(items_.begin(), items_.end(), item, before);
    if (position != items_.begin() && std::prev(position)->key == item.key) return;
    items_.insert(position, std::move(item));
    if (items_.size() > capacity_) items_.pop_back();
  }

  std::vector<Strategy> strategies() const {
    std::vector<Strategy> out;
    for (const Item& item : items_) out.push_back(item.strategy);
    return out;
  }

 private:
  struct Item {
    double time_s;
    Strategy strategy;
    std::vector<int64_t> key;
  };
  static bool before(const Item& a, const Item& b) {
    const double scale = std::max(a.time_s, b.time_s);
    if (std::abs(a.time_s - b.time_s) > 1e-9 * scale) return a.time_s < b.time_s;
    return a.key < b.key;
  }
  size_t capacity_;
  std::vector<Item> items_;
};

}  // namespace paraplan::detail
