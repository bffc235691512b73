#include "search/candidates.hpp"

#include <algorithm>
#include <numeric>

namespace paraplan::detail {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

std::vector<int64_t> pinned_or(const std::optional<int64_t>& pinned, std::vector<int64_t> all) {
  return pinned ? std::vector<int64_t>{*pinned} : all;
}

std::vector<bool> pinned_or(const std::optional<bool>& pinned, std::vector<bool> all) {
  return pinned ? std::vector<bool>{*pinned} : all;
}

std::vector<int64_t> tensor_candidates(const ModelSpec& model, int64_t max_size) {
  int64_t common = std::gcd(model.num_attention_heads, model.num_query_groups);
  common = std::gcd(common, model.ffn_hidden_size);
  if (model.moe) common = std::gcd(common, model.moe->moe_ffn_hidden_size);
  std::vector<int64_t> sizes;
  for (const int64_t t : divisors(common)) {
    if (t <= max_size) sizes.push_back(t);
  }
  return sizes;
}

std::vector<int64_t> context_candidates(const Training& training, int64_t max_size) {
  std::vector<int64_t> sizes = {1};
  if (training.seq_length % 2 != 0) return sizes;
  for (const int64_t cp : divisors(training.seq_length / 2)) {
    if (cp > 1 && cp <= max_size) sizes.push_back(cp);
  }
  return sizes;
}

void for_each_stage_composition(const Cluster& cluster, int64_t stages, int64_t gpus_per_stage,
                                const std::function<void(const std::vector<int64_t>&)>& visit) {
  std::vector<int64_t> counts(cluster.pools.size(), 0);
  // Depth-first over pools: each takes 0..cap stages, the last takes the rest.
  const auto place = [&](auto&& self, size_t pool, int64_t left) -> void {
    const int64_t cap = cluster.pools[pool].count / gpus_per_stage;
    if (pool + 1 == cluster.pools.size()) {
      if (left <= cap) {
        counts[pool] = left;
        visit(counts);
      }
      return;
    }
    for (int64_t n = 0; n <= std::min(cap, left); ++n) {
      counts[pool] = n;
      self(self, pool + 1, left - n);
    }
  };
  place(place, 0, stages);
}

}  // namespace paraplan::detail
