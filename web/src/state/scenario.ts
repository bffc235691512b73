// From the page state to the search request the module takes, checking each
// field first so that a mistake is reported at the field that holds it.
import type { Scenario, SearchRequest } from "../paraplan/types";
import type { Catalogue } from "./catalogue";
import { parseGpuInfos } from "./gpu-infos";
import { parseDecimal, parseInteger } from "./numbers";
import {
  ACTIVATIONS,
  CUSTOM_MODEL,
  CUSTOM_MODEL_FIELDS,
  PRECISIONS,
  type GpuOverrides,
  type PageState,
  type PinnedField,
} from "./page-state";

// A field of the form: a PageState key, "custom.<field>", "pinned.<field>" or "gpu.<type>.<field>".
export type FieldId = string;

export interface FieldError {
  field: FieldId;
  key: string; // message key in i18n/messages.ts
  params?: Record<string, string | number>;
}

export type Built<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const MAX_GPUS = 1 << 24;

class Checker {
  readonly errors: FieldError[] = [];

  fail(field: FieldId, key: string, params?: FieldError["params"]): void {
    this.errors.push({ field, key, params });
  }

  integer(field: FieldId, text: string, min: number, max: number): number {
    const value = parseInteger(text);
    if (text.trim() === "") this.fail(field, "error.required");
    else if (value === null || value < min || value > max)
      this.fail(field, "error.integer", { min, max });
    return value ?? 0;
  }

  optionalInteger(field: FieldId, text: string, min: number, max: number): number | undefined {
    return text.trim() === "" ? undefined : this.integer(field, text, min, max);
  }

  decimal(field: FieldId, text: string, min: number, max: number): number {
    const value = parseDecimal(text);
    if (value === null || value < min || value > max)
      this.fail(field, "error.number", { min, max });
    return value ?? 0;
  }

  choice<T extends string>(field: FieldId, text: string, values: readonly T[]): T {
    const value = values.find((candidate) => candidate === text);
    if (value === undefined) this.fail(field, "error.choice", { values: values.join(", ") });
    return value ?? values[0];
  }
}

function customModel(check: Checker, custom: PageState["custom"]): Record<string, unknown> {
  const dimension = (field: keyof PageState["custom"], max = 1 << 20) =>
    check.integer(`custom.${field}`, custom[field], 1, max);
  const model: Record<string, unknown> = {
    name: custom.name.trim() || "custom",
    num_layers: dimension("num_layers", 100_000),
    hidden_size: dimension("hidden_size"),
    ffn_hidden_size: dimension("ffn_hidden_size"),
    num_attention_heads: dimension("num_attention_heads"),
    vocab_size: dimension("vocab_size", 1 << 24),
    activation: check.choice("custom.activation", custom.activation, ACTIVATIONS),
  };
  const groups = check.optionalInteger(
    "custom.num_query_groups",
    custom.num_query_groups,
    1,
    1 << 20,
  );
  if (groups !== undefined) model.num_query_groups = groups;
  if (custom.num_experts.trim() !== "") {
    const moe: Record<string, number> = {
      num_experts: dimension("num_experts", 1 << 16),
      top_k: dimension("top_k", 1 << 16),
    };
    const optional = [
      ["moe_ffn_hidden_size", 1],
      ["num_shared_experts", 0],
      ["first_k_dense_layers", 0],
    ] as const;
    for (const [field, min] of optional) {
      const value = check.optionalInteger(`custom.${field}`, custom[field], min, 1 << 20);
      if (value !== undefined) moe[field] = value;
    }
    model.moe = moe;
  } else {
    for (const field of [
      "top_k",
      "moe_ffn_hidden_size",
      "num_shared_experts",
      "first_k_dense_layers",
    ] as const) {
      if (custom[field].trim() !== "") check.fail(`custom.${field}`, "error.moeNeedsExperts");
    }
  }
  addOtherFields(check, custom.other_fields, model);
  return model;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The keys of the other_fields JSON object, added to `model` (and its moe) where no
// field of the form has set them; the module checks their values.
function addOtherFields(check: Checker, text: string, model: Record<string, unknown>): void {
  if (text.trim() === "") return;
  let other: unknown;
  try {
    other = JSON.parse(text);
  } catch {
    other = undefined;
  }
  if (!isObject(other)) {
    check.fail("custom.other_fields", "error.jsonObject");
    return;
  }
  const add = (
    target: Record<string, unknown>,
    entries: Record<string, unknown>,
    prefix: string,
  ) => {
    for (const [key, value] of Object.entries(entries)) {
      if (key in target)
        check.fail("custom.other_fields", "error.fieldTwice", {
          key: prefix + key,
        });
      else target[key] = value;
    }
  };
  const { moe, ...rest } = other;
  add(model, rest, "");
  if (moe === undefined) return;
  if (!isObject(moe) || !isObject(model.moe))
    check.fail("custom.other_fields", "error.moeNeedsExperts");
  else add(model.moe, moe, "moe.");
}

// A GPU preset id, or the preset with the user's changes as an inline GPU.
function gpuType(
  check: Checker,
  id: string,
  overrides: GpuOverrides[string] = {},
): Scenario["cluster"]["gpus"][number]["type"] {
  const changes: Record<string, unknown> = {};
  const field = (name: keyof typeof overrides, max: number) =>
    overrides[name] !== undefined && overrides[name] !== ""
      ? check.decimal(`gpu.${id}.${name}`, overrides[name], 0.001, max)
      : undefined;
  const inter = field("inter_gb_per_s", 1e5);
  const intra = field("intra_gb_per_s", 1e5);
  const hbm = field("hbm_gib", 1e5);
  if (inter !== undefined) changes.inter_node = { gb_per_s: inter };
  if (intra !== undefined) changes.intra_node = { gb_per_s: intra };
  if (hbm !== undefined) changes.hbm_gib = hbm;
  return Object.keys(changes).length === 0 ? id : { base: id, id, ...changes };
}

function cluster(check: Checker, state: PageState, catalogue: Catalogue): Scenario["cluster"] {
  const infos = parseGpuInfos(state.cluster);
  const numGpus = check.integer("numGpus", state.numGpus, 1, MAX_GPUS);
  const result: Scenario["cluster"] = { num_gpus: numGpus, gpus: [] };
  const gpusPerNode = check.optionalInteger("gpusPerNode", state.gpusPerNode, 1, 1 << 20);
  if (gpusPerNode !== undefined) result.gpus_per_node = gpusPerNode;
  if (infos.length === 0) {
    check.fail("cluster", "error.clusterEmpty");
    return result;
  }
  const seen = new Set<string>();
  let capped = 0;
  for (const info of infos) {
    const preset = catalogue.gpu(info.type);
    if (info.type === "" || (info.cap !== "" && parseInteger(info.cap) === null)) {
      check.fail("cluster", "error.clusterSyntax");
      return result;
    }
    if (preset === undefined) {
      check.fail("cluster", "error.unknownGpu", {
        value: info.type,
        known: catalogue.presets.gpus.map((gpu) => gpu.id).join(", "),
      });
      return result;
    }
    if (seen.has(preset.id)) {
      check.fail("cluster", "error.duplicateGpu", { value: preset.id });
      return result;
    }
    seen.add(preset.id);
    const cap = info.cap === "" ? numGpus : check.integer("cluster", info.cap, 1, MAX_GPUS);
    capped += cap;
    result.gpus.push({
      type: gpuType(check, preset.id, state.gpuOverrides[preset.id]),
      count: cap,
    });
  }
  if (numGpus > capped && !check.errors.some((error) => error.field === "numGpus")) {
    check.fail("numGpus", "error.tooManyGpus", { n: numGpus, caps: capped });
  }
  return result;
}

const STRATEGY_KEYS: Record<Exclude<PinnedField, "sp" | "recompute" | "zero" | "flash">, string> = {
  tp: "tensor_model_parallel_size",
  pp: "pipeline_model_parallel_size",
  vp: "virtual_pipeline_model_parallel_size",
  cp: "context_parallel_size",
  ep: "expert_model_parallel_size",
  mbs: "micro_batch_size",
};

function pinnedStrategy(check: Checker, pinned: PageState["pinned"]): Record<string, unknown> {
  const strategy: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(STRATEGY_KEYS) as [
    keyof typeof STRATEGY_KEYS,
    string,
  ][]) {
    const value = check.optionalInteger(`pinned.${field}`, pinned[field], 1, 1 << 20);
    if (value !== undefined) strategy[key] = value;
  }
  const zero = check.optionalInteger("pinned.zero", pinned.zero, 0, 3);
  if (zero !== undefined) strategy.zero_stage = zero;
  const flags = [
    ["sp", "sequence_parallel"],
    ["flash", "use_flash_attn"],
  ] as const;
  for (const [field, key] of flags) {
    if (pinned[field] !== "")
      strategy[key] = check.choice(`pinned.${field}`, pinned[field], ["on", "off"]) === "on";
  }
  if (pinned.recompute !== "") {
    strategy.recompute_granularity = check.choice("pinned.recompute", pinned.recompute, [
      "none",
      "selective",
      "full",
    ]);
  }
  return strategy;
}

function buildScenario(state: PageState, catalogue: Catalogue): Built<Scenario> {
  const check = new Checker();
  let model: Scenario["model"] = state.model;
  if (state.model === CUSTOM_MODEL) model = customModel(check, state.custom);
  else if (catalogue.model(state.model) === undefined)
    check.fail("model", "error.unknownModel", { value: state.model });
  const scenario: Scenario = {
    model,
    training: {
      global_batch_size: check.integer("globalBatchSize", state.globalBatchSize, 1, 1 << 30),
      seq_length: check.integer("seqLength", state.seqLength, 1, 1 << 26),
      precision: check.choice("precision", state.precision, PRECISIONS),
    },
    cluster: cluster(check, state, catalogue),
  };
  const strategy = pinnedStrategy(check, state.pinned);
  if (Object.keys(strategy).length > 0) scenario.strategy = strategy;
  return check.errors.length > 0
    ? { ok: false, errors: check.errors }
    : { ok: true, value: scenario };
}

export function buildSearchRequest(state: PageState, catalogue: Catalogue): Built<SearchRequest> {
  const check = new Checker();
  const top = check.integer("top", state.top, 1, 100);
  const budget = check.decimal("timeBudget", state.timeBudget, 1, 600);
  const scenario = buildScenario(state, catalogue);
  const errors = [...(scenario.ok ? [] : scenario.errors), ...check.errors];
  if (!scenario.ok || errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      scenario: scenario.value,
      options: {
        top,
        time_budget_s: budget,
        tp_across_nodes: state.tpAcrossNodes,
      },
    },
  };
}

// The field a module error is about: its message starts with the JSON path of the value.
export function fieldOfModuleError(message: string): FieldId | null {
  const path = message.slice(0, Math.max(0, message.indexOf(": ")));
  const rules: [RegExp, (match: RegExpMatchArray) => FieldId][] = [
    [
      /^model\.(moe\.)?(\w+)/,
      (m) =>
        (CUSTOM_MODEL_FIELDS as readonly string[]).includes(m[2])
          ? `custom.${m[2]}`
          : "custom.other_fields",
    ],
    [/^model/, () => "model"],
    [/^training\.global_batch_size/, () => "globalBatchSize"],
    [/^training\.seq_length/, () => "seqLength"],
    [/^training\.precision/, () => "precision"],
    [/^cluster\.num_gpus/, () => "numGpus"],
    [/^cluster\.gpus_per_node/, () => "gpusPerNode"],
    [/^cluster/, () => "cluster"],
    [/^strategy\.(\w+)/, (m) => pinnedFieldOfKey(m[1])],
    [/^strategy/, () => "pinned.tp"],
  ];
  for (const [pattern, field] of rules) {
    const match = path.match(pattern);
    if (match) return field(match);
  }
  return null;
}

function pinnedFieldOfKey(key: string): FieldId {
  const simple = Object.entries(STRATEGY_KEYS).find(([, name]) => name === key);
  if (simple) return `pinned.${simple[0]}`;
  if (key === "sequence_parallel") return "pinned.sp";
  if (key === "use_flash_attn") return "pinned.flash";
  if (key === "zero_stage") return "pinned.zero";
  if (key.startsWith("recompute")) return "pinned.recompute";
  return "pinned.tp";
}
