// The launch of a strategy on each framework: the framework's writer, or the fields it cannot
// express (model/framework_rules.cpp).
#include "paraplan/launch.hpp"

#include <nlohmann/json.hpp>

#include "model/device_connections.hpp"
#include "model/framework_rules.hpp"
#include "output/launch/writers.hpp"

namespace paraplan {
namespace detail {

std::string device_connections_export(const Strategy& strategy) {
  if (!needs_many_device_connections(strategy)) return "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  return "export CUDA_DEVICE_MAX_CONNECTIONS=32  # overlap_moe_expert_parallel_comm needs more "
         "than 1\n";
}

std::string allocator_environment(const Strategy& strategy, Framework framework) {
  // The caching allocator's settings the strategy names, as PYTORCH_CUDA_ALLOC_CONF's
  // comma-separated key:value options (PyTorch's CUDAAllocatorConfig reads each); MindSpeed-LLM
  // refuses graph_capture_record_stream_reuse (framework_rules_megatron.cpp).
  std::string options, keys;
  const auto add = [&](bool on, const char* key) {
    if (!on) return;
    if (!options.empty()) {
      options += ',';
      keys += ", ";
    }
    options.append(key).append(":True");
    keys.append(key);
  };
  add(strategy.expandable_segments, "expandable_segments");
  add(strategy.graph_capture_record_stream_reuse, "graph_capture_record_stream_reuse");
  if (options.empty()) return "";
  const char* variable =
      framework == Framework::mindspeed_llm ? "PYTORCH_NPU_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
  std::string text = std::string("export ") + variable + "=" + options + "  # " + keys + "\n";
  // Megatron-LM refuses CUDA graphs with expandable segments unless NCCL's graph registration is
  // off ("to avoid illegal memory access": transformer/cuda_graphs.py TECudaGraphHelper asserts
  // NCCL_GRAPH_REGISTER=0; Megatron-Bridge's graph recipes set it).
  if (strategy.expandable_segments && strategy.cuda_graph_impl != CudaGraphImpl::none) {
    text += "export NCCL_GRAPH_REGISTER=0\n";
  }
  return text;
}

}  // namespace detail

Launch make_launch(Framework framework, const Strategy& strategy, const Scenario& scenario,
                   int64_t data_parallel_size) {
  const int64_t num_gpus = strategy.pipeline_model_parallel_size *
                           strategy.gpus_per_stage(std::max<int64_t>(1, data_parallel_size));
  const detail::RuleContext context{scenario.model, scenario.training, scenario.cluster, num_gpus,
                                    framework};
  Launch launch;
  launch.unsupported_texts = detail::unsupported(context, scenario.framework, strategy);
  for (const CoreText& text : launch.unsupported_texts) launch.unsupported.push_back(text.text);
  if (!launch.unsupported.empty()) return launch;
  const detail::LaunchInput in{strategy, scenario, data_parallel_size,
                               detail::num_micro_batches(context, strategy),
                               detail::plan_hosts(strategy, scenario, data_parallel_size)};
  switch (framework) {
    case Framework::megatron:
      return detail::megatron_launch(in);
    case Framework::megatron_bridge:
      return detail::bridge_launch(in);
    case Framework::mindspeed_llm:
      return detail::mindspeed_launch(in);
    case Framework::deepspeed:
      return detail::deepspeed_launch(in);
    case Framework::colossalai:
      return detail::colossalai_launch(in);
    case Framework::torchtitan:
      return detail::torchtitan_launch(in);
  }
  return launch;
}

nlohmann::json to_json(const Launch& launch) {
  if (!launch.unsupported.empty()) {
    nlohmann::json texts = nlohmann::json::array();
    for (const CoreText& text : launch.unsupported_texts) texts.push_back(to_json(text));
    return {{"unsupported", launch.unsupported}, {"unsupported_texts", std::move(texts)}};
  }
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [name, text] : launch.files) files[name] = text;
  return {{"command", launch.command}, {"files", files}};
}

nlohmann::json launches_json(const Strategy& strategy, const Scenario& scenario,
                             int64_t data_parallel_size) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t i = 0; i < framework_names().size(); ++i) {
    const auto framework = static_cast<Framework>(i);
    out[std::string(to_string(framework))] =
        to_json(make_launch(framework, strategy, scenario, data_parallel_size));
  }
  return out;
}

}  // namespace paraplan
