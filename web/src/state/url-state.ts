// The page state as URL query parameters, named after the CLI's flags where
// there is one. decode(encode(state)) gives back the same state.
import {
  CUSTOM_MODEL_FIELDS,
  GPU_OVERRIDE_FIELDS,
  LANGUAGES,
  PINNED_FIELDS,
  VIEWS,
  defaultState,
  type GpuOverrideField,
  type PageState,
} from "./page-state";

type TextKey =
  | "sort"
  | "selected"
  | "model"
  | "cluster"
  | "gpusPerNode"
  | "numGpus"
  | "globalBatchSize"
  | "seqLength"
  | "precision"
  | "framework"
  | "top"
  | "timeBudget"
  | "memoryMargin"
  | "scaleFrom"
  | "scaleTo"
  | "scaleBudget"
  | "compare"
  | "trainTokens"
  | "gpuHourPrice"
  | "scaleStep"
  | "sweepFirst"
  | "sweepSecond";

const TEXT_PARAMS: Record<TextKey, string> = {
  model: "model",
  cluster: "gpu-infos",
  numGpus: "num-gpus",
  gpusPerNode: "nproc-per-node",
  globalBatchSize: "global-batch-size",
  seqLength: "seq-length",
  precision: "precision",
  framework: "framework",
  top: "top",
  timeBudget: "time-budget",
  memoryMargin: "memory-margin",
  sort: "sort",
  selected: "selected",
  scaleFrom: "scale-from",
  scaleTo: "scale-to",
  scaleBudget: "scale-budget",
  compare: "compare",
  trainTokens: "train-tokens",
  gpuHourPrice: "gpu-hour-price",
  scaleStep: "scale-step",
  sweepFirst: "sweep",
  sweepSecond: "sweep-2",
};
// Written even at their defaults, so that a shared link keeps meaning the same job.
const ALWAYS_WRITTEN: TextKey[] = [
  "model",
  "cluster",
  "numGpus",
  "globalBatchSize",
  "seqLength",
  "precision",
];
const FLAG_PARAMS = {
  embed: "embed",
  ran: "run",
  tpAcrossNodes: "tp-across-nodes",
  allowAtRisk: "allow-at-risk",
  group: "group",
  estimate: "estimate",
  scaleWeak: "scale-weak",
} as const;
const CUSTOM_PREFIX = "m.";
const GPU_PREFIX = "gpu.";
const GPU_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export function encodeState(state: PageState): URLSearchParams {
  const defaults = defaultState();
  const params = new URLSearchParams();
  params.set("lang", state.lang);
  if (state.view !== defaults.view) params.set("view", state.view);
  for (const [key, name] of Object.entries(TEXT_PARAMS) as [TextKey, string][]) {
    if (ALWAYS_WRITTEN.includes(key) || state[key] !== defaults[key]) params.set(name, state[key]);
  }
  for (const [key, name] of Object.entries(FLAG_PARAMS) as [keyof typeof FLAG_PARAMS, string][]) {
    if (state[key]) params.set(name, "1");
  }
  for (const field of PINNED_FIELDS) {
    if (state.pinned[field] !== "") params.set(field, state.pinned[field]);
  }
  for (const field of CUSTOM_MODEL_FIELDS) {
    if (state.custom[field] !== "") params.set(CUSTOM_PREFIX + field, state.custom[field]);
  }
  for (const [gpu, overrides] of Object.entries(state.gpuOverrides)) {
    for (const [field, value] of Object.entries(overrides)) {
      if (value !== undefined && value !== "") params.set(`${GPU_PREFIX}${gpu}.${field}`, value);
    }
  }
  return params;
}

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return values.find((candidate) => candidate === value) ?? fallback;
}

export function decodeState(params: URLSearchParams, preferredLanguage = "en"): PageState {
  const state = defaultState();
  state.lang = oneOf(LANGUAGES, params.get("lang") ?? preferredLanguage, "en");
  state.view = oneOf(VIEWS, params.get("view"), state.view);
  for (const [key, name] of Object.entries(TEXT_PARAMS) as [TextKey, string][]) {
    state[key] = params.get(name) ?? state[key];
  }
  for (const [key, name] of Object.entries(FLAG_PARAMS) as [keyof typeof FLAG_PARAMS, string][]) {
    state[key] = params.get(name) === "1";
  }
  for (const field of PINNED_FIELDS) state.pinned[field] = params.get(field) ?? "";
  for (const field of CUSTOM_MODEL_FIELDS) {
    state.custom[field] = params.get(CUSTOM_PREFIX + field) ?? "";
  }
  for (const [name, value] of params) {
    if (!name.startsWith(GPU_PREFIX) || value === "") continue;
    const rest = name.slice(GPU_PREFIX.length);
    const dot = rest.lastIndexOf(".");
    const gpu = rest.slice(0, dot);
    const fieldName = rest.slice(dot + 1);
    if (!GPU_ID.test(gpu)) continue;
    if (fieldName === "base") {
      // The preset a GPU type defined from scratch borrows its curves from.
      if (GPU_ID.test(value)) state.gpuOverrides[gpu] = { ...state.gpuOverrides[gpu], base: value };
      continue;
    }
    const field = GPU_OVERRIDE_FIELDS.find((candidate) => candidate === fieldName);
    if (field === undefined) continue;
    state.gpuOverrides[gpu] = {
      ...state.gpuOverrides[gpu],
      [field as GpuOverrideField]: value,
    };
  }
  return state;
}
