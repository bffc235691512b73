#include "model/attention_memory.hpp"

#include <algorithm>

namespace paraplan::detail {

double ring_attention_transient_bytes(double cp, double q_bytes, double kv_bytes,
                                      double out_bytes) {
  if (cp <= 1) return 0;
  // Forward: cp - 1 received K+V chunks beyond the saved one, cp partial outputs.
  const double forward = (cp - 1) * kv_bytes + cp * out_bytes;
  // Backward: the dQ accumulator, four K+V-sized ring buffers (two [2, *kv.shape]); the step's
  // own dQ, dK, dV replace what a flash backward without context parallelism returns.
  const double backward = q_bytes + 4 * kv_bytes;
  return std::max(forward, backward);
}

}  // namespace paraplan::detail
