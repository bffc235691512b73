#include "search/stage_split.hpp"

#include <numeric>
#include <queue>
#include <utility>

namespace paraplan::detail {

std::vector<int64_t> balanced_split(int64_t layers, std::span<const double> layer_s,
                                    std::span<const double> fixed_s,
                                    std::span<const int64_t> max_layers) {
  const size_t stages = layer_s.size();
  if (stages == 0 || layers < static_cast<int64_t>(stages)) return {};
  const bool limited = std::accumulate(max_layers.begin(), max_layers.end(), int64_t{0}) >= layers;
  const auto time = [&](size_t i, int64_t n) {
    return fixed_s[i] + static_cast<double>(n) * layer_s[i];
  };
  // One layer each, then each next layer to the stage that stays fastest with it (greedy is
  // optimal for the slowest stage because every stage's time grows with its layers); a stage
  // at its memory limit takes no more unless no stage has room.
  std::vector<int64_t> split(stages, 1);
  using Offer = std::pair<double, size_t>;  // the stage's time with one more layer, the stage
  std::priority_queue<Offer, std::vector<Offer>, std::greater<>> with_room, full;
  for (size_t i = 0; i < stages; ++i) {
    (limited && split[i] >= max_layers[i] ? full : with_room).push({time(i, 2), i});
  }
  for (int64_t left = layers - static_cast<int64_t>(stages); left > 0; --left) {
    auto& queue = with_room.empty() ? full : with_room;
    const size_t i = queue.top().second;
    queue.pop();
    ++split[i];
    (limited && split[i] >= max_layers[i] ? full : with_room).push({time(i, split[i] + 1), i});
  }
  return split;
}

}  // namespace paraplan::detail
