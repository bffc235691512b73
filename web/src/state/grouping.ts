// Fewer, more distinct rows: strategies with the same layout (the search's `layout`) whose peak
// memory agrees within
// a tolerance (they differ only in recompute, or in keys that change neither) are grouped
// under the best of them; and the throughput-versus-memory Pareto front.
import type { RankedStrategy } from "../paraplan/types";

export const SAME_MEMORY_GIB = 0.25;

export interface Group {
  best: RankedStrategy;
  variants: RankedStrategy[]; // the others of the group, best first
}

// Groups in the order of their best member; `strategies` ordered best first.
export function groupNearDuplicates(strategies: RankedStrategy[]): Group[] {
  const groups: Group[] = [];
  for (const ranked of strategies) {
    const key = ranked.layout;
    const memory = ranked.estimate.memory.peak_gib_per_gpu;
    const group = groups.find(
      (g) =>
        g.best.layout === key &&
        g.best.estimate.feasible === ranked.estimate.feasible &&
        Math.abs(g.best.estimate.memory.peak_gib_per_gpu - memory) <= SAME_MEMORY_GIB,
    );
    if (group) group.variants.push(ranked);
    else groups.push({ best: ranked, variants: [] });
  }
  return groups;
}

// The feasible strategies no other beats on both throughput and memory, by rising memory.
export function paretoFront(strategies: RankedStrategy[]): RankedStrategy[] {
  const feasible = strategies
    .filter((r) => r.estimate.feasible)
    .sort(
      (a, b) =>
        a.estimate.memory.peak_gib_per_gpu - b.estimate.memory.peak_gib_per_gpu ||
        b.estimate.tokens_per_s_per_gpu - a.estimate.tokens_per_s_per_gpu,
    );
  const front: RankedStrategy[] = [];
  let best = -Infinity;
  for (const ranked of feasible) {
    if (ranked.estimate.tokens_per_s_per_gpu > best) {
      front.push(ranked);
      best = ranked.estimate.tokens_per_s_per_gpu;
    }
  }
  return front;
}
