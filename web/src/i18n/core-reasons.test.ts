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
    // Reasons that name the strategy keys they are about (rules_test.cpp).
    expect(
      coreReason(
        "tensor_model_parallel_size x context_parallel_size x pipeline_model_parallel_size (18) does not divide the 256 GPUs",
        "model parallelism divides the GPUs",
      ),
    ).toBe("张量 × 上下文 × 流水线并行（18）不能整除 256 块 GPU");
    expect(
      coreReason(
        "expert_tensor_parallel_size x expert_model_parallel_size x pipeline_model_parallel_size (1 x 8 x 4) does not divide the 48 GPUs",
        "expert grid divides the GPUs",
      ),
    ).toBe("专家张量 × 专家 × 流水线并行（1 × 8 × 4）不能整除 48 块 GPU");
    expect(
      coreReason(
        "pipeline_model_parallel_size x virtual_pipeline_model_parallel_size (96) exceeds num_layers + 2 (42): some chunk would hold no layer",
        "every virtual pipeline chunk holds a layer",
      ),
    ).toBe("流水线 × 虚拟流水线（96）超过 num_layers + 2（42）：有的分块将没有层");
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
    // A MoE strategy's "recompute one more layer" in the sensitivities (rules_tensor_expert.cpp,
    // cuda_graph_rules.cpp): it read English in 中文.
    expect(
      coreReason(
        "overlap_moe_expert_parallel_comm needs recompute_granularity none or selective",
        "expert-parallel overlap excludes full recompute",
      ),
    ).toBe("overlap_moe_expert_parallel_comm 要求 recompute_granularity 为 none 或 selective");
    expect(
      coreReason(
        "cuda_graph_impl with a per-layer scope needs recompute_granularity none or selective",
        "per-layer CUDA graphs exclude full recompute",
      ),
    ).toBe("逐层作用域的 cuda_graph_impl 要求 recompute_granularity 为 none 或 selective");
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
