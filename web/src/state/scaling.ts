// The scaling view's series: the same job searched at every cluster size from `from` to `to`
// in steps of `step` (paraplan scaling), each GPU type's cap scaled by the core so that a
// mixed cluster keeps its mix; and the series' efficiency cliffs.
import type { ScalingPointResult, ScalingRequest } from "../paraplan/types";
import type { Catalogue } from "./catalogue";
import { Checker, type Built } from "./checker";
import type { ModuleSchema } from "./module-schema";
import type { PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";

// The core's limits (core/include/paraplan/limits.hpp, scaling.hpp), as `paraplan schema`
// reports them under limits.scaling.
export const MAX_SCALING_POINTS = 4096;
export const CLIFF_DROP = 0.15;

// The form's job, checked as for a search, plus the scaling view's range, step and budget.
export function buildScalingRequest(
  state: PageState,
  catalogue: Catalogue,
  schema: ModuleSchema,
): Built<ScalingRequest> {
  const base = buildSearchRequest(state, catalogue, schema);
  const { limits } = schema;
  const check = new Checker();
  const from = check.integer("scaleFrom", state.scaleFrom, limits.scaleGpus);
  const to = check.integer("scaleTo", state.scaleTo, limits.scaleGpus);
  const step = check.integer("scaleStep", state.scaleStep, limits.scaleGpus);
  if (!check.failed("scaleFrom") && !check.failed("scaleTo") && to < from)
    check.fail("scaleTo", "error.scaleRange");
  if (
    !check.failed("scaleFrom") &&
    !check.failed("scaleTo") &&
    !check.failed("scaleStep") &&
    to >= from &&
    Math.floor((to - from) / step) + 1 > MAX_SCALING_POINTS
  )
    check.fail("scaleStep", "error.scalePoints", { max: MAX_SCALING_POINTS });
  const budget = check.decimal("scaleBudget", state.scaleBudget, limits.scaleBudgetS);
  if (!base.ok || check.errors.length > 0)
    return { ok: false, errors: [...(base.ok ? [] : base.errors), ...check.errors] };
  return {
    ok: true,
    value: {
      ...base.value,
      options: { ...base.value.options, top: 1, time_budget_s: budget },
      scaling: { from, to, step, weak: state.scaleWeak },
    },
  };
}

// The sizes of a range, as the core lists them.
export function scalingSizes(from: number, to: number, step: number): number[] {
  const sizes: number[] = [];
  for (let n = from; n <= to; n += step) sizes.push(n);
  return sizes;
}

// Best tokens/s per GPU of a point; 0 when no strategy fits or it is not searched yet.
export function perGpu(point: ScalingPointResult | null): number {
  return point?.best?.estimate.tokens_per_s_per_gpu ?? 0;
}

// The core's rule (find_cliffs, core/src/search/scaling.cpp; the same cases are tested on both
// sides): a point is a cliff when its value is more than CLIFF_DROP below both nearest
// neighbours with a value. Values of 0 (no strategy, not searched) are skipped.
export function findCliffs(values: readonly number[], drop = CLIFF_DROP): boolean[] {
  const cliffs = values.map(() => false);
  const present = values.flatMap((value, index) => (value > 0 ? [index] : []));
  for (let k = 1; k + 1 < present.length; k++) {
    const value = values[present[k]];
    if (value < (1 - drop) * values[present[k - 1]] && value < (1 - drop) * values[present[k + 1]])
      cliffs[present[k]] = true;
  }
  return cliffs;
}
