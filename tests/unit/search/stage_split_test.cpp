// The layer split of a mixed pipeline: against a brute force over every split.
#include "search/stage_split.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

using paraplan::detail::balanced_split;

namespace {

// The slowest stage's time of the best split into stages of 1..limit layers (no limit when
// the limits cannot hold every layer), by enumeration.
double best_slowest_s(int64_t layers, const std::vector<double>& layer_s,
                      const std::vector<double>& fixed_s, std::vector<int64_t> limit) {
  if (std::accumulate(limit.begin(), limit.end(), int64_t{0}) < layers) {
    limit.assign(limit.size(), layers);
  }
  double best = 1e300;
  std::vector<int64_t> split(layer_s.size());
  const std::function<void(size_t, int64_t, double)> place = [&](size_t i, int64_t left,
                                                                 double slowest) {
    if (i + 1 == split.size()) {
      if (left >= 1 && left <= std::max<int64_t>(1, limit[i])) {
        best = std::min(best, std::max(slowest, fixed_s[i] + left * layer_s[i]));
      }
      return;
    }
    for (int64_t n = 1; n <= std::max<int64_t>(1, limit[i]) && n < left; ++n) {
      place(i + 1, left - n, std::max(slowest, fixed_s[i] + n * layer_s[i]));
    }
  };
  place(0, layers, 0);
  return best;
}

}  // namespace

TEST_CASE("balanced_split minimises the slowest stage within memory limits") {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> speed(0.5, 4.0), fixed(0.0, 2.0);
  std::uniform_int_distribution<int> stage_count(1, 5), layer_count(1, 24), cap(0, 12);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t stages = static_cast<size_t>(stage_count(random));
    const int64_t layers = layer_count(random);
    std::vector<double> layer_s(stages), fixed_s(stages);
    std::vector<int64_t> limit(stages);
    for (size_t i = 0; i < stages; ++i) {
      layer_s[i] = speed(random);
      fixed_s[i] = fixed(random);
      limit[i] = cap(random);
    }
    CAPTURE(trial);
    const std::vector<int64_t> split = balanced_split(layers, layer_s, fixed_s, limit);
    if (layers < static_cast<int64_t>(stages)) {
      CHECK(split.empty());
      continue;
    }
    REQUIRE(split.size() == stages);
    CHECK(std::accumulate(split.begin(), split.end(), int64_t{0}) == layers);
    double slowest = 0;
    for (size_t i = 0; i < stages; ++i) {
      CHECK(split[i] >= 1);
      slowest = std::max(slowest, fixed_s[i] + split[i] * layer_s[i]);
    }
    const bool fits = std::accumulate(limit.begin(), limit.end(), int64_t{0}) >= layers;
    const bool each_fits =
        std::all_of(limit.begin(), limit.end(), [](int64_t l) { return l >= 1; });
    if (fits && each_fits) {
      for (size_t i = 0; i < stages; ++i) CHECK(split[i] <= limit[i]);
    }
    CHECK(slowest == doctest::Approx(best_slowest_s(layers, layer_s, fixed_s, limit)));
  }
}
