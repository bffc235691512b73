// Scenario text -> parse -> estimate -> report JSON and schedule trace.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paraplan;
  Scenario scenario;
  if (!fuzz::parse(data, size, scenario)) return 0;
  if (scenario.cluster.pools.size() > 1 && !scenario.strategy.pipeline_stage_gpus) return 0;
  const Report report = estimate(scenario);
  fuzz::require_finite(to_json(report));
  const Strategy strategy = complete_strategy(scenario);
  const double passes = 2.0 * static_cast<double>(report.stages.size()) *
                        static_cast<double>(strategy.virtual_pipeline_model_parallel_size) *
                        static_cast<double>(report.num_micro_batches);
  if (report.feasible && passes <= 2000) {  // bigger traces are truncated copies of these
    fuzz::require_finite(schedule_trace(strategy, report));
  }
  return 0;
}
