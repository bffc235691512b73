// Megatron-LM (pretrain_gpt.py) at d98e8a64ddf3 (main, 2026-08-22): launch-targets.md section 2.
#include "output/launch/writers.hpp"
#include "paraplan/megatron.hpp"

namespace paraplan::detail {

std::vector<std::string> megatron_program_arguments(const LaunchInput& in, int pool) {
  std::vector<std::string> args = megatron_model_arguments(in.scenario.model, in.scenario.training);
  const std::vector<std::string> parallel =
      megatron_arguments(in.strategy, in.scenario.model, in.scenario.training, pool);
  args.insert(args.end(), parallel.begin(), parallel.end());
  // Synthetic data and a null tokenizer of the model's vocabulary, so the command runs as is;
  // replace with --data-path and a tokenizer for real training.
  for (const char* word : {"--mock-data", "--tokenizer-type", "NullTokenizer"}) {
    args.emplace_back(word);
  }
  args.emplace_back("--vocab-size");
  args.push_back(std::to_string(in.scenario.model.vocab_size));
  for (const char* word : {"--train-iters", "1000", "--lr", "1.5e-4"}) args.emplace_back(word);
  return args;
}

namespace {

// CUDA_DEVICE_MAX_CONNECTIONS=1 orders tensor- and context-parallel communication before the
// compute it overlaps (arguments.py validate_args warns without it); Megatron-FSDP asserts it
// is unset or not 1 (launch-targets.md section 2, zero_stage 2/3), and the all-to-all overlap
// needs more than one (device_connections.hpp). Fine-grained activation offloading with
// Transformer Engine >= 2.10 asserts NVTE_CPU_OFFLOAD_V1=1 (arguments.py: "to avoid offloading
// weights").
std::string megatron_environment(const Strategy& s) {
  const bool needs_one = s.tensor_model_parallel_size > 1 || s.context_parallel_size > 1;
  std::string text = s.offload_modules != 0 ? "export NVTE_CPU_OFFLOAD_V1=1\n" : "";
  if (s.zero_stage >= 2) {
    text += "unset CUDA_DEVICE_MAX_CONNECTIONS  # Megatron-FSDP asserts it is not 1\n";
  } else if (needs_one) {
    text += device_connections_export(s);
  }
  return text;
}

}  // namespace

Launch megatron_launch(const LaunchInput& in) {
  Launch launch;
  std::string text =
      "# Megatron-LM d98e8a64ddf3 (main, 2026-08-22), run from its repository root.\n";
  if (in.scenario.model.activation == Activation::geglu) {
    text +=
        "# GeGLU has no Megatron-LM flag: set gated_linear_unit and activation_func=gelu in "
        "the TransformerConfig.\n";
  }
  text += megatron_environment(in.strategy) +
          allocator_environment(in.strategy, Framework::megatron) +
          rendezvous_environment(in.hosts);
  text += torchrun_lines(in.hosts, [&](const HostGroup& group) {
    return "pretrain_gpt.py " + join(megatron_program_arguments(in, group.pool));
  });
  launch.command = text;
  return launch;
}

}  // namespace paraplan::detail
