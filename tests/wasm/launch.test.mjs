// The module's search results carry the same launches as the CLI's (docs/contract.md section
// 5), and a search for one framework keeps to what it can launch.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { cliJson, loadModule } from "./support.mjs";

const FRAMEWORKS = [
  "megatron",
  "megatron-bridge",
  "mindspeed-llm",
  "deepspeed",
  "colossalai",
  "torchtitan",
];

const scenario = (framework) => ({
  model: "llama2-13b",
  training: { global_batch_size: 128, seq_length: 4096, precision: "bf16" },
  cluster: { gpus_per_node: 8, gpus: [{ type: "h100", count: 32 }] },
  framework,
});

describe("launch", () => {
  let paraplan;
  before(async () => {
    paraplan = await loadModule();
  });

  for (const framework of FRAMEWORKS) {
    it(`${framework}: the module's launches equal the CLI's, and each can launch`, () => {
      const request = {
        scenario: scenario(framework),
        options: { top: 3, time_budget_s: 600, tp_across_nodes: false },
      };
      const wasm = JSON.parse(paraplan.search(JSON.stringify(request), null));
      const native = cliJson(
        ["search", "-", "--top", "3", "--time-budget", "600", "--json"],
        JSON.stringify(request.scenario),
      );
      assert.ok(wasm.strategies.length > 0);
      assert.deepEqual(
        wasm.strategies.map((s) => s.launch),
        native.strategies.map((s) => s.launch),
      );
      for (const strategy of wasm.strategies) {
        assert.deepEqual(
          Object.keys(strategy.launch).sort(),
          [...FRAMEWORKS].sort(),
        );
        assert.equal(typeof strategy.launch[framework].command, "string");
        assert.equal(typeof strategy.launch[framework].files, "object");
      }
    });
  }
});
