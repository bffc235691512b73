import { describe, expect, it } from "vitest";
import type { LayoutFamily as Family, Report, Scenario } from "../paraplan/types";
import { rankedStrategy } from "../testing/strategies";
import { comparedRanks, toggleCompared } from "./compare";
import { campaign, parsePrice, parseTokens } from "./campaign";
import {
  alternatives,
  bindingConstraint,
  inFamily,
  modifiedScenario,
  nextClusterSize,
} from "./decision";
import { groupNearDuplicates, paretoFront } from "./grouping";

function withLayout(
  rank: number,
  tokens: number,
  change: (s: Record<string, unknown>) => void,
  families: Family[] = [],
) {
  const ranked = rankedStrategy({ rank, tokens, families });
  change(ranked.strategy as unknown as Record<string, unknown>);
  return ranked;
}

describe("why this strategy", () => {
  const chosen = withLayout(1, 1200, () => {});
  const runnerUp = withLayout(2, 1100, () => {});
  const tpHeavy = withLayout(3, 1000, (s) => (s.tensor_model_parallel_size = 8), ["tp"]);
  const zero3 = withLayout(4, 900, (s) => (s.zero_stage = 3), ["zero3"]);
  const infeasibleCp = rankedStrategy({ rank: 5, tokens: 2000, feasible: false, families: ["cp"] });
  (infeasibleCp.strategy as { context_parallel_size: number }).context_parallel_size = 2;
  const list = [chosen, runnerUp, tpHeavy, zero3, infeasibleCp];

  it("names the runner-up and the best feasible strategy of each family, with differences", () => {
    const found = Object.fromEntries(alternatives(list, chosen).map((a) => [a.kind, a]));
    expect(found.runnerUp.ranked?.rank).toBe(2);
    expect(found.runnerUp.timeDelta).toBeCloseTo(1200 / 1100 - 1, 6);
    expect(found.runnerUp.memoryDeltaGib).toBeCloseTo(1, 6); // 62 - 61 GiB
    expect(found.tp.ranked?.rank).toBe(3);
    expect(found.zero3.ranked?.rank).toBe(4);
    expect(found.cp.ranked).toBeNull(); // the only CP strategy does not fit
    expect(found.pp.ranked).toBeNull();
    expect(found.ep.ranked).toBeNull();
  });

  it("takes each family's best from the whole search where the search gives it", () => {
    // The listed rows hold no PP-heavy strategy; the search saw one (not listed: rank 0).
    const ppHeavy = withLayout(0, 700, (s) => (s.pipeline_model_parallel_size = 8), ["pp"]);
    const found = Object.fromEntries(
      alternatives(list, chosen, { pp: ppHeavy, tp: tpHeavy }).map((a) => [a.kind, a]),
    );
    expect(found.pp.ranked).toBe(ppHeavy);
    expect(found.pp.timeDelta).toBeCloseTo(1200 / 700 - 1, 6);
    expect(found.tp.ranked).toBe(tpHeavy); // listed: the listed entry itself
    expect(found.cp.ranked).toBeNull(); // the search saw none that fits
  });

  it("marks the chosen strategy when it is the best of its family", () => {
    const found = alternatives(list, tpHeavy).find((a) => a.kind === "tp");
    expect(found?.isChosen).toBe(true);
    expect(alternatives(list, tpHeavy)[0].ranked?.rank).toBe(1);
  });

  it("takes each strategy's families from the search", () => {
    // The rules themselves are the core's (tests/unit/search/search_test.cpp).
    expect(inFamily(tpHeavy, "tp")).toBe(true);
    expect(inFamily(chosen, "tp")).toBe(false);
    expect(
      inFamily(
        withLayout(9, 1, () => {}, ["pp", "ep"]),
        "ep",
      ),
    ).toBe(true);
  });

  it("finds the binding constraint", () => {
    const report = structuredClone(chosen.estimate);
    expect(bindingConstraint(report, 1, null).kind).toBe("compute");
    report.time_breakdown_s.tp_comm = 0.5;
    report.iteration_time_s = 1.5;
    const comm = bindingConstraint(report, 1, null);
    expect(comm).toMatchObject({ kind: "comm", part: "tp_comm" });
    expect(comm.share).toBeCloseTo(1 / 3, 6);
    const oom: Report = structuredClone(report);
    oom.feasible = false;
    oom.memory.per_stage = [
      {
        gpu: "a800",
        layers: 40,
        peak_gib: 90,
        capacity_gib: 80,
        weights_gib: 0,
        gradients_gib: 0,
        optimizer_gib: 0,
        activations_gib: 0,
        other_gib: 0,
        in_flight_micro_batches: 1,
      },
    ];
    expect(bindingConstraint(report, 2, oom)).toMatchObject({ kind: "memory", microBatch: 2 });
    oom.memory.per_stage[0].peak_gib = 70; // infeasible for another reason
    expect(bindingConstraint(report, 2, oom).kind).toBe("comm");
  });
});

describe("sensitivities", () => {
  const scenario: Scenario = {
    model: "llama2-70b",
    training: { global_batch_size: 512, seq_length: 4096, precision: "bf16" },
    cluster: { gpus: [{ type: "a800", count: 256 }] },
    strategy: {
      micro_batch_size: 1,
      recompute_granularity: "selective",
      recompute_method: "uniform",
      recompute_num_layers: 1,
    },
  };

  it("changes one thing and leaves the original alone", () => {
    expect(modifiedScenario(scenario, "mbsUp", 8)?.strategy?.micro_batch_size).toBe(2);
    expect(modifiedScenario(scenario, "nodeUp", 8)?.cluster.gpus[0].count).toBe(512);
    expect(modifiedScenario(scenario, "nodeDown", 8)?.cluster.gpus[0].count).toBe(128);
    expect(scenario.cluster.gpus[0].count).toBe(256);
    expect(scenario.strategy?.micro_batch_size).toBe(1);
  });

  it("recomputes one more layer: from selective to one full layer, and n to n + 1", () => {
    const one = modifiedScenario(scenario, "recomputeUp", 8);
    expect(one?.strategy).toMatchObject({
      recompute_granularity: "full",
      recompute_method: "block",
      recompute_num_layers: 1,
    });
    const two = modifiedScenario(one!, "recomputeUp", 8);
    expect(two?.strategy?.recompute_num_layers).toBe(2);
    const perGpu = structuredClone(one!);
    perGpu.strategy!.recompute_granularity = { a800: "full", h800: "full" };
    perGpu.strategy!.recompute_num_layers = { a800: 3, h800: 5 };
    expect(modifiedScenario(perGpu, "recomputeUp", 8)?.strategy?.recompute_num_layers).toEqual({
      a800: 4,
      h800: 6,
    });
  });

  it("moves to the nearest cluster size in whole nodes that the batch still divides", () => {
    const tp8pp2 = { tensor_model_parallel_size: 8, pipeline_model_parallel_size: 2 };
    // 256 GPUs = DP 16; 512 / 1 micro-batches divide by DP 32 and 8, not 17..31 nor 9..15.
    expect(nextClusterSize(tp8pp2, 256, 512, 8, 1)).toBe(512);
    expect(nextClusterSize(tp8pp2, 256, 512, 8, -1)).toBe(128);
    expect(nextClusterSize(tp8pp2, 256, 48, 8, 1)).toBe(384); // DP 24 divides 48
    expect(nextClusterSize({ ...tp8pp2, micro_batch_size: 2 }, 256, 32, 8, 1)).toBeNull();
    expect(nextClusterSize(tp8pp2, 16, 512, 8, -1)).toBeNull(); // DP 1 already
  });

  it("does not change the node count of a mixed cluster, nor go below one GPU", () => {
    const mixed = structuredClone(scenario);
    mixed.cluster.gpus.push({ type: "h800", count: 8 });
    expect(modifiedScenario(mixed, "nodeUp", 8)).toBeNull();
    const small = structuredClone(scenario);
    small.cluster.gpus[0].count = 8;
    expect(modifiedScenario(small, "nodeDown", 8)).toBeNull();
  });
});

describe("a training campaign", () => {
  it("reads token counts with suffixes", () => {
    expect(parseTokens("2T")).toBe(2e12);
    expect(parseTokens("300b")).toBe(3e11);
    expect(parseTokens("1.5e12")).toBe(1.5e12);
    expect(parseTokens("0")).toBeNull();
    expect(parseTokens("lots")).toBeNull();
    expect(parsePrice("")).toBeUndefined();
    expect(parsePrice("-1")).toBeNull();
    expect(parsePrice("2.5")).toBe(2.5);
  });

  it("gives days, GPU-hours and cost", () => {
    // 1e12 tokens at 1000 tokens/s/GPU on 1000 GPUs: 1e6 s, 11.57 days, 277,778 GPU-hours.
    const result = campaign(1e12, 1000, 1000, 2)!;
    expect(result.seconds).toBeCloseTo(1e6, 3);
    expect(result.days).toBeCloseTo(1e6 / 86400, 6);
    expect(result.gpuHours).toBeCloseTo(1e9 / 3600, 3);
    expect(result.cost).toBeCloseTo((2 * 1e9) / 3600, 3);
    expect(campaign(1e12, 1000, 1000)?.cost).toBeNull();
    expect(campaign(1e12, 0, 1000)).toBeNull();
  });
});

describe("the comparison", () => {
  it("keeps up to three distinct ranks", () => {
    expect(comparedRanks("3,1,3,x,,0,7,9")).toEqual([3, 1, 7]);
    expect(toggleCompared("", 2)).toBe("2");
    expect(toggleCompared("2,4", 2)).toBe("4");
    expect(toggleCompared("1,2,3", 4)).toBe("2,3,4");
  });
});

describe("near-duplicates and the Pareto front", () => {
  it("groups the same layout at the same memory, whatever the recompute", () => {
    const a = rankedStrategy({ rank: 1, tokens: 1200 });
    const b = rankedStrategy({ rank: 2, tokens: 1100 });
    b.estimate.memory.peak_gib_per_gpu = a.estimate.memory.peak_gib_per_gpu;
    b.strategy.recompute_granularity = "full";
    const c = rankedStrategy({ rank: 3, tokens: 1000, tp: 2 });
    const d = rankedStrategy({ rank: 4, tokens: 900 }); // same layout, 3 GiB more
    const groups = groupNearDuplicates([a, b, c, d]);
    expect(groups.map((g) => [g.best.rank, g.variants.map((v) => v.rank)])).toEqual([
      [1, [2]],
      [3, []],
      [4, []],
    ]);
  });

  it("groups virtual-stage and micro-batch variants of one layout", () => {
    // DeepSeek-V3's rows 1-6 were one layout with VP 2 to 7: a key on VP never grouped them.
    const vp2 = rankedStrategy({ rank: 1, tokens: 1332 });
    const vp3 = rankedStrategy({ rank: 2, tokens: 1331 });
    vp3.strategy.virtual_pipeline_model_parallel_size = 3;
    vp3.strategy.micro_batch_size = 2;
    vp3.estimate.memory.peak_gib_per_gpu = vp2.estimate.memory.peak_gib_per_gpu;
    expect(groupNearDuplicates([vp2, vp3]).map((g) => g.variants.length)).toEqual([1]);
  });

  it("keeps on the front only strategies no other beats on both counts", () => {
    const fast = rankedStrategy({ rank: 1, tokens: 1200 }); // 61 GiB
    const lean = rankedStrategy({ rank: 2, tokens: 1000 });
    lean.estimate.memory.peak_gib_per_gpu = 40;
    const dominated = rankedStrategy({ rank: 3, tokens: 900 }); // 63 GiB
    const infeasible = rankedStrategy({ rank: 4, tokens: 5000, feasible: false });
    expect(paretoFront([fast, lean, dominated, infeasible]).map((r) => r.rank)).toEqual([2, 1]);
  });
});
