#include "model/moe_memory.hpp"

#include <algorithm>

namespace paraplan::detail {

double moe_transient_bytes(const MoeDispatch& d, double hidden, double local_tokens, double experts,
                           double element_bytes) {
  // The larger of the two all-to-alls: the dispatch's permuted rows and the rows received for
  // the local experts; the combine's sorted expert output and the rows it receives back.
  const double dispatch_rows = d.permuted_rows + d.expert_rows;
  const double combine_rows = d.unpermute_in_rows + d.expert_rows;
  const double router_logits = element_bytes * local_tokens * experts;
  return element_bytes * hidden * std::max(dispatch_rows, combine_rows) + router_logits;
}

}  // namespace paraplan::detail
