import { describe, expect, it } from "vitest";
import type { ScalingRequest, SearchRequest, SearchResult, SweepRequest } from "../paraplan/types";
import { FakeClient } from "../testing/fake-client";
import { catalogue } from "../testing/presets";
import { rankedStrategy, searchResult } from "../testing/strategies";
import { CancelledError, ModuleError } from "../worker/errors";
import { moduleSchema } from "./module-schema";
import { defaultState, type PageState } from "./page-state";
import { jobChanged, Runs, summarise } from "./runs";

function setUp() {
  const client = new FakeClient();
  const runs = new Runs(client, catalogue, moduleSchema());
  let changes = 0;
  runs.subscribe(() => changes++);
  return { client, runs, changes: () => changes };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

function withState(change: (state: PageState) => void): PageState {
  const state = defaultState();
  change(state);
  return state;
}

const RESULT = searchResult([rankedStrategy({ rank: 1 }), rankedStrategy({ rank: 2 })], 7);

describe("Runs", () => {
  it("keeps the rows a search reports while it runs, then drops them for the exact result", async () => {
    const { client, runs } = setUp();
    const seen: number[] = [];
    const searching = runs.search(defaultState(), (update) => seen.push(update.search.evaluated));
    const onProgress = client.last().listeners.onProgress!;
    const report = { pruned: 0, fraction: 0.2, best_iteration_time_s: 9, elapsed_s: 0.1 };
    onProgress({ step: 0, steps: 1, search: { ...report, evaluated: 10 } });
    expect(runs.provisional).toBeNull(); // no rows yet
    const provisionalRows = [rankedStrategy({ rank: 1 })];
    onProgress({ step: 0, steps: 1, search: { ...report, evaluated: 20, rows: provisionalRows } });
    expect(runs.provisional?.rows).toBe(provisionalRows);
    // A report without rows keeps the rows and updates the progress.
    onProgress({ step: 0, steps: 1, search: { ...report, evaluated: 30, fraction: 0.5 } });
    expect(runs.provisional?.rows).toBe(provisionalRows);
    expect(runs.provisional?.progress.evaluated).toBe(30);
    expect(seen).toEqual([10, 20, 30]);
    client.last().resolve(RESULT);
    expect(await searching).toEqual({ status: "done" });
    expect(runs.provisional).toBeNull();
    expect(runs.last?.result).toBe(RESULT);
  });

  it("drops the rows so far when the search is cancelled", async () => {
    const { client, runs } = setUp();
    const searching = runs.search(defaultState());
    client.last().listeners.onProgress!({
      step: 0,
      steps: 1,
      search: {
        evaluated: 5,
        pruned: 0,
        fraction: 0.1,
        best_iteration_time_s: 9,
        elapsed_s: 0.1,
        rows: [rankedStrategy({ rank: 1 })],
      },
    });
    expect(runs.provisional).not.toBeNull();
    runs.cancel();
    expect(await searching).toEqual({ status: "cancelled" });
    expect(runs.provisional).toBeNull();
    expect(runs.last).toBeNull();
  });

  it("runs a search, busy until the worker answers, and keeps it as the last run", async () => {
    const { client, runs, changes } = setUp();
    const searching = runs.search(defaultState());
    expect(runs.busy).toBe(true);
    expect(changes()).toBe(1);
    expect(client.calls.map((call) => call.method)).toEqual(["search"]);
    const request = client.last().params as SearchRequest;
    expect(request.scenario.cluster).toEqual({
      num_gpus: 256,
      gpus: [{ type: "a800", count: 256 }],
    });
    expect(await runs.search(defaultState())).toEqual({ status: "busy" });
    client.last().resolve(RESULT);
    expect(await searching).toEqual({ status: "done" });
    expect(runs.busy).toBe(false);
    expect(runs.last).toEqual({ request, result: RESULT });
    expect(runs.isStale(defaultState())).toBe(false);
    expect(runs.isStale(withState((s) => (s.numGpus = "128")))).toBe(true);
    expect(runs.isStale(withState((s) => (s.numGpus = "12x")))).toBe(true);
    expect(runs.isStale(withState((s) => (s.sort = "mfu:desc")))).toBe(false);
  });

  it("runs nothing when the input has mistakes, and says which", async () => {
    const { client, runs } = setUp();
    const outcome = await runs.search(withState((s) => (s.numGpus = "25x")));
    expect(outcome).toEqual({
      status: "invalid",
      errors: [{ field: "numGpus", key: "error.integer", params: { min: 1, max: 2 ** 24 } }],
    });
    expect(client.calls).toEqual([]);
    expect(runs.busy).toBe(false);
  });

  it("keeps the last run when a search is cancelled, and says so until the next", async () => {
    const { client, runs } = setUp();
    const first = runs.search(defaultState());
    client.last().resolve(RESULT);
    await first;
    const second = runs.search(defaultState());
    runs.cancel();
    expect(await second).toEqual({ status: "cancelled" });
    expect(runs.cancelled).toBe(true);
    expect(runs.last?.result).toBe(RESULT);
    const third = runs.search(defaultState());
    expect(runs.cancelled).toBe(false);
    client.last().resolve(RESULT);
    await third;
  });

  it("places the module's error at its field, and clears it", async () => {
    const { client, runs } = setUp();
    const searching = runs.search(defaultState());
    client.last().reject(
      new ModuleError({
        message: "training.seq_length: expected an integer from 1 to 67108864, got 0",
        path: "training.seq_length",
        detail: "expected an integer from 1 to 67108864, got 0",
      }),
    );
    expect(await searching).toEqual({ status: "failed" });
    expect(runs.moduleError).toEqual({
      field: "seqLength",
      text: "training.seq_length: expected an integer from 1 to 67108864, got 0",
    });
    runs.clearModuleError();
    expect(runs.moduleError).toBeNull();
  });

  it("traces a strategy of the last run on the GPUs it uses", async () => {
    const { client, runs } = setUp();
    const searching = runs.search(withState((s) => (s.cluster = "a800:256,h800:64")));
    client.last().resolve(RESULT);
    await searching;
    const traced = runs.trace(RESULT.strategies[0]);
    expect(client.last().method).toBe("trace");
    expect(client.last().params).toMatchObject({
      cluster: { gpus: [{ type: "a800", count: 8 }] },
      strategy: { tensor_model_parallel_size: 1 },
    });
    client.last().reject(new ModuleError({ message: "strategy: bad", path: "strategy" }));
    await expect(traced).rejects.toThrow("strategy: bad");
    await flush();
    expect(runs.moduleError?.field).toBe("pinned.tp");

    runs.clearModuleError();
    const cancelled = runs.trace(RESULT.strategies[0]);
    runs.cancel();
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
    await flush();
    expect(runs.moduleError).toBeNull();
  });
});

describe("scaling series", () => {
  const scaling = (change: (state: PageState) => void) => {
    const { client, runs } = setUp();
    const counts: number[][] = [];
    const outcome = runs.scaling(withState(change), { onStart: (c) => counts.push(c) });
    return { client, runs, outcome, counts };
  };

  it("checks the range and the budget with the form's Checker", async () => {
    const errors = async (change: (state: PageState) => void) => {
      const { outcome, client } = scaling(change);
      const result = await outcome;
      expect(client.calls).toEqual([]);
      return result.status === "invalid" ? result.errors.map((e) => `${e.field} ${e.key}`) : [];
    };
    expect(await errors((s) => ((s.scaleFrom = "512"), (s.scaleTo = "256")))).toEqual([
      "scaleTo error.scaleRange",
    ]);
    expect(await errors((s) => (s.scaleFrom = ""))).toEqual(["scaleFrom error.required"]);
    expect(await errors((s) => (s.scaleTo = String(2 ** 20 + 1)))).toEqual([
      "scaleTo error.integer",
    ]);
    expect(await errors((s) => (s.scaleBudget = "0.4"))).toEqual(["scaleBudget error.number"]);
    expect(await errors((s) => ((s.numGpus = "x"), (s.scaleBudget = "121")))).toEqual([
      "numGpus error.integer",
      "scaleBudget error.number",
    ]);
  });

  it("asks the core for the sizes, then searches them on every worker of the pool", async () => {
    const client = new FakeClient();
    const other = new FakeClient();
    const runs = new Runs(client, catalogue, moduleSchema(), [client, other]);
    const counts: number[][] = [];
    const points: [number, number][] = [];
    const outcome = runs.scaling(
      withState((s) => {
        s.cluster = "a800:128,h800:160";
        s.scaleFrom = "100";
        s.scaleTo = "400";
        s.scaleStep = "100";
        s.scaleWeak = true;
        s.scaleBudget = "2";
      }),
      {
        onStart: (c) => counts.push(c),
        onPoint: (index, point) => points.push([index, point.num_gpus]),
      },
    );
    await flush();
    expect(client.last().method).toBe("scalingSizes");
    const request = client.last().params as ScalingRequest;
    expect(request.scaling).toEqual({ from: 100, to: 400, step: 100, weak: true });
    expect(request.options).toEqual({ top: 1, time_budget_s: 2, tp_across_nodes: false });
    client.last().resolve([100, 200, 300, 400]);
    await flush();
    expect(counts).toEqual([[100, 200, 300, 400]]);
    // One point on each worker at a time.
    expect(client.last().method).toBe("scalingPoint");
    expect(client.last().params).toEqual({ request, numGpus: 100 });
    expect(other.last().params).toEqual({ request, numGpus: 200 });
    const point = (n: number) => ({ num_gpus: n, global_batch_size: 1, best: null, stats: {} });
    other.last().resolve(point(200)); // the second finishes first: shown first
    await flush();
    expect(points).toEqual([[1, 200]]);
    expect(other.last().params).toEqual({ request, numGpus: 300 });
    client.last().resolve(point(100));
    await flush();
    expect(client.last().params).toEqual({ request, numGpus: 400 });
    other.last().resolve(point(300));
    client.last().resolve(point(400));
    expect(await outcome).toEqual({ status: "done" });
    expect(points.map(([index]) => index).sort()).toEqual([0, 1, 2, 3]);
    expect(client.calls.length + other.calls.length).toBe(5);
  });

  it("refuses a step of 0, an empty range or too many sizes, naming the field", async () => {
    const errors = async (change: (state: PageState) => void) => {
      const outcome = await scaling(change).outcome;
      return outcome.status === "invalid" ? outcome.errors.map((e) => `${e.field} ${e.key}`) : [];
    };
    expect(await errors((s) => (s.scaleStep = "0"))).toEqual(["scaleStep error.integer"]);
    expect(await errors((s) => ((s.scaleFrom = "64"), (s.scaleTo = "8")))).toEqual([
      "scaleTo error.scaleRange",
    ]);
    expect(
      await errors((s) => ((s.scaleFrom = "1"), (s.scaleTo = "5000"), (s.scaleStep = "1"))),
    ).toEqual(["scaleStep error.scalePoints"]);
  });

  it("runs a hardware sweep's points on the pool; a bad parameter names its field", async () => {
    const client = new FakeClient();
    const runs = new Runs(client, catalogue, moduleSchema(), [client]);
    const outcome = runs.sweep(
      withState((s) => {
        s.sweepFirst = "hbm_gib=40,80";
        s.sweepSecond = "intra_node.gpus=8";
      }),
    );
    await flush();
    expect(client.last().method).toBe("sweepGrid");
    const request = client.last().params as SweepRequest;
    expect(request.sweep).toEqual(["hbm_gib=40,80", "intra_node.gpus=8"]);
    client.last().resolve({
      parameters: ["hbm_gib", "intra_node.gpus"],
      points: [
        [40, 8],
        [80, 8],
      ],
    });
    await flush();
    expect(client.last()).toMatchObject({ method: "sweepPoint", params: { request, index: 0 } });
    client.last().resolve({ point: 0 });
    await flush();
    expect(client.last()).toMatchObject({ method: "sweepPoint", params: { request, index: 1 } });
    client.last().resolve({ point: 1 });
    expect(await outcome).toEqual({ status: "done" });
    const refused = await runs.sweep(withState((s) => (s.sweepFirst = "hbm=40")));
    expect(
      refused.status === "invalid" && refused.errors.map((e) => `${e.field} ${e.key}`),
    ).toEqual(["sweepFirst error.sweepParameter"]);
    const twice = await runs.sweep(
      withState((s) => ((s.sweepFirst = "hbm_gib=40"), (s.sweepSecond = "hbm_gib=80"))),
    );
    expect(twice.status === "invalid" && twice.errors.map((e) => `${e.field} ${e.key}`)).toEqual([
      "sweepSecond error.sweepTwice",
    ]);
  });
});

describe("the counts the status line states", () => {
  const feasible = (rank: number) => rankedStrategy({ rank });
  const infeasible = (rank: number) => rankedStrategy({ rank, feasible: false });

  it("counts the listed strategies", () => {
    expect(summarise(searchResult([feasible(1), feasible(2)], 3211))).toEqual({
      listed: 2,
      feasible: 2,
      infeasible: 0,
      feasibleFound: 3211,
    });
    expect(summarise(searchResult([], 0))).toEqual({
      listed: 0,
      feasible: 0,
      infeasible: 0,
      feasibleFound: 0,
    });
  });

  it("never claims fewer feasible strategies than it lists, nor infeasible rows as feasible", () => {
    const result: SearchResult = searchResult(
      [infeasible(1), infeasible(2), feasible(3)],
      2, // the search's own count, which counted the infeasible rows
    );
    expect(summarise(result)).toEqual({
      listed: 3,
      feasible: 1,
      infeasible: 2,
      feasibleFound: 2,
    });
    expect(summarise(searchResult([feasible(1), feasible(2)], 1)).feasibleFound).toBe(2);
  });
});

describe("a change of job", () => {
  it("is any change but the language, the view, the order and the open strategy", () => {
    const base = defaultState();
    const after = (change: (state: PageState) => void) => jobChanged(withState(change), base);
    expect(after((s) => ((s.lang = "zh"), (s.view = "scaling")))).toBe(false);
    expect(after((s) => ((s.sort = "mfu:asc"), (s.selected = "2"), (s.ran = true)))).toBe(false);
    expect(after((s) => (s.numGpus = "128"))).toBe(true);
    expect(after((s) => (s.pinned.tp = "8"))).toBe(true);
    expect(after((s) => (s.gpuOverrides = { a800: { hbm_gib: "40" } }))).toBe(true);
  });
});
