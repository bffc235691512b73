#include "paraplan/megatron.hpp"

#include <numeric>
#include <string_view>

#include "model/rules.hpp"

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
  const auto flag = [&](std::string_view name) { args.emplace_back(name); };
  const auto value = [&](std::string_view name, const std::string& v) {
    args.emplace_back(name);
    args.push_back(v);
  };
  const auto number = [&](std::string_view name, int64_t v) { value(name, std::to_string(v)); };

  const int64_t p = s.pipeline_model_parallel_size;
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  const std::vector<int64_t> even = detail::standard_split(model.num_layers, p, v);
  const bool standard = s.pipeline_stage_layers.empty() || s.pipeline_stage_layers == even;
  const Recompute& recompute = s.recompute.at(static_cast<size_t>(pool));
  // The keys in the table's order; composite ones by their own rule.
  for (const StrategyKey& key : strategy_keys()) {
    const int64_t key_value =
        key.scalar() ? key.get(s, key.per_gpu ? static_cast<size_t>(pool) : 0) : 0;
    switch (key.megatron) {
      case MegatronFlag::value:
        number(key.megatron_flag, key_value);
        continue;
      case MegatronFlag::value_unless_default:
        if (key_value != key.default_value()) number(key.megatron_flag, key_value);
        continue;
      case MegatronFlag::switch_on:
        if (key_value != 0) flag(key.megatron_flag);
        continue;
      case MegatronFlag::composite:
        break;
    }
    switch (key.id) {
      case StrategyKeyId::virtual_pipeline_model_parallel_size:
        if (v > 1) {
          if (standard && model.num_layers % (p * v) == 0) {
            number("--num-layers-per-virtual-pipeline-stage", model.num_layers / (p * v));
          } else {
            number("--num-virtual-stages-per-pipeline-rank", v);
          }
        }
        break;
      case StrategyKeyId::pipeline_stage_layers:
        if (!standard) {
          value("--pipeline-model-parallel-layout", "\"" + layout(s.pipeline_stage_layers) + "\"");
        } else if (model.num_layers % (p * v) != 0) {
          flag("--account-for-embedding-in-pipeline-split");  // Megatron-LM decides from the sizes
          flag("--account-for-loss-in-pipeline-split");
        }
        break;
      case StrategyKeyId::sequence_parallel:
        if (s.sequence_parallel && s.tensor_model_parallel_size > 1) flag(key.megatron_flag);
        break;
      case StrategyKeyId::recompute_granularity:
        if (recompute.granularity != RecomputeGranularity::none) {
          value(key.megatron_flag, std::string(to_string(recompute.granularity)));
        }
        break;
      case StrategyKeyId::recompute_method:
      case StrategyKeyId::recompute_num_layers:
        if (recompute.granularity == RecomputeGranularity::full) {
          const bool method = key.id == StrategyKeyId::recompute_method;
          value(key.megatron_flag, method ? std::string(to_string(recompute.method))
                                          : std::to_string(recompute.num_layers));
        }
        break;
      case StrategyKeyId::zero_stage:
        if (s.zero_stage == 1) flag("--use-distributed-optimizer");
        if (s.zero_stage >= 2) {  // Megatron-FSDP (its user guide's required flags)
          flag("--use-megatron-fsdp");
          value("--data-parallel-sharding-strategy",
                s.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
          flag("--no-gradient-accumulation-fusion");
          flag("--use-distributed-optimizer");
        }
        break;
      case StrategyKeyId::fp8_recipe:
        if (training.precision == Precision::fp8) {
          value(key.megatron_flag, std::string(to_string(s.fp8_recipe)));
        }
        break;
      case StrategyKeyId::moe_token_dispatcher_type:
        if (s.moe_token_dispatcher_type != MoeDispatcher::allgather) {
          value(key.megatron_flag, std::string(to_string(s.moe_token_dispatcher_type)));
        }
        break;
      case StrategyKeyId::fp8_param_gather:
        if (training.precision == Precision::fp8 && s.fp8_param_gather) flag(key.megatron_flag);
        break;
      default:  // pipeline_stage_gpus: the GPUs a process runs on, not a flag
        break;
    }
  }
  number("--global-batch-size", training.global_batch_size);
  number("--seq-length", training.seq_length);
  switch (training.precision) {
    case Precision::bf16:
      flag("--bf16");
      break;
    case Precision::fp16:
      flag("--fp16");
      break;
    case Precision::fp8:
      flag("--bf16");
      value("--fp8-format", "hybrid");
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
