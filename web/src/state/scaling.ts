// The scaling view's series: the same job searched on 2^k GPUs, each GPU type's
// cap scaled in proportion, so that a mixed cluster keeps its mix.
import type { SearchRequest } from "../paraplan/types";

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
    scenario: {
      ...base.scenario,
      cluster: { ...cluster, num_gpus: numGpus, gpus },
    },
    options: { ...base.options, top: 1, time_budget_s: budgetS },
  };
}
