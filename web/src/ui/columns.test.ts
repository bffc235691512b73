import { describe, expect, it } from "vitest";
import { rankedStrategy } from "../testing/strategies";
import { COLUMNS, parseSort, sortedStrategies } from "./columns";

const strategies = [
  rankedStrategy({ rank: 1, tokens: 900, mfu: 0.5, tp: 2 }),
  rankedStrategy({ rank: 2, tokens: 880, mfu: 0.55, tp: 1 }),
  rankedStrategy({ rank: 3, tokens: 880, mfu: 0.45, tp: 4 }),
  rankedStrategy({ rank: 4, tokens: 700, mfu: 0.55, tp: 2 }),
];
const ranks = (sort: string) => sortedStrategies(strategies, sort).map((s) => s.rank);

describe("sorting the results table", () => {
  it("keeps the search's ranking without an order, or with one it does not know", () => {
    expect(ranks("")).toEqual([1, 2, 3, 4]);
    expect(ranks("nope:up")).toEqual([1, 2, 3, 4]);
    expect(sortedStrategies(strategies, "")).toBe(strategies);
  });

  it("sorts by a column either way, ties in rank order", () => {
    expect(ranks("mfu:desc")).toEqual([2, 4, 1, 3]);
    expect(ranks("mfu:asc")).toEqual([3, 1, 2, 4]);
    expect(ranks("tokens:asc")).toEqual([4, 2, 3, 1]);
    expect(ranks("tokens:desc")).toEqual([1, 2, 3, 4]);
    expect(ranks("tp:asc")).toEqual([2, 1, 4, 3]);
    expect(ranks("rank:desc")).toEqual([4, 3, 2, 1]);
  });

  it("does not change the strategies it sorts", () => {
    ranks("mfu:desc");
    expect(strategies.map((s) => s.rank)).toEqual([1, 2, 3, 4]);
  });

  it("reads the order from the URL's text", () => {
    expect(parseSort("memory:asc")).toMatchObject({ column: { id: "memory" }, descending: false });
    expect(parseSort("tokens:desc")).toMatchObject({ column: { id: "tokens" }, descending: true });
    expect(parseSort("")).toBeNull();
  });

  it("has one column per id, the better end first for throughput and MFU", () => {
    const ids = COLUMNS.map((column) => column.id);
    expect(new Set(ids).size).toBe(ids.length);
    const first = (id: string) => COLUMNS.find((column) => column.id === id)?.descendingFirst;
    expect([first("tokens"), first("mfu"), first("iteration"), first("memory")]).toEqual([
      true,
      true,
      undefined,
      undefined,
    ]);
  });
});

describe("offloading in the columns", () => {
  const column = (id: string) => COLUMNS.find((c) => c.id === id)!;
  it("marks an optimizer stepped on the CPU beside the ZeRO stage", () => {
    const ranked = rankedStrategy({ rank: 1, tokens: 900, mfu: 0.5, tp: 2 });
    expect(column("zero").text(ranked)).toBe(String(ranked.strategy.zero_stage));
    ranked.strategy.optimizer_cpu_offload = true;
    expect(column("zero").text(ranked)).toBe(`${ranked.strategy.zero_stage}\noptimizer on CPU`);
    expect(column("zero").csv.value(ranked)).toBe(ranked.strategy.zero_stage);
  });

  it("marks MindSpeed's fp32 copy reused beside the ZeRO stage", () => {
    const ranked = rankedStrategy({ rank: 1, tokens: 900, mfu: 0.5, tp: 2 });
    ranked.strategy.reuse_fp32_param = true;
    expect(column("zero").text(ranked)).toBe(`${ranked.strategy.zero_stage}\nfp32 copy reused`);
    ranked.strategy.optimizer_cpu_offload = true;
    expect(column("zero").text(ranked)).toBe(
      `${ranked.strategy.zero_stage}\noptimizer on CPU\nfp32 copy reused`,
    );
    expect(column("zero").csv.value(ranked)).toBe(ranked.strategy.zero_stage);
  });

  it("names the layers whose activations go to the host after the recompute", () => {
    const ranked = rankedStrategy({ rank: 1, tokens: 900, mfu: 0.5, tp: 2 });
    const plain = column("recompute").text(ranked);
    ranked.strategy.cpu_offloading_num_layers = 3;
    expect(column("recompute").text(ranked)).toBe(`${plain}\n3 layers' activations on the host`);
  });

  it("names the submodules whose activations go to the host (fine-grained offloading)", () => {
    const ranked = rankedStrategy({ rank: 1, tokens: 900, mfu: 0.5, tp: 2 });
    const plain = column("recompute").text(ranked);
    ranked.strategy.offload_modules = ["expert_fc1", "moe_act"];
    expect(column("recompute").text(ranked)).toBe(
      `${plain}\nexpert_fc1, moe_act activations on the host`,
    );
  });
});
