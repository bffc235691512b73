#include "paraplan/scenario.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "input/json_reader.hpp"
#include "model/framework_rules.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/presets.hpp"

namespace paraplan {
namespace {

using detail::ObjectReader;
using detail::read_choice;
using detail::read_integer;

Training parse_training(ObjectReader& object) {
  Training training;
  training.global_batch_size = object.integer("global_batch_size", 1, limits::kMaxGlobalBatchSize);
  training.seq_length = object.integer("seq_length", 1, limits::kMaxSeqLength);
  training.precision = static_cast<Precision>(object.optional_choice("precision", precision_names())
                                                  .value_or(static_cast<int>(Precision::bf16)));
  object.reject_unknown_keys();
  return training;
}

Cluster parse_cluster(ObjectReader& object) {
  Cluster cluster;
  const nlohmann::json& gpus = object.required("gpus");
  const std::string gpus_path = object.path_of("gpus");
  if (!gpus.is_array() || gpus.empty() || gpus.size() > static_cast<size_t>(limits::kMaxGpuTypes)) {
    const std::string max = std::to_string(limits::kMaxGpuTypes);
    throw detail::value_error(gpus_path, text_id::kErrorGpuEntries,
                              "expected an array of 1 to " + max + " {\"type\", \"count\"} entries",
                              {{"max", max}}, gpus);
  }
  int64_t total = 0;
  for (size_t i = 0; i < gpus.size(); ++i) {
    ObjectReader entry(gpus[i], gpus_path + "[" + std::to_string(i) + "]");
    GpuPool pool;
    pool.gpu = parse_gpu(entry.required("type"), entry.path_of("type"));
    pool.count = entry.integer("count", 1, limits::kMaxGpus);
    entry.reject_unknown_keys();
    if (cluster.pool_index(pool.gpu.id) >= 0) {
      throw detail::input_error(entry.path_of("type"), text_id::kErrorGpuListedTwice,
                                "GPU type \"" + pool.gpu.id + "\" is listed twice",
                                {{"gpu", pool.gpu.id}});
    }
    total += pool.count;
    cluster.pools.push_back(std::move(pool));
  }
  // GPUs per host (what launches; docs/contract.md section 2): by default the smallest host of
  // the cluster's GPU types. Where collectives run is decided by each type's NVLink domain.
  int64_t default_node = cluster.pools.front().gpu.gpus_per_host;
  for (const GpuPool& pool : cluster.pools) {
    default_node = std::min(default_node, pool.gpu.gpus_per_host);
  }
  cluster.gpus_per_node =
      object.optional_integer("gpus_per_node", 1, limits::kMaxGpusPerNode).value_or(default_node);
  cluster.num_gpus = object.optional_integer("num_gpus", 1, total).value_or(total);
  object.reject_unknown_keys();
  return cluster;
}

// One value of a scalar key, as the integer the key table stores.
int64_t read_key_value(const StrategyKey& key, const nlohmann::json& value, const std::string& path,
                       const ModelSpec& model) {
  switch (key.type) {
    case KeyType::boolean:
      return detail::read_boolean(value, path) ? 1 : 0;
    case KeyType::choice:
      return read_choice(value, path, key.choices);
    case KeyType::choice_set: {
      if (!value.is_array() || value.size() > key.choices.size()) {
        throw detail::value_error(path, text_id::kErrorChoiceArray,
                                  "expected an array of names from the choices", {}, value);
      }
      int64_t bits = 0;
      for (size_t i = 0; i < value.size(); ++i) {
        bits |=
            int64_t{1} << read_choice(value[i], path + "[" + std::to_string(i) + "]", key.choices);
      }
      return bits;
    }
    case KeyType::fraction: {
      const double scale = static_cast<double>(kFractionScale);
      return std::llround(detail::read_number(value, path, static_cast<double>(key.min) / scale,
                                              static_cast<double>(key.max) / scale) *
                          scale);
    }
    default:
      return read_integer(value, path, key.min, key.max_is_num_layers ? model.num_layers : key.max);
  }
}

// A per-GPU key: one value for every GPU type, or an object {"a800": ..., "h800": ...}.
void read_per_gpu(const StrategyKey& key, const nlohmann::json& value, const std::string& path,
                  const ModelSpec& model, const Cluster& cluster, StrategyPins& pins) {
  if (!value.is_object()) {
    const int64_t one = read_key_value(key, value, path, model);
    for (size_t pool = 0; pool < cluster.pools.size(); ++pool) pins.set(key.id, pool, one);
    return;
  }
  for (const auto& [gpu, item] : value.items()) {
    const int pool = cluster.pool_index(gpu);
    const std::string item_path = path + "." + detail::printable_key(gpu);
    if (pool < 0) {
      throw detail::input_error(item_path, text_id::kErrorNotClusterGpu,
                                "is not a GPU type of cluster.gpus");
    }
    pins.set(key.id, static_cast<size_t>(pool), read_key_value(key, item, item_path, model));
  }
}

// A list with one entry per pipeline stage.
template <typename T, typename ReadItem>
std::vector<T> read_stage_list(const nlohmann::json& value, const std::string& path,
                               const ModelSpec& model, const char* what, ReadItem read_item) {
  if (!value.is_array() || value.empty() || value.size() > static_cast<size_t>(model.num_layers)) {
    throw detail::value_error(
        path, text_id::kErrorStageList,
        std::string("expected an array of ") + what + ", one per pipeline stage", {{"items", what}},
        value);
  }
  std::vector<T> items;
  for (size_t i = 0; i < value.size(); ++i) {
    items.push_back(read_item(value[i], path + "[" + std::to_string(i) + "]"));
  }
  return items;
}

StrategyPins parse_strategy(ObjectReader& object, const ModelSpec& model, const Cluster& cluster) {
  StrategyPins pins(cluster.pools.size());
  for (const StrategyKey& key : strategy_keys()) {
    const nlohmann::json* value = object.find(key.name);
    if (value == nullptr) continue;
    const std::string path = object.path_of(key.name);
    if (key.type == KeyType::gpu_list) {
      pins.pipeline_stage_gpus = read_stage_list<int>(
          *value, path, model, "GPU types", [&](const nlohmann::json& item, const std::string& p) {
            const std::string id = detail::read_string(item, p);
            const int pool = cluster.pool_index(id);
            if (pool < 0) {
              throw detail::input_error(p, text_id::kErrorNotClusterGpu,
                                        "\"" + id + "\" is not a GPU type of cluster.gpus",
                                        {{"gpu", id}});
            }
            return pool;
          });
    } else if (key.type == KeyType::integer_list) {
      pins.pipeline_stage_layers =
          read_stage_list<int64_t>(*value, path, model, "layer counts",
                                   [&](const nlohmann::json& item, const std::string& p) {
                                     return read_integer(item, p, key.min, model.num_layers);
                                   });
      const int64_t sum = std::accumulate(pins.pipeline_stage_layers->begin(),
                                          pins.pipeline_stage_layers->end(), int64_t{0});
      if (sum != model.num_layers) {
        const std::string layers = std::to_string(model.num_layers), got = std::to_string(sum);
        throw detail::input_error(
            path, text_id::kErrorStageLayersSum,
            "layers must sum to the model's num_layers (" + layers + "), got " + got,
            {{"num_layers", layers}, {"sum", got}});
      }
    } else if (key.per_gpu) {
      read_per_gpu(key, *value, path, model, cluster, pins);
    } else {
      pins.set(key.id, 0, read_key_value(key, *value, path, model));
    }
  }
  // The stage lists and the pipeline size must agree.
  const auto check_length = [&](std::string_view key, size_t length) {
    const std::optional<int64_t> stages = pins.get(StrategyKeyId::pipeline_model_parallel_size);
    if (stages && static_cast<int64_t>(length) != *stages) {
      const std::string entries = std::to_string(length), pipeline = std::to_string(*stages);
      throw detail::input_error(
          object.path_of(key), text_id::kErrorStageListLength,
          "has " + entries + " entries but pipeline_model_parallel_size is " + pipeline,
          {{"length", entries}, {"stages", pipeline}});
    }
    pins.set(StrategyKeyId::pipeline_model_parallel_size, 0, static_cast<int64_t>(length));
  };
  if (pins.pipeline_stage_gpus)
    check_length("pipeline_stage_gpus", pins.pipeline_stage_gpus->size());
  if (pins.pipeline_stage_layers) {
    check_length("pipeline_stage_layers", pins.pipeline_stage_layers->size());
  }
  object.reject_unknown_keys();
  return pins;
}

// The Megatron-Core release that ran the job ("framework_version"), for a framework that runs
// on Megatron-Core.
std::optional<int> parse_framework_version(ObjectReader& root, Framework framework) {
  const std::optional<int> version =
      root.optional_choice("framework_version", framework_version_names());
  if (version && !runs_on_megatron_core(framework)) {
    const std::string name(to_string(framework));
    throw detail::input_error(
        root.path_of("framework_version"), text_id::kErrorReleaseWithoutCore,
        "names a Megatron-Core release, but framework " + name + " does not run on Megatron-Core",
        {{"framework", name}});
  }
  return version;
}

}  // namespace

int Cluster::pool_index(std::string_view id) const {
  const std::string name = normalize_name(id);
  for (size_t i = 0; i < pools.size(); ++i) {
    if (normalize_name(pools[i].gpu.id) == name) return static_cast<int>(i);
  }
  return -1;
}

Scenario parse_scenario(const nlohmann::json& document) {
  ObjectReader root(document, "");
  Scenario scenario;
  scenario.model = parse_model(root.required("model"), "model");
  ObjectReader training(root.required("training"), "training");
  scenario.training = parse_training(training);
  ObjectReader cluster(root.required("cluster"), "cluster");
  scenario.cluster = parse_cluster(cluster);
  scenario.strategy = StrategyPins(scenario.cluster.pools.size());
  if (const nlohmann::json* strategy = root.find("strategy")) {
    ObjectReader strategy_object(*strategy, "strategy");
    scenario.strategy = parse_strategy(strategy_object, scenario.model, scenario.cluster);
  }
  scenario.framework =
      static_cast<Framework>(root.optional_choice("framework", framework_names()).value_or(0));
  scenario.framework_version = parse_framework_version(root, scenario.framework);
  if (scenario.framework_version) {
    for (GpuPool& pool : scenario.cluster.pools) {
      pool.gpu.host_issue = host_issue_at(pool.gpu, *scenario.framework_version);
    }
  }
  root.reject_unknown_keys();
  return scenario;
}

Strategy complete_strategy(const Scenario& scenario) {
  const StrategyPins& pins = scenario.strategy;
  Strategy strategy;
  strategy.recompute.resize(scenario.cluster.pools.size());
  apply_pins(pins, strategy);
  // The allocator mode the framework's own launcher sets, unless given (framework.cpp).
  if (!pins.given(StrategyKeyId::expandable_segments)) {
    strategy.expandable_segments = expandable_segments_by_default(scenario.framework);
  }
  const bool fp8 = scenario.training.precision == Precision::fp8;
  if (!fp8 && !scenario.model.moe) return strategy;
  // Switches left out that are on where runs are launched with them, unless the rulebook or the
  // launch target rules them out.
  int64_t num_gpus = 0;
  for (const GpuPool& pool : scenario.cluster.pools) num_gpus += pool.count;
  const detail::RuleContext context{scenario.model, scenario.training, scenario.cluster, num_gpus,
                                    scenario.framework};
  const std::vector<const detail::FrameworkRule*> rules =
      detail::framework_rules(scenario.framework);
  const auto default_on = [&](StrategyKeyId key) {
    if (!pins.given(key)) strategy_key(key).set(strategy, 0, 1);
    detail::fit_default_switch(rules, context, pins, key, strategy);
  };
  // fp8 training gathers fp8 parameters: Megatron-LM's examples/llama/
  // train_llama3_8b_h100_fp8.sh passes --fp8-param-gather, and Megatron-Bridge's and NeMo's fp8
  // mixed-precision recipes set fp8_param_gather = True (bf16_with_fp8_delayed_scaling_mixed).
  if (fp8) default_on(StrategyKeyId::fp8_param_gather);
  if (!scenario.model.moe) return strategy;
  // MoE keys: the dispatcher is alltoall where tokens cross expert parallelism (Megatron-LM's
  // help: "We recommend using 'alltoall' when applying expert parallelism"; Megatron-Bridge's and
  // NeMo's MoE recipes set it; DeepSpeed and torchtitan have no other), allgather otherwise.
  if (!pins.given(StrategyKeyId::moe_token_dispatcher_type) &&
      strategy.expert_model_parallel_size > 1) {
    strategy.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  }
  // Grouped GEMM and fused permutation: Megatron-Core's MoE guide recommends both; the MoE model
  // providers of Megatron-Bridge and NeMo set moe_grouped_gemm and moe_permute_fusion.
  default_on(StrategyKeyId::moe_grouped_gemm);
  default_on(StrategyKeyId::moe_permute_fusion);
  // Expert tensor parallelism: Megatron-LM's None (equal to tensor parallelism) where that
  // launches, else 1 (MoE parallel folding). Megatron-Core's MoE guide: "Prefer EP over TP for
  // the expert layer", "setting TP=1 for MoE models, which often gets better MFU"; every
  // Megatron-Bridge MoE recipe sets expert_tensor_parallel_size=1.
  constexpr std::array<int64_t, 2> kExpertTensorParallel{0, 1};
  detail::fit_default_value(rules, context, pins, StrategyKeyId::expert_tensor_parallel_size,
                            kExpertTensorParallel, strategy);
  return strategy;
}

nlohmann::json to_json(const Strategy& s, const Cluster& cluster) {
  // Per-GPU keys: one value each when every GPU type agrees on all of them, else objects by
  // GPU type.
  bool uniform = true;
  for (const StrategyKey& key : strategy_keys()) {
    for (size_t pool = 1; key.per_gpu && pool < s.recompute.size(); ++pool) {
      uniform &= key.get(s, pool) == key.get(s, 0);
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const StrategyKey& key : strategy_keys()) {
    const auto value = [&](size_t pool) -> nlohmann::json {
      const int64_t v = key.get(s, pool);
      switch (key.type) {
        case KeyType::boolean:
          return v != 0;
        case KeyType::choice:
          return key.choices[static_cast<size_t>(v)];
        case KeyType::choice_set:
          return choice_set_names(key, v);
        case KeyType::fraction:
          return static_cast<double>(v) / static_cast<double>(kFractionScale);
        default:
          return v;
      }
    };
    if (key.type == KeyType::gpu_list) {
      if (s.pipeline_stage_gpus.empty()) continue;
      nlohmann::json stages = nlohmann::json::array();
      for (const int pool : s.pipeline_stage_gpus) {
        stages.push_back(cluster.pools[static_cast<size_t>(pool)].gpu.id);
      }
      out[key.name] = stages;
    } else if (key.type == KeyType::integer_list) {
      if (!s.pipeline_stage_layers.empty()) out[key.name] = s.pipeline_stage_layers;
    } else if (!key.per_gpu || uniform) {
      out[key.name] = value(0);
    } else {
      nlohmann::json by_gpu = nlohmann::json::object();
      for (size_t pool = 0; pool < s.recompute.size(); ++pool) {
        by_gpu[cluster.pools[pool].gpu.id] = value(pool);
      }
      out[key.name] = by_gpu;
    }
  }
  return out;
}

}  // namespace paraplan
