import { describe, expect, it } from "vitest";
import { rankedStrategy, searchResult } from "../testing/strategies";
import { COLUMNS } from "./columns";
import { CSV_COLUMNS, csvCell, resultsCsv, resultsJson } from "./export";

describe("CSV export", () => {
  it("has the results table's columns, then the Megatron-LM arguments", () => {
    expect(CSV_COLUMNS.map((column) => column.header)).toEqual([
      "rank",
      "tokens_per_s_per_gpu",
      "iteration_time_s",
      "mfu",
      "memory_gib_per_gpu",
      "headroom_gib",
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
      "tokens_per_s_per_gpu_band",
      "megatron_args",
    ]);
    expect(CSV_COLUMNS.slice(0, COLUMNS.length)).toEqual(COLUMNS.map((column) => column.csv));
  });

  it("writes one row per strategy, raw numbers and the GPU types used", () => {
    const csv = resultsCsv([rankedStrategy({ rank: 1, tokens: 1024, tp: 2 })]);
    const lines = csv.split("\r\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(lines[1]).toBe(
      "1,1024,4,0.5,a800:61.00,19,8 a800,2,2,1,1,1,2,1,true,selective,1,a800: 16·16,,'--tensor-model-parallel-size 2",
    );
  });

  it("quotes as RFC 4180 says, and defuses what a spreadsheet would run", () => {
    expect(csvCell('say "hi", then\nstop')).toBe('"say ""hi"", then\nstop"');
    expect(csvCell("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell(-1)).toBe("-1");
    expect(csvCell(false)).toBe("false");
  });
});

describe("JSON export", () => {
  it("holds the version, the link, the request and the whole result", () => {
    const result = searchResult([rankedStrategy({ rank: 1 })], 5);
    const request = {
      scenario: {
        model: "llama2-7b",
        training: { global_batch_size: 8, seq_length: 4096, precision: "bf16" },
        cluster: { gpus: [{ type: "a800", count: 8 }] },
      },
      options: { top: 1, time_budget_s: 1, tp_across_nodes: false },
    };
    const json = JSON.parse(resultsJson(request, result, "1.2.3", "http://x/?run=1"));
    expect(json).toEqual({ paraplan: "1.2.3", url: "http://x/?run=1", request, ...result });
  });
});
