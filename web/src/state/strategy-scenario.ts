// The scenario that reproduces one strategy of a search: every field of the searched job
// (model, training, framework, ...), the GPUs it uses and every strategy key fixed, ready
// for the module's trace() and estimate().
import type { RankedStrategy, Scenario } from "../paraplan/types";

function gpuId(type: Scenario["cluster"]["gpus"][number]["type"]): string {
  return typeof type === "string" ? type : String(type.id);
}

export function scenarioOfStrategy(searched: Scenario, ranked: RankedStrategy): Scenario {
  const gpus = searched.cluster.gpus
    .filter(({ type }) => (ranked.gpus_used[gpuId(type)] ?? 0) > 0)
    .map(({ type }) => ({ type, count: ranked.gpus_used[gpuId(type)] }));
  const used = new Set(gpus.map(({ type }) => gpuId(type)));
  const strategy: Record<string, unknown> = { ...ranked.strategy };
  for (const key of ["recompute_granularity", "recompute_method", "recompute_num_layers"]) {
    const value = strategy[key];
    if (typeof value === "object" && value !== null) {
      strategy[key] = Object.fromEntries(Object.entries(value).filter(([gpu]) => used.has(gpu)));
    }
  }
  const cluster: Scenario["cluster"] = { gpus };
  if (searched.cluster.gpus_per_node !== undefined) {
    cluster.gpus_per_node = searched.cluster.gpus_per_node;
  }
  // Spread first so that a job field added later is carried too: a strategy rebuilt without
  // its framework is judged by Megatron-LM's rules, which may refuse it.
  return { ...searched, cluster, strategy };
}
