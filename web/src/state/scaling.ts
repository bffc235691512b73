// The scaling view's series: the same job searched at every cluster size from `from` to `to`
// in steps of `step` (paraplan scaling), each GPU type's cap scaled by the core so that a
// mixed cluster keeps its mix; and the series' efficiency cliffs.
import { t } from "../i18n/i18n";
import { number } from "../ui/format";
import type { RankedStrategy, ScalingPointResult, ScalingRequest } from "../paraplan/types";
import type { Catalogue } from "./catalogue";
import { Checker, type Built } from "./checker";
import type { ModuleSchema } from "./module-schema";
import type { PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";

// The core's limits (core/include/paraplan/limits.hpp, scaling.hpp), as `paraplan schema`
// reports them under limits.scaling.
export const MAX_SCALING_POINTS = 4096;
export const CLIFF_DROP = 0.15;

// The form's job, checked as for a search, plus the scaling view's range, step and budget.
export function buildScalingRequest(
  state: PageState,
  catalogue: Catalogue,
  schema: ModuleSchema,
): Built<ScalingRequest> {
  const base = buildSearchRequest(state, catalogue, schema);
  const { limits } = schema;
  const check = new Checker();
  const from = check.integer("scaleFrom", state.scaleFrom, limits.scaleGpus);
  const to = check.integer("scaleTo", state.scaleTo, limits.scaleGpus);
  const step = check.integer("scaleStep", state.scaleStep, limits.scaleGpus);
  if (!check.failed("scaleFrom") && !check.failed("scaleTo") && to < from)
    check.fail("scaleTo", "error.scaleRange");
  if (
    !check.failed("scaleFrom") &&
    !check.failed("scaleTo") &&
    !check.failed("scaleStep") &&
    to >= from &&
    Math.floor((to - from) / step) + 1 > MAX_SCALING_POINTS
  )
    check.fail("scaleStep", "error.scalePoints", { max: MAX_SCALING_POINTS });
  const budget = check.decimal("scaleBudget", state.scaleBudget, limits.scaleBudgetS);
  if (!base.ok || check.errors.length > 0)
    return { ok: false, errors: [...(base.ok ? [] : base.errors), ...check.errors] };
  return {
    ok: true,
    value: {
      ...base.value,
      options: { ...base.value.options, top: 1, time_budget_s: budget },
      scaling: { from, to, step, weak: state.scaleWeak },
    },
  };
}

// The sizes of a range, as the core lists them.
export function scalingSizes(from: number, to: number, step: number): number[] {
  const sizes: number[] = [];
  for (let n = from; n <= to; n += step) sizes.push(n);
  return sizes;
}

// Best tokens/s per GPU of a point; 0 when no strategy fits or it is not searched yet.
export function perGpu(point: ScalingPointResult | null): number {
  return point?.best?.estimate.tokens_per_s_per_gpu ?? 0;
}

// The core's rules (find_cliffs and find_dips, core/src/search/scaling.cpp; the same cases are
// tested on both sides). Values of 0 (no strategy, not searched) are skipped.
// envelope[i]: the best value at i or any later point.
function envelopeFrom(values: readonly number[]): number[] {
  const envelope = values.map(() => 0);
  let best = 0;
  for (let i = values.length - 1; i >= 0; i--) {
    best = Math.max(best, values[i]);
    envelope[i] = best;
  }
  return envelope;
}

// A cliff is a drop in the best achievable efficiency: the point and every later one are more
// than `drop` below the previous point with a value.
export function findCliffs(values: readonly number[], drop = CLIFF_DROP): boolean[] {
  const cliffs = values.map(() => false);
  const present = values.flatMap((value, index) => (value > 0 ? [index] : []));
  const envelope = envelopeFrom(values);
  for (let k = 1; k < present.length; k++) {
    if (envelope[present[k]] < (1 - drop) * values[present[k - 1]]) cliffs[present[k]] = true;
  }
  return cliffs;
}

// A dip is more than `drop` below a larger size's value: an awkward factorisation.
export function findDips(values: readonly number[], drop = CLIFF_DROP): boolean[] {
  const envelope = envelopeFrom(values);
  return values.map(
    (value, index) =>
      index + 1 < values.length && value > 0 && value < (1 - drop) * envelope[index + 1],
  );
}

// Efficiency above 1 + this is explained (the core's kEfficiencyTolerance).
export const EFFICIENCY_TOLERANCE = 0.005;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

// What a strategy does to fit in memory (the core's memory_measures).
function memoryMeasures(best: RankedStrategy): MeasureKey[] {
  const s = best.strategy;
  const measures: MeasureKey[] = [];
  if (Object.values(best["recompute-granularity"] ?? {}).includes("full"))
    measures.push("scaling.measure.fullRecompute");
  if (s.optimizer_cpu_offload) measures.push("scaling.measure.optimizerOffload");
  if ((s.cpu_offloading_num_layers ?? 0) > 0) measures.push("scaling.measure.activationOffload");
  if (s.zero_stage >= 3) measures.push("scaling.measure.zero3");
  return measures;
}
type MeasureKey =
  | "scaling.measure.fullRecompute"
  | "scaling.measure.optimizerOffload"
  | "scaling.measure.activationOffload"
  | "scaling.measure.zero3";

// "TP8 PP35 DP1".
export function sizesText(best: RankedStrategy): string {
  const s = best.strategy;
  return [
    `TP${s.tensor_model_parallel_size}`,
    `PP${s.pipeline_model_parallel_size}`,
    ...(s.virtual_pipeline_model_parallel_size > 1
      ? [`VP${s.virtual_pipeline_model_parallel_size}`]
      : []),
    ...(s.context_parallel_size > 1 ? [`CP${s.context_parallel_size}`] : []),
    ...(s.expert_model_parallel_size > 1 ? [`EP${s.expert_model_parallel_size}`] : []),
    `DP${best.estimate.data_parallel_size}`,
  ].join(" ");
}

export interface SeriesMarks {
  cliffs: boolean[];
  dips: boolean[];
  efficiency: (number | null)[]; // per GPU against the reference; null without a strategy
  reference: number; // index of the smallest size with a strategy, -1 when none
  notes: string[][]; // why: efficiency above 100%, a dip, fewer GPUs doing more
}

// The series' marks and notes, as the core's scaling_json gives them, in the page's language.
export function seriesMarks(points: readonly (ScalingPointResult | null)[]): SeriesMarks {
  const values = points.map(perGpu);
  const cliffs = findCliffs(values);
  const dips = findDips(values);
  const reference = values.findIndex((value) => value > 0);
  const total = (k: number) => values[k] * (points[k]?.num_gpus ?? 0);
  const notes = points.map((point, i): string[] => {
    const best = point?.best;
    if (point == null || best == null || reference < 0) return [];
    const out: string[] = [];
    const ref = points[reference]!;
    if (values[i] / values[reference] > 1 + EFFICIENCY_TOLERANCE) {
      const here = memoryMeasures(best);
      const spared = memoryMeasures(ref.best!).filter((measure) => !here.includes(measure));
      out.push(
        spared.length > 0
          ? t("scaling.note.aboveMemory", {
              gpus: ref.num_gpus,
              measures: spared.map((key) => t(key)).join(", "),
              strategy: sizesText(ref.best!),
            })
          : t("scaling.note.aboveFaster", {
              gpus: ref.num_gpus,
              here: sizesText(best),
              strategy: sizesText(ref.best!),
            }),
      );
    }
    if (dips[i]) {
      let better = i + 1;
      for (let j = i + 1; j < values.length; j++) if (values[j] > values[better]) better = j;
      let note = t("scaling.note.dip", {
        percent: Math.round(100 * (1 - values[i] / values[better])),
        value: number(values[better]),
        gpus: points[better]!.num_gpus,
      });
      const data = gcd(point.num_gpus, point.global_batch_size);
      if (point.num_gpus / data > 1)
        note += t("scaling.note.dipWhy", {
          batch: point.global_batch_size,
          gpus: point.num_gpus,
          data,
          factor: point.num_gpus / data,
          strategy: sizesText(best),
        });
      out.push(note);
    }
    let fewer = -1;
    for (let j = 0; j < i; j++)
      if (
        values[j] > 0 &&
        total(j) > (1 + EFFICIENCY_TOLERANCE) * total(i) &&
        (fewer < 0 || total(j) > total(fewer))
      )
        fewer = j;
    if (fewer >= 0)
      out.push(
        t("scaling.note.fewer", {
          gpus: points[fewer]!.num_gpus,
          total: number(total(fewer)),
          here: number(total(i)),
        }),
      );
    return out;
  });
  return {
    cliffs,
    dips,
    efficiency: values.map((value) =>
      value > 0 && reference >= 0 ? value / values[reference] : null,
    ),
    reference,
    notes,
  };
}
