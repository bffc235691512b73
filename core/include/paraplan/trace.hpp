// The simulated iteration of a strategy as a Chrome trace (opens in Perfetto and
// chrome://tracing): one track per pipeline stage with each micro-batch's forward, backward
// and recompute, point-to-point transfers, the bubble, data-parallel sync and the optimizer.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "paraplan/report.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan {

// Simulates Megatron-LM's 1F1B (or interleaved 1F1B) schedule from the stage times of
// `report`, which must be a feasible or at least evaluated estimate of `strategy`.
nlohmann::json schedule_trace(const Strategy& strategy, const Report& report);

}  // namespace paraplan
