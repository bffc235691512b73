// The rulebook (rules.hpp): its parts joined in one list, read by the estimate and the search.
#include "model/rules.hpp"

#include <algorithm>
#include <initializer_list>

#include "model/rule_parts.hpp"

namespace paraplan::detail {

std::span<const Rule> rules() {
  static const std::vector<Rule> all = [] {
    std::vector<Rule> joined;
    for (const std::span<const Rule> part :
         {rule_parts::tensor_expert_rules(), rule_parts::sequence_pipeline_data_rules(),
          rule_parts::memory_precision_rules(), cuda_graph_rules()}) {
      joined.insert(joined.end(), part.begin(), part.end());
    }
    return joined;
  }();
  return all;
}

bool check_rules(const RuleContext& context, const Strategy& strategy,
                 std::vector<std::string>& reasons, std::vector<std::string>* ids) {
  bool all_hold = true;
  for (const Rule& rule : rules()) {
    if (rule.holds(context, strategy)) continue;
    reasons.push_back(rule.reason(context, strategy));
    if (ids != nullptr) ids->emplace_back(rule.name);
    all_hold = false;
  }
  return all_hold;
}

bool runs_on_pool(const Strategy& strategy, size_t pool) {
  const std::vector<int>& stages = strategy.pipeline_stage_gpus;
  if (stages.empty()) return pool == 0;
  return std::find(stages.begin(), stages.end(), static_cast<int>(pool)) != stages.end();
}

int64_t data_parallel_size(const RuleContext& context, const Strategy& s) {
  const int64_t model_parallel =
      s.tensor_model_parallel_size * s.context_parallel_size * s.pipeline_model_parallel_size;
  return rule_parts::divides(model_parallel, context.num_gpus) ? context.num_gpus / model_parallel
                                                               : 0;
}

int64_t num_micro_batches(const RuleContext& context, const Strategy& s) {
  const int64_t per_step = data_parallel_size(context, s) * s.micro_batch_size;
  return rule_parts::divides(per_step, context.training.global_batch_size)
             ? context.training.global_batch_size / per_step
             : 0;
}

}  // namespace paraplan::detail
