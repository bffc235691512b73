// The rest of the module's face: errors as exceptions with the CLI's message and the JSON
// path and message as separate fields, version(), presets(), schema() and warm().
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

  it("errors carry the JSON path and the message as separate fields", () => {
    const thrown = (call) => {
      try {
        call();
      } catch (error) {
        return error;
      }
      assert.fail("no error thrown");
    };
    const outOfRange = thrown(() =>
      paraplan.estimate(BAD_INPUTS["out of range"]),
    );
    assert.equal(outOfRange.path, "strategy.tensor_model_parallel_size");
    assert.equal(
      outOfRange.detail,
      "expected an integer from 1 to 16777216, got 0",
    );
    assert.equal(
      outOfRange.message,
      `${outOfRange.path}: ${outOfRange.detail}`,
    );
    const options = thrown(() =>
      paraplan.search(
        JSON.stringify({ scenario: valid, options: { top: "5" } }),
        null,
      ),
    );
    assert.equal(options.path, "options.top");
    assert.match(options.detail, /^expected an integer from 1 to 1000/);
    const unknown = thrown(() =>
      paraplan.search(
        JSON.stringify({ scenario: valid, options: { topp: 5 } }),
        null,
      ),
    );
    assert.equal(unknown.path, "options.topp");
  });

  it("schema() is the CLI's and lists every strategy key with its limits", () => {
    const schema = JSON.parse(paraplan.schema());
    assert.deepEqual(differences(schema, cliJson(["schema"])), []);
    const keys = schema.strategy_keys.map((key) => key.name);
    for (const name of Object.keys(
      cliJson(["search", "-", "--json", "--top", "1"], JSON.stringify(valid))
        .strategies[0].strategy,
    )) {
      assert.ok(keys.includes(name), name);
    }
    assert.equal(schema.limits.search.top.max, 1000);
  });

  it("keeps working after an error", () => {
    assert.throws(() => paraplan.estimate("{"));
    assert.equal(
      JSON.parse(paraplan.estimate(JSON.stringify(valid))).feasible !==
        undefined,
      true,
    );
  });

  it("warm() parses the presets ahead of the first request and changes no answer", async () => {
    // A fresh module, as the page's worker has it when it calls warm() before any request.
    const fresh = await loadModule();
    assert.equal(typeof fresh.warm, "function");
    assert.equal(fresh.warm(), undefined);
    assert.equal(fresh.warm(), undefined);
    assert.deepEqual(
      JSON.parse(fresh.presets()),
      JSON.parse(paraplan.presets()),
    );
    const request = JSON.stringify({ scenario: valid, options: { top: 3 } });
    const warmed = JSON.parse(fresh.search(request, null));
    const cold = JSON.parse(paraplan.search(request, null));
    assert.deepEqual(
      warmed.strategies.map((row) => row.strategy),
      cold.strategies.map((row) => row.strategy),
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
  it("importHfConfig() is the CLI's import-model --json; parameterCounts() counts a model", () => {
    for (const file of [
      "DeepSeek-V3.json",
      "gpt-oss-120b.json",
      "Qwen2.5-7B.json",
    ]) {
      const text = readFileSync(
        join(ROOT, "tests", "unit", "data", "hf", file),
        "utf8",
      );
      const imported = JSON.parse(paraplan.importHfConfig(text));
      const expected = cliJson(["import-model", "-", "--json"], text);
      assert.deepEqual(differences(imported, expected), [], file);
      const counts = JSON.parse(
        paraplan.parameterCounts(JSON.stringify(imported.model)),
      );
      assert.deepEqual(counts, imported.parameters);
    }
    const preset = JSON.parse(
      paraplan.parameterCounts(JSON.stringify("llama2-70b")),
    );
    assert.equal(preset.total, 68976648192);
    let error;
    try {
      paraplan.importHfConfig(
        '{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 0}',
      );
    } catch (thrown) {
      error = thrown;
    }
    assert.equal(error.path, "num_hidden_layers");
    assert.equal(error.detail, "expected a positive integer, got 0");
  });
});
