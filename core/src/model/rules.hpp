// The rulebook: every constraint Megatron-LM puts on a strategy that Paraplan knows, each
// written once with its source. The estimate reports a broken rule as an infeasible reason; the
// search skips a candidate at the first level of its loop where all the keys a rule reads are
// decided (search/searcher.cpp). Adding a rule: CONTRIBUTING.md, "Adding a rule".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/even_split.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::detail {

// What a rule may read besides the strategy.
struct RuleContext {
  const ModelSpec& model;
  const Training& training;
  const Cluster& cluster;
  int64_t num_gpus = 0;                       // the GPUs the strategy uses in all
  Framework framework = Framework::megatron;  // what launches it, where that changes a rule
};

struct Rule {
  std::string_view name;
  std::string_view source;  // where Megatron-LM states it
  KeySet reads;             // the strategy keys it depends on
  bool (*holds)(const RuleContext& context, const Strategy& strategy);
  // Why it is broken, naming the numbers; called only when it does not hold.
  std::string (*reason)(const RuleContext& context, const Strategy& strategy);
};

// Every rule: the rulebook's parts (rule_parts.hpp, rules_<responsibility>.cpp) and the CUDA
// graph rules (cuda_graph_rules.cpp), joined in that order (rules.cpp).
std::span<const Rule> rules();
std::span<const Rule> cuda_graph_rules();

// Appends the reason of every rule `strategy` breaks (and, given `ids`, the rule's name as the
// reason's stable id); true when it breaks none.
bool check_rules(const RuleContext& context, const Strategy& strategy,
                 std::vector<std::string>& reasons, std::vector<std::string>* ids = nullptr);

// Whether a stage of `strategy` runs on the cluster's GPU pool `pool` (pool 0 alone where
// pipeline_stage_gpus is empty).
bool runs_on_pool(const Strategy& strategy, size_t pool);

// Data-parallel size: GPUs / (tensor x context x pipeline), or 0 when that does not divide.
int64_t data_parallel_size(const RuleContext& context, const Strategy& strategy);

// Micro-batches per data-parallel rank and iteration, or 0 when the sizes do not divide.
int64_t num_micro_batches(const RuleContext& context, const Strategy& strategy);

}  // namespace paraplan::detail
