// estimate() and trace() in the WebAssembly module give what `paraplan estimate` gives.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { ESTIMATES } from "./scenarios.mjs";
import { cliJson, differences, loadModule } from "./support.mjs";

describe("estimate: module and CLI agree", () => {
  let paraplan;
  before(async () => {
    paraplan = await loadModule();
  });

  for (const [name, scenario] of Object.entries(ESTIMATES)) {
    it(name, () => {
      const text = JSON.stringify(scenario);
      const wasm = JSON.parse(paraplan.estimate(text));
      const native = cliJson(["estimate", "-"], text);
      assert.equal(wasm.feasible, native.feasible);
      assert.deepEqual(wasm.infeasible_reasons, native.infeasible_reasons);
      assert.deepEqual(differences(wasm, native), []);
    });
  }

  it("covers feasible and infeasible scenarios", () => {
    const feasibility = Object.values(ESTIMATES).map(
      (s) => JSON.parse(paraplan.estimate(JSON.stringify(s))).feasible,
    );
    assert.ok(feasibility.includes(true) && feasibility.includes(false));
  });

  it("trace() reports the same estimate and a schedule per stage", () => {
    const scenario = ESTIMATES["mixed cluster, layers given per stage"];
    const { report, trace } = JSON.parse(
      paraplan.trace(JSON.stringify(scenario)),
    );
    assert.deepEqual(
      differences(
        report,
        JSON.parse(paraplan.estimate(JSON.stringify(scenario))),
      ),
      [],
    );
    const slices = trace.traceEvents.filter((event) => event.ph === "X");
    const stages = new Set(slices.map((event) => event.pid));
    assert.equal(stages.size, scenario.strategy.pipeline_model_parallel_size);
    for (const slice of slices)
      assert.ok(slice.ts >= 0 && slice.dur >= 0, JSON.stringify(slice));
    const end = Math.max(...slices.map((slice) => slice.ts + slice.dur)) / 1e6;
    assert.ok(
      Math.abs(end - report.iteration_time_s) / report.iteration_time_s < 0.01,
      `${end} s vs ${report.iteration_time_s} s`,
    );
    for (const name of [
      "forward",
      "backward",
      "bubble",
      "optimizer",
      "send activation",
    ]) {
      assert.ok(
        slices.some((slice) => slice.name.startsWith(name)),
        name,
      );
    }
  });
});
