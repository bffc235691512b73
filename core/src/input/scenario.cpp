#include "paraplan/scenario.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>

#include "input/json_reader.hpp"
#include "paraplan/errors.hpp"

namespace paraplan {
namespace {

using detail::ObjectReader;
using detail::read_choice;
using detail::read_integer;

constexpr int64_t kMaxGpus = int64_t{1} << 24;
constexpr int64_t kMaxBatch = int64_t{1} << 30;
constexpr int64_t kMaxSeqLength = int64_t{1} << 26;
constexpr int64_t kMaxParallel = int64_t{1} << 24;
constexpr size_t kMaxJsonBytes = size_t{8} << 20;
constexpr int kMaxJsonDepth = 32;

const std::vector<std::string_view> kPrecisionNames = {"fp32", "fp16", "bf16", "fp8"};
const std::vector<std::string_view> kGranularities = {"none", "selective", "full"};
const std::vector<std::string_view> kMethods = {"uniform", "block"};

Training parse_training(ObjectReader& object) {
  Training training;
  training.global_batch_size = object.integer("global_batch_size", 1, kMaxBatch);
  training.seq_length = object.integer("seq_length", 1, kMaxSeqLength);
  training.precision = static_cast<Precision>(object.optional_choice("precision", kPrecisionNames)
                                                  .value_or(static_cast<int>(Precision::bf16)));
  object.reject_unknown_keys();
  return training;
}

Cluster parse_cluster(ObjectReader& object) {
  Cluster cluster;
  const nlohmann::json& gpus = object.required("gpus");
  const std::string gpus_path = object.path_of("gpus");
  if (!gpus.is_array() || gpus.empty() || gpus.size() > 16) {
    throw InputError(gpus_path, "expected an array of 1 to 16 {\"type\", \"count\"} entries, got " +
                                    detail::describe(gpus));
  }
  int64_t total = 0;
  for (size_t i = 0; i < gpus.size(); ++i) {
    ObjectReader entry(gpus[i], gpus_path + "[" + std::to_string(i) + "]");
    GpuPool pool;
    pool.gpu = parse_gpu(entry.required("type"), entry.path_of("type"));
    pool.count = entry.integer("count", 1, kMaxGpus);
    entry.reject_unknown_keys();
    if (cluster.pool_index(pool.gpu.id) >= 0) {
      throw InputError(entry.path_of("type"), "GPU type \"" + pool.gpu.id + "\" is listed twice");
    }
    total += pool.count;
    cluster.pools.push_back(std::move(pool));
  }
  int64_t default_node = cluster.pools.front().gpu.nvlink_domain_gpus;
  for (const GpuPool& pool : cluster.pools) {
    default_node = std::min(default_node, pool.gpu.nvlink_domain_gpus);
  }
  cluster.gpus_per_node =
      object.optional_integer("gpus_per_node", 1, 1 << 20).value_or(default_node);
  cluster.num_gpus = object.optional_integer("num_gpus", 1, total).value_or(total);
  object.reject_unknown_keys();
  return cluster;
}

// A recompute key: one value for every GPU type, or an object {"a800": ..., "h800": ...}.
template <typename T, typename ReadOne>
std::vector<std::optional<T>> parse_per_gpu(ObjectReader& object, std::string_view key,
                                            const Cluster& cluster, ReadOne read_one) {
  std::vector<std::optional<T>> values(cluster.pools.size());
  const nlohmann::json* value = object.find(key);
  if (value == nullptr) return values;
  const std::string path = object.path_of(key);
  if (!value->is_object()) {
    const T one = read_one(*value, path);
    std::fill(values.begin(), values.end(), one);
    return values;
  }
  for (const auto& [gpu, item] : value->items()) {
    const int pool = cluster.pool_index(gpu);
    const std::string item_path = path + "." + detail::printable_key(gpu);
    if (pool < 0) throw InputError(item_path, "is not a GPU type of cluster.gpus");
    values[static_cast<size_t>(pool)] = read_one(item, item_path);
  }
  return values;
}

PartialStrategy parse_strategy(ObjectReader& object, const ModelSpec& model,
                               const Cluster& cluster) {
  PartialStrategy s;
  s.tensor_model_parallel_size =
      object.optional_integer("tensor_model_parallel_size", 1, kMaxParallel);
  s.pipeline_model_parallel_size =
      object.optional_integer("pipeline_model_parallel_size", 1, model.num_layers);
  s.virtual_pipeline_model_parallel_size =
      object.optional_integer("virtual_pipeline_model_parallel_size", 1, model.num_layers);
  s.context_parallel_size = object.optional_integer("context_parallel_size", 1, kMaxParallel);
  s.expert_model_parallel_size =
      object.optional_integer("expert_model_parallel_size", 1, kMaxParallel);
  s.micro_batch_size = object.optional_integer("micro_batch_size", 1, kMaxBatch);
  s.sequence_parallel = object.optional_boolean("sequence_parallel");
  s.recompute_granularity = parse_per_gpu<RecomputeGranularity>(
      object, "recompute_granularity", cluster, [](const nlohmann::json& v, const std::string& p) {
        return static_cast<RecomputeGranularity>(read_choice(v, p, kGranularities));
      });
  s.recompute_method = parse_per_gpu<RecomputeMethod>(
      object, "recompute_method", cluster, [](const nlohmann::json& v, const std::string& p) {
        return static_cast<RecomputeMethod>(read_choice(v, p, kMethods));
      });
  s.recompute_num_layers = parse_per_gpu<int64_t>(
      object, "recompute_num_layers", cluster, [&](const nlohmann::json& v, const std::string& p) {
        return read_integer(v, p, 1, model.num_layers);
      });
  if (const auto zero = object.optional_integer("zero_stage", 0, 3)) {
    s.zero_stage = static_cast<int>(*zero);
  }
  s.use_flash_attn = object.optional_boolean("use_flash_attn");
  s.overlap_grad_reduce = object.optional_boolean("overlap_grad_reduce");
  s.overlap_param_gather = object.optional_boolean("overlap_param_gather");
  s.tp_comm_overlap = object.optional_boolean("tp_comm_overlap");

  if (const nlohmann::json* stages = object.find("pipeline_stage_gpus")) {
    const std::string path = object.path_of("pipeline_stage_gpus");
    if (!stages->is_array() || stages->empty() ||
        stages->size() > static_cast<size_t>(model.num_layers)) {
      throw InputError(path, "expected an array of GPU types, one per pipeline stage, got " +
                                 detail::describe(*stages));
    }
    std::vector<int> pools;
    for (size_t i = 0; i < stages->size(); ++i) {
      const std::string item_path = path + "[" + std::to_string(i) + "]";
      const std::string id = detail::read_string((*stages)[i], item_path);
      const int pool = cluster.pool_index(id);
      if (pool < 0) throw InputError(item_path, "\"" + id + "\" is not a GPU type of cluster.gpus");
      pools.push_back(pool);
    }
    s.pipeline_stage_gpus = std::move(pools);
  }
  if (const nlohmann::json* layers = object.find("pipeline_stage_layers")) {
    const std::string path = object.path_of("pipeline_stage_layers");
    if (!layers->is_array() || layers->empty() ||
        layers->size() > static_cast<size_t>(model.num_layers)) {
      throw InputError(path, "expected an array of layer counts, one per pipeline stage, got " +
                                 detail::describe(*layers));
    }
    std::vector<int64_t> counts;
    for (size_t i = 0; i < layers->size(); ++i) {
      counts.push_back(
          read_integer((*layers)[i], path + "[" + std::to_string(i) + "]", 1, model.num_layers));
    }
    const int64_t sum = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    if (sum != model.num_layers) {
      throw InputError(path, "layers must sum to the model's num_layers (" +
                                 std::to_string(model.num_layers) + "), got " +
                                 std::to_string(sum));
    }
    s.pipeline_stage_layers = std::move(counts);
  }
  // The stage lists and the pipeline size must agree.
  const auto check_length = [&](const char* key, size_t length) {
    if (s.pipeline_model_parallel_size &&
        static_cast<int64_t>(length) != *s.pipeline_model_parallel_size) {
      throw InputError(object.path_of(key), "has " + std::to_string(length) +
                                                " entries but pipeline_model_parallel_size is " +
                                                std::to_string(*s.pipeline_model_parallel_size));
    }
    s.pipeline_model_parallel_size = static_cast<int64_t>(length);
  };
  if (s.pipeline_stage_gpus) check_length("pipeline_stage_gpus", s.pipeline_stage_gpus->size());
  if (s.pipeline_stage_layers)
    check_length("pipeline_stage_layers", s.pipeline_stage_layers->size());
  object.reject_unknown_keys();
  return s;
}

// Rejects oversized or deeply nested text before the recursive parts of JSON handling see it.
void check_json_shape(std::string_view text, const std::string& what) {
  if (text.size() > kMaxJsonBytes) {
    throw InputError(what, "is " + std::to_string(text.size()) + " bytes; at most " +
                               std::to_string(kMaxJsonBytes) + " are accepted");
  }
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        throw InputError(what, "nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

}  // namespace

int Cluster::pool_index(std::string_view id) const {
  auto same = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      auto norm = [](char c) {
        return c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      };
      if (norm(a[i]) != norm(b[i])) return false;
    }
    return true;
  };
  for (size_t i = 0; i < pools.size(); ++i) {
    if (same(pools[i].gpu.id, id)) return static_cast<int>(i);
  }
  return -1;
}

std::string_view to_string(RecomputeGranularity granularity) {
  return kGranularities[static_cast<size_t>(granularity)];
}

std::string_view to_string(RecomputeMethod method) { return kMethods[static_cast<size_t>(method)]; }

nlohmann::json parse_json_text(std::string_view text, const std::string& what) {
  check_json_shape(text, what);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    // nlohmann's messages start with an id: "[json.exception.parse_error.101] parse error at
    // line 1, ..." or "[json.exception.out_of_range.406] number overflow parsing '1e999'".
    std::string message = error.what();
    const size_t start = message.find("] ");
    throw InputError(what, "is not valid JSON: " +
                               (start == std::string::npos ? message : message.substr(start + 2)));
  }
}

Scenario parse_scenario(const nlohmann::json& document) {
  ObjectReader root(document, "");
  Scenario scenario;
  scenario.model = parse_model(root.required("model"), "model");
  ObjectReader training(root.required("training"), "training");
  scenario.training = parse_training(training);
  ObjectReader cluster(root.required("cluster"), "cluster");
  scenario.cluster = parse_cluster(cluster);
  if (const nlohmann::json* strategy = root.find("strategy")) {
    ObjectReader strategy_object(*strategy, "strategy");
    scenario.strategy = parse_strategy(strategy_object, scenario.model, scenario.cluster);
    scenario.has_strategy = true;
  } else {
    const size_t pools = scenario.cluster.pools.size();
    scenario.strategy.recompute_granularity.resize(pools);
    scenario.strategy.recompute_method.resize(pools);
    scenario.strategy.recompute_num_layers.resize(pools);
  }
  root.reject_unknown_keys();
  return scenario;
}

Strategy complete_strategy(const PartialStrategy& partial, const Cluster& cluster) {
  Strategy s;
  s.tensor_model_parallel_size = partial.tensor_model_parallel_size.value_or(1);
  s.pipeline_model_parallel_size = partial.pipeline_model_parallel_size.value_or(1);
  s.virtual_pipeline_model_parallel_size = partial.virtual_pipeline_model_parallel_size.value_or(1);
  s.context_parallel_size = partial.context_parallel_size.value_or(1);
  s.expert_model_parallel_size = partial.expert_model_parallel_size.value_or(1);
  s.micro_batch_size = partial.micro_batch_size.value_or(1);
  s.sequence_parallel = partial.sequence_parallel.value_or(false);
  s.recompute.resize(cluster.pools.size());
  for (size_t i = 0; i < cluster.pools.size(); ++i) {
    Recompute& r = s.recompute[i];
    if (i < partial.recompute_granularity.size() && partial.recompute_granularity[i]) {
      r.granularity = *partial.recompute_granularity[i];
    }
    if (i < partial.recompute_method.size() && partial.recompute_method[i]) {
      r.method = *partial.recompute_method[i];
    }
    if (i < partial.recompute_num_layers.size() && partial.recompute_num_layers[i]) {
      r.num_layers = *partial.recompute_num_layers[i];
    }
  }
  s.zero_stage = partial.zero_stage.value_or(0);
  s.use_flash_attn = partial.use_flash_attn.value_or(false);
  s.overlap_grad_reduce = partial.overlap_grad_reduce.value_or(false);
  s.overlap_param_gather = partial.overlap_param_gather.value_or(false);
  s.tp_comm_overlap = partial.tp_comm_overlap.value_or(false);
  if (partial.pipeline_stage_gpus) s.pipeline_stage_gpus = *partial.pipeline_stage_gpus;
  if (partial.pipeline_stage_layers) s.pipeline_stage_layers = *partial.pipeline_stage_layers;
  return s;
}

nlohmann::json to_json(const Strategy& s, const Cluster& cluster) {
  nlohmann::json out = {
      {"tensor_model_parallel_size", s.tensor_model_parallel_size},
      {"pipeline_model_parallel_size", s.pipeline_model_parallel_size},
      {"virtual_pipeline_model_parallel_size", s.virtual_pipeline_model_parallel_size},
      {"context_parallel_size", s.context_parallel_size},
      {"expert_model_parallel_size", s.expert_model_parallel_size},
      {"micro_batch_size", s.micro_batch_size},
      {"sequence_parallel", s.sequence_parallel},
  };
  // Recompute keys: one value when every GPU type agrees, else an object by GPU type.
  const bool uniform = std::all_of(s.recompute.begin(), s.recompute.end(),
                                   [&](const Recompute& r) { return r == s.recompute.front(); });
  const auto per_gpu = [&](auto field) {
    if (uniform) return nlohmann::json(field(s.recompute.front()));
    nlohmann::json by_gpu = nlohmann::json::object();
    for (size_t i = 0; i < s.recompute.size(); ++i) {
      by_gpu[cluster.pools[i].gpu.id] = field(s.recompute[i]);
    }
    return by_gpu;
  };
  out["recompute_granularity"] =
      per_gpu([](const Recompute& r) { return to_string(r.granularity); });
  out["recompute_method"] = per_gpu([](const Recompute& r) { return to_string(r.method); });
  out["recompute_num_layers"] = per_gpu([](const Recompute& r) { return r.num_layers; });
  out["zero_stage"] = s.zero_stage;
  out["use_flash_attn"] = s.use_flash_attn;
  out["overlap_grad_reduce"] = s.overlap_grad_reduce;
  out["overlap_param_gather"] = s.overlap_param_gather;
  out["tp_comm_overlap"] = s.tp_comm_overlap;
  if (!s.pipeline_stage_gpus.empty()) {
    nlohmann::json stages = nlohmann::json::array();
    for (const int pool : s.pipeline_stage_gpus) stages.push_back(cluster.pools[pool].gpu.id);
    out["pipeline_stage_gpus"] = stages;
  }
  if (!s.pipeline_stage_layers.empty()) out["pipeline_stage_layers"] = s.pipeline_stage_layers;
  return out;
}

}  // namespace paraplan
