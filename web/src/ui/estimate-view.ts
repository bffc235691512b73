// Estimate mode: the report of the strategy the fixed keys describe, without a search (the
// module's estimate; keys left on auto take the core's defaults). Shows the report even when
// the strategy does not fit, with its reasons.
import { coreReasons } from "../i18n/core-reasons";
import { coreNotes } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import type { Report, Scenario } from "../paraplan/types";
import type { Runs } from "../state/runs";
import type { Store } from "../state/store";
import { CancelledError } from "../worker/errors";
import { campaignPanel } from "./campaign-view";
import { append, h } from "./dom";
import { gib, number, percent, seconds } from "./format";
import { memoryTable } from "./memory-chart";
import { timeBreakdown } from "./time-breakdown";

// The search request's scenario as an estimate takes it: the GPUs the job uses.
export function estimateScenario(searched: Scenario): Scenario {
  const scenario = structuredClone(searched);
  const { cluster } = scenario;
  if (cluster.num_gpus !== undefined && cluster.gpus.length === 1)
    cluster.gpus[0].count = cluster.num_gpus;
  delete cluster.num_gpus;
  return scenario;
}

export class EstimateView {
  readonly element = h("section", { class: "card estimate", testid: "estimate-view" });
  readonly button = h("button", {
    class: "secondary",
    testid: "estimate-button",
    i18n: "estimate.run",
    attrs: { type: "button" },
  });
  private report: Report | null = null;
  private error = "";

  constructor(
    private readonly store: Store,
    private readonly runs: Runs,
    private readonly onInvalid: () => void,
  ) {
    this.element.hidden = true;
    this.button.addEventListener("click", () => void this.run());
    store.subscribe((state, previous) => {
      if (state.lang !== previous.lang) this.render();
    });
  }

  async run(): Promise<void> {
    const request = this.runs.request(this.store.get());
    if (!request.ok) return this.onInvalid();
    this.store.update((state) => (state.estimate = true));
    this.error = "";
    this.report = null;
    this.button.disabled = true;
    try {
      this.report = await this.runs.estimate(estimateScenario(request.value.scenario));
    } catch (error) {
      if (error instanceof CancelledError) return;
      this.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.button.disabled = false;
    }
    this.render();
    this.element.focus();
  }

  hide(): void {
    this.report = null;
    this.error = "";
    this.element.hidden = true;
  }

  private render(): void {
    const report = this.report;
    if (report === null && this.error === "") return;
    this.element.hidden = false;
    this.element.tabIndex = -1;
    const close = h("button", {
      class: "icon",
      text: "✕",
      attrs: { type: "button", title: t("detail.close"), "aria-label": t("detail.close") },
      on: {
        click: () => {
          this.hide();
          this.store.update((state) => (state.estimate = false));
        },
      },
    });
    const header = h(
      "header",
      { class: "detail-header" },
      h("h2", { i18n: "estimate.title" }),
      close,
    );
    if (report === null) {
      this.element.replaceChildren(header, h("p", { class: "field-error", text: this.error }));
      return;
    }
    const summary: [string, string][] = report.feasible
      ? [
          [
            t("detail.throughput"),
            t("detail.tokensPerGpu", { value: number(report.tokens_per_s_per_gpu, 1) }),
          ],
          [t("detail.iteration"), seconds(report.iteration_time_s)],
          [t("detail.mfu"), `${percent(report.mfu)} / ${percent(report.hfu)}`],
          [t("col.memory"), gib(report.memory.peak_gib_per_gpu)],
          [t("col.dp"), String(report.data_parallel_size)],
          [t("col.gpus"), String(report.num_gpus)],
        ]
      : [];
    this.element.replaceChildren();
    append(
      this.element,
      header,
      h("p", { class: "hint", i18n: "estimate.hint" }),
      report.feasible
        ? h(
            "dl",
            { class: "summary", testid: "estimate-summary" },
            ...summary.flatMap(([term, value]) => [
              h("dt", { text: term }),
              h("dd", { text: value }),
            ]),
          )
        : h(
            "div",
            { testid: "estimate-infeasible" },
            h("h3", { i18n: "detail.infeasible" }),
            h("ul", {}, ...coreReasons(report).map((reason) => h("li", { text: reason }))),
          ),
      report.feasible ? timeBreakdown(report) : null,
      memoryTable(report),
      report.feasible ? campaignPanel(this.store, report) : null,
      report.validation && !report.validation.validated
        ? h(
            "ul",
            { class: "warning", testid: "validation-notes" },
            ...coreNotes(report.validation).map((note) => h("li", { text: note })),
          )
        : null,
    );
  }
}
