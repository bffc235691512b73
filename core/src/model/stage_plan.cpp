#include "model/stage_plan.hpp"

#include <algorithm>
#include <numeric>

namespace paraplan::detail {
namespace {

std::string str(int64_t value) { return std::to_string(value); }

void check_divides(std::vector<std::string>& reasons, int64_t divisor, int64_t value,
                   const std::string& divisor_name, const std::string& value_name) {
  if (divisor > 0 && value % divisor != 0) {
    reasons.push_back(divisor_name + " (" + str(divisor) + ") does not divide " + value_name +
                      " (" + str(value) + ")");
  }
}

void check_intra_layer(const ModelSpec& model, const Training& training, const Strategy& s,
                       std::vector<std::string>& reasons) {
  const int64_t t = s.tensor_model_parallel_size;
  const int64_t cp = s.context_parallel_size;
  const int64_t ep = s.expert_model_parallel_size;
  check_divides(reasons, t, model.num_attention_heads, "tensor_model_parallel_size",
                "num_attention_heads");
  check_divides(reasons, t, model.num_query_groups, "tensor_model_parallel_size",
                "num_query_groups");
  check_divides(reasons, t, model.ffn_hidden_size, "tensor_model_parallel_size", "ffn_hidden_size");
  if (model.moe) {
    check_divides(reasons, t, model.moe->moe_ffn_hidden_size, "tensor_model_parallel_size",
                  "moe_ffn_hidden_size");
    check_divides(reasons, ep, model.moe->num_experts, "expert_model_parallel_size", "num_experts");
    if (t > 1 && !s.sequence_parallel) {
      reasons.push_back("a MoE model with tensor_model_parallel_size " + str(t) +
                        " needs sequence_parallel (Megatron-LM requires it)");
    }
  } else if (ep > 1) {
    reasons.push_back("expert_model_parallel_size " + str(ep) +
                      " needs a MoE model; this model has no experts");
  }
  if (s.sequence_parallel && t > 1) {
    check_divides(reasons, t, training.seq_length, "tensor_model_parallel_size (sequence parallel)",
                  "seq_length");
  }
  if (s.tp_comm_overlap && !(s.sequence_parallel && t > 1)) {
    reasons.push_back("tp_comm_overlap needs sequence_parallel and tensor_model_parallel_size > 1");
  }
  if (cp > 1) {
    if (!s.use_flash_attn) {
      reasons.push_back("context_parallel_size " + str(cp) + " needs use_flash_attn");
    }
    check_divides(reasons, 2 * cp, training.seq_length, "2 x context_parallel_size", "seq_length");
  }
  if (s.use_flash_attn && training.precision == Precision::fp32) {
    reasons.push_back("use_flash_attn needs fp16, bf16 or fp8 training, not fp32");
  }
  if (s.zero_stage >= 2 && s.pipeline_model_parallel_size > 1) {
    reasons.push_back("zero_stage " + str(s.zero_stage) +
                      " shards with Megatron-FSDP, which needs pipeline_model_parallel_size 1 "
                      "(got " +
                      str(s.pipeline_model_parallel_size) + ")");
  }
  if (s.overlap_param_gather && s.zero_stage < 1) {
    reasons.push_back("overlap_param_gather needs zero_stage >= 1 (the distributed optimizer)");
  }
}

// Layers per stage: as given (each a multiple of the virtual stages, unless it is the standard
// split with the embedding and loss counted as layers), or the standard split.
std::vector<int64_t> stage_layers(const ModelSpec& model, const Strategy& s,
                                  std::vector<std::string>& reasons) {
  const int64_t p = s.pipeline_model_parallel_size;
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  if (v > 1 && p == 1) {
    reasons.push_back("virtual_pipeline_model_parallel_size " + str(v) +
                      " needs pipeline_model_parallel_size > 1");
    return {};
  }
  const std::vector<int64_t> standard = standard_split(model.num_layers, p, v);
  if (!s.pipeline_stage_layers.empty()) {
    if (s.pipeline_stage_layers == standard) return standard;
    for (size_t i = 0; i < s.pipeline_stage_layers.size(); ++i) {
      if (s.pipeline_stage_layers[i] % v != 0) {
        reasons.push_back("virtual_pipeline_model_parallel_size (" + str(v) +
                          ") does not divide the " + str(s.pipeline_stage_layers[i]) +
                          " layers of stage " + str(static_cast<int64_t>(i)));
        return {};
      }
    }
    return s.pipeline_stage_layers;
  }
  if (standard.empty()) {
    reasons.push_back("pipeline x virtual pipeline (" + str(p * v) +
                      ") does not divide num_layers (" + str(model.num_layers) +
                      "), nor num_layers + 1 or + 2 with the loss and embedding counted "
                      "as layers; give pipeline_stage_layers for an uneven split");
  }
  return standard;
}

}  // namespace

std::vector<int64_t> standard_split(int64_t layers, int64_t stages, int64_t virtual_stages) {
  const int64_t chunks = stages * virtual_stages;
  for (const int64_t accounted : {0, 1, 2}) {
    if ((layers + accounted) % chunks != 0) continue;
    const int64_t per_stage = (layers + accounted) / chunks * virtual_stages;
    std::vector<int64_t> split(static_cast<size_t>(stages), per_stage);
    if (accounted >= 1) split.back() -= 1;   // the loss takes the last virtual stage's place
    if (accounted == 2) split.front() -= 1;  // the embedding the first's
    if (std::all_of(split.begin(), split.end(), [](int64_t l) { return l >= 1; })) return split;
    return {};
  }
  return {};
}

std::optional<Layout> plan_layout(const ModelSpec& model, const Training& training,
                                  const Cluster& cluster, const Strategy& s,
                                  std::vector<std::string>& reasons) {
  const size_t reasons_before = reasons.size();
  check_intra_layer(model, training, s, reasons);
  const std::vector<int64_t> layers = stage_layers(model, s, reasons);

  const int64_t p = s.pipeline_model_parallel_size;
  std::vector<int> stage_pools = s.pipeline_stage_gpus;
  if (stage_pools.empty()) stage_pools.assign(static_cast<size_t>(p), 0);

  for (size_t pool = 0; pool < cluster.pools.size(); ++pool) {
    const GpuSpec& gpu = cluster.pools[pool].gpu;
    const bool used =
        std::count(stage_pools.begin(), stage_pools.end(), static_cast<int>(pool)) > 0;
    if (used && gpu.tensor_flops(training.precision) <= 0) {
      reasons.push_back(gpu.id + " has no " + std::string(to_string(training.precision)) +
                        " tensor cores");
    }
  }

  Layout layout;
  for (const GpuPool& pool : cluster.pools) layout.num_gpus += pool.count;
  const int64_t model_parallel = s.tensor_model_parallel_size * s.context_parallel_size * p;
  if (layout.num_gpus % model_parallel != 0) {
    reasons.push_back("tensor x context x pipeline parallel (" + str(model_parallel) +
                      ") does not divide the " + str(layout.num_gpus) + " GPUs");
  } else {
    layout.data_parallel = layout.num_gpus / model_parallel;
    const int64_t stage_gpus = s.gpus_per_stage(layout.data_parallel);
    for (size_t pool = 0; pool < cluster.pools.size(); ++pool) {
      const int64_t stages =
          std::count(stage_pools.begin(), stage_pools.end(), static_cast<int>(pool));
      if (stages * stage_gpus != cluster.pools[pool].count) {
        reasons.push_back(str(stages) + " pipeline stages of " + str(stage_gpus) + " GPUs on " +
                          cluster.pools[pool].gpu.id + " use " + str(stages * stage_gpus) +
                          " GPUs, but the cluster gives " + str(cluster.pools[pool].count));
      }
    }
    check_divides(reasons, s.expert_model_parallel_size,
                  layout.data_parallel * s.context_parallel_size, "expert_model_parallel_size",
                  "data x context parallel");
    const int64_t batch_per_step = layout.data_parallel * s.micro_batch_size;
    if (training.global_batch_size % batch_per_step != 0) {
      reasons.push_back("data parallel (" + str(layout.data_parallel) + ") x micro_batch_size (" +
                        str(s.micro_batch_size) + ") does not divide global_batch_size (" +
                        str(training.global_batch_size) + ")");
    } else {
      layout.micro_batches = training.global_batch_size / batch_per_step;
    }
  }
  if (reasons.size() != reasons_before) return std::nullopt;

  int64_t first = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    StagePlan stage;
    stage.pool = stage_pools[i];
    stage.first_layer = first;
    stage.layers = layers[i];
    const int64_t dense_end = model.moe ? model.moe->first_k_dense_layers : model.num_layers;
    stage.moe_layers = stage.layers - std::clamp<int64_t>(dense_end - first, 0, stage.layers);
    first += stage.layers;
    layout.stages.push_back(stage);
  }
  return layout;
}

}  // namespace paraplan::detail
