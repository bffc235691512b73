// The results table's columns: header, cell text, sort key and the order that
// a first click sorts in (best first).
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import type { RankedStrategy } from "../paraplan/types";
import { gib, number, percent, seconds } from "./format";
import { gpusText, recomputeText, stagesText, yesNo } from "./strategy-text";

export interface Column {
  id: string;
  label: MessageKey;
  text: (ranked: RankedStrategy) => string;
  sortKey: (ranked: RankedStrategy) => number | string;
  descendingFirst?: boolean;
  numeric?: boolean;
}

const integerColumn = (
  id: string,
  label: MessageKey,
  value: (r: RankedStrategy) => number,
): Column => ({
  id,
  label,
  text: (r) => String(value(r)),
  sortKey: value,
  numeric: true,
});

// An infeasible strategy in a ranking (which a search should not return) shows no numbers.
const feasibleOnly =
  (text: (ranked: RankedStrategy) => string) =>
  (ranked: RankedStrategy): string =>
    ranked.estimate.feasible ? text(ranked) : "—";

function memoryText(ranked: RankedStrategy): string {
  const memory = Object.entries(ranked["max-use-mem-size"]).filter(
    ([gpu]) => (ranked.gpus_used[gpu] ?? 0) > 0,
  );
  if (memory.length === 1) return gib(memory[0][1]);
  return memory.map(([gpu, value]) => `${gpu} ${gib(value)}`).join("\n");
}

export const COLUMNS: Column[] = [
  integerColumn("rank", "col.rank", (r) => r.rank),
  {
    id: "tokens",
    label: "col.tokens",
    text: (r) =>
      r.estimate.feasible ? number(r.estimate.tokens_per_s_per_gpu, 1) : t("table.infeasible"),
    sortKey: (r) => r.estimate.tokens_per_s_per_gpu,
    descendingFirst: true,
    numeric: true,
  },
  {
    id: "iteration",
    label: "col.iteration",
    text: feasibleOnly((r) => seconds(r.estimate.iteration_time_s)),
    sortKey: (r) => r.estimate.iteration_time_s,
    numeric: true,
  },
  {
    id: "mfu",
    label: "col.mfu",
    text: feasibleOnly((r) => percent(r.estimate.mfu)),
    sortKey: (r) => r.estimate.mfu,
    descendingFirst: true,
    numeric: true,
  },
  {
    id: "memory",
    label: "col.memory",
    text: feasibleOnly(memoryText),
    sortKey: (r) => r.estimate.memory.peak_gib_per_gpu,
    numeric: true,
  },
  {
    id: "gpus",
    label: "col.gpus",
    text: feasibleOnly((r) => gpusText(r, "\n")),
    sortKey: (r) => r.estimate.num_gpus,
    numeric: true,
  },
  integerColumn("tp", "col.tp", (r) => r.strategy.tensor_model_parallel_size),
  integerColumn("pp", "col.pp", (r) => r.strategy.pipeline_model_parallel_size),
  integerColumn("vp", "col.vp", (r) => r.strategy.virtual_pipeline_model_parallel_size),
  integerColumn("cp", "col.cp", (r) => r.strategy.context_parallel_size),
  integerColumn("ep", "col.ep", (r) => r.strategy.expert_model_parallel_size),
  integerColumn("dp", "col.dp", (r) => r.estimate.data_parallel_size),
  integerColumn("mbs", "col.mbs", (r) => r.strategy.micro_batch_size),
  {
    id: "sp",
    label: "col.sp",
    text: (r) => yesNo(r.strategy.sequence_parallel),
    sortKey: (r) => Number(r.strategy.sequence_parallel),
  },
  {
    id: "recompute",
    label: "col.recompute",
    text: (r) => recomputeText(r, "\n"),
    sortKey: (r) => recomputeText(r),
  },
  integerColumn("zero", "col.zero", (r) => r.strategy.zero_stage),
  {
    id: "stages",
    label: "col.stages",
    text: (r) => stagesText(r, "\n"),
    sortKey: (r) => stagesText(r),
  },
];

export function parseSort(sort: string): { column: Column; descending: boolean } | null {
  const [id, direction] = sort.split(":");
  const column = COLUMNS.find((candidate) => candidate.id === id);
  return column ? { column, descending: direction === "desc" } : null;
}

export function sortedStrategies(strategies: RankedStrategy[], sort: string): RankedStrategy[] {
  const order = parseSort(sort);
  if (order === null) return strategies;
  const { column, descending } = order;
  return [...strategies].sort((a, b) => {
    const x = column.sortKey(a);
    const y = column.sortKey(b);
    const compared = x < y ? -1 : x > y ? 1 : a.rank - b.rank;
    return descending && x !== y ? -compared : compared;
  });
}
