// DeepSpeed 0.19.6 (edaa72212672) through Megatron-DeepSpeed 4efb479d5317: a ds_config JSON and
// Megatron-DeepSpeed's pretrain_gpt.py flags (launch-targets.md section 4).
#include <nlohmann/json.hpp>

#include "model/number_text.hpp"
#include "output/launch/writers.hpp"

namespace paraplan::detail {
namespace {

// Gradient clipping at Megatron-LM's --clip-grad default (megatron/training/arguments.py: 1.0),
// which every other target launches with. With --deepspeed, Megatron-DeepSpeed hands the bare
// optimizer to DeepSpeed (megatron/optimizer/__init__.py), so only ds_config's
// gradient_clipping clips (DeepSpeed docs/_pages/config-json.md).
constexpr double kGradientClipping = 1.0;

std::vector<std::string> model_arguments(const ModelSpec& model, const Training& training) {
  std::vector<std::string> args;
  const auto num = [&](const char* name, int64_t value) {
    args.emplace_back(name);
    args.push_back(std::to_string(value));
  };
  num("--num-layers", model.num_layers);
  num("--hidden-size", model.hidden_size);
  num("--ffn-hidden-size", model.ffn_hidden_size);
  num("--num-attention-heads", model.num_attention_heads);
  if (model.num_query_groups > 0 && model.num_query_groups != model.num_attention_heads) {
    num("--num-key-value-heads", model.num_query_groups);
  }
  num("--seq-length", training.seq_length);
  num("--max-position-embeddings", training.seq_length);
  if (model.position_embedding_type == PositionEmbedding::rope) {
    args.emplace_back("--use-rotary-position-embeddings");
  }
  if (is_gated(model.activation)) {
    args.emplace_back("--normalization");
    args.emplace_back("rmsnorm");
  }
  if (model.activation == Activation::swiglu) args.emplace_back("--swiglu");
  if (!model.add_bias_linear) args.emplace_back("--disable-bias-linear");
  if (model.untie_embeddings_and_output_weights) {
    args.emplace_back("--untie-embeddings-and-output-weights");
  }
  args.emplace_back("--attention-dropout");
  args.push_back(number_text(model.attention_dropout));
  args.emplace_back("--hidden-dropout");
  args.push_back(number_text(model.hidden_dropout));
  if (model.moe) {
    args.emplace_back("--num-experts");
    args.push_back(std::to_string(model.moe->num_experts));
    num("--topk", model.moe->top_k);
  }
  return args;
}

// ds_config.json: the batch as DeepSpeed checks it, ZeRO, the precision, checkpointing.
std::string ds_config(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const Training& training = in.scenario.training;
  // DeepSpeed's data-parallel world: the GPUs over TP x PP x Ulysses (runtime/config.py
  // _batch_assertion; Ulysses is Paraplan's context parallelism of type a2a).
  const int64_t world = in.hosts.num_gpus;
  const int64_t dp = world / (s.tensor_model_parallel_size * s.pipeline_model_parallel_size *
                              s.context_parallel_size);
  const int64_t accumulation =
      training.global_batch_size / std::max<int64_t>(1, s.micro_batch_size * dp);
  nlohmann::ordered_json config = {
      {"train_batch_size", training.global_batch_size},
      {"train_micro_batch_size_per_gpu", s.micro_batch_size},
      {"gradient_accumulation_steps", accumulation},
      {"gradient_clipping", kGradientClipping},
      {"zero_optimization", {{"stage", s.zero_stage}, {"overlap_comm", s.overlap_grad_reduce}}},
      {"steps_per_print", 10}};
  if (training.precision == Precision::fp16) {
    config["fp16"] = {{"enabled", true}};
  } else if (training.precision != Precision::fp32) {
    config["bf16"] = {{"enabled", true}};
  }
  const Recompute& r = stage_recompute(in);
  if (r.granularity == RecomputeGranularity::full) {
    config["activation_checkpointing"] = {{"partition_activations", false},
                                          {"contiguous_memory_optimization", false}};
  }
  return config.dump(2) + "\n";
}

// pretrain_gpt.py's arguments: the model's, the parallel layout, recompute, precision, data.
std::vector<std::string> pretrain_arguments(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const Training& training = in.scenario.training;
  const Recompute& r = stage_recompute(in);
  std::vector<std::string> args = model_arguments(in.scenario.model, training);
  const auto num = [&](const char* name, int64_t value) {
    args.emplace_back(name);
    args.push_back(std::to_string(value));
  };
  num("--tensor-model-parallel-size", s.tensor_model_parallel_size);
  num("--pipeline-model-parallel-size", s.pipeline_model_parallel_size);
  if (s.pipeline_model_parallel_size == 1) args.emplace_back("--no-pipeline-parallel");
  if (s.context_parallel_size > 1) num("--ds-sequence-parallel-size", s.context_parallel_size);
  if (in.scenario.model.moe) {
    num("--moe-expert-parallel-size", s.expert_model_parallel_size);
    if (s.tensor_model_parallel_size > 1 && s.expert_tensor_parallel() > 1) {
      args.emplace_back("--enable-expert-tensor-parallelism");
    }
  }
  if (s.sequence_parallel && s.tensor_model_parallel_size > 1) {
    args.emplace_back("--sequence-parallel");
  }
  num("--micro-batch-size", s.micro_batch_size);
  num("--global-batch-size", training.global_batch_size);
  if (r.granularity != RecomputeGranularity::none) {
    args.emplace_back("--recompute-granularity");
    args.emplace_back(to_string(r.granularity));
  }
  if (r.granularity == RecomputeGranularity::full) {
    args.emplace_back("--recompute-method");
    args.emplace_back(to_string(r.method));
    num("--recompute-num-layers", r.num_layers);
    args.emplace_back("--deepspeed-activation-checkpointing");
  }
  if (s.use_flash_attn) args.emplace_back("--use-flash-attn-v2");
  switch (training.precision) {
    case Precision::bf16:
      args.emplace_back("--bf16");
      break;
    case Precision::fp16:
      args.emplace_back("--fp16");
      break;
    case Precision::fp8:  // Transformer Engine's delayed scaling, hybrid e4m3/e5m2
      for (const char* word :
           {"--bf16", "--fp8-hybrid", "--transformer-impl", "transformer_engine"}) {
        args.emplace_back(word);
      }
      break;
    case Precision::fp32:
      break;
  }
  for (const char* word :
       {"--tokenizer-type", "GPTSentencePieceTokenizer", "--tokenizer-model", "$TOKENIZER",
        "--data-path", "$DATA", "--data-impl", "mmap", "--split", "949,50,1", "--train-iters",
        "1000", "--lr", "1.5e-4", "--deepspeed", "--deepspeed_config", "ds_config.json"}) {
    args.emplace_back(word);
  }
  num("--zero-stage", s.zero_stage);
  return args;
}

}  // namespace

Launch deepspeed_launch(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  Launch launch;
  launch.files["ds_config.json"] = ds_config(in);
  const std::vector<std::string> args = pretrain_arguments(in);
  std::string text =
      "# DeepSpeed 0.19.6 with Megatron-DeepSpeed 4efb479d5317, run from its repository root "
      "with ds_config.json beside it.\n";
  if (s.sequence_parallel && s.tensor_model_parallel_size > 1) {
    text += "export CUDA_DEVICE_MAX_CONNECTIONS=1  # --sequence-parallel raises without it\n";
  }
  text += "export TOKENIZER=${TOKENIZER:?tokenizer.model} DATA=${DATA:?data prefix}\n";
  text += allocator_environment(in.strategy, Framework::deepspeed);
  text += rendezvous_environment(in.hosts);
  text +=
      torchrun_lines(in.hosts, [&](const HostGroup&) { return "pretrain_gpt.py " + join(args); });
  launch.command = text;
  return launch;
}

}  // namespace paraplan::detail
