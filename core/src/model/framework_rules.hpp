// What each launch target cannot express (docs/launch.md, "What each target refuses, and why"),
// one table per target (framework_rules_<target>.cpp). A launch lists the rules a strategy breaks
// as "unsupported"; a search for one framework (Scenario::framework) skips the strategies that
// break one, at the first level of its loop where every key the rule reads is decided.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/framework_kernels.hpp"
#include "model/rules.hpp"
#include "model/torchtitan_family.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/report.hpp"

namespace paraplan::detail {

struct FrameworkRule {
  Framework framework;
  std::string_view field;  // the strategy key (or "model") the framework cannot express
  std::string_view why;    // what the framework lacks, and where that is stated
  KeySet reads;            // the strategy keys `expressible` depends on
  bool (*expressible)(const RuleContext& context, const Strategy& strategy);

  std::string reason() const { return std::string(field) + ": " + std::string(why); }
};

// The rules of `framework`.
std::vector<const FrameworkRule*> framework_rules(Framework framework);

// `rule`'s stable id, by which the page writes its reason in its language
// (web/src/i18n/launch-reasons.ts): "<framework>: <field>", with " #N" for the N-th rule of its
// target on the same field (N > 1, in table order).
std::string framework_rule_id(const FrameworkRule& rule);

// Turns off switch `key` where `strategy` has it on, `pins` leave it out and one of `rules` that
// reads it breaks: a default that the launch target cannot express gives way.
void fit_switch_to_framework(std::span<const FrameworkRule* const> rules,
                             const RuleContext& context, const StrategyPins& pins,
                             StrategyKeyId key, Strategy& strategy);

// The same, and off as well where a rule of the rulebook (rules.hpp) that reads `key` breaks:
// a default that cannot be launched gives way. Every key those rules read must be decided.
void fit_default_switch(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                        const StrategyPins& pins, StrategyKeyId key, Strategy& strategy);

// `key`, which `pins` leave out, takes the first of `values` that every rule of `rules` and of
// the rulebook reading it allows, and keeps its default where none does: a default that cannot
// be launched gives way to the first alternative that can. Every key those rules read must be
// decided.
void fit_default_value(std::span<const FrameworkRule* const> rules, const RuleContext& context,
                       const StrategyPins& pins, StrategyKeyId key, std::span<const int64_t> values,
                       Strategy& strategy);

// MindSpeed's --swap-attention with its default --swap-modules "input_norm,self_attention,
// post_attention_norm" (MindSpeed docs/features/swap_attention.md: those modules' activations
// go to host memory and are prefetched for the backward): Megatron-LM's offload modules
// attn_norm, qkv_linear, core_attn, attn_proj and mlp_norm.
inline constexpr uint32_t kMindSpeedSwapAttentionModules = [] {
  uint32_t bits = 0;
  for (const OffloadModule m :
       {OffloadModule::attn_norm, OffloadModule::qkv_linear, OffloadModule::core_attn,
        OffloadModule::attn_proj, OffloadModule::mlp_norm}) {
    bits |= 1u << static_cast<unsigned>(m);
  }
  return bits;
}();

// "field: why" for every rule of `context.framework` that `strategy` breaks
// (text_id::kLaunchTargetRule with the field and the rule's id), then for every rulebook rule it
// breaks there but not under `scenario_framework` (a rule one of them lifts:
// RuleContext::framework; text_id::kLaunchKeepsRule with the field and the rule's reason and name).
std::vector<CoreText> unsupported(const RuleContext& context, Framework scenario_framework,
                                  const Strategy& strategy);

}  // namespace paraplan::detail
