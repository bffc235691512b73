// The validation table on the page: for each set of published runs (those the model was built
// beside, and the 2025-26 runs it never saw) its summary, and for each source its runs' measured
// and predicted tokens/s per GPU and the error, from validation/validation.json (written by
// tests/validation/published_runs_test.cpp, whose staleness check keeps it in step with the model).
import { t } from "../i18n/i18n";
import type { Store } from "../state/store";
import table from "../validation/validation.json";
import { h } from "./dom";
import { number, percent } from "./format";

interface Summary {
  runs: number;
  infeasible: number;
  median_abs_error: number;
  p90_abs_error: number;
  max_abs_error: number;
}

function signed(error: number): string {
  return (error >= 0 ? "+" : "−") + percent(Math.abs(error));
}

function summaryText(summary: Summary): string {
  const text = t("validation.summary", {
    runs: summary.runs,
    median: percent(summary.median_abs_error),
    p90: percent(summary.p90_abs_error),
    max: percent(summary.max_abs_error),
  });
  if (summary.infeasible === 0) return text;
  return `${text}; ${t("validation.infeasible", { count: summary.infeasible })}`;
}

export function validationView(store: Store): HTMLDetailsElement {
  const details = h(
    "details",
    { class: "card validation", testid: "validation-table" },
    h("summary", { i18n: "validation.title" }),
  );
  // Drawn when first opened, and again in the current language.
  const draw = () => {
    const sources = table.sources.map((source) =>
      h(
        "section",
        { class: "validation-source" },
        h("h5", { text: source.label }),
        h("p", { class: "hint", text: summaryText(source.summary) }),
        h(
          "div",
          { class: "table-scroll" },
          h(
            "table",
            { class: "compact" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", { text: "id" }),
                h("th", { i18n: "validation.run" }),
                h("th", { class: "numeric", i18n: "validation.measured" }),
                h("th", { class: "numeric", i18n: "validation.predicted" }),
                h("th", { class: "numeric", i18n: "validation.error" }),
              ),
            ),
            h(
              "tbody",
              {},
              ...source.runs.map((run) =>
                h(
                  "tr",
                  { class: run.feasible ? "" : "infeasible" },
                  h("td", { text: run.id }),
                  h("td", { text: run.name }),
                  h("td", { class: "numeric", text: number(run.measured_tokens_per_s_per_gpu, 1) }),
                  h("td", {
                    class: "numeric",
                    text: number(run.predicted_tokens_per_s_per_gpu, 1),
                  }),
                  h("td", {
                    class: "numeric",
                    text: signed(run.error) + (run.feasible ? "" : ` (${t("table.infeasible")})`),
                  }),
                ),
              ),
            ),
          ),
        ),
      ),
    );
    // Each set's summary, then its sources' tables.
    const sets = table.sets.flatMap((set, index) => [
      h("h4", { text: set.label, testid: "validation-set" }),
      h(
        "p",
        {},
        `${t("validation.dense")}: ${summaryText(set.dense)} · ${t("validation.moe")}: ${summaryText(set.moe)}`,
      ),
      ...sources.filter((_, source) => table.sources[source].set === index),
    ]);
    details.replaceChildren(
      details.firstElementChild!,
      h("p", { class: "hint", i18n: "validation.hint" }),
      ...sets,
    );
  };
  details.addEventListener("toggle", () => {
    if (details.open) draw();
  });
  store.subscribe((state, previous) => {
    if (state.lang !== previous.lang && details.open) draw();
  });
  return details;
}
