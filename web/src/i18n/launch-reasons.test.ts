import { afterEach, describe, expect, it } from "vitest";
import megatron from "../../../core/src/model/framework_rules_megatron.cpp?raw";
import deepspeed from "../../../core/src/model/framework_rules_deepspeed.cpp?raw";
import colossalai from "../../../core/src/model/framework_rules_colossalai.cpp?raw";
import torchtitan from "../../../core/src/model/framework_rules_torchtitan.cpp?raw";
import { coreTextList } from "./core-texts";
import { setLanguage } from "./i18n";
import { LAUNCH_RULES_ZH } from "./launch-reasons";

// setLanguage retranslates a document; these tests have none, so give it an empty root.
const root = { querySelectorAll: () => [] } as unknown as ParentNode;
const use = (lang: "en" | "zh") => {
  (globalThis as { document?: unknown }).document ??= { documentElement: {} };
  setLanguage(lang, root);
};

// Every launch target rule's id, as the core's framework_rule_id writes it: the tables in the
// order framework_rules reads them, "<framework>: <field>", " #N" for the N-th on one field.
function ruleIds(): string[] {
  const seen = new Map<string, number>();
  const ids: string[] = [];
  for (const table of [megatron, deepspeed, colossalai, torchtitan]) {
    for (const match of table.matchAll(/\{F::(\w+),\s*"([^"]+)"/g)) {
      const id = `${match[1].replaceAll("_", "-")}: ${match[2]}`;
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      ids.push(n > 1 ? `${id} #${n}` : id);
    }
  }
  return ids;
}

describe("the launch targets' reasons in Chinese", () => {
  afterEach(() => use("en"));

  it("have a translation for every rule of every launch target, and none for a rule gone", () => {
    const ids = ruleIds();
    expect(ids.length).toBeGreaterThan(100);
    expect(ids).toContain("colossalai: zero_stage #2");
    expect(ids.filter((id) => LAUNCH_RULES_ZH[id] === undefined)).toEqual([]);
    expect(Object.keys(LAUNCH_RULES_ZH).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it("are written from the rule's id, and a kept rule from its own reason", () => {
    use("zh");
    const english = [
      "zero_stage: ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism (deepspeed/runtime/pipe/engine.py)",
      "pipeline_model_parallel_size: zero_stage 3 shards with Megatron-FSDP, which needs pipeline_model_parallel_size 1 (got 4)",
      "some_field: a rule the page does not know",
    ];
    expect(
      coreTextList(english, [
        {
          id: "launch target cannot express",
          args: { field: "zero_stage", rule: "deepspeed: zero_stage" },
        },
        {
          id: "launch target keeps a rule",
          args: {
            field: "pipeline_model_parallel_size",
            reason:
              "zero_stage 3 shards with Megatron-FSDP, which needs pipeline_model_parallel_size 1 (got 4)",
            reason_id: "Megatron-FSDP runs without pipeline parallelism",
          },
        },
        { id: "launch target cannot express", args: { field: "some_field", rule: "x: unknown" } },
      ]),
    ).toEqual([
      "zero_stage：ZeRO-2 和 ZeRO-3 与流水线并行不兼容（deepspeed/runtime/pipe/engine.py）",
      "pipeline_model_parallel_size：zero_stage 3 使用 Megatron-FSDP 分片，要求 pipeline_model_parallel_size 为 1（实际为 4）",
      english[2],
    ]);
    use("en");
    expect(coreTextList(english, undefined)).toEqual(english);
  });
});
