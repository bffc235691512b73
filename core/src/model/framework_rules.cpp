#include "model/framework_rules.hpp"

#include <initializer_list>

#include "model/framework_rule_parts.hpp"
#include "model/text_ids.hpp"

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

std::string framework_rule_id(const FrameworkRule& rule) {
  int same_field = 0;
  for (const FrameworkRule* other : framework_rules(rule.framework)) {
    if (other->field == rule.field) ++same_field;
    if (other == &rule) break;
  }
  std::string id = std::string(to_string(rule.framework)) + ": " + std::string(rule.field);
  return same_field > 1 ? id + " #" + std::to_string(same_field) : id;
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

namespace {
// A rule of the launch target that `strategy` breaks.
CoreText target_reason(const FrameworkRule& rule) {
  return {text_id::kLaunchTargetRule,
          rule.reason(),
          {{"field", std::string(rule.field)}, {"rule", framework_rule_id(rule)}},
          {}};
}

// A rulebook rule `strategy` breaks on the launch target, named by `field`, the first key it reads.
CoreText kept_rule_reason(const Rule& rule, std::string_view field, const RuleContext& context,
                          const Strategy& strategy) {
  const std::string reason = rule.reason(context, strategy);
  return {
      text_id::kLaunchKeepsRule,
      std::string(field) + ": " + reason,
      {{"field", std::string(field)}, {"reason", reason}, {"reason_id", std::string(rule.name)}},
      {}};
}
}  // namespace

std::vector<CoreText> unsupported(const RuleContext& context, Framework scenario_framework,
                                  const Strategy& strategy) {
  std::vector<CoreText> reasons;
  for (const FrameworkRule* rule : framework_rules(context.framework)) {
    if (!rule->expressible(context, strategy)) reasons.push_back(target_reason(*rule));
  }
  RuleContext scenario_context = context;
  scenario_context.framework = scenario_framework;
  for (const Rule& rule : rules()) {
    if (rule.holds(context, strategy) || !rule.holds(scenario_context, strategy)) continue;
    for (size_t id = 0; id < kNumStrategyKeys; ++id) {
      const auto key = static_cast<StrategyKeyId>(id);
      if (!rule.reads.contains(key)) continue;
      reasons.push_back(kept_rule_reason(rule, strategy_key(key).name, context, strategy));
      break;
    }
  }
  return reasons;
}

}  // namespace paraplan::detail
