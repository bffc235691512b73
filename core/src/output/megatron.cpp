#include "paraplan/megatron.hpp"

#include <numeric>

#include "model/stage_plan.hpp"

namespace paraplan {
namespace {

// --pipeline-model-parallel-layout: E embedding, t a transformer layer, L the loss, | a stage.
std::string layout(const std::vector<int64_t>& stage_layers) {
  std::string text;
  for (size_t i = 0; i < stage_layers.size(); ++i) {
    if (i > 0) text += '|';
    if (i == 0) text += 'E';
    text.append(static_cast<size_t>(stage_layers[i]), 't');
    if (i + 1 == stage_layers.size()) text += 'L';
  }
  return text;
}

}  // namespace

std::vector<std::string> megatron_arguments(const Strategy& s, const ModelSpec& model,
                                            const Training& training, int pool) {
  std::vector<std::string> args;
  const auto flag = [&](const std::string& name) { args.push_back("--" + name); };
  const auto value = [&](const std::string& name, const std::string& v) {
    args.push_back("--" + name);
    args.push_back(v);
  };
  const auto number = [&](const std::string& name, int64_t v) { value(name, std::to_string(v)); };

  const int64_t p = s.pipeline_model_parallel_size;
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  number("tensor-model-parallel-size", s.tensor_model_parallel_size);
  number("pipeline-model-parallel-size", p);
  const std::vector<int64_t> even = detail::standard_split(model.num_layers, p, v);
  const bool standard = s.pipeline_stage_layers.empty() || s.pipeline_stage_layers == even;
  if (!standard) {
    value("pipeline-model-parallel-layout", "\"" + layout(s.pipeline_stage_layers) + "\"");
  } else if (model.num_layers % (p * v) != 0) {
    flag("account-for-embedding-in-pipeline-split");  // Megatron-LM decides from the sizes
    flag("account-for-loss-in-pipeline-split");
  }
  if (v > 1) {
    if (standard && model.num_layers % (p * v) == 0) {
      number("num-layers-per-virtual-pipeline-stage", model.num_layers / (p * v));
    } else {
      number("num-virtual-stages-per-pipeline-rank", v);
    }
  }
  if (s.context_parallel_size > 1) number("context-parallel-size", s.context_parallel_size);
  if (s.expert_model_parallel_size > 1) {
    number("expert-model-parallel-size", s.expert_model_parallel_size);
  }
  number("micro-batch-size", s.micro_batch_size);
  number("global-batch-size", training.global_batch_size);
  number("seq-length", training.seq_length);
  if (s.sequence_parallel && s.tensor_model_parallel_size > 1) flag("sequence-parallel");
  const Recompute& recompute = s.recompute.at(static_cast<size_t>(pool));
  if (recompute.granularity != RecomputeGranularity::none) {
    value("recompute-granularity", std::string(to_string(recompute.granularity)));
    if (recompute.granularity == RecomputeGranularity::full) {
      value("recompute-method", std::string(to_string(recompute.method)));
      number("recompute-num-layers", recompute.num_layers);
    }
  }
  switch (s.zero_stage) {
    case 1:
      flag("use-distributed-optimizer");
      break;
    case 2:
    case 3:  // Megatron-FSDP (its user guide's required flags)
      flag("use-megatron-fsdp");
      value("data-parallel-sharding-strategy",
            s.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
      flag("no-gradient-accumulation-fusion");
      flag("use-distributed-optimizer");
      break;
    default:
      break;
  }
  if (s.use_flash_attn) flag("use-flash-attn");
  if (s.overlap_grad_reduce) flag("overlap-grad-reduce");
  if (s.overlap_param_gather) flag("overlap-param-gather");
  if (s.tp_comm_overlap) flag("tp-comm-overlap");
  switch (training.precision) {
    case Precision::bf16:
      flag("bf16");
      break;
    case Precision::fp16:
      flag("fp16");
      break;
    case Precision::fp8:
      flag("bf16");
      value("fp8-format", "hybrid");
      break;
    case Precision::fp32:
      break;
  }
  return args;
}

std::string join_arguments(const std::vector<std::string>& arguments) {
  std::string text;
  for (const std::string& argument : arguments) text += (text.empty() ? "" : " ") + argument;
  return text;
}

}  // namespace paraplan
