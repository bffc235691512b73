import { describe, expect, it } from "vitest";
import type { ParaplanModule } from "../paraplan/module";
import type { SearchProgress } from "../paraplan/types";
import { WARM_UP_MODELS, warmUp } from "./warm-up";

// A module whose search reports `reports` in turn until its callback says stop; it records each
// request's model and how many reports each search made.
function fakeModule(reports: Partial<SearchProgress>[], fail = false) {
  const searched: { model: string; reports: number }[] = [];
  const module = {
    search(requestJson: string, onProgress: (progress: SearchProgress) => boolean | undefined) {
      const entry = { model: JSON.parse(requestJson).scenario.model, reports: 0 };
      searched.push(entry);
      if (fail) throw new Error("no such model");
      for (const report of reports) {
        entry.reports++;
        if (onProgress(report as SearchProgress) === false) break;
      }
      return "{}";
    },
  } as unknown as ParaplanModule;
  return { module, searched };
}

describe("the worker's warm-up", () => {
  it("runs one search per model while nothing waits, each stopped at its first rows", async () => {
    const { module, searched } = fakeModule([{ evaluated: 1 }, { rows: [] }, { rows: [] }]);
    expect(await warmUp(module, () => false)).toBe(WARM_UP_MODELS.length);
    expect(searched).toEqual(WARM_UP_MODELS.map((model) => ({ model, reports: 2 })));
  });

  it("runs nothing when a request waits, and stops as soon as one arrives", async () => {
    const none = fakeModule([{ rows: [] }]);
    expect(await warmUp(none.module, () => true)).toBe(0);
    expect(none.searched).toEqual([]);
    const one = fakeModule([{ rows: [] }]);
    expect(await warmUp(one.module, () => one.searched.length > 0)).toBe(1);
    expect(one.searched.map((entry) => entry.model)).toEqual([WARM_UP_MODELS[0]]);
  });

  it("asks the page's default job (a search request the module accepts)", async () => {
    const requests: string[] = [];
    const module = {
      search: (json: string) => (requests.push(json), "{}"),
    } as unknown as ParaplanModule;
    await warmUp(module, () => false);
    const first = JSON.parse(requests[0]);
    expect(first.scenario.cluster).toEqual({ gpus: [{ type: "a800", count: 256 }], num_gpus: 256 });
    expect(first.scenario.training).toEqual({
      global_batch_size: 512,
      seq_length: 4096,
      precision: "bf16",
    });
  });

  it("keeps going past a search that throws", async () => {
    const { module, searched } = fakeModule([], true);
    expect(await warmUp(module, () => false)).toBe(WARM_UP_MODELS.length);
    expect(searched.length).toBe(WARM_UP_MODELS.length);
  });
});
