#include "stage_split.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace paraplan::detail {

std::vector<int64_t> balanced_split(int64_t layers, std::span<const double> layer_s,
                                    std::span<const double> fixed_s,
                                    std::span<const int64_t> max_layers) {
  const size_t stages = layer_s.size();
  if (stages == 0 || layers < static_cast<int64_t>(stages)) return {};
  std::vector<int64_t> limit(max_layers.begin(), max_layers.end());
  if (std::accumulate(limit.begin(), limit.end(), int64_t{0}) < layers) {
    limit.assign(stages, layers);  // memory cannot hold them all: balance time alone
  }
  // The layers stage i takes if no stage may exceed time `t`.
  const auto capacity = [&](size_t i, double t) {
    const double fit = std::floor((t - fixed_s[i]) / layer_s[i]);
    return std::clamp<int64_t>(fit < 0 ? 0 : static_cast<int64_t>(std::min(fit, 1e15)), 0,
                               limit[i]);
  };
  const auto total = [&](double t) {
    int64_t sum = 0;
    for (size_t i = 0; i < stages; ++i) sum += capacity(i, t);
    return sum;
  };
  // The smallest pace that holds every layer, by bisection.
  double low = 0, high = 0;
  for (size_t i = 0; i < stages; ++i) {
    high = std::max(high, fixed_s[i] + static_cast<double>(layers) * layer_s[i]);
  }
  for (int iteration = 0; iteration < 64 && total(high) >= layers; ++iteration) {
    const double middle = (low + high) / 2;
    (total(middle) >= layers ? high : low) = middle;
  }
  std::vector<int64_t> split(stages);
  for (size_t i = 0; i < stages; ++i) split[i] = std::max<int64_t>(1, capacity(i, high));
  const auto time = [&](size_t i, int64_t n) {
    return fixed_s[i] + static_cast<double>(n) * layer_s[i];
  };
  int64_t sum = std::accumulate(split.begin(), split.end(), int64_t{0});
  while (sum > layers) {  // take a layer from the slowest stage that can spare one
    size_t slowest = stages;
    for (size_t i = 0; i < stages; ++i) {
      if (split[i] > 1 && (slowest == stages || time(i, split[i]) >= time(slowest, split[slowest]))) {
        slowest = i;
      }
    }
    --split[slowest];
    --sum;
  }
  while (sum < layers) {  // give a layer to the stage that stays fastest with it
    size_t best = 0;
    for (size_t i = 1; i < stages; ++i) {
      if (time(i, split[i] + 1) < time(best, split[best] + 1)) best = i;
    }
    ++split[best];
    ++sum;
  }
  return split;
}

}  // namespace paraplan::detail
