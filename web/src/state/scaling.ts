// The scaling view's series: the same job searched on 2^k GPUs, each GPU type's
// cap scaled in proportion, so that a mixed cluster keeps its mix.
import type { SearchRequest } from "../paraplan/types";
import type { Catalogue } from "./catalogue";
import { Checker, type Built } from "./checker";
import type { ModuleSchema } from "./module-schema";
import type { PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";

export interface ScalingSeries {
  counts: number[]; // GPUs at each point
  requests: SearchRequest[]; // one search per point
}

export function gpuCounts(from: number, to: number): number[] {
  const counts: number[] = [];
  for (let n = 2 ** Math.ceil(Math.log2(from)); n <= to; n *= 2) counts.push(n);
  return counts;
}

export function scaledRequest(
  base: SearchRequest,
  numGpus: number,
  budgetS: number,
): SearchRequest {
  const { cluster } = base.scenario;
  const from = cluster.num_gpus ?? cluster.gpus.reduce((sum, gpu) => sum + gpu.count, 0);
  const gpus = cluster.gpus.map((gpu) => ({
    ...gpu,
    count: Math.max(1, Math.ceil((gpu.count * numGpus) / from)),
  }));
  return {
    scenario: { ...base.scenario, cluster: { ...cluster, num_gpus: numGpus, gpus } },
    options: { ...base.options, top: 1, time_budget_s: budgetS },
  };
}

// The form's job, checked as for a search, plus the scaling view's range and budget.
export function buildScalingSeries(
  state: PageState,
  catalogue: Catalogue,
  schema: ModuleSchema,
): Built<ScalingSeries> {
  const base = buildSearchRequest(state, catalogue, schema);
  const { limits } = schema;
  const check = new Checker();
  const from = check.integer("scaleFrom", state.scaleFrom, limits.scaleGpus);
  const to = check.integer("scaleTo", state.scaleTo, limits.scaleGpus);
  if (!check.failed("scaleFrom") && !check.failed("scaleTo") && to < from)
    check.fail("scaleTo", "error.scaleRange");
  const budget = check.decimal("scaleBudget", state.scaleBudget, limits.scaleBudgetS);
  if (!base.ok || check.errors.length > 0)
    return { ok: false, errors: [...(base.ok ? [] : base.errors), ...check.errors] };
  const counts = gpuCounts(from, to);
  return {
    ok: true,
    value: { counts, requests: counts.map((n) => scaledRequest(base.value, n, budget)) },
  };
}
