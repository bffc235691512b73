// The results' columns, one table for the results table and the CSV export: header, cell
// text, sort key and the order a first click sorts in (best first), and the CSV column with
// its raw value.
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import type { TableRow } from "../paraplan/types";
import { gib, number, percent, seconds } from "./format";
import { gpusText, memoryByGpu, recomputeText, stagesText, yesNo } from "./strategy-text";

export type CsvValue = string | number | boolean;

// A column of the table reads a row as the table draws it; the CSV export's own columns read
// whole result rows.
export interface CsvColumn<Row extends TableRow = TableRow> {
  header: string;
  value: (ranked: Row) => CsvValue;
}

export interface Column {
  id: string;
  label: MessageKey;
  text: (ranked: TableRow) => string;
  sortKey: (ranked: TableRow) => number | string;
  descendingFirst?: boolean;
  numeric?: boolean;
  csv: CsvColumn;
}

const integerColumn = (
  id: string,
  label: MessageKey,
  csv: string,
  value: (r: TableRow) => number,
): Column => ({
  id,
  label,
  text: (r) => String(value(r)),
  sortKey: value,
  numeric: true,
  csv: { header: csv, value },
});

// An infeasible strategy in a ranking (which a search should not return) shows no numbers.
const feasibleOnly =
  (text: (ranked: TableRow) => string) =>
  (ranked: TableRow): string =>
    ranked.estimate.feasible ? text(ranked) : "—";

function memoryText(ranked: TableRow): string {
  const memory = memoryByGpu(ranked);
  if (memory.length === 1) return gib(memory[0][1]);
  return memory.map(([gpu, value]) => `${gpu} ${gib(value)}`).join("\n");
}

// The memory verdict before the free memory: ⚠ at risk, ✕ out of memory; without a verdict
// (an older module), ⚠ where less than twice the default margin is free.
function verdictMark(ranked: TableRow): string {
  const verdict = ranked.estimate.memory.verdict;
  if (verdict === undefined) return ranked.tight ? "⚠ " : "";
  return verdict === "fits" ? "" : verdict === "at_risk" ? "⚠ " : "✕ ";
}

export const COLUMNS: Column[] = [
  integerColumn("rank", "col.rank", "rank", (r) => r.rank),
  {
    id: "tokens",
    label: "col.tokens",
    text: (r) =>
      r.estimate.feasible ? number(r.estimate.tokens_per_s_per_gpu, 1) : t("table.infeasible"),
    sortKey: (r) => r.estimate.tokens_per_s_per_gpu,
    descendingFirst: true,
    numeric: true,
    csv: { header: "tokens_per_s_per_gpu", value: (r) => r.estimate.tokens_per_s_per_gpu },
  },
  {
    id: "iteration",
    label: "col.iteration",
    text: feasibleOnly((r) => seconds(r.estimate.iteration_time_s)),
    sortKey: (r) => r.estimate.iteration_time_s,
    numeric: true,
    csv: { header: "iteration_time_s", value: (r) => r.estimate.iteration_time_s },
  },
  {
    id: "mfu",
    label: "col.mfu",
    text: feasibleOnly((r) => percent(r.estimate.mfu)),
    sortKey: (r) => r.estimate.mfu,
    descendingFirst: true,
    numeric: true,
    csv: { header: "mfu", value: (r) => r.estimate.mfu },
  },
  {
    id: "memory",
    label: "col.memory",
    text: feasibleOnly(memoryText),
    sortKey: (r) => r.estimate.memory.peak_gib_per_gpu,
    numeric: true,
    csv: {
      header: "memory_gib_per_gpu",
      value: (r) =>
        memoryByGpu(r)
          .map(([gpu, value]) => `${gpu}:${value.toFixed(2)}`)
          .join(" "),
    },
  },
  {
    id: "headroom",
    label: "col.headroom",
    text: feasibleOnly((r) => verdictMark(r) + gib(r.headroom_gib)),
    sortKey: (r) => r.headroom_gib,
    descendingFirst: true,
    numeric: true,
    csv: { header: "headroom_gib", value: (r) => r.headroom_gib },
  },
  {
    id: "gpus",
    label: "col.gpus",
    text: feasibleOnly((r) => gpusText(r, "\n")),
    sortKey: (r) => r.estimate.num_gpus,
    numeric: true,
    csv: { header: "gpus", value: (r) => gpusText(r) },
  },
  integerColumn("tp", "col.tp", "tp", (r) => r.strategy.tensor_model_parallel_size),
  integerColumn("pp", "col.pp", "pp", (r) => r.strategy.pipeline_model_parallel_size),
  integerColumn("vp", "col.vp", "vp", (r) => r.strategy.virtual_pipeline_model_parallel_size),
  integerColumn("cp", "col.cp", "cp", (r) => r.strategy.context_parallel_size),
  integerColumn("ep", "col.ep", "ep", (r) => r.strategy.expert_model_parallel_size),
  integerColumn("dp", "col.dp", "dp", (r) => r.estimate.data_parallel_size),
  integerColumn("mbs", "col.mbs", "micro_batch_size", (r) => r.strategy.micro_batch_size),
  {
    id: "sp",
    label: "col.sp",
    text: (r) => yesNo(r.strategy.sequence_parallel),
    sortKey: (r) => Number(r.strategy.sequence_parallel),
    csv: { header: "sequence_parallel", value: (r) => r.strategy.sequence_parallel },
  },
  {
    id: "recompute",
    label: "col.recompute",
    text: (r) => recomputeText(r, "\n"),
    sortKey: (r) => recomputeText(r),
    csv: { header: "recompute", value: (r) => recomputeText(r) },
  },
  {
    ...integerColumn("zero", "col.zero", "zero_stage", (r) => r.strategy.zero_stage),
    // The optimizer stepped on the CPU, or MindSpeed's fp32 copy sharing the bf16 weights'
    // memory (the search's answers where GPU memory binds).
    text: (r) =>
      [
        String(r.strategy.zero_stage),
        r.strategy.optimizer_cpu_offload ? t("table.optimizerOnCpu") : "",
        r.strategy.reuse_fp32_param ? t("table.reuseFp32Param") : "",
      ]
        .filter((line) => line !== "")
        .join("\n"),
  },
  {
    id: "stages",
    label: "col.stages",
    text: (r) => stagesText(r, "\n", true),
    sortKey: (r) => stagesText(r),
    csv: { header: "stages", value: (r) => stagesText(r) },
  },
  {
    id: "band",
    label: "col.band",
    text: feasibleOnly((r) => {
      const band = r.estimate.uncertainty?.tokens_per_s_per_gpu;
      return band === undefined ? "—" : `${number(band[0], 0)}–${number(band[1], 0)}`;
    }),
    sortKey: (r) => r.estimate.uncertainty?.tokens_per_s_per_gpu[0] ?? 0,
    descendingFirst: true,
    numeric: true,
    csv: {
      header: "tokens_per_s_per_gpu_band",
      value: (r) => (r.estimate.uncertainty?.tokens_per_s_per_gpu ?? []).join(" "),
    },
  },
];

export function parseSort(sort: string): { column: Column; descending: boolean } | null {
  const [id, direction] = sort.split(":");
  const column = COLUMNS.find((candidate) => candidate.id === id);
  return column ? { column, descending: direction === "desc" } : null;
}

// The strategies in the order `sort` ("column:asc" or "column:desc") gives; ties keep their rank
// order, and an unknown or empty `sort` keeps the search's ranking.
export function sortedStrategies<Row extends TableRow>(strategies: Row[], sort: string): Row[] {
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
