// The layer split of a mixed pipeline: against a brute force over every split.
#include "model/stage_split.hpp"

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

TEST_CASE("virtual chunks: layers spread evenly, the first and last chunks take the rest") {
  using paraplan::detail::chunk_layers;
  using paraplan::detail::edge_chunk_share;
  CHECK(chunk_layers(16, 4, false, false) == std::vector<int64_t>{4, 4, 4, 4});
  CHECK(chunk_layers(13, 4, false, false) == std::vector<int64_t>{4, 3, 3, 3});
  CHECK(chunk_layers(14, 4, false, false) == std::vector<int64_t>{4, 3, 3, 4});
  CHECK(chunk_layers(15, 4, false, false) == std::vector<int64_t>{4, 4, 3, 4});
  // Megatron-LM's --account-for-embedding/loss-in-pipeline-split: Llama 3.1 405B (126 layers)
  // on 8 x 8, the first stage's first chunk and the last stage's last chunk one layer short.
  CHECK(chunk_layers(15, 8, true, false) == std::vector<int64_t>{1, 2, 2, 2, 2, 2, 2, 2});
  CHECK(chunk_layers(15, 8, false, true) == std::vector<int64_t>{2, 2, 2, 2, 2, 2, 2, 1});
  CHECK(edge_chunk_share(15, 8, true, false) == 1.0 / 8);
  CHECK(edge_chunk_share(16, 8, false, false) == 1.0 / 8);
  // 10 layers in 9 chunks: the fill waits for 2 layers, the drain for 1.
  CHECK(edge_chunk_share(10, 9, false, false) == 3.0 / 20);
  // Never below the even share, whatever the remainder.
  for (int64_t v = 1; v <= 12; ++v) {
    for (int64_t layers = 1; layers <= 40; ++layers) {
      CAPTURE(v);
      CAPTURE(layers);
      CHECK(edge_chunk_share(layers, v, false, false) >= 1.0 / static_cast<double>(v) - 1e-15);
      const std::vector<int64_t> chunks = chunk_layers(layers, v, false, false);
      CHECK(std::accumulate(chunks.begin(), chunks.end(), int64_t{0}) == layers);
      CHECK(*std::max_element(chunks.begin(), chunks.end()) -
                *std::min_element(chunks.begin(), chunks.end()) <=
            1);
    }
  }
}

// edge_chunk_share counts the first and last chunk without building the list: the same share as
// chunk_layers' chunks, the embedding and the loss counted as layers.
TEST_CASE("the edge chunks' share is that of chunk_layers' first and last chunk") {
  using paraplan::detail::chunk_layers;
  using paraplan::detail::edge_chunk_share;
  for (int64_t v = 1; v <= 12; ++v) {
    for (int64_t layers = 1; layers <= 40; ++layers) {
      for (const bool embedding : {false, true}) {
        for (const bool loss : {false, true}) {
          CAPTURE(v);
          CAPTURE(layers);
          CAPTURE(embedding);
          CAPTURE(loss);
          const std::vector<int64_t> chunks = chunk_layers(layers, v, embedding, loss);
          // The chunks' units: one chunk (v = 1) holds both the embedding and the loss.
          const int64_t first = chunks.front() + embedding + (v == 1 && loss);
          const int64_t last = chunks.back() + loss + (v == 1 && embedding);
          const double expected = static_cast<double>(first + last) /
                                  (2.0 * static_cast<double>(layers + embedding + loss));
          CHECK(edge_chunk_share(layers, v, embedding, loss) == expected);
        }
      }
    }
  }
}

TEST_CASE("balanced_split places every layer where the one-at-a-time greedy does, ties included") {
  // The greedy balanced_split shortcuts: each next layer to the stage that is fastest with it,
  // ties to the lower stage, within memory limits while any stage has room.
  const auto greedy = [](int64_t layers, const std::vector<double>& layer_s,
                         const std::vector<double>& fixed_s, const std::vector<int64_t>& limit) {
    const size_t stages = layer_s.size();
    const bool limited = std::accumulate(limit.begin(), limit.end(), int64_t{0}) >= layers;
    std::vector<int64_t> split(stages, 1);
    for (int64_t left = layers - static_cast<int64_t>(stages); left > 0; --left) {
      bool room = false;
      for (size_t i = 0; i < stages; ++i) room |= !limited || split[i] < limit[i];
      size_t best = stages;
      for (size_t i = 0; i < stages; ++i) {
        if (room && limited && split[i] >= limit[i]) continue;
        const double offer = fixed_s[i] + static_cast<double>(split[i] + 1) * layer_s[i];
        if (best == stages ||
            offer < fixed_s[best] + static_cast<double>(split[best] + 1) * layer_s[best]) {
          best = i;
        }
      }
      ++split[best];
    }
    return split;
  };
  // The search's form splits into one kept list with one kept scratch (no allocation per leaf):
  // whatever the previous split left in them, the same split.
  paraplan::detail::SplitScratch scratch;
  std::vector<int64_t> kept_split;
  std::mt19937 random(11);
  std::uniform_int_distribution<int> stage_count(1, 32), layer_count(1, 160), cap(0, 40),
      small(1, 4), large(0, 200);
  std::uniform_real_distribution<double> speed(0.1, 4.0), fixed(0.0, 20.0);
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t stages = static_cast<size_t>(stage_count(random));
    const int64_t layers = std::max<int64_t>(layer_count(random), static_cast<int64_t>(stages));
    std::vector<double> layer_s(stages), fixed_s(stages);
    std::vector<int64_t> limit(stages);
    const bool ties = trial % 2 == 0;  // whole-number times tie often
    for (size_t i = 0; i < stages; ++i) {
      layer_s[i] = ties ? small(random) : speed(random);
      fixed_s[i] = ties ? (trial % 6 == 0 ? large(random) : small(random)) : fixed(random);
      limit[i] = trial % 3 == 0 ? layers : cap(random);
    }
    CAPTURE(trial);
    const std::vector<int64_t> expected = greedy(layers, layer_s, fixed_s, limit);
    CHECK(balanced_split(layers, layer_s, fixed_s, limit) == expected);
    balanced_split(layers, layer_s, fixed_s, limit, kept_split, scratch);
    CHECK(kept_split == expected);
  }
}
