// A training job on a cluster, with or without a parallel strategy (docs/contract.md section 2).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paraplan/framework.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan {

struct Training {
  int64_t global_batch_size = 0;
  int64_t seq_length = 0;
  Precision precision = Precision::bf16;
};

struct GpuPool {
  GpuSpec gpu;
  int64_t count = 0;  // GPUs used (estimate) or available at most (search)
};

struct Cluster {
  int64_t gpus_per_node = 0;
  std::vector<GpuPool> pools;  // one per GPU type
  int64_t num_gpus = 0;        // GPUs to use in all (search); sum of counts by default

  // Index of the pool whose GPU id is `id`, or -1.
  int pool_index(std::string_view id) const;
};

struct Scenario {
  ModelSpec model;
  Training training;
  Cluster cluster;
  StrategyPins strategy;                      // the strategy keys the scenario gives
  Framework framework = Framework::megatron;  // what launches it ("framework", optional)
  // The Megatron-Core release that ran it ("framework_version", optional): an index into
  // framework_version_names(); it prices each GPU's host issue costs (GpuSpec::host_issue).
  std::optional<int> framework_version;
};

// Parses and validates a scenario document. Throws InputError naming the JSON path.
Scenario parse_scenario(const nlohmann::json& document);

// The strategy the scenario's pins give, with the documented defaults (docs/model.md §5) for the
// keys they leave out.
Strategy complete_strategy(const Scenario& scenario);

nlohmann::json to_json(const Strategy& strategy, const Cluster& cluster);

}  // namespace paraplan
