// What turns a ranked list into a decision, without the DOM: the strategies to weigh the
// chosen one against (the runner-up and the best of each family), the constraint that binds
// it, and the modified strategies whose reports show how sensitive it is.
import {
  TIME_PARTS,
  type RankedStrategy,
  type Report,
  type SearchResult,
  type Scenario,
  type TimePart,
  type LayoutFamily,
} from "../paraplan/types";

// Families of layouts an engineer weighs against each other, as the search assigns them
// (TP-heavy, PP-heavy, context parallel, ZeRO-3, expert parallel).
export const FAMILIES = [
  "tp",
  "pp",
  "cp",
  "zero3",
  "ep",
] as const satisfies readonly LayoutFamily[];
export type Family = LayoutFamily;

export function inFamily(ranked: RankedStrategy, family: Family): boolean {
  return ranked.families.includes(family);
}

export interface Alternative {
  kind: "runnerUp" | Family;
  ranked: RankedStrategy | null; // null: none of the listed strategies is of the family
  isChosen: boolean; // the chosen strategy is itself the best of the family
  timeDelta: number; // iteration time relative to the chosen one (0.05 = 5% slower)
  memoryDeltaGib: number; // peak memory per GPU minus the chosen one's
}

function compared(
  kind: Alternative["kind"],
  chosen: RankedStrategy,
  other: RankedStrategy | undefined,
): Alternative {
  if (other === undefined)
    return { kind, ranked: null, isChosen: false, timeDelta: 0, memoryDeltaGib: 0 };
  return {
    kind,
    ranked: other,
    isChosen: other === chosen,
    timeDelta: other.estimate.iteration_time_s / chosen.estimate.iteration_time_s - 1,
    memoryDeltaGib:
      other.estimate.memory.peak_gib_per_gpu - chosen.estimate.memory.peak_gib_per_gpu,
  };
}

// The runner-up (the next feasible strategy in the ranking) and the best feasible strategy of each
// family, from a ranking ordered best first. `familyBests`, the search's own bests over every strategy
// it saw, stand for a family; without them a family is looked for among the listed.
export function alternatives(
  strategies: RankedStrategy[],
  chosen: RankedStrategy,
  familyBests: SearchResult["family_bests"] = undefined,
): Alternative[] {
  // In the search's order: a faster strategy may rank lower (at risk of running out of memory,
  // or riskier within the noise), and the runner-up is the next in the ranking.
  const feasible = [...strategies]
    .filter((r) => r.estimate.feasible)
    .sort((a, b) => a.rank - b.rank);
  const runnerUp = feasible.find((r) => r !== chosen);
  const bestOf = (family: Family): RankedStrategy | undefined => {
    const searched = familyBests?.[family];
    if (searched === undefined) return feasible.find((r) => inFamily(r, family));
    // The listed entry itself where the search's best is listed, so that it reads as chosen.
    return strategies.find((r) => r.rank === searched.rank && searched.rank > 0) ?? searched;
  };
  return [
    compared("runnerUp", chosen, runnerUp),
    ...FAMILIES.map((family) => compared(family, chosen, bestOf(family))),
  ];
}

// The modifications of a strategy whose reports the page shows as sensitivities.
export const SENSITIVITIES = ["mbsUp", "recomputeUp", "nodeUp", "nodeDown"] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

function plusOne(value: unknown): unknown {
  if (typeof value === "number") return value + 1;
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plusOne(v)]));
  return value;
}

function recomputeOneMore(strategy: Record<string, unknown>): Record<string, unknown> | null {
  const granularity = strategy.recompute_granularity;
  const gpus =
    typeof granularity === "object" && granularity !== null ? Object.keys(granularity) : null;
  const perGpu = (value: unknown) =>
    gpus === null ? value : Object.fromEntries(gpus.map((gpu) => [gpu, value]));
  const values = gpus === null ? [granularity] : Object.values(granularity as object);
  if (values.every((value) => value === "full")) {
    return { ...strategy, recompute_num_layers: plusOne(strategy.recompute_num_layers) };
  }
  if (values.every((value) => value !== "full")) {
    // From none or selective to recomputing one layer in full (Megatron-LM's block method).
    const next: Record<string, unknown> = {
      ...strategy,
      recompute_granularity: perGpu("full"),
      recompute_method: perGpu("block"),
      recompute_num_layers: perGpu(1),
    };
    delete next.recompute_modules;
    return next;
  }
  return null;
}

// The scenario of `scenario` (a strategy's own, as trace() takes it) with one change, or null
// where the change does not apply (a mixed cluster's node count, recompute mixed by GPU type).
export function modifiedScenario(
  scenario: Scenario,
  change: Sensitivity,
  gpusPerNode: number,
): Scenario | null {
  const strategy = { ...(scenario.strategy ?? {}) };
  const next: Scenario = structuredClone({ ...scenario, strategy });
  switch (change) {
    case "mbsUp":
      next.strategy = { ...strategy, micro_batch_size: Number(strategy.micro_batch_size ?? 1) + 1 };
      return next;
    case "recomputeUp": {
      const modified = recomputeOneMore(strategy);
      if (modified === null) return null;
      next.strategy = modified;
      return next;
    }
    case "nodeUp":
    case "nodeDown": {
      if (next.cluster.gpus.length !== 1) return null;
      const count = nextClusterSize(
        strategy,
        next.cluster.gpus[0].count,
        next.training.global_batch_size,
        gpusPerNode,
        change === "nodeUp" ? 1 : -1,
      );
      if (count === null) return null;
      next.cluster.gpus[0].count = count;
      delete next.cluster.num_gpus;
      return next;
    }
  }
}

function modelParallelSize(strategy: Record<string, unknown>): number {
  const size = (key: string) => Number(strategy[key] ?? 1) || 1;
  return (
    size("tensor_model_parallel_size") *
    size("context_parallel_size") *
    size("pipeline_model_parallel_size")
  );
}

// The nearest cluster size, up or down from `gpus`, in whole nodes, whose data-parallel size
// the global batch still divides into micro-batches (Megatron-LM's rule: global batch a
// multiple of data parallel x micro-batch); null when there is none.
export function nextClusterSize(
  strategy: Record<string, unknown>,
  gpus: number,
  globalBatchSize: number,
  gpusPerNode: number,
  direction: 1 | -1,
): number | null {
  const group = modelParallelSize(strategy);
  const microBatches = globalBatchSize / (Number(strategy.micro_batch_size ?? 1) || 1);
  const dp = Math.floor(gpus / group);
  for (let next = dp + direction; next >= 1 && next <= microBatches; next += direction) {
    const count = next * group;
    if (microBatches % next === 0 && count % gpusPerNode === 0 && count !== gpus) return count;
  }
  return null;
}

export interface Binding {
  kind: "memory" | "compute" | "comm";
  part?: TimePart; // the largest exposed time other than compute, for kind "comm"
  microBatch?: number; // for kind "memory": the micro-batch at which it binds
  share: number; // that part's share of the iteration
}

// What limits the chosen strategy: memory when one more sample per micro-batch does not fit,
// else the largest exposed time other than compute where it takes a tenth of the iteration
// or more, else compute.
export function bindingConstraint(
  report: Report,
  microBatch: number,
  mbsUp: Report | null,
): Binding {
  if (mbsUp !== null && !mbsUp.feasible && outOfMemory(mbsUp)) {
    return { kind: "memory", microBatch, share: 0 };
  }
  const total = report.iteration_time_s;
  const parts = TIME_PARTS.map((name): [TimePart, number] => [
    name,
    report.time_breakdown_s[name] ?? 0,
  ]);
  const [part, time] = parts
    .filter(([name]) => name !== "compute")
    .reduce((a, b) => (b[1] > a[1] ? b : a), ["bubble" as TimePart, 0]);
  if (total > 0 && time / total >= 0.1) return { kind: "comm", part, share: time / total };
  return { kind: "compute", share: total > 0 ? (report.time_breakdown_s.compute ?? 0) / total : 0 };
}

// Whether an infeasible report is out of memory: the peak exceeds the capacity of a stage's GPU.
export function outOfMemory(report: Report): boolean {
  return report.memory.per_stage.some((stage) => stage.peak_gib > stage.capacity_gib);
}
