import { afterEach, describe, expect, it } from "vitest";
import { setLanguage } from "../i18n/i18n";
import { fieldOfPath, pathOf, placeModuleError } from "./module-errors";
import { moduleSchema } from "./module-schema";

const schema = moduleSchema();
const field = (path: string) => fieldOfPath(path, schema);

describe("placing a module error at its field", () => {
  it("maps each JSON path of the scenario to the field that holds it", () => {
    const cases: [string, string | null][] = [
      ["model", "model"],
      ["model.num_query_groups", "custom.num_query_groups"],
      ["model.num_layers", "custom.num_layers"],
      ["model.moe.top_k", "custom.top_k"],
      ["model.moe", "custom.other_fields"],
      ["model.moe.router_topk_scaling", "custom.other_fields"],
      ["model.multi_latent_attention.kv_lora_rank", "custom.other_fields"],
      ["training.global_batch_size", "globalBatchSize"],
      ["training.seq_length", "seqLength"],
      ["training.precision", "precision"],
      ["cluster.num_gpus", "numGpus"],
      ["cluster.gpus_per_node", "gpusPerNode"],
      ["cluster.gpus[1].type", "cluster"],
      ["cluster.gpus[0].count", "cluster"],
      ["strategy.tensor_model_parallel_size", "pinned.tp"],
      ["strategy.pipeline_model_parallel_size", "pinned.pp"],
      ["strategy.virtual_pipeline_model_parallel_size", "pinned.vp"],
      ["strategy.micro_batch_size", "pinned.mbs"],
      ["strategy.sequence_parallel", "pinned.sp"],
      ["strategy.use_flash_attn", "pinned.flash"],
      ["strategy.zero_stage", "pinned.zero"],
      ["strategy.recompute_granularity", "pinned.recompute"],
      ["strategy.recompute_num_layers", "pinned.recompute"],
      ["strategy.pipeline_stage_layers", "pinned.tp"],
      ["strategy", "pinned.tp"],
      ["", null],
      ["input", null],
      ["options.top", null],
    ];
    for (const [path, expected] of cases) expect(field(path), path).toBe(expected);
  });

  it("uses the error's path, and never reads the message when there is one", () => {
    const message = "model.num_query_groups: must divide num_attention_heads (64), got 7";
    expect(
      placeModuleError(
        { message, path: "model.num_query_groups", detail: "must divide ..." },
        schema,
      ),
    ).toEqual({ field: "custom.num_query_groups", text: message });
    expect(placeModuleError({ message, path: "cluster.num_gpus" }, schema).field).toBe("numGpus");
    expect(placeModuleError({ message, path: "" }, schema)).toEqual({ field: null, text: message });
  });

  it("reads the path from the message only for modules that give none", () => {
    const message =
      "strategy.tensor_model_parallel_size: expected an integer from 1 to 16777216, got 0";
    expect(pathOf({ message })).toBe("strategy.tensor_model_parallel_size");
    expect(placeModuleError({ message }, schema).field).toBe("pinned.tp");
    expect(pathOf({ message: "the calculator's worker failed to start" })).toBe("");
    expect(placeModuleError({ message: "internal error: bad_alloc" }, schema).field).toBeNull();
  });

  describe("in Chinese", () => {
    // setLanguage retranslates a document; these tests have none, so give it an empty root.
    const root = { querySelectorAll: () => [] } as unknown as ParentNode;
    const use = (lang: "en" | "zh") => {
      (globalThis as { document?: unknown }).document ??= { documentElement: {} };
      setLanguage(lang, root);
    };
    afterEach(() => use("en"));

    it("writes the message from its id and values, after its path", () => {
      use("zh");
      const path = "strategy.tensor_model_parallel_size";
      const detail = 'expected an integer from 1 to 16777216, got the string "x"';
      const text = {
        id: "input error: expected an integer in a range",
        args: { min: "1", max: "16777216", got_type: "string", got_value: '"x"' },
      };
      expect(
        placeModuleError({ message: `${path}: ${detail}`, path, detail, text }, schema),
      ).toEqual({
        field: "pinned.tp",
        text: `${path}：应为 1 到 16777216 之间的整数，实际为 字符串 "x"`,
      });
      const unknown = {
        message: 'model.num_layer: unknown key (did you mean "num_layers"?)',
        path: "model.num_layer",
        detail: 'unknown key (did you mean "num_layers"?)',
        text: { id: "input error: unknown key", args: { closest: "num_layers" } },
      };
      expect(placeModuleError(unknown, schema).text).toBe(
        'model.num_layer：未知的键（是否想写 "num_layers"？）',
      );
      // Without an id, or with one the page does not know: the module's English.
      const message = "model.num_query_groups: must divide num_attention_heads (64), got 7";
      expect(placeModuleError({ message, path: "model.num_query_groups" }, schema).text).toBe(
        message,
      );
      expect(
        placeModuleError(
          { message, path: "model.num_query_groups", detail: "x", text: { id: "new", args: {} } },
          schema,
        ).text,
      ).toBe(message);
    });
  });
});
