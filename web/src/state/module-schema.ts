// What the page must know of the module's input rules before it calls the module: the
// numeric limits it checks as the user types, and the strategy keys the form can pin.
//
// The core owns both. Its `info` does not report them yet, so `moduleSchema()` returns the
// copies below (the core's values, from core/src/scenario.cpp, model.cpp and hardware.cpp,
// and the page's own search and scaling options). When the module's info() gains its limits
// and strategy-key schema, read them in `moduleSchema()` and nowhere else.
import type { ModuleInfo } from "../worker/protocol";
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

// The module's input rules. Takes the module's `info` answer, which does not carry them yet.
export function moduleSchema(_info?: ModuleInfo): ModuleSchema {
  return CURRENT_SCHEMA;
}
