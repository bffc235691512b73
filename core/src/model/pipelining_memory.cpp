#include "model/pipelining_memory.hpp"

#include <algorithm>

namespace paraplan::detail {

double torch_pipelining_bytes(int64_t rank, int64_t stages, int64_t virtual_stages,
                              int64_t micro_batches, double in_flight, double boundary_bytes,
                              double last_output_bytes) {
  if (stages <= 1) return 0;
  const int64_t chunks = stages * virtual_stages;
  double receiving = 0, gradient_buffers = 0, last = 0;
  for (int64_t k = 0; k < virtual_stages; ++k) {
    const int64_t chunk = rank + k * stages;
    receiving += chunk > 0;
    gradient_buffers += chunk + 1 < chunks;
    last += chunk + 1 == chunks;
  }
  const double m = static_cast<double>(micro_batches);
  const double input_buffers = std::max(0.0, m - in_flight) * receiving;
  // in_flight x v chunk-micro-batches in flight, gradient_buffers / v of them in chunks that
  // send their output on: each keeps that output in fwd_cache until its backward.
  const double kept_outputs = in_flight * gradient_buffers;
  return boundary_bytes * (input_buffers + m * gradient_buffers + kept_outputs) +
         m * last * last_output_bytes;
}

}  // namespace paraplan::detail
