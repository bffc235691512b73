// What the page must know of the module's input rules before it calls the module: the
// numeric limits it checks as the user types, and the strategy keys the form can pin.
//
// The core owns both: `moduleSchema()` reads them from the module's `info` (the core's input
// schema, `paraplan schema`), and nowhere else reads them. The values below are the page's own
// search and scaling options, and the fallbacks for limits the core does not report.
import type { CoreSchema, ModuleInfo, StrategyKeySchema } from "../worker/protocol";
import type { PinnedField } from "./page-state";

export interface Range {
  min: number;
  max: number;
}

export interface InputLimits {
  // training and cluster
  numGpus: Range;
  gpusPerNode: Range;
  globalBatchSize: Range;
  seqLength: Range;
  // a custom model
  numLayers: Range;
  dimension: Range; // hidden and FFN sizes, heads, query groups, expert FFN size
  vocabSize: Range;
  numExperts: Range;
  numSharedExperts: Range;
  // changes to a GPU preset (GB/s, GiB)
  gpuOverride: Range;
  // the page's own options: the search and the scaling view
  top: Range;
  timeBudgetS: Range;
  memoryMarginGiB: Range;
  memoryMarginPercent: Range;
  scaleGpus: Range;
  scaleBudgetS: Range;
}

// How a pinned field of the form becomes a strategy key.
export type PinnedKey =
  | { key: string; kind: "integer"; range: Range }
  | { key: string; kind: "flag" } // "on" / "off"
  | { key: string; kind: "choice"; values: readonly string[] };

export interface ModuleSchema {
  limits: InputLimits;
  pinned: Record<PinnedField, PinnedKey>;
}

const MAX_PARALLEL = 1 << 24;

const CURRENT_SCHEMA: ModuleSchema = {
  limits: {
    numGpus: { min: 1, max: 1 << 24 },
    gpusPerNode: { min: 1, max: 1 << 20 },
    globalBatchSize: { min: 1, max: 1 << 30 },
    seqLength: { min: 1, max: 1 << 26 },
    numLayers: { min: 1, max: 1 << 16 },
    dimension: { min: 1, max: 1 << 24 },
    vocabSize: { min: 1, max: 1 << 30 },
    numExperts: { min: 1, max: 1 << 24 },
    numSharedExperts: { min: 0, max: 1024 },
    gpuOverride: { min: 0.001, max: 1e6 },
    top: { min: 1, max: 100 },
    timeBudgetS: { min: 1, max: 600 },
    memoryMarginGiB: { min: 0, max: 1024 },
    memoryMarginPercent: { min: 0, max: 90 },
    scaleGpus: { min: 1, max: 1 << 20 },
    scaleBudgetS: { min: 0.5, max: 120 },
  },
  pinned: {
    tp: {
      key: "tensor_model_parallel_size",
      kind: "integer",
      range: { min: 1, max: MAX_PARALLEL },
    },
    pp: { key: "pipeline_model_parallel_size", kind: "integer", range: { min: 1, max: 1 << 16 } },
    vp: {
      key: "virtual_pipeline_model_parallel_size",
      kind: "integer",
      range: { min: 1, max: 1 << 16 },
    },
    cp: { key: "context_parallel_size", kind: "integer", range: { min: 1, max: MAX_PARALLEL } },
    ep: {
      key: "expert_model_parallel_size",
      kind: "integer",
      range: { min: 1, max: MAX_PARALLEL },
    },
    mbs: { key: "micro_batch_size", kind: "integer", range: { min: 1, max: 1 << 30 } },
    sp: { key: "sequence_parallel", kind: "flag" },
    recompute: {
      key: "recompute_granularity",
      kind: "choice",
      values: ["none", "selective", "full"],
    },
    zero: { key: "zero_stage", kind: "integer", range: { min: 0, max: 3 } },
    flash: { key: "use_flash_attn", kind: "flag" },
  },
};

function keyRow(schema: CoreSchema, name: string): StrategyKeySchema {
  const row = schema.strategy_keys.find((key) => key.name === name);
  if (!row) throw new Error(`the module's schema has no strategy key ${name}`);
  return row;
}

// A pinned field's key as the core's table defines it.
function pinnedKey(schema: CoreSchema, field: PinnedKey): PinnedKey {
  const row = keyRow(schema, field.key);
  switch (row.type) {
    case "boolean":
      return { key: row.name, kind: "flag" };
    case "choice":
      return { key: row.name, kind: "choice", values: row.choices ?? [] };
    default: {
      const max = row.max_is_num_layers ? schema.limits.max_layers : (row.max ?? MAX_PARALLEL);
      return { key: row.name, kind: "integer", range: { min: row.min ?? 0, max } };
    }
  }
}

// The module's input rules, from its `info` answer (the copies above without one).
export function moduleSchema(info?: ModuleInfo): ModuleSchema {
  const schema = info?.schema;
  if (!schema) return CURRENT_SCHEMA;
  const l = schema.limits;
  const pinned = Object.fromEntries(
    Object.entries(CURRENT_SCHEMA.pinned).map(([field, key]) => [field, pinnedKey(schema, key)]),
  ) as Record<PinnedField, PinnedKey>;
  return {
    limits: {
      ...CURRENT_SCHEMA.limits,
      numGpus: { min: 1, max: l.max_gpus },
      gpusPerNode: { min: 1, max: l.max_gpus_per_node },
      globalBatchSize: { min: 1, max: l.max_global_batch_size },
      seqLength: { min: 1, max: l.max_seq_length },
      numLayers: { min: 1, max: l.max_layers },
      dimension: { min: 1, max: l.max_model_dimension },
      vocabSize: { min: 1, max: l.max_vocab },
    },
    pinned,
  };
}
