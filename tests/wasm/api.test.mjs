// The rest of the module's face: errors as exceptions with the CLI's message,
// version() and presets().
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import {
  ROOT,
  cli,
  cliJson,
  differences,
  loadModule,
  thrownMessage,
} from "./support.mjs";

const valid = {
  model: "llama2-70b",
  training: { global_batch_size: 512, seq_length: 4096 },
  cluster: { gpus: [{ type: "a800", count: 64 }] },
};

const BAD_INPUTS = {
  "unparsable JSON": "[1,2",
  "unknown key": JSON.stringify({ ...valid, bogus: 1 }),
  "wrong type": JSON.stringify({
    ...valid,
    training: { ...valid.training, global_batch_size: "x" },
  }),
  "out of range": JSON.stringify({
    ...valid,
    strategy: { tensor_model_parallel_size: 0 },
  }),
  "unknown model preset": JSON.stringify({ ...valid, model: "gpt-5" }),
  "unknown GPU preset": JSON.stringify({
    ...valid,
    cluster: { gpus: [{ type: "v100", count: 8 }] },
  }),
  "inconsistent model": JSON.stringify({
    ...valid,
    model: {
      num_layers: 2,
      hidden_size: 64,
      ffn_hidden_size: 256,
      num_attention_heads: 8,
      num_query_groups: 3,
      vocab_size: 100,
      activation: "gelu",
    },
  }),
};

// The CLI's stderr line without "paraplan: "; it names standard input where the module says "input".
function cliMessage(args, input) {
  const run = cli(args, input);
  assert.equal(run.status, 2, run.stderr);
  return run.stderr
    .trim()
    .replace(/^paraplan: /, "")
    .replace(/^standard input: /, "input: ");
}

describe("module API", () => {
  let paraplan;
  before(async () => {
    paraplan = await loadModule();
  });

  for (const [name, input] of Object.entries(BAD_INPUTS)) {
    it(`estimate throws the CLI's message: ${name}`, () => {
      assert.equal(
        thrownMessage(() => paraplan.estimate(input)),
        cliMessage(["estimate", "-"], input),
      );
    });
  }

  it("search and trace throw the CLI's message, naming the JSON path", () => {
    const scenario = JSON.parse(BAD_INPUTS["unknown key"]);
    const message = cliMessage(["search", "-"], JSON.stringify(scenario));
    assert.match(message, /^bogus: /);
    assert.equal(
      thrownMessage(() => paraplan.search(JSON.stringify({ scenario }), null)),
      message,
    );
    assert.equal(
      thrownMessage(() => paraplan.trace(JSON.stringify(scenario))),
      message,
    );
    assert.equal(
      thrownMessage(() =>
        paraplan.search(JSON.stringify({ options: {} }), null),
      ),
      "scenario: is required",
    );
  });

  it("keeps working after an error", () => {
    assert.throws(() => paraplan.estimate("{"));
    assert.equal(
      JSON.parse(paraplan.estimate(JSON.stringify(valid))).feasible !==
        undefined,
      true,
    );
  });

  it("version() is the project's version", () => {
    const cmake = readFileSync(join(ROOT, "CMakeLists.txt"), "utf8");
    assert.equal(
      paraplan.version(),
      cmake.match(/project\(paraplan VERSION ([0-9.]+)/)[1],
    );
  });

  it("presets() is the CLI's catalogue", () => {
    const presets = JSON.parse(paraplan.presets());
    assert.deepEqual(differences(presets, cliJson(["presets", "--json"])), []);
    const gpus = presets.gpus.map((gpu) => gpu.id);
    for (const id of [
      "a100",
      "a800",
      "h100",
      "h800",
      "h20",
      "h200",
      "b200",
      "mi300x",
      "ascend-910b",
    ]) {
      assert.ok(gpus.includes(id), id);
    }
    assert.ok(presets.models.some((model) => model.id === "llama2-70b"));
  });
});
