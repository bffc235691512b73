// From the page state to the search request the module takes, checking each field first
// (state/checker.ts) so that a mistake is reported at the field that holds it.
import { t } from "../i18n/i18n";
import type { Scenario, SearchRequest } from "../paraplan/types";
import type { Catalogue } from "./catalogue";
import { built, Checker, type Built } from "./checker";
import { capField, parseGpuInfos } from "./gpu-infos";
import type { InputLimits, ModuleSchema } from "./module-schema";
import {
  ACTIVATIONS,
  CUSTOM_MODEL,
  DEFAULT_GPU_BASE,
  FRAMEWORKS,
  GPU_DEFINITION_FIELDS,
  PINNED_FIELDS,
  PRECISIONS,
  type GpuOverrides,
  type PageState,
} from "./page-state";

function customModel(
  check: Checker,
  custom: PageState["custom"],
  limits: InputLimits,
): Record<string, unknown> {
  const dimension = (field: keyof PageState["custom"], range = limits.dimension) =>
    check.integer(`custom.${field}`, custom[field], range);
  const model: Record<string, unknown> = {
    name: custom.name.trim() || "custom",
    num_layers: dimension("num_layers", limits.numLayers),
    hidden_size: dimension("hidden_size"),
    ffn_hidden_size: dimension("ffn_hidden_size"),
    num_attention_heads: dimension("num_attention_heads"),
    vocab_size: dimension("vocab_size", limits.vocabSize),
    activation: check.choice("custom.activation", custom.activation, ACTIVATIONS),
  };
  const groups = check.optionalInteger(
    "custom.num_query_groups",
    custom.num_query_groups,
    limits.dimension,
  );
  if (groups !== undefined) model.num_query_groups = groups;
  if (custom.num_experts.trim() !== "") {
    const moe: Record<string, number> = {
      num_experts: dimension("num_experts", limits.numExperts),
      top_k: dimension("top_k", limits.numExperts),
    };
    const optional = [
      ["moe_ffn_hidden_size", limits.dimension],
      ["num_shared_experts", limits.numSharedExperts],
      ["first_k_dense_layers", { min: 0, max: limits.numLayers.max }],
    ] as const;
    for (const [field, range] of optional) {
      const value = check.optionalInteger(`custom.${field}`, custom[field], range);
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

// The custom model of the form, checked field by field (the live parameter count's input).
export function buildCustomModel(
  custom: PageState["custom"],
  limits: InputLimits,
): Built<Record<string, unknown>> {
  const check = new Checker();
  const model = customModel(check, custom, limits);
  return built(model, check.errors);
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
        check.fail("custom.other_fields", "error.fieldTwice", { key: prefix + key });
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

// Whether a GPU type that is no preset is defined from scratch: a base preset for its curves
// and every hardware field; else the one error that says what is missing.
function definesGpu(
  check: Checker,
  id: string,
  overrides: GpuOverrides,
  catalogue: Catalogue,
): boolean {
  const definition = overrides[id];
  if (definition === undefined) {
    check.fail("cluster", "error.unknownGpu", {
      value: id,
      known: catalogue.presets.gpus.map((gpu) => gpu.id).join(", "),
    });
    return false;
  }
  const base = definition.base ?? DEFAULT_GPU_BASE;
  if (catalogue.gpu(base) === undefined) {
    check.fail(`gpu.${id}.base`, "error.unknownGpuBase", { value: base });
    return false;
  }
  const missing = GPU_DEFINITION_FIELDS.filter((field) => (definition[field] ?? "") === "");
  if (missing.length > 0) {
    check.fail(`gpu.${id}.${missing[0]}`, "error.gpuDefinitionMissing", {
      gpu: id,
      fields: missing.map((field) => t(`cluster.${field}`)).join(", "),
    });
    return false;
  }
  return true;
}

// A GPU preset id, or the preset with the user's changes as an inline GPU; a type that is no
// preset is its base preset with every hardware field the user's, under the user's name.
function gpuType(
  check: Checker,
  id: string,
  limits: InputLimits,
  overrides: GpuOverrides[string] = {},
  isPreset = true,
): Scenario["cluster"]["gpus"][number]["type"] {
  const changes: Record<string, unknown> = {};
  const field = (name: keyof typeof overrides) =>
    overrides[name] !== undefined && overrides[name] !== ""
      ? check.decimal(`gpu.${id}.${name}`, overrides[name], limits.gpuOverride)
      : undefined;
  const given = (name: keyof typeof overrides) =>
    overrides[name] !== undefined && overrides[name] !== "";
  const bf16 = field("bf16_tflops");
  const fp8 = field("fp8_tflops");
  const hbm = field("hbm_gib");
  const hbmBandwidth = field("hbm_gb_per_s");
  const intra = field("intra_gb_per_s");
  const inter = field("inter_gb_per_s");
  const nvlinkGpus = given("nvlink_gpus")
    ? check.integer(`gpu.${id}.nvlink_gpus`, overrides.nvlink_gpus ?? "", limits.gpusPerNode)
    : undefined;
  const tensor: Record<string, number> = {};
  if (bf16 !== undefined) Object.assign(tensor, { bf16, fp16: bf16 });
  if (fp8 !== undefined) tensor.fp8 = fp8;
  if (Object.keys(tensor).length > 0) changes.tensor_tflops = tensor;
  if (hbm !== undefined) changes.hbm_gib = hbm;
  if (hbmBandwidth !== undefined) changes.hbm_gb_per_s = hbmBandwidth;
  if (intra !== undefined || nvlinkGpus !== undefined) {
    changes.intra_node = {
      ...(intra !== undefined ? { gb_per_s: intra } : {}),
      ...(nvlinkGpus !== undefined ? { gpus: nvlinkGpus } : {}),
    };
  }
  if (inter !== undefined) changes.inter_node = { gb_per_s: inter };
  if (!isPreset) {
    // Defined from scratch: no fp8 peak unless the user gives one (the base's would be a guess).
    if (fp8 === undefined) changes.tensor_tflops = { ...(changes.tensor_tflops as object), fp8: 0 };
    return { base: overrides.base ?? DEFAULT_GPU_BASE, id, name: id, ...changes };
  }
  return Object.keys(changes).length === 0 ? id : { base: id, id, ...changes };
}

function cluster(
  check: Checker,
  state: PageState,
  catalogue: Catalogue,
  limits: InputLimits,
): Scenario["cluster"] {
  const infos = parseGpuInfos(state.cluster);
  const numGpus = check.integer("numGpus", state.numGpus, limits.numGpus);
  const result: Scenario["cluster"] = { num_gpus: numGpus, gpus: [] };
  const gpusPerNode = check.optionalInteger("gpusPerNode", state.gpusPerNode, limits.gpusPerNode);
  if (gpusPerNode !== undefined) result.gpus_per_node = gpusPerNode;
  if (infos.length === 0) {
    check.fail("cluster", "error.clusterEmpty");
    return result;
  }
  const seen = new Set<string>();
  let capped = 0;
  for (const [index, info] of infos.entries()) {
    if (info.type === "" || info.emptyCap) {
      check.fail("cluster", "error.clusterSyntax");
      return result;
    }
    const preset = catalogue.gpu(info.type);
    const id = preset?.id ?? info.type;
    if (preset === undefined && !definesGpu(check, info.type, state.gpuOverrides, catalogue)) {
      return result;
    }
    if (seen.has(id)) {
      check.fail("cluster", "error.duplicateGpu", { value: id });
      return result;
    }
    seen.add(id);
    // A bad cap is reported at its own box in the GPU editor (capField).
    const cap =
      info.cap === "" ? numGpus : check.integer(capField(index), info.cap, limits.numGpus);
    capped += cap;
    result.gpus.push({
      type: gpuType(check, id, limits, state.gpuOverrides[id], preset !== undefined),
      count: cap,
    });
  }
  const capFailed = infos.some((_, index) => check.failed(capField(index)));
  if (numGpus > capped && !check.failed("numGpus") && !check.failed("cluster") && !capFailed) {
    check.fail("numGpus", "error.tooManyGpus", { n: numGpus, caps: capped });
  }
  return result;
}

function pinnedStrategy(
  check: Checker,
  pinned: PageState["pinned"],
  schema: ModuleSchema,
): Record<string, unknown> {
  const strategy: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) {
    const text = pinned[field];
    if (text === "") continue;
    const rule = schema.pinned[field];
    const id = `pinned.${field}`;
    if (rule.kind === "integer") {
      const value = check.optionalInteger(id, text, rule.range);
      if (value !== undefined) strategy[rule.key] = value;
    } else if (rule.kind === "flag") {
      strategy[rule.key] = check.choice(id, text, ["on", "off"]) === "on";
    } else {
      strategy[rule.key] = check.choice(id, text, rule.values);
    }
  }
  return strategy;
}

export function buildScenario(
  state: PageState,
  catalogue: Catalogue,
  schema: ModuleSchema,
): Built<Scenario> {
  const check = new Checker();
  const { limits } = schema;
  let model: Scenario["model"] = state.model;
  if (state.model === CUSTOM_MODEL) model = customModel(check, state.custom, limits);
  else if (catalogue.model(state.model) === undefined)
    check.fail("model", "error.unknownModel", { value: state.model });
  const scenario: Scenario = {
    model,
    training: {
      global_batch_size: check.integer(
        "globalBatchSize",
        state.globalBatchSize,
        limits.globalBatchSize,
      ),
      seq_length: check.integer("seqLength", state.seqLength, limits.seqLength),
      precision: check.choice("precision", state.precision, PRECISIONS),
    },
    cluster: cluster(check, state, catalogue, limits),
  };
  const strategy = pinnedStrategy(check, state.pinned, schema);
  if (Object.keys(strategy).length > 0) scenario.strategy = strategy;
  // Megatron-LM is the core's default; any other framework restricts the search.
  const framework = check.choice("framework", state.framework, FRAMEWORKS);
  if (framework !== FRAMEWORKS[0]) scenario.framework = framework;
  return built(scenario, check.errors);
}

// The search's memory margin as the core reads it (`--memory-margin`): GiB, or "N%" of each
// GPU's memory; empty leaves the core's default.
function memoryMargin(check: Checker, text: string, schema: ModuleSchema): string | undefined {
  const value = text.trim();
  if (value === "") return undefined;
  const percent = value.endsWith("%");
  const number = percent ? value.slice(0, -1) : value;
  const range = percent ? schema.limits.memoryMarginPercent : schema.limits.memoryMarginGiB;
  if (!/^\d+(\.\d+)?$/.test(number) || Number(number) > range.max) {
    check.fail("memoryMargin", percent ? "error.memoryMarginPercent" : "error.memoryMargin", {
      max: range.max,
    });
    return undefined;
  }
  return value;
}

export function buildSearchRequest(
  state: PageState,
  catalogue: Catalogue,
  schema: ModuleSchema,
): Built<SearchRequest> {
  const check = new Checker();
  const top = check.integer("top", state.top, schema.limits.top);
  const budget = check.decimal("timeBudget", state.timeBudget, schema.limits.timeBudgetS);
  const margin = memoryMargin(check, state.memoryMargin, schema);
  const scenario = buildScenario(state, catalogue, schema);
  const errors = [...(scenario.ok ? [] : scenario.errors), ...check.errors];
  if (!scenario.ok) return { ok: false, errors };
  const options = {
    top,
    time_budget_s: budget,
    tp_across_nodes: state.tpAcrossNodes,
    ...(state.allowAtRisk ? { allow_at_risk: true } : {}),
    ...(margin === undefined ? {} : { memory_margin: margin }),
  };
  return built({ scenario: scenario.value, options }, errors);
}
