// The line above the results: what to do first, how the last search went (every count
// taken from the strategies the table lists), whether the inputs have changed since, and
// why nothing fits.
import { coreText } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import type { SearchProgress } from "../paraplan/types";
import { summarise, type Run } from "../state/runs";
import { h } from "./dom";
import { integer, seconds } from "./format";

export interface StatusState {
  run: Run | null; // the last search
  cancelled: boolean; // the last search was cancelled
  stale: boolean; // the inputs have changed since the last search
  // The latest report of a search under way that shows its best rows so far.
  provisional?: SearchProgress | null;
}

export class StatusView {
  readonly element = h("div", { class: "status", testid: "search-status" });

  render({ run, cancelled, stale, provisional }: StatusState): void {
    if (provisional) return this.renderProvisional(provisional);
    const parts: HTMLElement[] = [];
    if (cancelled) parts.push(h("p", { class: "note", text: t("search.cancelled") }));
    if (run === null) {
      if (!cancelled)
        parts.push(
          h("p", { class: "strong", text: t("search.prompt") }),
          h("p", { class: "muted", text: t("app.about") }),
        );
      this.element.replaceChildren(...parts);
      return;
    }
    const { result } = run;
    const { stats } = result;
    const summary = summarise(result);
    if (stale) parts.push(h("p", { class: "note stale", text: t("search.stale") }));
    const work = {
      evaluated: integer(stats.evaluated),
      pruned: integer(stats.pruned),
      seconds: seconds(stats.seconds),
    };
    parts.push(
      h("p", {
        class: "muted",
        text:
          summary.infeasible === 0
            ? t("search.stats", {
                shown: summary.listed,
                feasible: integer(summary.feasibleFound),
                ...work,
              })
            : t("search.statsWithInfeasible", {
                shown: summary.listed,
                infeasible: summary.infeasible,
                ...work,
              }),
      }),
    );
    if (!stats.complete)
      parts.push(
        h("p", {
          class: "note",
          text: t("search.incomplete", { reason: coreText(stats.stopped, stats.stopped_text) }),
        }),
      );
    if (summary.feasible === 0) {
      parts.push(
        h(
          "div",
          { class: "diagnosis", testid: "diagnosis" },
          h("p", { class: "strong", text: t("search.nothingFeasible") }),
          h(
            "ul",
            {},
            ...result.diagnosis.map((line, index) =>
              h("li", { text: coreText(line, result.diagnosis_texts?.[index]) }),
            ),
          ),
        ),
      );
    }
    this.element.replaceChildren(...parts);
  }

  // The rows below are the best so far: that the search goes on (an indeterminate progress
  // bar: the search's fraction done counts its outer loop, whose steps are far from even), how
  // much it has evaluated, and that the rows will change.
  private renderProvisional(progress: SearchProgress): void {
    this.element.replaceChildren(
      h(
        "p",
        { class: "note provisional-note", testid: "provisional-note" },
        h("progress", { class: "provisional-progress", attrs: { "aria-hidden": "true" } }),
        " ",
        t("search.provisional", {
          evaluated: integer(progress.evaluated),
          seconds: seconds(progress.elapsed_s),
        }),
      ),
    );
  }
}
