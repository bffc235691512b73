// How a strategy lays the model out on the cluster: data-parallel size, micro-batches and the
// pipeline stages, after checking the rulebook and that the cluster has the GPUs it uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "paraplan/scenario.hpp"

namespace paraplan::detail {

struct StagePlan {
  int pool = 0;  // GPU type (index into cluster.pools)
  int64_t layers = 0;
};

struct Layout {
  int64_t num_gpus = 0;
  int64_t data_parallel = 0;
  int64_t micro_batches = 0;  // per data-parallel rank and iteration
  std::vector<StagePlan> stages;
  // No split was given and the layers do not divide evenly: the stages' layers are still to
  // balance (balanced_stage_layers, once the per-layer costs are known).
  bool balance_layers = false;
};

// The layout of `strategy`, or nothing with one reason per problem appended to `reasons`.
std::optional<Layout> plan_layout(const ModelSpec& model, const Training& training,
                                  const Cluster& cluster, Framework framework,
                                  const Strategy& strategy, std::vector<std::string>& reasons,
                                  std::vector<std::string>* ids = nullptr);

}  // namespace paraplan::detail
