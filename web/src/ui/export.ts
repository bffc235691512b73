// The results as files: CSV for spreadsheets, with the results table's columns (ui/columns.ts)
// and the Megatron-LM arguments; JSON with everything.
import type { RankedStrategy, SearchRequest, SearchResult } from "../paraplan/types";
import { download } from "./clipboard";
import { COLUMNS, type CsvColumn, type CsvValue } from "./columns";

export const CSV_COLUMNS: CsvColumn<RankedStrategy>[] = [
  ...COLUMNS.map((column) => column.csv),
  { header: "megatron_args", value: (ranked) => ranked.megatron_args },
];

// Quoted as RFC 4180 says; text a spreadsheet would run as a formula gets a leading apostrophe.
export function csvCell(value: CsvValue): string {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function resultsCsv(strategies: RankedStrategy[]): string {
  const header = CSV_COLUMNS.map((column) => column.header);
  const rows = strategies.map((ranked) =>
    CSV_COLUMNS.map((column) => csvCell(column.value(ranked))),
  );
  return [header, ...rows].map((row) => row.join(",")).join("\r\n") + "\r\n";
}

export function resultsJson(
  request: SearchRequest,
  result: SearchResult,
  version: string,
  url: string,
): string {
  return JSON.stringify({ paraplan: version, url, request, ...result }, null, 2);
}

// Downloads a search's results; `url` is the page's link, recorded in the JSON.
export function exportResults(
  format: "csv" | "json",
  run: { request: SearchRequest; result: SearchResult },
  version: string,
  url: string,
): void {
  if (format === "csv")
    download("paraplan-strategies.csv", "text/csv", resultsCsv(run.result.strategies));
  else
    download(
      "paraplan-strategies.json",
      "application/json",
      resultsJson(run.request, run.result, version, url),
    );
}
