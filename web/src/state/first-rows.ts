// When the page builds its job form where a link runs a search at once (run=1): after the
// search's first rows are drawn (or it ended without any), so that building the form (a few
// hundred ms of the main thread) does not hold the rows back (issue 30 item 8: first rows
// within 1 s), but no later than FORM_DEADLINE_MS after navigation, so that a search that is
// slow to report does not hold the form back either.

// The first rows' target (1 s after navigation, issue 30 item 8 and issue 34 item 2), with as
// much again for a loaded machine: on the 2-core test machine at load 11 the worker's first
// report came 1.37 s after navigation (tests/browser/first-result.bench.mjs --startup). The
// form is built a section per task (ui/layout.ts), so rows that come later wait at most for
// one section.
export const FIRST_ROWS_TARGET_MS = 1000;
export const FORM_DEADLINE_MS = 2 * FIRST_ROWS_TARGET_MS;

// How long the form may still wait at `nowMs` (ms since navigation).
export function formWaitMs(nowMs: number): number {
  return Math.max(0, FORM_DEADLINE_MS - nowMs);
}

// A one-way signal: the first rows are drawn (or the search ended).
export class FirstRows {
  private done = false;
  private resolve: () => void = () => undefined;
  private readonly shown = new Promise<void>((resolve) => (this.resolve = resolve));

  get drawn(): boolean {
    return this.done;
  }

  markDrawn(): void {
    this.done = true;
    this.resolve();
  }

  // Resolves when the rows are drawn or after `limitMs`, whichever comes first.
  wait(limitMs: number): Promise<void> {
    if (this.done) return Promise.resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
    return Promise.race([this.shown, deadline]).finally(() => clearTimeout(timer));
  }
}
