// The memory floors where nothing is ranked yet (issue 30 item 8: a search where nothing fits
// answered only after estimating every leaf). Such a search names its closest miss, the leaf
// whose worst stage overflows least (Searcher::evaluate_time keeps the first of equal misses),
// so a bound may not skip a leaf that could become it. A leaf's overflow is its worst stage's
// peak less what that stage may use, and each floor (docs/search.md section 3, bound 4: a
// stage's activations; with the split left to the leaf, its layers times the least a layer
// stores; at the leaf, the activations with the weights, gradients and optimizer state) is at
// most that stage's peak, for the leaf and for each offloading variant its evaluation tries.
// Where a floor exceeds what the stage may use plus the closest miss's overflow (at least 0),
// the leaf overflows by more than the closest miss: it neither fits nor becomes the closest, and
// is only counted, so the answer is unchanged. The closest miss only shrinks, so a subtree's
// slack, taken at its recompute level, stays a valid (if looser) limit for its leaves.
#include <algorithm>
#include <cmath>

#include "search/searcher.hpp"

namespace paraplan::detail {

// Whether no leaf below the recompute level can fit (something ranked) or can fit or become the
// closest miss (nothing ranked): activations_overflow with the slack; it sets the floors that
// the leaf-level bounds (leaf_memory_overflows, split_memory_overflows) read with the same slack.
bool Searcher::floors_rule_out(int fit_pool) {
  if (top_.best() != nullptr) {
    miss_slack_bytes_ = 0;
  } else if (std::isfinite(closest_.overflow_bytes)) {
    miss_slack_bytes_ = std::max(0.0, closest_.overflow_bytes);
  } else {
    return false;  // no miss yet: every leaf could become the closest (the floors stay unset)
  }
  return activations_overflow(fit_pool);
}

}  // namespace paraplan::detail
