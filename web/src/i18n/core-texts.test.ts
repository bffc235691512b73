import { afterEach, describe, expect, it } from "vitest";
import textIds from "../../../core/src/model/text_ids.hpp?raw";
import { coreNotes, coreText, ZH_TEXTS } from "./core-texts";
import { setLanguage } from "./i18n";

// setLanguage retranslates a document; these tests have none, so give it an empty root.
const root = { querySelectorAll: () => [] } as unknown as ParentNode;
const use = (lang: "en" | "zh") => {
  (globalThis as { document?: unknown }).document ??= { documentElement: {} };
  setLanguage(lang, root);
};

// Every id the core gives a text (core/src/model/text_ids.hpp).
const CORE_IDS = [...textIds.matchAll(/=\s*"([^"]+)";/g)].map((match) => match[1]);

describe("the core's texts in Chinese", () => {
  afterEach(() => use("en"));

  it("have a translation for every id the core gives a text", () => {
    expect(CORE_IDS.length).toBeGreaterThan(20);
    expect(CORE_IDS.filter((id) => ZH_TEXTS[id] === undefined)).toEqual([]);
    // And no translation of an id the core no longer gives.
    expect(Object.keys(ZH_TEXTS).filter((id) => !CORE_IDS.includes(id))).toEqual([]);
  });

  it("are written from their id and values, parts included", () => {
    use("zh");
    const regime = {
      id: "regime: GPU family, kind, framework family",
      args: { gpu_family: "Hopper", kind: "MoE", framework_family: "Megatron-Core" },
    };
    expect(coreText("Hopper, MoE, Megatron-Core", regime)).toBe("Hopper，MoE，Megatron-Core");
    const basis = {
      id: "band from a wider regime",
      args: { runs: "41", publishers: "6", low: "0.72", high: "1.10", min_runs: "8" },
      parts: [
        { id: "regime with too few runs", args: { runs: "3", publishers: "1" }, parts: [regime] },
      ],
    };
    const zh = coreText("English", { ...basis, args: { ...basis.args, min_publishers: "3" } });
    expect(zh).toContain("41 个公开运行");
    expect(zh).toContain("0.72 至 1.10 倍");
    expect(zh).toContain("“Hopper，MoE，Megatron-Core”只有来自 1 家发布方表格的 3 个公开运行");
    expect(zh).not.toMatch(/published|regime/);
    expect(
      coreText("pipeline stage 0 ...", {
        id: "memory verdict: at_risk",
        args: {
          stage: "3",
          gpu: "h100",
          peak_gib: "75.2",
          capacity_gib: "79.1",
          share_percent: "95",
          free_gib: "3.9",
          margin_gib: "15.0",
          margin_percent: "19",
          allocator: "default_segments",
          cuda_graphs: "false",
        },
      }),
    ).toBe(
      "流水线阶段 3（h100）峰值 75.2 GiB / 79.1 GiB（95%，空闲 3.9 GiB）：在默认余量之内，" +
        "已发表的启动在此有的成功有的显存不足（默认余量保留 15.0 GiB（19%）空闲，按分配器模式：" +
        "PyTorch 默认固定段；docs/model.md“Memory verdict”）",
    );
    expect(
      coreNotes({
        validated: false,
        notes: ["GPU type gb300 was never validated against a published run", "no id"],
        note_texts: [{ id: "GPU type never validated", args: { gpu: "gb300" } }],
      }),
    ).toEqual(["GPU 类型 gb300 从未与公开运行对照验证", "no id"]);
  });

  it("say why a search found no strategy, with the rules' own reasons, and why it stopped", () => {
    use("zh");
    const miss = {
      id: "no strategy: nothing fits in GPU memory",
      args: {
        tensor: "8",
        pipeline: "16",
        context: "1",
        micro_batch: "1",
        zero: "1",
        recompute: "full",
        needs_gib: "92.4",
        stage: "0",
        gpu: "h100",
        over_gib: "13.2",
        capacity_gib: "79.2",
      },
    };
    expect(coreText("no strategy fits ...", miss)).toBe(
      "没有策略能放入 GPU 显存：最接近的策略（张量 8，流水线 16，上下文 1，微批次 1，ZeRO 1，" +
        "重计算 full）在流水线阶段 0（h100）每卡需要 92.4 GiB，比其 79.2 GiB 多 13.2 GiB",
    );
    expect(
      coreText("no strategy fits ...", { ...miss, args: { ...miss.args, margin_gib: "7.9" } }),
    ).toContain("比其 79.2 GiB（减去 7.9 GiB 显存余量）多 13.2 GiB");
    const rules = {
      id: "no strategy: the rules ruled it out",
      args: {},
      parts: [
        {
          id: "candidates a rule ruled out",
          args: {
            reason:
              "data parallel (24) x micro_batch_size (1) does not divide global_batch_size (512)",
            reason_id: "data parallel x micro-batch divides the global batch",
            count: "310",
          },
        },
        {
          id: "candidates a rule ruled out",
          args: { reason: "a launch target's reason", reason_id: "no translation", count: "1" },
        },
      ],
    };
    const stopped = {
      id: "the search stopped early",
      args: {},
      parts: [{ id: "search stopped: time budget", args: { budget_s: "30" } }],
    };
    expect(
      coreText("no strategy divides evenly ...", {
        id: "no strategy at this size",
        args: { num_gpus: "72" },
        parts: [rules, stopped],
      }),
    ).toBe(
      "没有策略能整除并满足 Megatron-LM 的规则；排除候选的原因：" +
        "数据并行（24）× micro_batch_size（1）不能整除 global_batch_size（512）（310 个候选）；" +
        "a launch target's reason（1 个候选）；搜索提前停止（已达到 30 秒的时间预算）",
    );
    expect(
      coreText("no strategy ...", { id: "no strategy at this size", args: { num_gpus: "72" } }),
    ).toBe("在 72 块 GPU 上没有可行的策略");
    expect(
      coreText("no GPU type ...", {
        id: "no strategy: no tensor cores for the precision",
        args: { precision: "fp8" },
      }),
    ).toBe("集群中没有任何 GPU 类型具备 fp8 张量核心");
  });

  it("stay English in English, without an id, or with an id or part not known", () => {
    const text = { id: "GPU type never validated", args: { gpu: "gb300" } };
    expect(coreText("English", text)).toBe("English");
    use("zh");
    expect(coreText("English", undefined)).toBe("English");
    expect(coreText("English", { id: "a text with no translation", args: {} })).toBe("English");
    expect(
      coreText("English", {
        id: "regime with too few runs",
        args: { runs: "3", publishers: "1" },
        parts: [{ id: "a part with no translation", args: {} }],
      }),
    ).toBe("English");
  });
});
