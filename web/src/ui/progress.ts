// A progress bar with a Cancel button, shown once a computation lasts more
// than a moment.
import { t } from "../i18n/i18n";
import type { Progress } from "../worker/protocol";
import { h } from "./dom";
import { integer, percent, seconds } from "./format";

const SHOW_AFTER_MS = 250;

export class ProgressBar {
  readonly element: HTMLElement;
  private readonly bar = h("div", { class: "progress-fill" });
  private readonly label = h("span", { class: "progress-label" });
  private timer: number | undefined;

  constructor(onCancel: () => void) {
    const cancel = h("button", {
      class: "secondary",
      i18n: "search.cancel",
      testid: "cancel-button",
      attrs: { type: "button" },
      on: { click: onCancel },
    });
    // A progress bar, not a live region: screen readers hear the search's start and end from
    // the results (one polite announcement each), not every report.
    this.element = h(
      "div",
      { class: "progress" },
      h(
        "div",
        {
          class: "progress-track",
          attrs: { role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100" },
          i18nAttrs: { "aria-label": "search.running" },
        },
        this.bar,
      ),
      h("div", { class: "progress-row" }, this.label, cancel),
    );
    this.element.hidden = true;
  }

  start(text: string): void {
    this.update(0, text);
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => (this.element.hidden = false), SHOW_AFTER_MS);
  }

  update(fraction: number, text: string): void {
    const percentDone = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
    this.bar.style.width = `${percentDone}%`;
    this.bar.parentElement?.setAttribute("aria-valuenow", String(percentDone));
    this.label.textContent = text;
  }

  finish(): void {
    window.clearTimeout(this.timer);
    this.element.hidden = true;
  }
}

// A search's progress: done so far, strategies evaluated, the best iteration time yet.
export function searchProgressText({ search }: Progress): string {
  const params = {
    percent: percent(search.fraction, 0),
    evaluated: integer(search.evaluated),
    best: seconds(search.best_iteration_time_s),
    layout: search.best_layout ?? "",
  };
  return t(search.best_iteration_time_s > 0 ? "search.progress" : "search.progressNoBest", params);
}
