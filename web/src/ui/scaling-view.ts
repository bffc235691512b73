// Best throughput as the number of GPUs grows: every cluster size from "From" to "To" in steps
// of "Step", searched on a pool of workers (one per core) and drawn as each point finishes:
// tokens/s per GPU and in all against the ideal line (the first size's per-GPU throughput times
// the GPUs), the best strategy of a point on hover, and the cliffs marked.
import type { TooltipItem } from "chart.js";
import { coreText } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import type { RankedStrategy, ScalingPointResult } from "../paraplan/types";
import type { PageState } from "../state/page-state";
import type { Outcome, Runs } from "../state/runs";
import { EFFICIENCY_TOLERANCE, perGpu, seriesMarks, type SeriesMarks } from "../state/scaling";
import { drawChart } from "./charts";
import { h } from "./dom";
import { checkboxField, section, stateBinding, textField, type FormContext } from "./fields";
import { count, number, percent, seconds } from "./format";
import { ACCENT, MUTED } from "./palette";
import { ProgressBar } from "./progress";
import { ThrottledRender } from "./throttled-render";

const CLIFF = "#e15759";
const DIP = "#f28e2b";
const IDEAL = "#59a14f";

export interface ScalingPoint {
  numGpus: number;
  result: ScalingPointResult | null; // null until searched
}

// "TP8 PP4 VP5 DP32 · mbs 1 · selective · ZeRO-1": the sizes above 1 (TP, PP and DP always).
export function strategyText(best: RankedStrategy | null): string {
  if (best === null) return t("scaling.none");
  const s = best.strategy;
  const sizes: [string, number][] = [
    ["TP", s.tensor_model_parallel_size],
    ["PP", s.pipeline_model_parallel_size],
    ["VP", s.virtual_pipeline_model_parallel_size],
    ["CP", s.context_parallel_size],
    ["EP", s.expert_model_parallel_size],
    ["DP", best.estimate.data_parallel_size],
  ];
  const shown = sizes.filter(([name, size]) => size > 1 || ["TP", "PP", "DP"].includes(name));
  const recompute = [...new Set(Object.values(best["recompute-granularity"] ?? {}))].join("/");
  return [
    shown.map(([name, size]) => `${name}${size}`).join(" "),
    `mbs ${s.micro_batch_size}`,
    ...(recompute ? [recompute] : []),
    `ZeRO-${s.zero_stage}`,
  ].join(" · ");
}

export class ScalingView {
  readonly element: HTMLElement;
  readonly runButton: HTMLButtonElement;
  private readonly chart = h("div", { class: "chart scaling-chart", testid: "scaling-chart" });
  private readonly summary = h("p", { class: "muted", testid: "scaling-summary" });
  private readonly table = h("div", { class: "table-scroll scaling-table" });
  private readonly prompt = h("p", { class: "muted", i18n: "scaling.prompt" });
  private readonly progress: ProgressBar;
  private points: ScalingPoint[] = [];
  private readonly renders = new ThrottledRender(() => this.render());
  private running = false;
  private tableDrawnAt = 0;

  constructor(context: FormContext, onRun: () => void, onCancel: () => void) {
    this.progress = new ProgressBar(onCancel);
    const bind = stateBinding;
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
            testid: "scale-from",
          }),
          textField(context, bind("scaleTo"), {
            label: "scaling.to",
            numeric: true,
            unit: "scaling.gpus",
            testid: "scale-to",
          }),
          textField(context, bind("scaleBudget"), {
            label: "scaling.budget",
            numeric: true,
            unit: "search.seconds",
            testid: "scale-budget",
          }),
          textField(context, bind("scaleStep"), {
            label: "scaling.step",
            numeric: true,
            unit: "scaling.gpus",
            testid: "scale-step",
          }),
          checkboxField(
            context,
            "scaling.weak",
            (state) => state.scaleWeak,
            (state, value) => {
              state.scaleWeak = value;
            },
          ),
          this.runButton,
        ),
        this.progress.element,
        this.prompt,
        this.summary,
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

  // Runs the series of the state's job through `runs`, drawing each point as it finishes
  // (at most once a frame).
  async run(runs: Runs, state: PageState): Promise<Outcome> {
    let points: ScalingPoint[] = [];
    let done = 0;
    this.running = true;
    const outcome = await runs.scaling(state, {
      onStart: (sizes) => {
        points = sizes.map((numGpus) => ({ numGpus, result: null }));
        this.show(points);
        this.progress.start(t("search.running"));
      },
      onPoint: (index, result) => {
        points[index].result = result;
        done++;
        this.progress.update(
          done / points.length,
          t("scaling.progress", { done, points: points.length }),
        );
        this.renders.schedule();
      },
    });
    this.running = false;
    this.progress.finish();
    this.renders.now();
    return outcome;
  }

  render(): void {
    this.prompt.hidden = this.points.length > 0;
    this.chart.hidden = this.points.length === 0;
    if (this.points.length === 0) {
      this.table.replaceChildren();
      this.summary.textContent = "";
      return;
    }
    const values = this.points.map((point) => perGpu(point.result));
    const marks = seriesMarks(this.points.map((point) => point.result));
    const { cliffs, dips } = marks;
    const firstIndex = marks.reference;
    const base = firstIndex >= 0 ? values[firstIndex] : 0;
    const searched = this.points.filter((point) => point.result !== null).length;
    const feasible = values.filter((value) => value > 0).length;
    const sizesWhere = (flags: boolean[]) => {
      const sizes = this.points.filter((_, index) => flags[index]).map((p) => number(p.numGpus));
      return sizes.length > 0 ? sizes.join(", ") : "—";
    };
    this.summary.textContent = t("scaling.summary", {
      searched,
      points: this.points.length,
      feasible,
      cliffs: sizesWhere(cliffs),
      dips: sizesWhere(dips),
    });
    const xy = (index: number, y: number | null) => ({ x: this.points[index].numGpus, y });
    const perGpuData = values.map((value, index) => xy(index, value > 0 ? value : null));
    const totalData = values.map((value, index) =>
      xy(index, value > 0 ? value * this.points[index].numGpus : null),
    );
    const idealData =
      base > 0
        ? this.points
            .slice(firstIndex)
            .map((point, offset) => xy(firstIndex + offset, base * point.numGpus))
        : [];
    const cliffData = values.flatMap((value, index) => (cliffs[index] ? [xy(index, value)] : []));
    const dipData = values.flatMap((value, index) => (dips[index] ? [xy(index, value)] : []));
    const pointAt = (x: number) => this.points.find((point) => point.numGpus === x);
    drawChart(this.chart, {
      type: "line",
      data: {
        datasets: [
          {
            label: t("scaling.tokensPerGpu"),
            data: perGpuData,
            borderColor: ACCENT,
            backgroundColor: ACCENT,
            pointRadius: this.points.length > 64 ? 1.5 : 3,
            spanGaps: true,
            yAxisID: "perGpu",
          },
          {
            label: t("scaling.cliffs"),
            data: cliffData,
            borderColor: CLIFF,
            backgroundColor: CLIFF,
            showLine: false,
            pointStyle: "triangle",
            pointRadius: 7,
            rotation: 180,
            yAxisID: "perGpu",
          },
          {
            label: t("scaling.dips"),
            data: dipData,
            borderColor: DIP,
            backgroundColor: "#ffffff",
            showLine: false,
            pointStyle: "circle",
            pointRadius: 4,
            yAxisID: "perGpu",
          },
          {
            label: t("scaling.tokensTotal"),
            data: totalData,
            borderColor: MUTED,
            backgroundColor: MUTED,
            pointRadius: 0,
            spanGaps: true,
            yAxisID: "total",
          },
          {
            label: t("scaling.ideal"),
            data: idealData,
            borderColor: IDEAL,
            backgroundColor: IDEAL,
            borderDash: [6, 4],
            pointRadius: 0,
            yAxisID: "total",
          },
        ],
      },
      options: {
        interaction: { mode: "nearest", axis: "x", intersect: false },
        scales: {
          x: {
            type: "linear",
            min: this.points[0].numGpus,
            max: this.points[this.points.length - 1].numGpus,
            title: { display: true, text: t("scaling.gpus") },
          },
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
            labels: { usePointStyle: true },
          },
          tooltip: {
            callbacks: {
              title: (items: TooltipItem<"line">[]) =>
                items.length > 0 ? `${number(items[0].parsed.x ?? 0)} ${t("scaling.gpus")}` : "",
              footer: (items: TooltipItem<"line">[]) => {
                const point = items.length > 0 ? pointAt(items[0].parsed.x ?? NaN) : undefined;
                if (point?.result == null) return "";
                const index = this.points.indexOf(point);
                const cliff = cliffs[index] ? ` — ${t("scaling.cliff")}` : "";
                return [strategyText(point.result.best) + cliff, ...marks.notes[index]].join("\n");
              },
            },
          },
        },
      },
    });
    // The table (up to thousands of rows) at most once a second while points arrive.
    const now = performance.now();
    if (!this.running || now - this.tableDrawnAt >= 1000 || searched === this.points.length) {
      this.tableDrawnAt = now;
      this.renderTable(marks);
    }
  }

  private renderTable(marks: SeriesMarks): void {
    const { cliffs, dips, efficiency, notes } = marks;
    const reference = marks.reference >= 0 ? this.points[marks.reference].numGpus : null;
    const header = [
      t("scaling.gpus"),
      t("scaling.batch"),
      t("scaling.tokensPerGpu"),
      t("scaling.tokensTotal"),
      t("scaling.mfu"),
      reference === null
        ? t("scaling.efficiency")
        : t("scaling.efficiencyAgainst", { gpus: number(reference) }),
      t("scaling.iteration"),
      t("scaling.strategy"),
      t("scaling.notes"),
    ];
    const rows = this.points.map((point, index) => {
      const best = point.result?.best ?? null;
      const estimate = best?.estimate;
      const ratio = efficiency[index];
      const above = ratio !== null && ratio > 1 + EFFICIENCY_TOLERANCE;
      const cells =
        point.result === null
          ? ["", "…", "", "", "", "", "", ""]
          : estimate === undefined
            ? [
                String(point.result.global_batch_size),
                t("scaling.none"),
                "",
                "",
                "",
                "",
                "",
                point.result.reason
                  ? t("scaling.gap", {
                      reason: coreText(point.result.reason, point.result.reason_text),
                    })
                  : "",
              ]
            : [
                String(point.result.global_batch_size),
                number(estimate.tokens_per_s_per_gpu, 1),
                count(estimate.tokens_per_s_per_gpu * estimate.num_gpus),
                percent(estimate.mfu),
                ratio === null ? "" : percent(ratio, 0) + (above ? "*" : ""),
                seconds(estimate.iteration_time_s),
                strategyText(best) +
                  (point.result.stats.complete ? "" : ` (${t("scaling.incomplete")})`) +
                  (cliffs[index] ? ` — ${t("scaling.cliff")}` : "") +
                  (dips[index] ? ` — ${t("scaling.dip")}` : ""),
                notes[index].join("; "),
              ];
      return h(
        "tr",
        {
          testid: "scaling-row",
          class: cliffs[index]
            ? "cliff"
            : dips[index]
              ? "dip"
              : estimate === undefined && point.result !== null
                ? "gap"
                : "",
          attrs: {
            "data-cliff": String(cliffs[index]),
            "data-dip": String(dips[index]),
            "data-efficiency": ratio === null ? "" : String(ratio),
          },
        },
        h("td", { class: "numeric", text: number(point.numGpus) }),
        ...cells.map((text, column) =>
          h("td", { class: column < 6 ? "numeric" : column === 7 ? "notes" : "", text }),
        ),
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
            ...header.map((text, column) => h("th", { class: column < 7 ? "numeric" : "", text })),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
    );
  }
}
