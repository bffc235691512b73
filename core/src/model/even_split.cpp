#include "model/even_split.hpp"

#include <algorithm>

namespace paraplan::detail {

int64_t accounted_edges(int64_t layers, int64_t stages, int64_t virtual_stages) {
  const int64_t chunks = stages * virtual_stages;
  for (const int64_t accounted : {0, 1, 2}) {
    if ((layers + accounted) % chunks == 0) return accounted;
  }
  return -1;
}

std::vector<int64_t> standard_split(int64_t layers, int64_t stages, int64_t virtual_stages) {
  const int64_t accounted = accounted_edges(layers, stages, virtual_stages);
  if (accounted < 0) return {};
  const int64_t per_stage = (layers + accounted) / stages;
  std::vector<int64_t> split(static_cast<size_t>(stages), per_stage);
  if (accounted >= 1) split.back() -= 1;   // the loss takes the last virtual stage's place
  if (accounted == 2) split.front() -= 1;  // the embedding the first's
  if (std::all_of(split.begin(), split.end(), [](int64_t l) { return l >= 1; })) return split;
  return {};
}

}  // namespace paraplan::detail
