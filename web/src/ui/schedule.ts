// The simulated pipeline schedule, drawn from the module's Chrome trace: one row
// per stage (compute above, communication below), time left to right.
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import type { TraceEvent } from "../paraplan/types";
import { h } from "./dom";
import { seconds } from "./format";
import { SLICE_COLOURS, type SliceKind } from "./palette";

interface Slice {
  stage: number;
  lane: 0 | 1; // 0 compute, 1 communication
  start_s: number;
  end_s: number;
  kind: SliceKind;
  name: string;
  microBatch?: number;
}

const LABEL_WIDTH = 132;
const COMPUTE_HEIGHT = 20;
const COMM_HEIGHT = 6;
const ROW_GAP = 8;
const AXIS_HEIGHT = 24;
const ROW_HEIGHT = COMPUTE_HEIGHT + COMM_HEIGHT + 2 + ROW_GAP;

function kindOf(name: string, lane: number): SliceKind {
  if (lane === 1) return "communication";
  const kind = (Object.keys(SLICE_COLOURS) as SliceKind[]).find((candidate) =>
    name.startsWith(candidate),
  );
  return kind ?? "forward";
}

function slicesOf(events: TraceEvent[]): { slices: Slice[]; end_s: number } {
  const slices: Slice[] = [];
  let end_s = 0;
  for (const event of events) {
    if (event.ph === "X" && event.ts !== undefined && event.dur !== undefined) {
      const lane = event.tid === 1 ? 1 : 0;
      const start_s = event.ts / 1e6;
      const slice: Slice = {
        stage: event.pid,
        lane,
        start_s,
        end_s: start_s + event.dur / 1e6,
        kind: kindOf(event.name, lane),
        name: event.name,
      };
      if (typeof event.args?.micro_batch === "number") slice.microBatch = event.args.micro_batch;
      slices.push(slice);
      end_s = Math.max(end_s, slice.end_s);
    }
  }
  return { slices, end_s };
}

// The time axis' ticks: round steps (1, 2 or 5 times a power of ten), at most about
// `maxTicks` of them. Total: an empty or non-finite span gives the single tick 0, so no
// drawing loop depends on the data being non-empty.
export function axisTicks(span: number, maxTicks: number): number[] {
  const count = Math.max(1, Math.floor(maxTicks));
  if (!Number.isFinite(span) || span <= 0) return [0];
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let index = 0; index * step <= span * (1 + 1e-9) && index <= count; index++) {
    ticks.push(index * step);
  }
  return ticks;
}

export class ScheduleView {
  readonly element: HTMLElement;
  private readonly canvas = h("canvas", { testid: "schedule" });
  private readonly tooltip = h("div", { class: "tooltip" });
  private data: (ReturnType<typeof slicesOf> & { stageNames: string[] }) | null = null;
  private readonly resize = new ResizeObserver(() => this.draw());

  constructor() {
    this.tooltip.hidden = true;
    const legend = h(
      "div",
      { class: "legend" },
      ...(Object.keys(SLICE_COLOURS) as SliceKind[]).map((kind) => {
        const swatch = h("span", { class: "swatch" });
        swatch.style.background = SLICE_COLOURS[kind];
        return h("span", {}, swatch, t(`slice.${kind}` as MessageKey));
      }),
    );
    this.element = h(
      "div",
      { class: "schedule" },
      h("div", { class: "schedule-canvas" }, this.canvas, this.tooltip),
      legend,
    );
    this.canvas.addEventListener("mousemove", (event) => this.hover(event));
    this.canvas.addEventListener("mouseleave", () => (this.tooltip.hidden = true));
    this.resize.observe(this.element);
  }

  dispose(): void {
    this.resize.disconnect();
  }

  // `stageNames` labels the rows, one per pipeline stage.
  show(events: TraceEvent[], stageNames: string[]): void {
    this.data = { ...slicesOf(events), stageNames };
    this.draw();
    this.canvas.dataset.state = "ready";
  }

  private scale(): { x: (s: number) => number; width: number } {
    const width = Math.max(320, this.element.clientWidth);
    const plot = width - LABEL_WIDTH - 12;
    const end = this.data?.end_s || 1;
    return { x: (s: number) => LABEL_WIDTH + (s / end) * plot, width };
  }

  private draw(): void {
    if (this.data === null) return;
    const { slices, stageNames, end_s } = this.data;
    const { x, width } = this.scale();
    const height = stageNames.length * ROW_HEIGHT + AXIS_HEIGHT;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    const context = this.canvas.getContext("2d");
    if (context === null) return;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    context.font = `12px ${getComputedStyle(this.element).fontFamily}`;
    context.textBaseline = "middle";

    stageNames.forEach((name, stage) => {
      context.fillStyle = "#374151";
      context.fillText(name, 4, stage * ROW_HEIGHT + COMPUTE_HEIGHT / 2, LABEL_WIDTH - 8);
    });
    for (const slice of slices) {
      const left = x(slice.start_s);
      const sliceWidth = Math.max(0.5, x(slice.end_s) - left);
      const top = slice.stage * ROW_HEIGHT + (slice.lane === 0 ? 0 : COMPUTE_HEIGHT + 2);
      context.fillStyle = SLICE_COLOURS[slice.kind];
      context.fillRect(left, top, sliceWidth, slice.lane === 0 ? COMPUTE_HEIGHT : COMM_HEIGHT);
      if (
        slice.lane === 0 &&
        slice.microBatch !== undefined &&
        sliceWidth > 16 &&
        slice.kind !== "bubble"
      ) {
        context.fillStyle = "#ffffff";
        context.textAlign = "center";
        context.fillText(
          String(slice.microBatch),
          left + sliceWidth / 2,
          top + COMPUTE_HEIGHT / 2,
          sliceWidth - 2,
        );
        context.textAlign = "start";
      }
    }
    const axisTop = stageNames.length * ROW_HEIGHT;
    context.strokeStyle = "#9ca3af";
    context.fillStyle = "#4b5563";
    context.textAlign = "center";
    for (const tick of axisTicks(end_s, Math.max(2, Math.floor((width - LABEL_WIDTH) / 90)))) {
      context.beginPath();
      context.moveTo(x(tick), axisTop);
      context.lineTo(x(tick), axisTop + 5);
      context.stroke();
      context.fillText(seconds(tick), Math.min(x(tick), width - 24), axisTop + 14);
    }
    context.textAlign = "start";
  }

  private hover(event: MouseEvent): void {
    if (this.data === null) return;
    const bounds = this.canvas.getBoundingClientRect();
    const px = event.clientX - bounds.left;
    const py = event.clientY - bounds.top;
    const stage = Math.floor(py / ROW_HEIGHT);
    const within = py - stage * ROW_HEIGHT;
    const lane =
      within < COMPUTE_HEIGHT + 1 ? 0 : within < COMPUTE_HEIGHT + COMM_HEIGHT + 3 ? 1 : -1;
    const { x } = this.scale();
    const slice = this.data.slices.find(
      (s) =>
        s.stage === stage &&
        s.lane === lane &&
        x(s.start_s) <= px &&
        px <= Math.max(x(s.end_s), x(s.start_s) + 1),
    );
    this.tooltip.hidden = slice === undefined;
    if (slice === undefined) return;
    this.tooltip.textContent = `${t("detail.stage", { n: stage })} · ${slice.name} · ${seconds(slice.end_s - slice.start_s)} (${seconds(slice.start_s)} → ${seconds(slice.end_s)})`;
    this.tooltip.style.left = `${Math.min(px + 12, bounds.width - 260)}px`;
    this.tooltip.style.top = `${py + 14}px`;
  }
}
