import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ThrottledRender } from "./throttled-render";

describe("ThrottledRender", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("draws once per interval however many results arrive", () => {
    const render = vi.fn();
    const renders = new ThrottledRender(render, 250);
    for (let i = 0; i < 10; i++) renders.schedule();
    expect(render).not.toHaveBeenCalled();
    vi.advanceTimersByTime(250);
    expect(render).toHaveBeenCalledTimes(1);
    renders.schedule();
    vi.advanceTimersByTime(250);
    expect(render).toHaveBeenCalledTimes(2);
  });

  it("draws at once on now() and not again after it", () => {
    const render = vi.fn();
    const renders = new ThrottledRender(render, 250);
    renders.schedule();
    renders.now();
    expect(render).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(render).toHaveBeenCalledTimes(1);
  });
});
