import { describe, expect, it } from "vitest";
import { findCliffs, scalingSizes } from "./scaling";
import { poolSize, runOnPool } from "../worker/pool";
import type { Client } from "../worker/client";

describe("cliffs", () => {
  // The same cases as the core's find_cliffs (tests/unit/search/scaling_test.cpp).
  it("marks a point more than 15% below both nearest neighbours with a strategy", () => {
    expect(findCliffs([100, 80, 100])).toEqual([false, true, false]);
    expect(findCliffs([100, 86, 100])).toEqual([false, false, false]);
    expect(findCliffs([100, 70, 90])).toEqual([false, true, false]);
    expect(findCliffs([100, 80, 90])).toEqual([false, false, false]);
    expect(findCliffs([100, 90, 80, 100])).toEqual([false, false, false, false]);
    expect(findCliffs([100, 0, 50, 0, 100])).toEqual([false, false, true, false, false]);
    expect(findCliffs([50, 100, 100])).toEqual([false, false, false]);
    expect(findCliffs([])).toEqual([]);
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
