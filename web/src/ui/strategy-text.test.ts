import { describe, expect, it } from "vitest";
import { rankedStrategy } from "../testing/strategies";
import { layerRuns, stagesText } from "./strategy-text";

describe("layers per pipeline stage", () => {
  it("writes a run of three or more equal stages once, with its count", () => {
    // Llama 3.1 405B (126 layers) on PP 32: 3, thirty stages of 4, then 3.
    expect(layerRuns([3, ...Array(30).fill(4), 3])).toBe("3·4(×30)·3");
    expect(layerRuns([1, ...Array(62).fill(2), 1])).toBe("1·2(×62)·1");
    expect(layerRuns([4, 4, 4])).toBe("4(×3)");
  });

  it("lists shorter runs one by one", () => {
    expect(layerRuns([4, 4, 3, 3])).toBe("4·4·3·3");
    expect(layerRuns([14, 14, 14, 13, 13])).toBe("14(×3)·13·13");
    expect(layerRuns([80])).toBe("80");
    expect(layerRuns([])).toBe("");
  });

  it("keeps every stage where runs are not asked for (the exports)", () => {
    const ranked = rankedStrategy({ rank: 1, tokens: 900, mfu: 0.5, tp: 2 });
    ranked["pipeline-stage-chips"] = ["h100", "h100", "h100", "h100"];
    ranked["pipeline-stage-layers"] = [3, 4, 4, 4];
    expect(stagesText(ranked)).toBe("h100: 3·4·4·4");
    expect(stagesText(ranked, "\n", true)).toBe("h100: 3·4(×3)");
  });
});
