// Colossal-AI 0.5.0 (4f9953be335e): a training script around HybridParallelPlugin or
// MoeHybridParallelPlugin and a Hugging Face model (launch-targets.md section 5).
#include "output/launch/writers.hpp"

namespace paraplan::detail {
namespace {

// The Hugging Face config of the model (transformers' LlamaConfig or MixtralConfig), as
// Shardformer's policies shard it; framework_rules.cpp refuses what these cannot hold.
std::string model_config(const ModelSpec& m, const Training& t) {
  const std::string common =
      "hidden_size=" + std::to_string(m.hidden_size) +
      ", num_hidden_layers=" + std::to_string(m.num_layers) +
      ", num_attention_heads=" + std::to_string(m.num_attention_heads) + ", num_key_value_heads=" +
      std::to_string(m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads) +
      ", vocab_size=" + std::to_string(m.vocab_size) +
      ", max_position_embeddings=" + std::to_string(t.seq_length) +
      ", tie_word_embeddings=" + py_bool(!m.untie_embeddings_and_output_weights) +
      (m.kv_channels > 0 ? ", head_dim=" + std::to_string(m.kv_channels) : std::string());
  if (m.moe) {
    return "from transformers import MixtralConfig as ModelConfig, MixtralForCausalLM as Model\n"
           "config = ModelConfig(" +
           common + ", intermediate_size=" + std::to_string(m.moe->moe_ffn_hidden_size) +
           ", num_local_experts=" + std::to_string(m.moe->num_experts) +
           ", num_experts_per_tok=" + std::to_string(m.moe->top_k) + ")\n";
  }
  return "from transformers import LlamaConfig as ModelConfig, LlamaForCausalLM as Model\n"
         "config = ModelConfig(" +
         common + ", intermediate_size=" + std::to_string(m.ffn_hidden_size) +
         ", attention_bias=" + py_bool(m.add_bias_linear) +
         ", mlp_bias=" + py_bool(m.add_bias_linear) + ")\n";
}

std::string precision(Precision p) {
  switch (p) {
    case Precision::fp16:
      return "fp16";
    case Precision::fp32:
      return "fp32";
    default:
      return "bf16";
  }
}

// The plugin, HybridParallelPlugin or MoeHybridParallelPlugin, with the strategy's arguments.
std::string plugin_call(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const ModelSpec& model = in.scenario.model;
  const Training& training = in.scenario.training;
  const int64_t pp = s.pipeline_model_parallel_size;
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  const bool moe = model.moe.has_value();
  std::string plugin =
      std::string(moe ? "MoeHybridParallelPlugin" : "HybridParallelPlugin") + "(\n";
  const auto arg = [&](const std::string& name, const std::string& value) {
    plugin += "    " + name + "=" + value + ",\n";
  };
  arg("tp_size", std::to_string(s.tensor_model_parallel_size));
  arg("pp_size", std::to_string(pp));
  if (moe) arg("ep_size", std::to_string(s.expert_model_parallel_size));
  if (s.context_parallel_size > 1) {
    arg("sp_size", std::to_string(s.context_parallel_size));
    arg("enable_sequence_parallelism", "True");
    arg("sequence_parallelism_mode",
        s.cp_comm_type == CpCommType::a2a ? "\"all_to_all\"" : "\"ring_attn\"");
  } else if (s.sequence_parallel && s.tensor_model_parallel_size > 1) {
    arg("enable_sequence_parallelism", "True");
    arg("sequence_parallelism_mode", "\"split_gather\"");
  }
  if (pp > 1) {
    arg("pp_style", v > 1 ? "\"interleaved\"" : "\"1f1b\"");
    arg("num_model_chunks", std::to_string(v));
    arg("microbatch_size", std::to_string(s.micro_batch_size));
    const std::vector<int64_t>& layers = s.pipeline_stage_layers;
    if (v == 1 && !layers.empty() &&
        std::any_of(layers.begin(), layers.end(), [&](int64_t l) { return l != layers.front(); })) {
      std::string list;
      for (const int64_t l : layers) list += (list.empty() ? "" : ", ") + std::to_string(l);
      arg("num_layers_per_stage", "[" + list + "]");
    }
  }
  arg("zero_stage", std::to_string(s.zero_stage));
  arg("overlap_communication", py_bool(s.overlap_grad_reduce));
  if (s.zero_stage >= 1) arg("overlap_allgather", py_bool(s.overlap_param_gather));
  arg("precision", std::string(1, '"').append(precision(training.precision)).append(1, '"'));
  if (training.precision == Precision::fp8) arg("use_fp8", "True");
  arg("enable_flash_attention", py_bool(s.use_flash_attn));
  const Recompute& r = stage_recompute(in);
  if (r.granularity == RecomputeGranularity::full) {
    if (r.method == RecomputeMethod::block && pp > 1) {
      std::string list;
      for (int64_t i = 0; i < pp * v; ++i) {
        list += (list.empty() ? "" : ", ") + std::to_string(r.num_layers);
      }
      arg("gradient_checkpoint_config",
          "PipelineGradientCheckpointConfig(num_ckpt_layers_per_stage=[" + list + "])");
    } else if (pp > 1) {
      arg("gradient_checkpoint_config",
          r.method == RecomputeMethod::block
              ? "PipelineGradientCheckpointConfig(num_ckpt_layers_per_stage=[" +
                    std::to_string(r.num_layers) + "])"
              : std::string("PipelineGradientCheckpointConfig(gradient_checkpointing_ratio=1.0)"));
    }
  }
  // Pipeline stages on the slowest rank axis, as the host order assumes: dp_outside on
  // HybridParallelPlugin, moe_dp_outside on MoeHybridParallelPlugin (both default True).
  plugin += "    # pipeline stages on the slowest rank axis, as the host order assumes\n";
  arg(moe ? "moe_dp_outside" : "dp_outside", "False");
  plugin += ")\n";
  return plugin;
}

// One training step: the pipeline's schedule, or the micro-batches accumulated by hand.
std::string train_step(const LaunchInput& in, int64_t dp_batch) {
  const Strategy& s = in.strategy;
  const int64_t pp = s.pipeline_model_parallel_size;
  std::string script;
  if (pp > 1) {
    script +=
        "    booster.execute_pipeline(data_iter, model, criterion=lambda outputs, inputs: "
        "outputs[0], optimizer=optimizer, return_loss=True)\n";
  } else {
    const int64_t accumulation = dp_batch / std::max<int64_t>(1, s.micro_batch_size);
    script += "    for _ in range(" + std::to_string(accumulation) + "):  # micro-batches of " +
              std::to_string(s.micro_batch_size) +
              "\n        batch = next(data_iter)\n"
              "        loss = model(**batch).loss / " +
              std::to_string(accumulation) + "\n        booster.backward(loss, optimizer)\n";
  }
  script += "    optimizer.step()\n    optimizer.zero_grad()\n";
  return script;
}

}  // namespace

Launch colossalai_launch(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const ModelSpec& model = in.scenario.model;
  const Training& training = in.scenario.training;
  Launch launch;
  const int64_t pp = s.pipeline_model_parallel_size;
  const bool moe = model.moe.has_value();
  const std::string plugin = plugin_call(in);
  const Recompute& r = stage_recompute(in);
  const int64_t dp_batch = training.global_batch_size / std::max<int64_t>(1, in.data_parallel_size);
  std::string script =
      "# Colossal-AI 0.5.0 (4f9953be335e): train " + model.name +
      " with the strategy Paraplan found.\nimport os\n\nimport colossalai\nimport torch\n"
      "from colossalai.accelerator import get_accelerator\n"
      "from colossalai.booster import Booster\nfrom colossalai.booster.plugin import " +
      (moe ? "MoeHybridParallelPlugin" : "HybridParallelPlugin") +
      "\nfrom colossalai.lazy import LazyInitContext\nfrom colossalai.nn.optimizer import "
      "HybridAdam\n" +
      (plugin.find("PipelineGradientCheckpointConfig") != std::string::npos
           ? "from colossalai.shardformer import PipelineGradientCheckpointConfig\n"
           : "") +
      model_config(model, training) +
      "\n\n"
      "class RandomTokens(torch.utils.data.Dataset):\n"
      "    \"\"\"Random token ids of one sequence length: mock data, as the Megatron targets' "
      "--mock-data\n    (Colossal-AI's examples/language/data_utils.py RandomDataset).\"\"\"\n\n"
      "    def __init__(self, num_samples, seq_length, vocab_size):\n"
      "        self.num_samples, self.seq_length, self.vocab_size = num_samples, seq_length, "
      "vocab_size\n\n"
      "    def __len__(self):\n        return self.num_samples\n\n"
      "    def __getitem__(self, index):\n"
      "        generator = torch.Generator().manual_seed(index)\n"
      "        ids = torch.randint(0, self.vocab_size, (self.seq_length,), generator=generator)\n"
      "        return {\"input_ids\": ids, \"attention_mask\": torch.ones_like(ids), \"labels\": "
      "ids}\n\n\n"
      "STEPS = 1000\ncolossalai.launch_from_torch()\nplugin = " +
      plugin +
      "# The model built lazily and materialised sharded by booster.boost (LazyInitContext, as\n"
      "# Colossal-AI's examples/language/llama/benchmark.py), not whole on every rank.\n"
      "with LazyInitContext(default_device=get_accelerator().get_current_device()):\n"
      "    model = Model(config)\n" +
      (r.granularity == RecomputeGranularity::full ? "model.gradient_checkpointing_enable()\n"
                                                   : "") +
      "optimizer = HybridAdam(model.parameters(), lr=1.5e-4)\n"
      "# INPUT: PARAPLAN_DATA, a tokenized dataset saved with datasets' save_to_disk, its "
      "input_ids " +
      std::to_string(training.seq_length) +
      " tokens long;\n# unset, random tokens (runs offline).\n"
      "if os.environ.get(\"PARAPLAN_DATA\"):\n"
      "    from datasets import load_from_disk\n\n"
      "    dataset = load_from_disk(os.environ[\"PARAPLAN_DATA\"]).with_format(\"torch\")\n"
      "else:\n"
      "    dataset = RandomTokens(" +
      std::to_string(training.global_batch_size) + " * STEPS, " +
      std::to_string(training.seq_length) + ", config.vocab_size)\n" +
      "loader = plugin.prepare_dataloader(dataset, batch_size=" +
      std::to_string(pp > 1 ? dp_batch : s.micro_batch_size) +
      ", shuffle=True, drop_last=True)  # global batch " +
      std::to_string(training.global_batch_size) + " over data parallel " +
      std::to_string(in.data_parallel_size) +
      "\n"
      "booster = Booster(plugin=plugin)\n"
      "model, optimizer, _, loader, _ = booster.boost(model, optimizer, dataloader=loader)\n"
      "data_iter = iter(loader)\n"
      "for step in range(STEPS):\n";
  script += train_step(in, dp_batch);
  launch.files["train.py"] = script;
  std::string text = "# Colossal-AI 0.5.0 (4f9953be335e), with train.py beside it.\n";
  text += allocator_environment(in.strategy, Framework::colossalai);
  text += rendezvous_environment(in.hosts);
  text += torchrun_lines(in.hosts, [](const HostGroup&) { return std::string("train.py"); });
  launch.command = text;
  return launch;
}

}  // namespace paraplan::detail
