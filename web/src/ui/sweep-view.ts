// Hardware codesign: the best throughput and strategy as one or two GPU parameters vary on
// every GPU type of the cluster (paraplan sweep), searched on the pool of workers and drawn as
// each point finishes: one line per value of the second parameter.
import type { TooltipItem } from "chart.js";
import { t } from "../i18n/i18n";
import type { SweepGrid, SweepPointResult } from "../paraplan/types";
import type { PageState } from "../state/page-state";
import type { Outcome, Runs } from "../state/runs";
import { SWEEP_PARAMETERS } from "../state/sweep";
import { drawChart } from "./charts";
import { h } from "./dom";
import { section, stateBinding, textField, type FormContext } from "./fields";
import { number, percent, seconds } from "./format";
import { ACCENT } from "./palette";
import { ProgressBar } from "./progress";
import { strategyText } from "./scaling-view";
import { ThrottledRender } from "./throttled-render";

// A parameter's value as typed: up to three decimals, no trailing zeros.
const valueText = (value: number) => value.toLocaleString("en", { maximumFractionDigits: 3 });

const LINE_COLOURS = [ACCENT, "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#9c755f"];

export class SweepView {
  readonly element: HTMLElement;
  readonly runButton: HTMLButtonElement;
  private readonly chart = h("div", { class: "chart sweep-chart", testid: "sweep-chart" });
  private readonly table = h("div", { class: "table-scroll sweep-table" });
  private readonly prompt = h("p", { class: "muted", i18n: "sweep.prompt" });
  private readonly progress: ProgressBar;
  private grid: SweepGrid | null = null;
  private results: (SweepPointResult | null)[] = [];
  private readonly renders = new ThrottledRender(() => this.render());

  constructor(context: FormContext, onRun: () => void, onCancel: () => void) {
    this.progress = new ProgressBar(onCancel);
    const bind = stateBinding;
    this.runButton = h("button", {
      class: "primary",
      i18n: "sweep.run",
      testid: "sweep-button",
      attrs: { type: "button" },
      on: { click: onRun },
    });
    this.element = h(
      "div",
      { class: "sweep", testid: "sweep-view" },
      section(
        "sweep.title",
        h("p", { class: "hint", text: t("sweep.hint", { names: SWEEP_PARAMETERS.join(", ") }) }),
        h(
          "div",
          { class: "scaling-controls" },
          textField(context, bind("sweepFirst"), { label: "sweep.first", testid: "sweep-first" }),
          textField(context, bind("sweepSecond"), {
            label: "sweep.second",
            testid: "sweep-second",
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

  async run(runs: Runs, state: PageState): Promise<Outcome> {
    let done = 0;
    const outcome = await runs.sweep(state, {
      onStart: (grid) => {
        this.grid = grid;
        this.results = grid.points.map(() => null);
        this.render();
        this.progress.start(t("search.running"));
      },
      onPoint: (index, point) => {
        this.results[index] = point;
        done++;
        this.progress.update(
          done / this.results.length,
          t("scaling.progress", { done, points: this.results.length }),
        );
        this.renders.schedule();
      },
    });
    this.progress.finish();
    this.renders.now();
    return outcome;
  }

  render(): void {
    const grid = this.grid;
    this.prompt.hidden = grid !== null;
    this.chart.hidden = grid === null;
    if (grid === null) return;
    const [first, second] = grid.parameters;
    // One line per value of the second parameter (one line without it).
    const seconds2 = second === undefined ? [NaN] : [...new Set(grid.points.map((p) => p[1]))];
    const datasets = seconds2.map((value, line) => {
      const colour = LINE_COLOURS[line % LINE_COLOURS.length];
      return {
        label: second === undefined ? t("scaling.tokensPerGpu") : `${second} = ${valueText(value)}`,
        data: grid.points.flatMap((point, index) =>
          second === undefined || point[1] === value
            ? [
                {
                  x: point[0],
                  y: this.results[index]?.best?.estimate.tokens_per_s_per_gpu ?? null,
                  index,
                },
              ]
            : [],
        ),
        borderColor: colour,
        backgroundColor: colour,
        spanGaps: true,
      };
    });
    drawChart(this.chart, {
      type: "line",
      data: { datasets },
      options: {
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x: { type: "linear", title: { display: true, text: first } },
          y: {
            beginAtZero: true,
            title: { display: true, text: t("scaling.tokensPerGpu") },
          },
        },
        plugins: {
          legend: { position: "bottom", labels: { usePointStyle: true } },
          tooltip: {
            callbacks: {
              footer: (items: TooltipItem<"line">[]) => {
                const raw = items[0]?.raw as { index: number } | undefined;
                const result = raw === undefined ? null : this.results[raw.index];
                return result == null ? "" : strategyText(result.best);
              },
            },
          },
        },
      },
    });
    const header = [
      ...grid.parameters,
      t("scaling.tokensPerGpu"),
      t("scaling.mfu"),
      t("scaling.iteration"),
      t("scaling.strategy"),
    ];
    const rows = grid.points.map((point, index) => {
      const result = this.results[index];
      const estimate = result?.best?.estimate;
      const cells =
        result === null
          ? ["…", "", "", ""]
          : estimate === undefined
            ? [t("scaling.none"), "", "", ""]
            : [
                number(estimate.tokens_per_s_per_gpu, 1),
                percent(estimate.mfu),
                seconds(estimate.iteration_time_s),
                strategyText(result.best),
              ];
      return h(
        "tr",
        { testid: "sweep-row" },
        ...point.map((value) => h("td", { class: "numeric", text: valueText(value) })),
        ...cells.map((text, column) => h("td", { class: column < 3 ? "numeric" : "", text })),
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
            ...header.map((text, column) =>
              h("th", { class: column < header.length - 1 ? "numeric" : "", text }),
            ),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
    );
  }
}
