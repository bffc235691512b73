import { describe, expect, it } from "vitest";
import { axisTicks } from "./schedule";

describe("the schedule's time axis", () => {
  it("steps in round numbers up to the span", () => {
    expect(axisTicks(10, 5)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(axisTicks(57.05, 10)).toEqual([0, 10, 20, 30, 40, 50]);
  });

  it("gives one tick for an empty schedule instead of looping forever", () => {
    // An empty trace (a strategy the module refused) has an end of 0 s: the step of 0 it
    // once gave made the drawing loop spin for good and froze the tab.
    expect(axisTicks(0, 8)).toEqual([0]);
    expect(axisTicks(Number.NaN, 8)).toEqual([0]);
    expect(axisTicks(-1, 8)).toEqual([0]);
    expect(axisTicks(Number.POSITIVE_INFINITY, 8)).toEqual([0]);
  });

  it("never gives more than about maxTicks ticks", () => {
    for (const span of [1e-9, 0.3, 1, 7, 1234.5, 1e12]) {
      expect(axisTicks(span, 4).length).toBeLessThanOrEqual(5);
    }
  });
});
