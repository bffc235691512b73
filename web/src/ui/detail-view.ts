// One strategy in depth: its numbers, where the time and memory go, the
// simulated pipeline schedule, and the Megatron-LM arguments to run it.
import type { Chart } from "chart.js";
import { coreReasons } from "../i18n/core-reasons";
import { coreText } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import type { RankedStrategy, Report, TraceResult } from "../paraplan/types";
import { copyText, download } from "./clipboard";
import { h, type Child } from "./dom";
import { count, number, percent, seconds } from "./format";
import { drawMemoryChart, memoryTable } from "./memory-chart";
import { ScheduleView } from "./schedule";
import { launchView } from "./launch-view";
import { gpusText } from "./strategy-text";
import { timeBreakdown } from "./time-breakdown";

// The 80% band of measured throughput in the estimate's regime, how it was derived, and the
// memory verdict with its numbers.
function uncertaintyRows(ranked: RankedStrategy): [string, string][] {
  const { uncertainty, memory } = ranked.estimate;
  const rows: [string, string][] = [];
  if (uncertainty !== undefined && uncertainty.runs > 0) {
    const [low, high] = uncertainty.tokens_per_s_per_gpu;
    rows.push([
      t("detail.band"),
      t("detail.bandValue", {
        low: number(low, 0),
        high: number(high, 0),
        regime: coreText(uncertainty.regime, uncertainty.regime_text),
        runs: uncertainty.runs,
      }),
    ]);
    rows.push(["", coreText(uncertainty.basis, uncertainty.basis_text)]);
  }
  if (memory.verdict !== undefined) {
    const reason = memory.verdict_reason
      ? `: ${coreText(memory.verdict_reason, memory.verdict_reason_text)}`
      : "";
    rows.push([t("detail.verdict"), `${t(`detail.verdict.${memory.verdict}`)}${reason}`]);
  }
  if (ranked.rank_note) {
    rows.push([t("detail.rankNote"), coreText(ranked.rank_note, ranked.rank_note_text)]);
  }
  return rows;
}

function summary(ranked: RankedStrategy): HTMLElement {
  const report = ranked.estimate;
  const bottleneck = report.pipeline.stages[report.pipeline.bottleneck_stage];
  const rows: [string, string][] = [
    [
      t("detail.throughput"),
      t("detail.tokensPerGpu", {
        value: number(report.tokens_per_s_per_gpu, 1),
      }),
    ],
    [
      "",
      t("detail.tokensTotal", {
        value: count(report.tokens_per_s_per_gpu * report.num_gpus),
      }),
    ],
    ...uncertaintyRows(ranked),
    [t("detail.iteration"), seconds(report.iteration_time_s)],
    [t("detail.mfu"), `${percent(report.mfu)} / ${percent(report.hfu)}`],
    [t("detail.tflops"), number(report.model_tflops_per_gpu, 1)],
    [t("detail.gpusUsed"), gpusText(ranked)],
    [t("detail.microBatches"), number(report.pipeline.num_micro_batches)],
    [
      t("detail.bottleneck"),
      bottleneck
        ? t("detail.stageLabel", {
            n: report.pipeline.bottleneck_stage,
            gpu: bottleneck.gpu,
            layers: bottleneck.layers,
          })
        : "",
    ],
    [t("detail.parameters"), count(report.model_parameters)],
  ];
  return h(
    "dl",
    { class: "summary" },
    ...rows.flatMap(([term, value]) => [h("dt", { text: term }), h("dd", { text: value })]),
  );
}

function panel(title: string, hint: string, ...children: Child[]): HTMLElement {
  return h(
    "section",
    { class: "card" },
    h("h3", { text: title }),
    hint ? h("p", { class: "hint", text: hint }) : null,
    ...children,
  );
}

function flags(ranked: RankedStrategy): HTMLElement {
  const byGpu = Object.entries(ranked.megatron_args_by_gpu ?? {});
  const differ = byGpu.some(([, args]) => args !== ranked.megatron_args);
  const blocks = differ ? byGpu : [["", ranked.megatron_args] as [string, string]];
  return h(
    "div",
    {},
    ...blocks.map(([gpu, args]) => {
      const copy = h("button", {
        class: "secondary",
        text: t("detail.copyFlags"),
        attrs: { type: "button" },
      });
      copy.addEventListener("click", () => void copyText(args, copy));
      return h(
        "div",
        { class: "flags" },
        gpu ? h("h4", { text: t("detail.flagsFor", { gpu }) }) : null,
        h("pre", { testid: "megatron-args", text: args }),
        copy,
      );
    }),
  );
}

function stageNames(report: Report): string[] {
  return report.pipeline.stages.map((stage, index) =>
    t("detail.stageLabel", { n: index, gpu: stage.gpu, layers: stage.layers }),
  );
}

export class DetailView {
  readonly element = h("div", { class: "detail", testid: "detail-view" });
  private shown: RankedStrategy | null = null;
  private schedule: ScheduleView | null = null;
  private memoryChart: Chart | null = null;
  private memoryHolder: HTMLElement | null = null; // where the current memory chart goes
  private trace: TraceResult | null = null;

  constructor(private readonly onClose: () => void) {
    this.element.hidden = true;
    // Escape closes the detail, wherever the focus is (unless something else took the key).
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      if (this.shown === null || this.element.hidden || !this.element.isConnected) return;
      event.preventDefault();
      this.onClose();
    });
  }

  get rank(): number | null {
    return this.shown?.rank ?? null;
  }

  // Shows `ranked` at once; its schedule follows when `trace` resolves.
  show(ranked: RankedStrategy, trace: Promise<TraceResult> | null): void {
    this.shown = ranked;
    this.trace = null;
    this.render();
    trace?.then(
      (result) => {
        if (this.shown !== ranked) return;
        this.trace = result;
        this.schedule?.show(
          result.trace.traceEvents,
          stageNames(ranked.estimate),
          result.trace.otherData,
        );
        this.element
          .querySelector<HTMLButtonElement>(".download-trace")
          ?.removeAttribute("disabled");
        this.element.querySelector(".schedule-loading")?.remove();
      },
      () => this.element.querySelector(".schedule-loading")?.remove(),
    );
  }

  hide(): void {
    this.shown = null;
    this.trace = null;
    this.element.hidden = true;
    this.clear();
  }

  private clear(): void {
    this.schedule?.dispose();
    this.schedule = null;
    this.memoryChart?.destroy();
    this.memoryChart = null;
    this.memoryHolder = null;
    this.element.replaceChildren();
  }

  // Redraws in the current language.
  render(): void {
    const ranked = this.shown;
    if (ranked === null) return;
    this.clear();
    const report = ranked.estimate;
    const close = h("button", {
      class: "icon",
      text: "✕",
      attrs: {
        type: "button",
        title: t("detail.close"),
        "aria-label": t("detail.close"),
      },
      on: { click: this.onClose },
    });
    const header = h(
      "header",
      { class: "detail-header" },
      h("h2", { text: t("detail.title", { rank: ranked.rank }) }),
      report.feasible
        ? h(
            "p",
            { class: "muted" },
            `${number(report.tokens_per_s_per_gpu, 1)} tokens/s/GPU · ${seconds(report.iteration_time_s)} · MFU ${percent(report.mfu)}`,
          )
        : null,
      close,
    );
    this.element.hidden = false;
    if (!report.feasible) {
      this.element.replaceChildren(
        header,
        panel(
          t("detail.infeasible"),
          "",
          h("ul", {}, ...coreReasons(report).map((reason) => h("li", { text: reason }))),
        ),
        panel(t("detail.flags"), "", flags(ranked)),
      );
      return;
    }
    const memory = h("div", { class: "chart memory-chart" });
    this.schedule = new ScheduleView();
    if (this.trace)
      this.schedule.show(
        this.trace.trace.traceEvents,
        stageNames(report),
        this.trace.trace.otherData,
      );
    const downloadTrace = h("button", {
      class: "secondary download-trace",
      text: t("detail.downloadTrace"),
      attrs: { type: "button", ...(this.trace ? {} : { disabled: "" }) },
      on: {
        click: () => {
          if (this.trace) {
            download(
              `paraplan-rank${ranked.rank}.trace.json`,
              "application/json",
              JSON.stringify(this.trace.trace),
            );
          }
        },
      },
    });
    this.element.replaceChildren(
      header,
      h(
        "div",
        { class: "detail-grid" },
        panel(t("detail.summary"), "", summary(ranked)),
        panel(t("detail.timeBreakdown"), t("detail.timeBreakdownHint"), timeBreakdown(report)),
      ),
      panel(t("detail.memory"), t("detail.memoryHint"), memory, memoryTable(report)),
      panel(
        t("detail.schedule"),
        t("detail.scheduleHint"),
        this.trace
          ? null
          : h("p", {
              class: "schedule-loading muted",
              text: t("detail.scheduleLoading"),
            }),
        this.schedule.element,
        h(
          "div",
          { class: "actions" },
          downloadTrace,
          h("span", { class: "hint", text: t("detail.traceHint") }),
        ),
      ),
      panel(t("detail.flags"), "", flags(ranked)),
      panel(t("launch.title"), t("launch.hint"), launchView(ranked)),
    );
    this.memoryHolder = memory;
    drawMemoryChart(memory, report, (chart) => {
      // Drawn after the view moved on (Chart.js was still loading): not this view's chart.
      if (this.memoryHolder === memory) this.memoryChart = chart;
      else chart.destroy();
    });
  }
}
