// The simulated pipeline schedule, drawn from the module's Chrome trace: one row
// per stage (compute above, communication below), time left to right.
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import type { TraceEvent, TraceOtherData } from "../paraplan/types";
import { h } from "./dom";
import { seconds } from "./format";
import { SLICE_COLOURS, type SliceKind } from "./palette";
import { axisTicks, timeScale, type ScheduleBreak } from "./schedule-axis";

export { axisTicks }; // the axis' ticks (schedule.test.ts)

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

function slicesOf(events: TraceEvent[]): {
  slices: Slice[];
  end_s: number;
  gap: ScheduleBreak | null;
} {
  const slices: Slice[] = [];
  let end_s = 0;
  const elided: TraceEvent[] = [];
  for (const event of events) {
    if (event.ph === "X" && event.args?.elided === true && event.ts !== undefined) {
      elided.push(event); // the steady state the trace leaves out: one slice per stage
    } else if (event.ph === "X" && event.ts !== undefined && event.dur !== undefined) {
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
  const gap: ScheduleBreak | null =
    elided.length === 0
      ? null
      : {
          from_s: elided[0].ts! / 1e6,
          to_s: (elided[0].ts! + (elided[0].dur ?? 0)) / 1e6,
          microBatches: 0,
          passes: Math.max(...elided.map((event) => Number(event.args?.passes) || 0)),
          bubble_s: Math.max(...elided.map((event) => Number(event.args?.bubble_s) || 0)),
        };
  return { slices, end_s, gap };
}

export class ScheduleView {
  readonly element: HTMLElement;
  private readonly canvas = h("canvas", { testid: "schedule" });
  private readonly tooltip = h("div", { class: "tooltip" });
  private readonly note = h("p", { class: "hint schedule-note", testid: "schedule-note" });
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
      this.note,
      legend,
    );
    this.canvas.addEventListener("mousemove", (event) => this.hover(event));
    this.canvas.addEventListener("mouseleave", () => (this.tooltip.hidden = true));
    this.resize.observe(this.element);
  }

  dispose(): void {
    this.resize.disconnect();
  }

  // `stageNames` labels the rows, one per pipeline stage; `other` is the trace's otherData
  // (what was simulated and left out), said under the drawing.
  show(events: TraceEvent[], stageNames: string[], other?: TraceOtherData): void {
    this.data = { ...slicesOf(events), stageNames };
    const gap = this.data.gap;
    if (gap !== null) gap.microBatches = other?.elided?.micro_batches ?? 0;
    this.note.textContent = scheduleNote(this.data.end_s, gap, other);
    this.note.hidden = this.note.textContent === "";
    this.draw();
    this.canvas.dataset.state = "ready";
  }

  private scale(): { x: (s: number) => number; width: number } {
    const width = Math.max(320, this.element.clientWidth);
    const plot = width - LABEL_WIDTH - 12;
    return {
      x: timeScale(this.data?.end_s ?? 0, LABEL_WIDTH, plot, this.data?.gap ?? null),
      width,
    };
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
    if (this.data.gap !== null) drawBreak(context, x, this.data.gap, axisTop);
    context.strokeStyle = "#9ca3af";
    context.fillStyle = "#4b5563";
    context.textAlign = "center";
    let lastLabel = -Infinity;
    const maxTicks = Math.max(2, Math.floor((width - LABEL_WIDTH) / 90));
    for (const tick of axisTicks(end_s, maxTicks, this.data.gap)) {
      context.beginPath();
      context.moveTo(x(tick), axisTop);
      context.lineTo(x(tick), axisTop + 5);
      context.stroke();
      if (x(tick) - lastLabel < 48) continue; // labels either side of the break would overlap
      lastLabel = x(tick);
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

// What the drawing does not show, in words ("" when it shows the whole iteration).
export function scheduleNote(
  end_s: number,
  gap: ScheduleBreak | null,
  other: TraceOtherData | undefined,
): string {
  const parts: string[] = [];
  if (gap !== null)
    parts.push(
      t("schedule.elided", {
        from: seconds(gap.from_s),
        to: seconds(gap.to_s),
        span: seconds(gap.to_s - gap.from_s),
        microBatches: gap.microBatches,
        bubble: seconds(gap.bubble_s),
        end: seconds(other?.iteration_time_s ?? end_s),
      }),
    );
  const all = other?.micro_batches ?? 0;
  const simulated = other?.simulated_micro_batches ?? all;
  if (simulated < all) parts.push(t("schedule.truncated", { simulated, all, end: seconds(end_s) }));
  return parts.join(" ");
}

// The left-out steady state: a hatched band across every row with a zigzag either side.
function drawBreak(
  context: CanvasRenderingContext2D,
  x: (s: number) => number,
  gap: ScheduleBreak,
  bottom: number,
): void {
  const left = x(gap.from_s);
  const right = x(gap.to_s);
  context.fillStyle = "#e5e7eb";
  context.fillRect(left, 0, right - left, bottom);
  context.strokeStyle = "#6b7280";
  context.lineWidth = 1;
  for (const edge of [left + 2, right - 2]) {
    context.beginPath();
    for (let y = 0, k = 0; y <= bottom && k < 10_000; y += 6, k++)
      context[k === 0 ? "moveTo" : "lineTo"](edge + (k % 2 === 0 ? -2 : 2), y);
    context.stroke();
  }
}
