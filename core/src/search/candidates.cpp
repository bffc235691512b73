#include "search/candidates.hpp"

#include <algorithm>

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

std::vector<int64_t> divisors_of_quotient(int64_t a, int64_t b) {
  return b > 0 && a % b == 0 ? divisors(a / b) : std::vector<int64_t>{1};
}

std::vector<int64_t> pinned_or(const std::optional<int64_t>& pinned, std::vector<int64_t> all) {
  if (pinned) return {*pinned};
  return all;  // moved, not copied
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
