import { describe, expect, it } from "vitest";
import { axisTicks, BREAK_WIDTH, niceStep, timeScale } from "./schedule-axis";

const gap = { from_s: 10, to_s: 50, microBatches: 300, passes: 2400, bubble_s: 0.1 };

describe("the schedule's time axis", () => {
  it("squeezes the left-out steady state into the break", () => {
    const x = timeScale(60, 100, 228, gap);
    expect(x(0)).toBe(100);
    expect(x(10)).toBeCloseTo(100 + 100); // 20 s shown over 200 px
    expect(x(50)).toBeCloseTo(200 + BREAK_WIDTH);
    expect(x(60)).toBeCloseTo(328);
    expect(x(30)).toBeCloseTo(200 + BREAK_WIDTH / 2);
  });

  it("is linear without a break, or with one it cannot place", () => {
    expect(timeScale(10, 0, 100, null)(5)).toBe(50);
    expect(timeScale(10, 0, 100, { ...gap, from_s: 20, to_s: 30 })(5)).toBe(50);
    expect(timeScale(0, 0, 100, null)(0)).toBe(0);
  });

  it("ends every tick loop, whatever the span", () => {
    expect(niceStep(0, 5)).toBe(0);
    expect(niceStep(NaN, 5)).toBe(0);
    expect(axisTicks(0, 5, null)).toEqual([0]);
    expect(axisTicks(NaN, 5, null)).toEqual([0]);
    expect(axisTicks(-1, 5, null)).toEqual([0]);
    expect(axisTicks(1e12, 0, null).length).toBeLessThanOrEqual(200);
    expect(axisTicks(10, 5, null)).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it("leaves out the ticks inside the break and goes on after it", () => {
    const ticks = axisTicks(60, 4, gap);
    expect(ticks.some((tick) => tick > 10 && tick < 50)).toBe(false);
    expect(ticks[0]).toBe(0);
    expect(ticks.at(-1)).toBe(60);
    expect(ticks).toContain(50);
  });
});
