// A training job on a cluster, with or without a parallel strategy (contract section 2).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"

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

enum class RecomputeGranularity { none, selective, full };
enum class RecomputeMethod { uniform, block };

std::string_view to_string(RecomputeGranularity granularity);
std::string_view to_string(RecomputeMethod method);

// Megatron-LM --recompute-granularity, --recompute-method, --recompute-num-layers.
struct Recompute {
  RecomputeGranularity granularity = RecomputeGranularity::none;
  RecomputeMethod method = RecomputeMethod::uniform;
  int64_t num_layers = 1;

  bool operator==(const Recompute&) const = default;
};

// A complete strategy. Field names are Megatron-LM's arguments; defaults are Megatron-LM's.
struct Strategy {
  int64_t tensor_model_parallel_size = 1;
  int64_t pipeline_model_parallel_size = 1;
  int64_t virtual_pipeline_model_parallel_size = 1;
  int64_t context_parallel_size = 1;
  int64_t expert_model_parallel_size = 1;
  int64_t micro_batch_size = 1;
  bool sequence_parallel = false;
  std::vector<Recompute> recompute;  // one per cluster pool (GPU type)
  int zero_stage = 0;                // 1 = --use-distributed-optimizer, 3 = fully sharded
  bool use_flash_attn = false;
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;
  std::vector<int> pipeline_stage_gpus;        // pool index per stage
  std::vector<int64_t> pipeline_stage_layers;  // layers per stage

  // GPUs per pipeline stage (tensor * context * data).
  int64_t gpus_per_stage(int64_t data_parallel_size) const {
    return tensor_model_parallel_size * context_parallel_size * data_parallel_size;
  }
};

// The strategy keys a scenario gives; for a search, the ones it pins.
struct PartialStrategy {
  std::optional<int64_t> tensor_model_parallel_size;
  std::optional<int64_t> pipeline_model_parallel_size;
  std::optional<int64_t> virtual_pipeline_model_parallel_size;
  std::optional<int64_t> context_parallel_size;
  std::optional<int64_t> expert_model_parallel_size;
  std::optional<int64_t> micro_batch_size;
  std::optional<bool> sequence_parallel;
  // Recompute per pool; a field left out is unset for every pool.
  std::vector<std::optional<RecomputeGranularity>> recompute_granularity;
  std::vector<std::optional<RecomputeMethod>> recompute_method;
  std::vector<std::optional<int64_t>> recompute_num_layers;
  std::optional<int> zero_stage;
  std::optional<bool> use_flash_attn;
  std::optional<bool> overlap_grad_reduce;
  std::optional<bool> overlap_param_gather;
  std::optional<bool> tp_comm_overlap;
  std::optional<std::vector<int>> pipeline_stage_gpus;
  std::optional<std::vector<int64_t>> pipeline_stage_layers;
};

struct Scenario {
  ModelSpec model;
  Training training;
  Cluster cluster;
  PartialStrategy strategy;
  bool has_strategy = false;
};

// Parses and validates a scenario document. Throws InputError naming the JSON path.
Scenario parse_scenario(const nlohmann::json& document);

// Parses JSON text with limits on size and nesting, then the scenario.
nlohmann::json parse_json_text(std::string_view text, const std::string& what);

// Fills the keys a partial strategy leaves out with Megatron-LM's defaults.
Strategy complete_strategy(const PartialStrategy& partial, const Cluster& cluster);

nlohmann::json to_json(const Strategy& strategy, const Cluster& cluster);

}  // namespace paraplan
