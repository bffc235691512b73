// Estimating one training iteration for a strategy: the analytical performance model.
#pragma once

#include <memory>

#include "paraplan/limits.hpp"
#include "paraplan/report.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan {

// Estimates strategies for one model, training job and cluster. Per-layer costs depend only on
// the GPU type and the layer shape (the strategy keys marked layer_cost), so they are computed
// once per shape and reused.
class Estimator {
 public:
  // `framework`: whose mechanisms price what differs from Megatron-LM (docs/model.md,
  // "Frameworks").
  Estimator(ModelSpec model, Training training, Cluster cluster,
            Framework framework = Framework::megatron);
  ~Estimator();
  Estimator(Estimator&&) noexcept;
  Estimator& operator=(Estimator&&) noexcept;

  // The report for `strategy`; infeasible strategies come back with reasons, not exceptions.
  Report estimate(const Strategy& strategy);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Estimates the scenario's strategy (Megatron-LM defaults for the keys it leaves out).
Report estimate(const Scenario& scenario);

// The class of launches whose default memory margin a strategy launched by `framework` takes
// (limits::MarginClass): its allocator mode, CUDA graphs and point-to-point context parallelism
// (torchtitan's ring runs on collectives, not point-to-point sends).
limits::MarginClass margin_class_of(const Strategy& strategy, Framework framework);

}  // namespace paraplan
