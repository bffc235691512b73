#include "model/framework_rules.hpp"

#include <initializer_list>

#include "model/framework_rule_parts.hpp"

namespace paraplan::detail {

std::vector<const FrameworkRule*> framework_rules(Framework framework) {
  std::vector<const FrameworkRule*> out;
  for (const std::span<const FrameworkRule> table :
       {framework_rule_parts::megatron_family_rules(), framework_rule_parts::deepspeed_rules(),
        framework_rule_parts::colossalai_rules(), framework_rule_parts::torchtitan_rules()}) {
    for (const FrameworkRule& rule : table) {
      if (rule.framework == framework) out.push_back(&rule);
    }
  }
  return out;
}

namespace {
// A switch a fit may turn off: on, and not pinned.
bool on_by_default(const StrategyPins& pins, StrategyKeyId key, const Strategy& strategy) {
  return !pins.given(key) && strategy_key(key).get(strategy, 0) != 0;
}

// Every rule of the launch target that reads `key` can express the strategy.
bool expressible(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                 StrategyKeyId key, const Strategy& strategy) {
  for (const FrameworkRule* rule : rules) {
    if (rule->reads.contains(key) && !rule->expressible(context, strategy)) return false;
  }
  return true;
}

// The same, and every rule of the rulebook that reads `key` holds.
bool launchable(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                StrategyKeyId key, const Strategy& strategy) {
  if (!expressible(rules, context, key, strategy)) return false;
  for (const Rule& rule : detail::rules()) {
    if (rule.reads.contains(key) && !rule.holds(context, strategy)) return false;
  }
  return true;
}
}  // namespace

void fit_switch_to_framework(std::span<const FrameworkRule* const> rules,
                             const RuleContext& context, const StrategyPins& pins,
                             StrategyKeyId key, Strategy& strategy) {
  if (on_by_default(pins, key, strategy) && !expressible(rules, context, key, strategy)) {
    strategy_key(key).set(strategy, 0, 0);
  }
}

void fit_default_switch(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                        const StrategyPins& pins, StrategyKeyId key, Strategy& strategy) {
  if (on_by_default(pins, key, strategy) && !launchable(rules, context, key, strategy)) {
    strategy_key(key).set(strategy, 0, 0);
  }
}

void fit_default_value(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                       const StrategyPins& pins, StrategyKeyId key, std::span<const int64_t> values,
                       Strategy& strategy) {
  if (pins.given(key)) return;
  const StrategyKey& k = strategy_key(key);
  const int64_t default_value = k.get(strategy, 0);
  for (const int64_t value : values) {
    k.set(strategy, 0, value);
    if (launchable(rules, context, key, strategy)) return;
  }
  k.set(strategy, 0, default_value);
}

std::vector<std::string> unsupported(const RuleContext& context, Framework scenario_framework,
                                     const Strategy& strategy) {
  std::vector<std::string> reasons;
  for (const FrameworkRule* rule : framework_rules(context.framework)) {
    if (!rule->expressible(context, strategy)) reasons.push_back(rule->reason());
  }
  RuleContext scenario_context = context;
  scenario_context.framework = scenario_framework;
  for (const Rule& rule : rules()) {
    if (rule.holds(context, strategy) || !rule.holds(scenario_context, strategy)) continue;
    // "field: why", the field being the first key the rule reads.
    for (size_t id = 0; id < kNumStrategyKeys; ++id) {
      const auto key = static_cast<StrategyKeyId>(id);
      if (!rule.reads.contains(key)) continue;
      reasons.push_back(std::string(strategy_key(key).name) + ": " +
                        rule.reason(context, strategy));
      break;
    }
  }
  return reasons;
}

}  // namespace paraplan::detail