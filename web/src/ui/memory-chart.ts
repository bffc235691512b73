// Memory of one GPU of each pipeline stage, by kind, against the GPU's capacity: a chart and the
// same numbers as a table.
import type { Chart } from "chart.js";
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import type { Report } from "../paraplan/types";
import { drawChart } from "./charts";
import { gib } from "./format";
import { h } from "./dom";
import { CAPACITY, MEMORY_COLOURS, MEMORY_PARTS } from "./palette";

// `onDrawn` gets the chart once drawn (Chart.js may still be loading: ui/charts.ts).
export function drawMemoryChart(
  holder: HTMLElement,
  report: Report,
  onDrawn: (chart: Chart) => void,
): void {
  const stages = report.memory.per_stage;
  drawChart(
    holder,
    {
      type: "bar",
      data: {
        labels: stages.map((stage, index) =>
          t("detail.stageLabel", {
            n: index,
            gpu: stage.gpu,
            layers: stage.layers,
          }),
        ),
        datasets: [
          ...MEMORY_PARTS.map((part) => ({
            type: "bar" as const,
            label: t(`memory.${part}` as MessageKey),
            data: stages.map((stage) => stage[`${part}_gib`]),
            backgroundColor: MEMORY_COLOURS[part],
            stack: "memory",
            pointStyle: "rect" as const,
          })),
          {
            type: "line" as const,
            label: t("detail.capacity"),
            data: stages.map((stage) => stage.capacity_gib),
            borderColor: CAPACITY,
            backgroundColor: CAPACITY,
            borderDash: [6, 4],
            borderWidth: 2,
            // One stage has no segment to draw: its point is drawn as a line across the bar.
            pointRadius: stages.length === 1 ? 60 : 0,
            pointStyle: "line" as const,
            stepped: "middle" as const,
          },
        ],
      },
      options: {
        scales: {
          x: { stacked: true, ticks: { autoSkip: false, maxRotation: 40 } },
          y: {
            stacked: true,
            beginAtZero: true,
            title: { display: true, text: "GiB" },
          },
        },
        plugins: {
          legend: { position: "bottom", labels: { usePointStyle: true } },
          tooltip: {
            mode: "index",
            callbacks: {
              label: (item) => `${item.dataset.label}: ${gib(Number(item.raw))}`,
              footer: (items) => {
                const stage = stages[items[0]?.dataIndex ?? 0];
                return stage
                  ? t("detail.peakOf", {
                      peak: gib(stage.peak_gib),
                      capacity: gib(stage.capacity_gib),
                    })
                  : "";
              },
            },
          },
        },
      },
    },
    onDrawn,
  );
}

// Each stage's memory by kind, its peak, capacity and what is left free, in GiB.
// Null when no stage was priced (a strategy the framework's rules refuse): a table of headers
// alone said nothing.
export function memoryTable(report: Report): HTMLElement | null {
  if (report.memory.per_stage.length === 0) return null;
  const headers = [
    t("detail.stageColumn"),
    ...MEMORY_PARTS.map((part) => t(`memory.${part}` as MessageKey)),
    t("detail.peak"),
    t("detail.capacity"),
    t("detail.free"),
  ];
  return h(
    "table",
    { class: "memory-table", testid: "memory-table" },
    h("thead", {}, h("tr", {}, ...headers.map((text) => h("th", { text })))),
    h(
      "tbody",
      {},
      ...report.memory.per_stage.map((stage, index) =>
        h(
          "tr",
          {},
          h("td", {
            text: t("detail.stageLabel", { n: index, gpu: stage.gpu, layers: stage.layers }),
          }),
          ...[
            ...MEMORY_PARTS.map((part) => stage[`${part}_gib`]),
            stage.peak_gib,
            stage.capacity_gib,
            stage.capacity_gib - stage.peak_gib,
          ].map((value) => h("td", { class: "numeric", text: gib(value) })),
        ),
      ),
    ),
  );
}
