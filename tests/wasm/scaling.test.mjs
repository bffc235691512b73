// Scaling series and hardware sweeps through the module: the same points as the CLI's
// `paraplan scaling --json` and `paraplan sweep`, and errors naming the JSON path.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { cli, cliJson, differences, loadModule } from "./support.mjs";

const scenario = {
  model: "llama2-7b",
  training: { global_batch_size: 64, seq_length: 4096 },
  cluster: { gpus: [{ type: "a800", count: 8 }], num_gpus: 8 },
};
const JOB = [
  "--model-name",
  "llama2-7b",
  "--gpu-infos",
  "a800",
  "--global-batch-size",
  "64",
  "--sequence-length",
  "4096",
];
// Timings differ from run to run; everything else must match.
const withoutSeconds = (value) =>
  JSON.parse(
    JSON.stringify(value, (key, item) => (key === "seconds" ? 0 : item)),
  );

describe("scaling and sweeps in WebAssembly", () => {
  let paraplan;
  before(async () => {
    paraplan = await loadModule();
  });

  it("gives each size of a series the point the CLI gives", () => {
    const request = JSON.stringify({
      scenario,
      scaling: { from: 8, to: 24, step: 8, weak: true },
    });
    const sizes = JSON.parse(paraplan.scalingSizes(request));
    assert.deepEqual(sizes, [8, 16, 24]);
    const expected = cliJson([
      "scaling",
      ...JOB,
      "--from",
      "8",
      "--to",
      "24",
      "--step",
      "8",
      "--weak",
      "--json",
    ]).points;
    sizes.forEach((size, index) => {
      const point = JSON.parse(paraplan.scalingPoint(request, size, null));
      // The series' marks (scaling_json) are the CLI's; the page works them out itself.
      const { cliff, dip, efficiency, notes, ...native } = expected[index];
      assert.equal(typeof cliff, "boolean");
      assert.equal(typeof dip, "boolean");
      assert.ok(efficiency === null || typeof efficiency === "number");
      assert.ok(notes === undefined || Array.isArray(notes));
      assert.deepEqual(
        differences(withoutSeconds(point), withoutSeconds(native)),
        [],
      );
    });
    // A lasting drop is a cliff; a size below a larger one is not.
    assert.deepEqual(JSON.parse(paraplan.scalingCliffs("[100, 80, 100]")), [
      false,
      false,
      false,
    ]);
    assert.deepEqual(
      JSON.parse(paraplan.scalingCliffs("[100, 100, 80, 82, 78]")),
      [false, false, true, false, false],
    );
  });

  it("gives each point of a sweep the line the CLI prints", () => {
    const request = JSON.stringify({
      scenario,
      sweep: ["hbm_gib=40,80", "inter_node.gb_per_s=25"],
    });
    const grid = JSON.parse(paraplan.sweepGrid(request));
    assert.deepEqual(grid, {
      parameters: ["hbm_gib", "inter_node.gb_per_s"],
      points: [
        [40, 25],
        [80, 25],
      ],
    });
    const run = cli([
      "sweep",
      ...JOB,
      "--num-gpus",
      "8",
      "--sweep",
      "hbm_gib=40,80",
      "--sweep",
      "inter_node.gb_per_s=25",
    ]);
    assert.equal(run.status, 0);
    const lines = run.stdout.trim().split("\n").map(JSON.parse);
    lines.forEach((line, index) => {
      const point = JSON.parse(paraplan.sweepPoint(request, index));
      assert.deepEqual(
        differences(withoutSeconds(point), withoutSeconds(line)),
        [],
      );
    });
  });

  it("names the field of a bad range or parameter", () => {
    const error = (request, call = "scalingSizes") => {
      try {
        paraplan[call](JSON.stringify(request));
      } catch (thrown) {
        return `${thrown.path} | ${thrown.message}`;
      }
      return "no error";
    };
    assert.match(
      error({ scenario, scaling: { from: 64, to: 8, step: 8 } }),
      /^scaling\.to \| scaling\.to: the range is empty/,
    );
    assert.match(
      error({ scenario, scaling: { from: 8, to: 64, step: 0 } }),
      /^scaling\.step \| /,
    );
    assert.match(
      error({ scenario, scaling: { from: 1, to: 100000, step: 1 } }),
      /^scaling\.step \| .*100000 points; at most 4096/,
    );
    assert.match(
      error({ scenario, sweep: ["hbm=40"] }, "sweepGrid"),
      /^sweep\[0\] \| .*unknown hardware parameter "hbm"/,
    );
    assert.throws(
      () =>
        paraplan.sweepPoint(
          JSON.stringify({ scenario, sweep: ["hbm_gib=40"] }),
          5,
        ),
      /point: expected a point from 0 to 0/,
    );
  });
});
