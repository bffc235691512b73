// The schedule's time axis: time to x with the left-out steady state (the trace's
// "steady state, not drawn" slices, otherData.elided) squeezed into a narrow marked break, and
// the axis ticks. Every loop here is bounded whatever the data (empty, zero or NaN spans).

// The part of the iteration the trace leaves out, in seconds from its start.
export interface ScheduleBreak {
  from_s: number;
  to_s: number;
  microBatches: number; // micro-batches whose passes it holds (stage 0)
  passes: number; // passes it holds, most over the stages
  bubble_s: number; // the bubbles inside it, most over the stages
}

export const BREAK_WIDTH = 28; // px the left-out part takes on the axis
const MAX_TICKS = 200;

// x of time `s` on a plot from `left` `width` px wide showing [0, end_s].
export function timeScale(
  end_s: number,
  left: number,
  width: number,
  gap: ScheduleBreak | null,
): (s: number) => number {
  const end = Number.isFinite(end_s) && end_s > 0 ? end_s : 1;
  const cut =
    gap !== null && gap.from_s < gap.to_s && gap.to_s <= end && width > 2 * BREAK_WIDTH
      ? gap
      : null;
  if (cut === null) return (s) => left + (s / end) * width;
  const shown = end - (cut.to_s - cut.from_s);
  const perSecond = shown > 0 ? (width - BREAK_WIDTH) / shown : 0;
  return (s) => {
    if (s <= cut.from_s) return left + s * perSecond;
    if (s >= cut.to_s) return left + BREAK_WIDTH + (s - (cut.to_s - cut.from_s)) * perSecond;
    return (
      left + cut.from_s * perSecond + ((s - cut.from_s) / (cut.to_s - cut.from_s)) * BREAK_WIDTH
    );
  };
}

// Round steps for the time axis: 1, 2 or 5 times a power of ten; 0 when the span is not positive.
export function niceStep(span: number, maxTicks: number): number {
  const raw = span / Math.max(1, maxTicks);
  if (!Number.isFinite(raw) || raw <= 0) return 0;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? raw;
}

// The tick times of [0, end_s], at most about maxTicks (and never more than MAX_TICKS), those
// inside the break left out; [0] for an empty span.
export function axisTicks(
  end_s: number,
  maxTicks: number,
  gap: ScheduleBreak | null = null,
): number[] {
  const shown = gap !== null && gap.from_s < gap.to_s ? end_s - (gap.to_s - gap.from_s) : end_s;
  const step = niceStep(shown, maxTicks);
  if (step <= 0) return [0];
  const ticks: number[] = [];
  for (let k = 0; ticks.length < MAX_TICKS; k++) {
    const tick = k * step;
    if (tick > end_s + step * 1e-9) break;
    if (gap !== null && tick > gap.from_s && tick < gap.to_s) {
      k = Math.ceil(gap.to_s / step) - 1; // on from the first step past the break (k grows)
      continue;
    }
    ticks.push(tick);
  }
  return ticks;
}
