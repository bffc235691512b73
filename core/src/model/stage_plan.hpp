// How a strategy lays the model out on the cluster: data-parallel size, micro-batches and the
// pipeline stages, after checking that every size divides.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "paraplan/model.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::detail {

struct StagePlan {
  int pool = 0;  // GPU type (index into cluster.pools)
  int64_t first_layer = 0;
  int64_t layers = 0;
  int64_t moe_layers = 0;  // of which have a MoE MLP
};

struct Layout {
  int64_t num_gpus = 0;
  int64_t data_parallel = 0;
  int64_t micro_batches = 0;  // per data-parallel rank and iteration
  std::vector<StagePlan> stages;
};

// Megatron-LM's even split of `layers` over `stages` x `virtual_stages`, where it may count the
// embedding and the loss as one layer each so that the split comes out even
// (--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split): the first
// and last virtual stage then hold one transformer layer fewer. Empty when nothing divides.
std::vector<int64_t> standard_split(int64_t layers, int64_t stages, int64_t virtual_stages);

// The layout of `strategy`, or nothing with one reason per problem appended to `reasons`.
std::optional<Layout> plan_layout(const ModelSpec& model, const Training& training,
                                  const Cluster& cluster, const Strategy& strategy,
                                  std::vector<std::string>& reasons);

}  // namespace paraplan::detail
