// MindSpeed-LLM c77308a14bfc on Megatron-LM core_v0.12.1 (a845aa7e12b3): launch-targets.md
// section 3. Megatron-LM's flags with MindSpeed's spelling of flash attention and of the
// context-parallel algorithm.
#include "output/launch/writers.hpp"

namespace paraplan::detail {
namespace {

std::string cp_algorithm(CpCommType type) {
  switch (type) {
    case CpCommType::p2p:
      return "megatron_cp_algo";
    case CpCommType::a2a:
      return "ulysses_cp_algo";
    case CpCommType::allgather:
      return "kvallgather_cp_algo";
  }
  return "megatron_cp_algo";
}

// Megatron-LM's YaRN flags as MindSpeed-LLM spells them (features_manager/common/rotary.py:
// --rope-scaling-type yarn on rotary positions, --beta-fast and --beta-slow as integers; the
// factor is Megatron-LM core_v0.12.1's --rope-scaling-factor). MindSpeed always rounds the
// correction range (tasks/common/yarn_rope.py): framework_rules_megatron.cpp refuses the rest.
constexpr std::pair<std::string_view, std::string_view> kYarnSpellings[] = {
    {"--rotary-scaling-factor", "--rope-scaling-factor"},
    {"--yarn-original-max-position-embeddings", "--rope-scaling-original-max-position-embeddings"},
    {"--yarn-beta-fast", "--beta-fast"},
    {"--yarn-beta-slow", "--beta-slow"},
};

std::string_view mindspeed_spelling(std::string_view word) {
  for (const auto& [megatron, mindspeed] : kYarnSpellings) {
    if (word == megatron) return mindspeed;
  }
  return word;
}

std::vector<std::string> mindspeed_arguments(const LaunchInput& in, int pool) {
  const Strategy& s = in.strategy;
  std::vector<std::string> megatron = megatron_program_arguments(in, pool);
  std::vector<std::string> args = {"--use-mcore-models", "--transformer-impl",
                                   in.scenario.training.precision == Precision::fp8
                                       ? "transformer_engine"  // "FP8 just support TE implement"
                                       : "local"};
  for (size_t i = 0; i < megatron.size(); ++i) {
    const std::string& word = megatron[i];
    if (word == "--attention-backend") {  // MindSpeed patches --use-flash-attn to NPU FA
      if (megatron[i + 1] != "unfused") args.emplace_back("--use-flash-attn");
      ++i;
    } else if (word == "--cp-comm-type") {
      ++i;  // written below, always (the docs and the code disagree on its default)
    } else if (word == "--fine-grained-activation-offloading") {
      // framework_rules.cpp: the modules are MindSpeed's swap-attention set.
      args.emplace_back("--swap-attention");
    } else if (word == "--offload-modules") {
      ++i;  // --swap-modules keeps its default
    } else if (word == "--position-embedding-type" && megatron[i + 1] == "yarn") {
      args.insert(args.end(), {"--position-embedding-type", "rope", "--rope-scaling-type", "yarn"});
      ++i;
    } else {
      args.emplace_back(mindspeed_spelling(word));
    }
  }
  // MindSpeed's parameter-copy reuse (mindspeed/features_manager/memory/reuse_fp32_param.py).
  if (s.reuse_fp32_param) {
    args.emplace_back(strategy_key(StrategyKeyId::reuse_fp32_param).megatron_flag);
  }
  if (s.context_parallel_size > 1) {
    args.emplace_back("--context-parallel-algo");
    args.push_back(cp_algorithm(s.cp_comm_type));
  }
  return args;
}

}  // namespace

Launch mindspeed_launch(const LaunchInput& in) {
  Launch launch;
  std::string text =
      "# MindSpeed-LLM c77308a14bfc (master, 2026-08-21) on Megatron-LM core_v0.12.1, run from "
      "its repository root.\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  text += allocator_environment(in.strategy, Framework::mindspeed_llm);
  text += rendezvous_environment(in.hosts);
  text += torchrun_lines(in.hosts, [&](const HostGroup& group) {
    return "pretrain_gpt.py " + join(mindspeed_arguments(in, group.pool));
  });
  launch.command = text;
  return launch;
}

}  // namespace paraplan::detail
