import { describe, expect, it } from "vitest";
import { FakeClient } from "../testing/fake-client";
import { catalogue } from "../testing/presets";
import { rankedStrategy, searchResult } from "../testing/strategies";
import type { Progress } from "../worker/protocol";
import { EarlySearch, startEarlySearch } from "./early-search";
import { moduleSchema } from "./module-schema";
import { defaultState } from "./page-state";
import { Runs } from "./runs";

const RESULT = searchResult([rankedStrategy({ rank: 1 })], 3);
const REPORT = { evaluated: 5, pruned: 0, fraction: 0.1, best_iteration_time_s: 9, elapsed_s: 0.1 };

function setUp(early: (client: FakeClient, runs: Runs) => EarlySearch | null) {
  const client = new FakeClient();
  const plain = new Runs(client, catalogue, moduleSchema());
  const started = early(client, plain);
  const runs = new Runs(client, catalogue, moduleSchema(), [client], started);
  return { client, runs };
}

const requestOf = (runs: Runs, state = defaultState()) => {
  const built = runs.request(state);
  if (!built.ok) throw new Error("the default state should be valid");
  return built.value;
};

describe("the search a shared link starts before the page is drawn", () => {
  it("is taken over by the page's first search of the same request, with its reports so far", async () => {
    const { client, runs } = setUp((client, plain) => new EarlySearch(client, requestOf(plain)));
    expect(client.calls.map((call) => call.method)).toEqual(["search"]);
    // The worker reported rows before the page was ready to show them.
    const rows = [rankedStrategy({ rank: 1 })];
    const early: Progress = { step: 0, steps: 1, search: { ...REPORT, rows } };
    client.calls[0].listeners.onProgress!(early);

    const heard: Progress[] = [];
    const searching = runs.search(defaultState(), (update) => heard.push(update));
    expect(client.calls).toHaveLength(1); // nothing asked twice
    expect(heard).toEqual([early]);
    expect(runs.provisional?.rows).toBe(rows);
    const later: Progress = { step: 0, steps: 1, search: { ...REPORT, evaluated: 50 } };
    client.calls[0].listeners.onProgress!(later);
    expect(heard).toEqual([early, later]);

    client.calls[0].resolve(RESULT);
    expect(await searching).toEqual({ status: "done" });
    expect(runs.last?.result).toBe(RESULT);
    expect(runs.provisional).toBeNull();
  });

  it("is offered once: a second search asks the worker again", async () => {
    const { client, runs } = setUp((client, plain) => new EarlySearch(client, requestOf(plain)));
    const first = runs.search(defaultState());
    client.calls[0].resolve(RESULT);
    await first;
    const second = runs.search(defaultState());
    expect(client.calls).toHaveLength(2);
    client.calls[1].resolve(RESULT);
    expect(await second).toEqual({ status: "done" });
  });

  it("is not taken for another request, which gets its own search", async () => {
    const { client, runs } = setUp((client, plain) => new EarlySearch(client, requestOf(plain)));
    const other = defaultState();
    other.numGpus = "128";
    other.cluster = "a800:128";
    const searching = runs.search(other);
    expect(client.calls).toHaveLength(2);
    expect(client.calls[1].params).toEqual(requestOf(runs, other));
    client.calls[1].resolve(RESULT);
    expect(await searching).toEqual({ status: "done" });
  });

  it("is not started for a link that does not run a search", () => {
    const client = new FakeClient();
    expect(startEarlySearch(client, { ...defaultState(), ran: false })).toBeNull();
    expect(client.calls).toHaveLength(0);
  });
});
