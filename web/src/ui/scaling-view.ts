// Best throughput as the number of GPUs grows: a chart and a table, filled in
// point by point as the worker's searches finish.
import { t } from "../i18n/i18n";
import type { RankedStrategy, SearchResult } from "../paraplan/types";
import type { PageState } from "../state/page-state";
import type { Outcome, Runs } from "../state/runs";
import { drawChart } from "./charts";
import { h } from "./dom";
import { section, textField, type FormContext } from "./fields";
import { count, integer, number, percent, seconds } from "./format";
import { ACCENT, MUTED } from "./palette";
import { ProgressBar } from "./progress";

export interface ScalingPoint {
  numGpus: number;
  result: SearchResult | null; // null until searched
}

// The best strategy of a point: its first feasible one.
function bestOf(result: SearchResult | null): RankedStrategy | undefined {
  return result?.strategies.find((ranked) => ranked.estimate.feasible);
}

function strategyText(result: SearchResult): string {
  const best = bestOf(result);
  if (best === undefined) return t("scaling.none");
  const s = best.strategy;
  const sizes: [string, number][] = [
    ["TP", s.tensor_model_parallel_size],
    ["PP", s.pipeline_model_parallel_size],
    ["VP", s.virtual_pipeline_model_parallel_size],
    ["CP", s.context_parallel_size],
    ["EP", s.expert_model_parallel_size],
    ["DP", best.estimate.data_parallel_size],
  ];
  const shown = sizes.filter(([name, size]) => size > 1 || name === "TP" || name === "DP");
  return `${shown.map(([name, size]) => `${name}${size}`).join(" ")} · mbs ${s.micro_batch_size}`;
}

export class ScalingView {
  readonly element: HTMLElement;
  readonly runButton: HTMLButtonElement;
  private readonly chart = h("div", { class: "chart scaling-chart" });
  private readonly table = h("div", { class: "table-scroll" });
  private readonly prompt = h("p", { class: "muted", i18n: "scaling.prompt" });
  private readonly progress: ProgressBar;
  private points: ScalingPoint[] = [];

  constructor(context: FormContext, onRun: () => void, onCancel: () => void) {
    this.progress = new ProgressBar(onCancel);
    const bind = (key: "scaleFrom" | "scaleTo" | "scaleBudget") => ({
      field: key,
      get: (state: { [k in typeof key]: string }) => state[key],
      set: (state: { [k in typeof key]: string }, value: string) => {
        state[key] = value;
      },
    });
    this.runButton = h("button", {
      class: "primary",
      i18n: "scaling.run",
      testid: "scaling-button",
      attrs: { type: "button" },
      on: { click: onRun },
    });
    this.element = h(
      "div",
      { class: "scaling", testid: "scaling-view" },
      section(
        "scaling.title",
        h("p", { class: "hint", i18n: "scaling.hint" }),
        h(
          "div",
          { class: "scaling-controls" },
          textField(context, bind("scaleFrom"), {
            label: "scaling.from",
            numeric: true,
            unit: "scaling.gpus",
          }),
          textField(context, bind("scaleTo"), {
            label: "scaling.to",
            numeric: true,
            unit: "scaling.gpus",
          }),
          textField(context, bind("scaleBudget"), {
            label: "scaling.budget",
            numeric: true,
            unit: "search.seconds",
          }),
          this.runButton,
        ),
        this.progress.element,
        this.prompt,
        this.chart,
        this.table,
      ),
    );
    this.chart.hidden = true;
  }

  show(points: ScalingPoint[]): void {
    this.points = points;
    this.render();
  }

  // Runs the series of the state's job through `runs`, filling in the chart and the table
  // point by point.
  async run(runs: Runs, state: PageState): Promise<Outcome> {
    let points: ScalingPoint[] = [];
    const outcome = await runs.scaling(state, {
      onStart: (counts) => {
        points = counts.map((numGpus) => ({ numGpus, result: null }));
        this.show(points);
        this.progress.start(t("search.running"));
      },
      onProgress: ({ step, steps, search }, gpus) =>
        this.progress.update(
          (step + search.fraction) / steps,
          t("scaling.running", { step: step + 1, steps, gpus: integer(gpus) }),
        ),
      onPartial: (index, result) => {
        points[index].result = result;
        this.show(points);
      },
    });
    this.progress.finish();
    return outcome;
  }

  render(): void {
    const done = this.points.filter((point) => point.result !== null);
    this.prompt.hidden = this.points.length > 0;
    this.chart.hidden = this.points.length === 0;
    if (this.points.length === 0) {
      this.table.replaceChildren();
      return;
    }
    const best = (point: ScalingPoint) => bestOf(point.result)?.estimate;
    const base = done.map(best).find((estimate) => estimate !== undefined);
    const perGpu = this.points.map((point) => best(point)?.tokens_per_s_per_gpu ?? null);
    drawChart(this.chart, {
      type: "line",
      data: {
        labels: this.points.map((point) => String(point.numGpus)),
        datasets: [
          {
            label: t("scaling.tokensPerGpu"),
            data: perGpu,
            borderColor: ACCENT,
            backgroundColor: ACCENT,
            yAxisID: "perGpu",
          },
          {
            label: t("scaling.tokensTotal"),
            data: this.points.map((point) => {
              const estimate = best(point);
              return estimate ? estimate.tokens_per_s_per_gpu * estimate.num_gpus : null;
            }),
            borderColor: MUTED,
            backgroundColor: MUTED,
            borderDash: [6, 4],
            yAxisID: "total",
          },
        ],
      },
      options: {
        scales: {
          x: { title: { display: true, text: t("scaling.gpus") } },
          perGpu: {
            position: "left",
            beginAtZero: true,
            title: { display: true, text: t("scaling.tokensPerGpu") },
          },
          total: {
            position: "right",
            beginAtZero: true,
            grid: { drawOnChartArea: false },
            title: { display: true, text: t("scaling.tokensTotal") },
            ticks: { callback: (value) => count(Number(value)) },
          },
        },
        plugins: {
          legend: {
            position: "bottom",
            labels: { usePointStyle: true, pointStyle: "line" },
          },
        },
      },
    });
    const header = [
      "scaling.gpus",
      "scaling.tokensPerGpu",
      "scaling.tokensTotal",
      "scaling.mfu",
      "scaling.efficiency",
      "scaling.iteration",
      "scaling.strategy",
    ] as const;
    const rows = this.points.map((point) => {
      const estimate = best(point);
      const cells =
        point.result === null
          ? ["…", "", "", "", "", ""]
          : estimate === undefined
            ? [t("scaling.none"), "", "", "", "", ""]
            : [
                number(estimate.tokens_per_s_per_gpu, 1),
                count(estimate.tokens_per_s_per_gpu * estimate.num_gpus),
                percent(estimate.mfu),
                base ? percent(estimate.tokens_per_s_per_gpu / base.tokens_per_s_per_gpu, 0) : "",
                seconds(estimate.iteration_time_s),
                strategyText(point.result) +
                  (point.result.stats.complete ? "" : ` (${t("scaling.incomplete")})`),
              ];
      return h(
        "tr",
        { testid: "scaling-row" },
        h("td", { class: "numeric", text: number(point.numGpus) }),
        ...cells.map((text, index) => h("td", { class: index < 5 ? "numeric" : "", text })),
      );
    });
    this.table.replaceChildren(
      h(
        "table",
        { class: "results static" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...header.map((key, index) =>
              h("th", { class: index < 6 ? "numeric" : "", text: t(key) }),
            ),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
    );
  }
}
