import { describe, expect, it } from "vitest";
import { catalogue } from "../testing/presets";
import { moduleSchema } from "./module-schema";
import { defaultState, FRAMEWORKS, type PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";
import { decodeState, encodeState } from "./url-state";

const request = (framework: string) => {
  const state: PageState = { ...defaultState(), framework };
  return buildSearchRequest(state, catalogue, moduleSchema());
};

describe("the framework", () => {
  it("leaves Megatron-LM, the core's default, out of the scenario", () => {
    const built = request("megatron");
    expect(built.ok).toBe(true);
    if (built.ok) expect(built.value.scenario.framework).toBeUndefined();
  });

  it("sends any other framework as the scenario's framework, which restricts the search", () => {
    for (const framework of FRAMEWORKS.slice(1)) {
      const built = request(framework);
      expect(built.ok).toBe(true);
      if (built.ok) expect(built.value.scenario.framework).toBe(framework);
    }
  });

  it("names the field when it is not one of the six", () => {
    const built = request("nemo");
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.errors.map((e) => e.field)).toEqual(["framework"]);
  });

  it("round-trips through the URL as the CLI's --framework, and is absent at its default", () => {
    const state: PageState = { ...defaultState(), framework: "torchtitan" };
    expect(encodeState(state).get("framework")).toBe("torchtitan");
    expect(decodeState(encodeState(state)).framework).toBe("torchtitan");
    expect(encodeState(defaultState()).has("framework")).toBe(false);
  });
});
