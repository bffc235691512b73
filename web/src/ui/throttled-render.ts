// How often a view redraws while results stream in.
const RENDER_EVERY_MS = 250;

// Redraws a view at most once per `everyMs` while results stream in (drawing hundreds of points
// and rows takes a while, and the main thread must stay free to hand workers their next point).
// `now()` draws at once and drops the redraw still scheduled, so nothing redraws after the last
// result: a chart replaced under the user's pointer loses its hover.
export class ThrottledRender {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly render: () => void,
    private readonly everyMs = RENDER_EVERY_MS,
  ) {}

  schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.now(), this.everyMs);
  }

  now(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.render();
  }
}
