// Everything the page shows is a function of this state, and all of it lives
// in the URL (see url-state.ts). Inputs are kept as the text the user typed, so
// that an invalid value survives a round trip and is shown with its error.

export const LANGUAGES = ["en", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];

export const VIEWS = ["strategies", "scaling", "sweep"] as const;
export type View = (typeof VIEWS)[number];

export const PRECISIONS = ["bf16", "fp16", "fp8", "fp32"] as const;

// The launch targets (docs/contract.md section 5); the search keeps to what the chosen one can
// express.
export const FRAMEWORKS = [
  "megatron",
  "megatron-bridge",
  "mindspeed-llm",
  "deepspeed",
  "colossalai",
  "torchtitan",
] as const;

// Strategy keys a user may fix; the search explores the others.
export const PINNED_FIELDS = [
  "tp",
  "pp",
  "vp",
  "cp",
  "ep",
  "mbs",
  "sp",
  "recompute",
  "zero",
  "flash",
] as const;
export type PinnedField = (typeof PINNED_FIELDS)[number];

// A model described by its dimensions (Megatron-LM argument names).
export const CUSTOM_MODEL_FIELDS = [
  "name",
  "num_layers",
  "hidden_size",
  "ffn_hidden_size",
  "num_attention_heads",
  "num_query_groups",
  "vocab_size",
  "activation",
  "num_experts",
  "top_k",
  "moe_ffn_hidden_size",
  "num_shared_experts",
  "first_k_dense_layers",
  // Every other key of the scenario's model, as a JSON object (e.g. DeepSeek's
  // multi_latent_attention, untie_embeddings_and_output_weights).
  "other_fields",
] as const;
export type CustomModelField = (typeof CUSTOM_MODEL_FIELDS)[number];
export const ACTIVATIONS = ["swiglu", "gelu", "geglu", "relu", "squared-relu"] as const;
export const CUSTOM_MODEL = "custom";

// Changes to a GPU preset, e.g. a slower network between nodes.
// A GPU type's hardware as the user changes it: with every field set, a GPU defined from scratch
// on the preset's efficiency curves (what fraction of peak its kernels and links reach).
export const GPU_OVERRIDE_FIELDS = [
  "bf16_tflops",
  "fp8_tflops",
  "hbm_gib",
  "hbm_gb_per_s",
  "intra_gb_per_s",
  "nvlink_gpus",
  "inter_gb_per_s",
] as const;
export type GpuOverrideField = (typeof GPU_OVERRIDE_FIELDS)[number];
// The fields a GPU type that is no preset must have: every hardware field but fp8 (a part
// without fp8 leaves it empty).
export const GPU_DEFINITION_FIELDS: readonly GpuOverrideField[] = GPU_OVERRIDE_FIELDS.filter(
  (field) => field !== "fp8_tflops",
);
// The preset whose efficiency curves (what fraction of peak kernels and links reach), memory
// reserve and host a GPU type defined from scratch borrows, unless the user names another.
export const DEFAULT_GPU_BASE = "h100";
// Per GPU type, the user's hardware fields, and for a type that is no preset, `base`.
export type GpuOverrides = Record<
  string,
  Partial<Record<GpuOverrideField, string>> & { base?: string }
>;

export interface PageState {
  lang: Language;
  view: View;
  embed: boolean;
  // A search has been run: opening the page's URL runs it again.
  ran: boolean;
  // Results table order, "column:asc" or "column:desc"; "" is the search's ranking.
  sort: string;
  // Rank of the strategy whose details are open; "" for none.
  selected: string;

  model: string; // a preset id, or CUSTOM_MODEL
  custom: Record<CustomModelField, string>;
  cluster: string; // --gpu-infos syntax: a800:128,h800:160
  gpuOverrides: GpuOverrides;
  gpusPerNode: string; // "" for each GPU's NVLink domain
  numGpus: string;
  globalBatchSize: string;
  seqLength: string;
  precision: string;
  framework: string; // one of FRAMEWORKS
  top: string;
  timeBudget: string;
  memoryMargin: string; // GiB, or "N%"; "" leaves the core's default (4%)
  tpAcrossNodes: boolean;
  allowAtRisk: boolean; // rank by time alone, strategies at risk of running out of memory too
  pinned: Record<PinnedField, string>; // "" leaves the key to the search

  scaleFrom: string;
  scaleTo: string;
  scaleBudget: string;

  // Decision aids (see state/decision.ts, compare.ts, campaign.ts, grouping.ts).
  compare: string; // ranks compared side by side, "3,1"
  group: boolean; // near-duplicate strategies grouped under the best of them
  estimate: boolean; // the page shows the fixed strategy's report, without a search
  trainTokens: string; // tokens of a training campaign, "2T"
  gpuHourPrice: string; // price per GPU-hour, "" for none
  scaleStep: string; // GPUs between cluster sizes
  scaleWeak: boolean; // the global batch grows with the cluster

  // The hardware sweep: "NAME=FROM:TO:STEP" or "NAME=V1,V2,..." (paraplan sweep --sweep).
  sweepFirst: string;
  sweepSecond: string; // "" for a one-parameter sweep
}

function blank<K extends string>(keys: readonly K[]): Record<K, string> {
  return Object.fromEntries(keys.map((key) => [key, ""])) as Record<K, string>;
}

// AIAK example 1: Llama 2 70B on 256 A800s.
export function defaultState(): PageState {
  return {
    lang: "en",
    view: "strategies",
    embed: false,
    ran: false,
    sort: "",
    selected: "",
    model: "llama2-70b",
    custom: blank(CUSTOM_MODEL_FIELDS),
    cluster: "a800:256",
    gpuOverrides: {},
    gpusPerNode: "",
    numGpus: "256",
    globalBatchSize: "512",
    seqLength: "4096",
    precision: "bf16",
    framework: "megatron",
    top: "10",
    timeBudget: "30",
    memoryMargin: "",
    tpAcrossNodes: false,
    allowAtRisk: false,
    pinned: blank(PINNED_FIELDS),
    scaleFrom: "64",
    scaleTo: "4096",
    scaleBudget: "3",
    compare: "",
    group: false,
    estimate: false,
    trainTokens: "1T",
    gpuHourPrice: "",
    scaleStep: "64",
    scaleWeak: false,
    sweepFirst: "hbm_gib=40:200:20",
    sweepSecond: "",
  };
}
