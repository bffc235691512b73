import { describe, expect, it } from "vitest";
import { t } from "../i18n/i18n";
import { catalogue } from "../testing/presets";
import { Checker, type FieldError } from "./checker";
import { moduleSchema } from "./module-schema";
import { defaultState, type PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";

const schema = moduleSchema();

function errorsOf(change: (state: PageState) => void): FieldError[] {
  const state = defaultState();
  change(state);
  const built = buildSearchRequest(state, catalogue, schema);
  return built.ok ? [] : built.errors;
}

describe("Checker", () => {
  it("reads whole numbers within their range", () => {
    const check = new Checker();
    expect(check.integer("a", " 12 ", { min: 1, max: 16 })).toBe(12);
    expect(check.integer("b", "16", { min: 1, max: 16 })).toBe(16);
    expect(check.errors).toEqual([]);
  });

  it("says what is wrong with a whole number", () => {
    const check = new Checker();
    check.integer("empty", "  ", { min: 1, max: 16 });
    check.integer("text", "25x", { min: 1, max: 16 });
    check.integer("low", "0", { min: 1, max: 16 });
    check.integer("high", "17", { min: 1, max: 16 });
    check.integer("exponent", "1e3", { min: 1, max: 2000 });
    check.integer("negative", "-5", { min: -10, max: 16 });
    expect(check.errors).toEqual([
      { field: "empty", key: "error.required", params: undefined },
      { field: "text", key: "error.integer", params: { min: 1, max: 16 } },
      { field: "low", key: "error.integer", params: { min: 1, max: 16 } },
      { field: "high", key: "error.integer", params: { min: 1, max: 16 } },
      { field: "exponent", key: "error.integer", params: { min: 1, max: 2000 } },
      { field: "negative", key: "error.integer", params: { min: -10, max: 16 } },
    ]);
    expect(check.failed("low")).toBe(true);
    expect(check.failed("other")).toBe(false);
  });

  it("leaves an empty optional integer out", () => {
    const check = new Checker();
    expect(check.optionalInteger("a", "", { min: 1, max: 2 })).toBeUndefined();
    expect(check.optionalInteger("b", "3", { min: 1, max: 2 })).toBe(3);
    expect(check.errors.map((error) => error.field)).toEqual(["b"]);
  });

  it("reads decimals and choices", () => {
    const check = new Checker();
    expect(check.decimal("a", "0.5", { min: 0.5, max: 120 })).toBe(0.5);
    check.decimal("b", "0.4", { min: 0.5, max: 120 });
    check.decimal("c", "1e2", { min: 0.5, max: 120 });
    expect(check.choice("d", "fp8", ["bf16", "fp8"])).toBe("fp8");
    check.choice("e", "FP8", ["bf16", "fp8"]);
    expect(check.errors).toEqual([
      { field: "b", key: "error.number", params: { min: 0.5, max: 120 } },
      { field: "c", key: "error.number", params: { min: 0.5, max: 120 } },
      { field: "e", key: "error.choice", params: { values: "bf16, fp8" } },
    ]);
  });

  it("gives messages that name the limits", () => {
    const [error] = errorsOf((s) => (s.numGpus = "0"));
    expect(t(error.key, error.params)).toBe("Enter a whole number from 1 to 16777216");
  });
});

describe("the search request", () => {
  it("is the module's request for the default job", () => {
    const built = buildSearchRequest(defaultState(), catalogue, schema);
    expect(built).toEqual({
      ok: true,
      value: {
        scenario: {
          model: "llama2-70b",
          training: { global_batch_size: 512, seq_length: 4096, precision: "bf16" },
          cluster: { num_gpus: 256, gpus: [{ type: "a800", count: 256 }] },
        },
        options: { top: 10, time_budget_s: 30, tp_across_nodes: false },
      },
    });
  });

  it("asks for time alone, at-risk strategies too, only when the user does", () => {
    const built = buildSearchRequest({ ...defaultState(), allowAtRisk: true }, catalogue, schema);
    expect(built.ok && built.value.options.allow_at_risk).toBe(true);
  });

  it("checks every field against the core's limits", () => {
    const fields = (change: (state: PageState) => void) =>
      errorsOf(change).map(({ field, key, params }) => [field, key, params?.max]);
    expect(fields((s) => (s.numGpus = String(2 ** 24 + 1)))).toEqual([
      ["numGpus", "error.integer", 2 ** 24],
    ]);
    expect(fields((s) => (s.globalBatchSize = String(2 ** 30 + 1)))).toEqual([
      ["globalBatchSize", "error.integer", 2 ** 30],
    ]);
    expect(fields((s) => (s.seqLength = String(2 ** 26 + 1)))).toEqual([
      ["seqLength", "error.integer", 2 ** 26],
    ]);
    expect(fields((s) => (s.gpusPerNode = String(2 ** 20 + 1)))).toEqual([
      ["gpusPerNode", "error.integer", 2 ** 20],
    ]);
    expect(fields((s) => ((s.top = "101"), (s.timeBudget = "0.5")))).toEqual([
      ["top", "error.integer", 100],
      ["timeBudget", "error.number", 600],
    ]);
    expect(fields((s) => (s.precision = "int4"))).toEqual([
      ["precision", "error.choice", undefined],
    ]);
  });

  it("checks a custom model's dimensions, 65536 layers at most as in the core", () => {
    const custom = (change: (state: PageState) => void) =>
      errorsOf((s) => {
        s.model = "custom";
        Object.assign(s.custom, {
          num_layers: "80",
          hidden_size: "8192",
          ffn_hidden_size: "28672",
          num_attention_heads: "64",
          vocab_size: "32000",
          activation: "swiglu",
        });
        change(s);
      }).map(({ field, key }) => `${field} ${key}`);
    expect(custom(() => {})).toEqual([]);
    expect(custom((s) => (s.custom.num_layers = "65537"))).toEqual([
      "custom.num_layers error.integer",
    ]);
    expect(custom((s) => (s.custom.num_layers = "65536"))).toEqual([]);
    expect(custom((s) => (s.custom.top_k = "2"))).toEqual(["custom.top_k error.moeNeedsExperts"]);
    expect(custom((s) => (s.custom.other_fields = '{"add_bias_linear": tru'))).toEqual([
      "custom.other_fields error.jsonObject",
    ]);
    expect(custom((s) => (s.custom.other_fields = '{"num_layers": 4}'))).toEqual([
      "custom.other_fields error.fieldTwice",
    ]);
    expect(custom((s) => (s.custom.activation = "tanh"))).toEqual([
      "custom.activation error.choice",
    ]);
  });

  it("turns pinned fields into strategy keys", () => {
    const state = defaultState();
    Object.assign(state.pinned, { tp: "8", sp: "on", flash: "off", recompute: "full", zero: "0" });
    const built = buildSearchRequest(state, catalogue, schema);
    expect(built.ok && built.value.scenario.strategy).toEqual({
      tensor_model_parallel_size: 8,
      sequence_parallel: true,
      recompute_granularity: "full",
      zero_stage: 0,
      use_flash_attn: false,
    });
    expect(
      errorsOf((s) => Object.assign(s.pinned, { zero: "4", sp: "yes", pp: "0" })).map(
        ({ field, key }) => `${field} ${key}`,
      ),
    ).toEqual(["pinned.pp error.integer", "pinned.sp error.choice", "pinned.zero error.integer"]);
  });

  it("sends a changed GPU preset as an inline GPU", () => {
    const state = defaultState();
    state.cluster = "a800:128,h800:160";
    state.gpuOverrides = { h800: { inter_gb_per_s: "12.5", hbm_gib: "" } };
    const built = buildSearchRequest(state, catalogue, schema);
    expect(built.ok && built.value.scenario.cluster.gpus).toEqual([
      { type: "a800", count: 128 },
      { type: { base: "h800", id: "h800", inter_node: { gb_per_s: 12.5 } }, count: 160 },
    ]);
    expect(
      errorsOf((s) => {
        s.cluster = "a800";
        s.gpuOverrides = { a800: { hbm_gib: "lots" } };
      }),
    ).toEqual([
      { field: "gpu.a800.hbm_gib", key: "error.number", params: { min: 0.001, max: 1e6 } },
    ]);
  });

  it("defines a GPU from scratch on a preset's efficiency curves", () => {
    const state = defaultState();
    state.cluster = "h100:64";
    state.numGpus = "64";
    state.gpuOverrides = {
      h100: {
        bf16_tflops: "2250",
        fp8_tflops: "4500",
        hbm_gib: "180",
        hbm_gb_per_s: "8000",
        intra_gb_per_s: "900",
        nvlink_gpus: "72",
        inter_gb_per_s: "100",
      },
    };
    const built = buildSearchRequest(state, catalogue, schema);
    expect(built.ok && built.value.scenario.cluster.gpus).toEqual([
      {
        type: {
          base: "h100",
          id: "h100",
          tensor_tflops: { bf16: 2250, fp16: 2250, fp8: 4500 },
          hbm_gib: 180,
          hbm_gb_per_s: 8000,
          intra_node: { gb_per_s: 900, gpus: 72 },
          inter_node: { gb_per_s: 100 },
        },
        count: 64,
      },
    ]);
    expect(
      errorsOf((s) => {
        s.cluster = "h100";
        s.gpuOverrides = { h100: { nvlink_gpus: "7.5" } };
      }).map(({ field, key }) => `${field} ${key}`),
    ).toEqual(["gpu.h100.nvlink_gpus error.integer"]);
  });
});
