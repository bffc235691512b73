import { describe, expect, it } from "vitest";
import type { ScalingPointResult } from "../paraplan/types";
import { findCliffs, findDips, scalingSizes, seriesMarks } from "./scaling";
import { poolSize, runOnPool } from "../worker/pool";
import type { Client } from "../worker/client";

describe("cliffs and dips", () => {
  // The same cases as the core's find_cliffs and find_dips (tests/unit/search/scaling_test.cpp).
  it("marks a lasting drop as a cliff and a size below a larger one as a dip", () => {
    expect(findCliffs([100, 80, 100])).toEqual([false, false, false]);
    expect(findDips([100, 80, 100])).toEqual([false, true, false]);
    expect(findDips([100, 86, 100])).toEqual([false, false, false]);
    expect(findDips([100, 70, 90])).toEqual([false, true, false]);
    expect(findCliffs([100, 70, 90])).toEqual([false, false, false]);
    expect(findCliffs([100, 100, 80, 82, 78])).toEqual([false, false, true, false, false]);
    expect(findDips([100, 100, 80, 82, 78])).toEqual([false, false, false, false, false]);
    expect(findCliffs([100, 95, 90, 85, 80, 75])).toEqual(Array(6).fill(false));
    expect(findCliffs([100, 90, 80, 100])).toEqual([false, false, false, false]);
    expect(findCliffs([100, 0, 50, 0, 45])).toEqual([false, false, true, false, false]);
    expect(findDips([100, 0, 50, 0, 100])).toEqual([false, false, true, false, false]);
    expect(findCliffs([50, 100, 100])).toEqual([false, false, false]);
    expect(findDips([50, 100, 100])).toEqual([true, false, false]);
    expect(findCliffs([])).toEqual([]);
    expect(findDips([])).toEqual([]);
  });

  // The core's "a series says why efficiency passes 100%, why a size dips, and keeps its gaps".
  it("says why efficiency passes 100% and why a size dips", () => {
    const point = (
      gpus: number,
      perGpu: number,
      strategy: Record<string, unknown>,
      recompute: string,
    ): ScalingPointResult =>
      ({
        num_gpus: gpus,
        global_batch_size: 64,
        best:
          perGpu > 0
            ? {
                strategy: { context_parallel_size: 1, expert_model_parallel_size: 1, ...strategy },
                estimate: { data_parallel_size: 1, tokens_per_s_per_gpu: perGpu },
                "recompute-granularity": { h100: recompute },
              }
            : null,
        stats: {},
      }) as unknown as ScalingPointResult;
    const tight = {
      tensor_model_parallel_size: 8,
      pipeline_model_parallel_size: 1,
      optimizer_cpu_offload: true,
      zero_stage: 1,
    };
    const roomy = { tensor_model_parallel_size: 8, pipeline_model_parallel_size: 2, zero_stage: 1 };
    const odd = { tensor_model_parallel_size: 8, pipeline_model_parallel_size: 3, zero_stage: 1 };
    const marks = seriesMarks([
      point(8, 100, tight, "full"),
      point(16, 110, roomy, "selective"),
      point(24, 70, odd, "selective"),
      point(32, 105, roomy, "selective"),
      point(40, 0, {}, ""),
      null,
    ]);
    expect(marks.reference).toBe(0);
    expect(marks.efficiency[1]).toBeCloseTo(1.1);
    expect(marks.efficiency[4]).toBeNull();
    expect(marks.notes[0]).toEqual([]);
    expect(marks.notes[1][0]).toBe(
      "above 100%: at 8 GPUs the job fits only with full recompute, the optimizer on the CPU (TP8 PP1 DP1), which this size does not need",
    );
    expect(marks.dips).toEqual([false, false, true, false, false, false]);
    expect(marks.notes[2][0]).toContain(
      "the factor 3 falls to tensor, pipeline and context parallelism (TP8 PP3 DP1 here)",
    );
    expect(marks.notes[2][1]).toBe(
      "fewer GPUs do more: 16 GPUs reach 1,760 tokens/s in all, above the 1,680 here",
    );
  });
});

describe("sizes", () => {
  it("lists every step from the start to the end", () => {
    expect(scalingSizes(8, 40, 8)).toEqual([8, 16, 24, 32, 40]);
    expect(scalingSizes(8, 45, 8)).toEqual([8, 16, 24, 32, 40]);
    expect(scalingSizes(8, 4096, 8)).toHaveLength(512);
  });
});

describe("the worker pool", () => {
  it("starts one worker per core, at least one", () => {
    expect(poolSize(8)).toBe(8);
    expect(poolSize(undefined)).toBe(1);
    expect(poolSize(0)).toBe(1);
    expect(poolSize(64)).toBe(16);
  });

  it("keeps every worker busy and stops handing out work after a failure", async () => {
    const clients = [{}, {}, {}] as Client[];
    const running = new Map<Client, number>();
    let most = 0;
    const seen: number[] = [];
    await runOnPool(
      clients,
      10,
      async (client, index) => {
        running.set(client, (running.get(client) ?? 0) + 1);
        most = Math.max(most, ...running.values());
        await new Promise((resolve) => setTimeout(resolve, (index * 7) % 5));
        running.set(client, (running.get(client) ?? 0) - 1);
        return index * 2;
      },
      (index, result) => seen.push(result / 2 - index),
    );
    expect(most).toBe(1); // one call per worker at a time
    expect(seen).toEqual(Array(10).fill(0));
    const started: number[] = [];
    await expect(
      runOnPool(
        clients,
        10,
        async (_, index) => {
          started.push(index);
          if (index === 1) throw new Error("refused");
          await new Promise((resolve) => setTimeout(resolve, 5));
          return index;
        },
        () => undefined,
      ),
    ).rejects.toThrow("refused");
    expect(started.length).toBeLessThan(10);
  });
});
