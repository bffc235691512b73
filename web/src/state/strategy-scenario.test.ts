import { describe, expect, it } from "vitest";
import type { Scenario } from "../paraplan/types";
import { rankedStrategy } from "../testing/strategies";
import { scenarioOfStrategy } from "./strategy-scenario";

describe("the scenario of a ranked strategy", () => {
  const searched: Scenario = {
    model: "llama3.1-405b",
    training: { global_batch_size: 1536, seq_length: 8192, precision: "bf16" },
    cluster: { gpus_per_node: 8, num_gpus: 8, gpus: [{ type: "h100", count: 1024 }] },
    framework: "torchtitan",
  };
  const ranked = { ...rankedStrategy({ rank: 1 }), gpus_used: { h100: 8 } };

  it("carries every field of the job, the framework too", () => {
    // Without its framework a torchtitan strategy (FSDP with PP) is judged by Megatron-LM's
    // rules, which refuse it: the detail's schedule came back empty and the tab hung.
    const scenario = scenarioOfStrategy(searched, ranked);
    expect(scenario.framework).toBe("torchtitan");
    expect(scenario.model).toBe("llama3.1-405b");
    expect(scenario.training).toEqual(searched.training);
    expect(scenario.strategy).toEqual(ranked.strategy);
  });

  it("uses the GPUs the strategy uses, not the search's caps", () => {
    const scenario = scenarioOfStrategy(searched, ranked);
    expect(scenario.cluster).toEqual({ gpus_per_node: 8, gpus: [{ type: "h100", count: 8 }] });
  });
});
