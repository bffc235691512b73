import { afterEach, describe, expect, it } from "vitest";
import { coreReason, coreReasons } from "./core-reasons";
import { setLanguage } from "./i18n";

// setLanguage retranslates a document; these tests have none, so give it an empty root.
const root = { querySelectorAll: () => [] } as unknown as ParentNode;
const use = (lang: "en" | "zh") => {
  (globalThis as { document?: unknown }).document ??= { documentElement: {} };
  setLanguage(lang, root);
};

describe("the core's reasons in Chinese", () => {
  afterEach(() => use("en"));

  it("are translated by their id, with the numbers the English names", () => {
    use("zh");
    expect(
      coreReason(
        "pipeline stage 0 (h100, 80 layers) needs 95.2 GiB per GPU, more than the 79.1 GiB it has",
        "every pipeline stage fits in GPU memory",
      ),
    ).toBe("流水线阶段 0（h100，80 层）每卡需要 95.2 GiB，超过其 79.1 GiB 显存");
    expect(
      coreReason(
        "tensor_model_parallel_size (3) does not divide num_attention_heads (64)",
        "tensor parallel divides the attention heads",
      ),
    ).toBe("tensor_model_parallel_size（3）不能整除 num_attention_heads（64）");
    expect(
      coreReasons({
        infeasible_reasons: [
          "zero_stage 3 shards with Megatron-FSDP, which needs pipeline_model_parallel_size 1 (got 32)",
        ],
        infeasible_reason_ids: ["Megatron-FSDP runs without pipeline parallelism"],
      }),
    ).toEqual([
      "zero_stage 3 使用 Megatron-FSDP 分片，要求 pipeline_model_parallel_size 为 1（实际为 32）",
    ]);
  });

  it("stay English without an id, with an unknown id, or where the text does not match", () => {
    use("zh");
    const text = "tensor_model_parallel_size (3) does not divide num_attention_heads (64)";
    expect(coreReason(text, undefined)).toBe(text);
    expect(coreReason(text, "a rule with no translation")).toBe(text);
    expect(coreReason("something else", "tensor parallel divides the attention heads")).toBe(
      "something else",
    );
    expect(coreReasons({ infeasible_reasons: [text] })).toEqual([text]);
  });

  it("stay English in English", () => {
    use("en");
    const text = "tensor_model_parallel_size (3) does not divide num_attention_heads (64)";
    expect(coreReason(text, "tensor parallel divides the attention heads")).toBe(text);
  });
});
