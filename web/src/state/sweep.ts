// The hardware sweep view's request: the form's job with one or two GPU parameters swept over
// every GPU type of the cluster (paraplan sweep --sweep NAME=VALUES).
import type { SweepRequest } from "../paraplan/types";
import type { Catalogue } from "./catalogue";
import { Checker, type Built } from "./checker";
import type { ModuleSchema } from "./module-schema";
import type { PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";

// The parameters the core sweeps (hardware_parameters(), core/src/search/sweep.cpp): GPU
// preset keys. The core checks the values.
export const SWEEP_PARAMETERS = [
  "hbm_gib",
  "hbm_gb_per_s",
  "intra_node.gpus",
  "intra_node.gb_per_s",
  "inter_node.gb_per_s",
  "tensor_tflops",
] as const;

const SHAPE = /^([a-z_.]+)=(.+)$/;

export function buildSweepRequest(
  state: PageState,
  catalogue: Catalogue,
  schema: ModuleSchema,
): Built<SweepRequest> {
  const base = buildSearchRequest(state, catalogue, schema);
  const check = new Checker();
  const sweep: string[] = [];
  const names: string[] = [];
  for (const field of ["sweepFirst", "sweepSecond"] as const) {
    const text = state[field].trim();
    if (text === "") {
      if (field === "sweepFirst") check.fail(field, "error.required");
      continue;
    }
    const match = SHAPE.exec(text);
    if (match === null || !(SWEEP_PARAMETERS as readonly string[]).includes(match[1])) {
      check.fail(field, "error.sweepParameter", { names: SWEEP_PARAMETERS.join(", ") });
      continue;
    }
    if (names.includes(match[1])) check.fail(field, "error.sweepTwice");
    names.push(match[1]);
    sweep.push(text);
  }
  const budget = check.decimal("scaleBudget", state.scaleBudget, schema.limits.scaleBudgetS);
  if (!base.ok || check.errors.length > 0)
    return { ok: false, errors: [...(base.ok ? [] : base.errors), ...check.errors] };
  return {
    ok: true,
    value: {
      ...base.value,
      options: { ...base.value.options, top: 1, time_budget_s: budget },
      sweep,
    },
  };
}
