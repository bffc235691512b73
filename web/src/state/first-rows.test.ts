import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FirstRows, FORM_DEADLINE_MS, formWaitMs } from "./first-rows";

describe("when the form is built after a run=1 link's first rows", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("waits until the deadline after navigation, and not at all past it", () => {
    expect(formWaitMs(0)).toBe(FORM_DEADLINE_MS);
    expect(formWaitMs(400)).toBe(FORM_DEADLINE_MS - 400);
    expect(formWaitMs(FORM_DEADLINE_MS + 1)).toBe(0);
  });

  it("the wait ends when the rows are drawn, before its limit", async () => {
    const rows = new FirstRows();
    let ended = false;
    void rows.wait(10_000).then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(50);
    expect(ended).toBe(false);
    rows.markDrawn();
    await vi.advanceTimersByTimeAsync(0);
    expect(ended).toBe(true);
    expect(rows.drawn).toBe(true);
  });

  it("the wait ends at its limit when no rows come", async () => {
    const rows = new FirstRows();
    let ended = false;
    void rows.wait(300).then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(299);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(ended).toBe(true);
    expect(rows.drawn).toBe(false);
  });

  it("a wait after the rows were drawn ends at once", async () => {
    const rows = new FirstRows();
    rows.markDrawn();
    let ended = false;
    void rows.wait(10_000).then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(ended).toBe(true);
  });
});
