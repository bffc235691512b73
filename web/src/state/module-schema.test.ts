import { describe, expect, it } from "vitest";
import type { CoreSchema, ModuleInfo } from "../worker/protocol";
import { moduleSchema } from "./module-schema";

// The shape `paraplan schema` prints (core/src/input/request.cpp), with limits unlike the
// fallbacks so a value read from elsewhere shows.
const core: CoreSchema = {
  limits: {
    max_gpus: 1000,
    max_gpus_per_node: 72,
    max_global_batch_size: 4096,
    max_seq_length: 131072,
    max_layers: 200,
    max_model_dimension: 65536,
    max_vocab: 500000,
  },
  strategy_keys: [
    { name: "tensor_model_parallel_size", type: "integer", min: 1, max: 64 },
    { name: "pipeline_model_parallel_size", type: "integer", min: 1, max_is_num_layers: true },
    {
      name: "virtual_pipeline_model_parallel_size",
      type: "integer",
      min: 1,
      max_is_num_layers: true,
    },
    { name: "context_parallel_size", type: "integer", min: 1, max: 32 },
    { name: "expert_model_parallel_size", type: "integer", min: 1, max: 256 },
    { name: "micro_batch_size", type: "integer", min: 1, max: 512 },
    { name: "sequence_parallel", type: "boolean" },
    { name: "recompute_granularity", type: "choice", choices: ["none", "selective", "full"] },
    { name: "zero_stage", type: "integer", min: 0, max: 3 },
    { name: "use_flash_attn", type: "boolean" },
  ],
};
const info = (schema: CoreSchema): ModuleInfo => ({
  version: "test",
  presets: { models: [], gpus: [] } as unknown as ModuleInfo["presets"],
  schema,
});

describe("the module's input schema", () => {
  it("limits come from the module, the page's own options stay", () => {
    const schema = moduleSchema(info(core));
    expect(schema.limits.numGpus.max).toBe(1000);
    expect(schema.limits.gpusPerNode.max).toBe(72);
    expect(schema.limits.numLayers.max).toBe(200);
    expect(schema.limits.vocabSize.max).toBe(500000);
    expect(schema.limits.top).toEqual(moduleSchema().limits.top);
  });

  it("pinned keys take their kind and range from the module's key table", () => {
    const { pinned } = moduleSchema(info(core));
    expect(pinned.tp).toEqual({
      key: "tensor_model_parallel_size",
      kind: "integer",
      range: { min: 1, max: 64 },
    });
    expect(pinned.pp).toEqual({
      key: "pipeline_model_parallel_size",
      kind: "integer",
      range: { min: 1, max: 200 },
    });
    expect(pinned.sp).toEqual({ key: "sequence_parallel", kind: "flag" });
    expect(pinned.recompute).toEqual({
      key: "recompute_granularity",
      kind: "choice",
      values: ["none", "selective", "full"],
    });
  });

  it("a module without a pinned field's key is an error, not a silent default", () => {
    const missing = { ...core, strategy_keys: core.strategy_keys.slice(1) };
    expect(() => moduleSchema(info(missing))).toThrow(/tensor_model_parallel_size/);
  });
});
