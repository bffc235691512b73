// The results as files: CSV for spreadsheets, JSON with everything.
import type { SearchRequest, SearchResult } from "./paraplan/types";
import { gpusText, recomputeText, stagesText } from "./ui/strategy-text";

const CSV_HEADER = [
  "rank",
  "tokens_per_s_per_gpu",
  "iteration_time_s",
  "mfu",
  "memory_gib_per_gpu",
  "gpus",
  "tp",
  "pp",
  "vp",
  "cp",
  "ep",
  "dp",
  "micro_batch_size",
  "sequence_parallel",
  "recompute",
  "zero_stage",
  "stages",
  "megatron_args",
];

// Quoted as RFC 4180 says; text a spreadsheet would run as a formula gets a leading apostrophe.
function csvCell(value: string | number | boolean): string {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function resultsCsv(result: SearchResult): string {
  const rows = result.strategies.map((ranked) => {
    const s = ranked.strategy;
    const memory = Object.entries(ranked["max-use-mem-size"])
      .filter(([gpu]) => (ranked.gpus_used[gpu] ?? 0) > 0)
      .map(([gpu, gib]) => `${gpu}:${gib.toFixed(2)}`)
      .join(" ");
    return [
      ranked.rank,
      ranked.estimate.tokens_per_s_per_gpu,
      ranked.estimate.iteration_time_s,
      ranked.estimate.mfu,
      memory,
      gpusText(ranked),
      s.tensor_model_parallel_size,
      s.pipeline_model_parallel_size,
      s.virtual_pipeline_model_parallel_size,
      s.context_parallel_size,
      s.expert_model_parallel_size,
      ranked.estimate.data_parallel_size,
      s.micro_batch_size,
      s.sequence_parallel,
      recomputeText(ranked),
      s.zero_stage,
      stagesText(ranked),
      ranked.megatron_args,
    ].map(csvCell);
  });
  return [CSV_HEADER, ...rows].map((row) => row.join(",")).join("\r\n") + "\r\n";
}

export function resultsJson(
  request: SearchRequest,
  result: SearchResult,
  version: string,
  url: string,
): string {
  return JSON.stringify({ paraplan: version, url, request, ...result }, null, 2);
}
