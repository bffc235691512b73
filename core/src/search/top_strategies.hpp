// The N fastest strategies a search has seen, in a deterministic order: by default one per
// layout (the best of its variants), and the best of each layout family.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "paraplan/search.hpp"
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

// What makes two strategies different layouts: how the GPUs are split (tensor, pipeline,
// context, expert, expert-tensor parallel; data parallel follows from these and the GPUs of
// each stage), how the state is sharded (ZeRO stage) and what lives in host memory (optimizer
// and activation offload). Virtual stages, micro-batch, recompute, layer splits and the
// communication and fusion switches are a layout's details: a search ranks the best of them.
inline std::vector<int64_t> layout_key(const Strategy& s) {
  std::vector<int64_t> key = {
      s.tensor_model_parallel_size,    s.pipeline_model_parallel_size,
      s.context_parallel_size,         s.expert_model_parallel_size,
      s.expert_tensor_parallel_size,   s.zero_stage,
      s.optimizer_cpu_offload ? 1 : 0, s.cpu_offloading_num_layers > 0 ? 1 : 0};
  key.insert(key.end(), s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end());
  return key;
}

// A strategy's sizes as a progress report shows the best so far: "TP 2 · PP 4 · VP 10 · CP 2 ·
// EP 1 · mbs 1 · ZeRO 1".
inline std::string layout_label(const Strategy& s) {
  return "TP " + std::to_string(s.tensor_model_parallel_size) + " · PP " +
         std::to_string(s.pipeline_model_parallel_size) + " · VP " +
         std::to_string(s.virtual_pipeline_model_parallel_size) + " · CP " +
         std::to_string(s.context_parallel_size) + " · EP " +
         std::to_string(s.expert_model_parallel_size) + " · mbs " +
         std::to_string(s.micro_batch_size) + " · ZeRO " + std::to_string(s.zero_stage) +
         (s.optimizer_cpu_offload ? " · optimizer on CPU" : "");
}

// Whether a strategy belongs to a layout family (search.hpp, LayoutFamily).
inline bool in_family(const Strategy& s, LayoutFamily family) {
  const int64_t tp = s.tensor_model_parallel_size, pp = s.pipeline_model_parallel_size;
  switch (family) {
    case LayoutFamily::tp:  // tensor parallel over 4 or more GPUs, at least as wide as pipeline
      return tp >= 4 && tp >= pp;
    case LayoutFamily::pp:  // 4 or more stages, more than tensor parallel
      return pp >= 4 && pp > tp;
    case LayoutFamily::cp:
      return s.context_parallel_size > 1;
    case LayoutFamily::zero3:  // parameters sharded
      return s.zero_stage == 3;
    case LayoutFamily::ep:
      return s.expert_model_parallel_size > 1;
  }
  return false;
}

// Kept sorted by time; times within a relative 1e-9 count as equal and are ordered by
// ordering_key, so that native and WebAssembly builds rank alike. With distinct layouts, a
// strategy whose layout is listed replaces it only when it comes first; bounds stay exact,
// since a strategy slower than the N-th listed layout can neither add a layout nor improve one.
class TopStrategies {
 public:
  TopStrategies(size_t capacity, bool distinct_layouts)
      : capacity_(capacity), distinct_layouts_(distinct_layouts) {}

  bool full() const { return items_.size() >= capacity_; }
  double worst_s() const {
    return full() ? items_.back().time_s : std::numeric_limits<double>::infinity();
  }
  double best_s() const { return items_.empty() ? 0 : items_.front().time_s; }
  const Strategy* best() const { return items_.empty() ? nullptr : &items_.front().strategy; }

  void offer(const Strategy& strategy, double time_s) {
    offer_to_families(strategy, time_s);
    if (full() && !(time_s < items_.back().time_s * (1 + 1e-9))) return;
    Item item{time_s, strategy, ordering_key(strategy), {}};
    if (distinct_layouts_) {
      item.layout = layout_key(strategy);
      const auto same = std::find_if(items_.begin(), items_.end(), [&](const Item& listed) {
        return listed.layout == item.layout;
      });
      if (same != items_.end()) {
        if (!before(item, *same)) return;
        items_.erase(same);
      }
    }
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

  // The fastest strategy seen of each family, where one was seen. Exact where it is no slower
  // than the N-th listed strategy; a slower one may have been pruned unseen.
  std::vector<std::pair<LayoutFamily, Strategy>> family_bests() const {
    std::vector<std::pair<LayoutFamily, Strategy>> out;
    for (size_t f = 0; f < kLayoutFamilies.size(); ++f) {
      if (families_[f]) out.emplace_back(kLayoutFamilies[f], families_[f]->strategy);
    }
    return out;
  }

 private:
  struct Item {
    double time_s;
    Strategy strategy;
    std::vector<int64_t> key;
    std::vector<int64_t> layout;  // with distinct layouts
  };
  static bool before(const Item& a, const Item& b) {
    const double scale = std::max(a.time_s, b.time_s);
    if (std::abs(a.time_s - b.time_s) > 1e-9 * scale) return a.time_s < b.time_s;
    return a.key < b.key;
  }
  void offer_to_families(const Strategy& strategy, double time_s) {
    for (size_t f = 0; f < kLayoutFamilies.size(); ++f) {
      if (!in_family(strategy, kLayoutFamilies[f])) continue;
      std::optional<Item>& best = families_[f];
      if (best && !(time_s < best->time_s * (1 + 1e-9))) continue;
      Item item{time_s, strategy, ordering_key(strategy), {}};
      if (!best || before(item, *best)) best = std::move(item);
    }
  }
  size_t capacity_;
  bool distinct_layouts_;
  std::vector<Item> items_;
  std::array<std::optional<Item>, kLayoutFamilies.size()> families_;
};

}  // namespace paraplan::detail
