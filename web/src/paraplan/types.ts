// The JSON documents the WebAssembly module returns (see wasm/bindings.cpp).

// The strategy's keys come from the core's key table (web/scripts/strategy-type.mjs).
import type { PerGpu, Strategy } from "./strategy.generated";
export type { PerGpu, Strategy };

export interface StageMemory {
  gpu: string;
  layers: number;
  peak_gib: number;
  capacity_gib: number;
  weights_gib: number;
  gradients_gib: number;
  optimizer_gib: number;
  activations_gib: number;
  other_gib: number;
  in_flight_micro_batches: number;
}

export interface StageTimes {
  gpu: string;
  layers: number;
  forward_s: number;
  backward_s: number;
  recompute_s: number;
  pp_comm_s: number;
  dp_comm_exposed_s: number;
  optimizer_s: number;
}

export const TIME_PARTS = [
  "compute",
  "recompute",
  "tp_comm",
  "pp_comm",
  "dp_comm",
  "cp_comm",
  "ep_comm",
  "optimizer",
  "bubble",
] as const;
export type TimePart = (typeof TIME_PARTS)[number];

export type MemoryVerdict = "fits" | "at_risk" | "oom";

// A text of the core with its stable id and the values it names (core/src/model/text_ids.hpp),
// which the page writes in its language (i18n/core-texts.ts) beside the English.
export interface CoreText {
  id: string;
  args: Record<string, string>;
  parts?: CoreText[];
}

export interface Uncertainty {
  tokens_per_s_per_gpu: [number, number];
  level: number;
  regime: string;
  runs: number;
  basis: string;
  regime_text?: CoreText;
  basis_text?: CoreText;
}

export interface Report {
  feasible: boolean;
  infeasible_reasons: string[];
  infeasible_reason_ids?: string[]; // one per reason: its stable id (i18n/core-reasons.ts)
  iteration_time_s: number;
  tokens_per_s_per_gpu: number;
  samples_per_s: number;
  model_tflops_per_gpu: number;
  mfu: number;
  hfu: number;
  memory: {
    peak_gib_per_gpu: number;
    per_stage: StageMemory[];
    // fits, at risk (where published runs went either way) or out of memory, with the numbers.
    verdict?: MemoryVerdict;
    verdict_reason?: string;
    verdict_reason_text?: CoreText;
  };
  time_breakdown_s: Record<TimePart, number>;
  // The interval the measured throughput of a run in this regime falls in 80% of the time.
  uncertainty?: Uncertainty;
  pipeline: {
    stages: StageTimes[];
    bottleneck_stage: number;
    num_micro_batches: number;
  };
  num_gpus: number;
  data_parallel_size: number;
  model_parameters: number;
  model_flops_per_token: number;
  // Causal-mask MFU (Megatron-LM's current convention) and whether the result lies inside the
  // validated regimes (docs/contract.md section 4).
  mfu_causal?: number;
  validation?: Validation;
}

// Whether the result lies inside the validated regimes; a note per way it leaves them, and each
// note's id and values (one per note, same order).
export interface Validation {
  validated: boolean;
  notes: string[];
  note_texts?: CoreText[];
}

// A framework's launch of a strategy: its command and files, or what it cannot express.
// `unsupported_texts`: one per reason, with its id and values (i18n/core-texts.ts).
export type Launch =
  | { command: string; files: Record<string, string> }
  | { unsupported: string[]; unsupported_texts?: CoreText[] };

export interface RankedStrategy {
  rank: number;
  strategy: Strategy;
  estimate: Report;
  megatron_args: string;
  megatron_args_by_gpu?: Record<string, string>;
  // How each framework launches it (docs/contract.md section 5).
  launch?: Record<string, Launch>;
  sim_throughput: number;
  sim_total_time_s: number;
  "max-use-mem-size": Record<string, number>;
  "pipeline-stage-chips": string[];
  "pipeline-stage-layers": number[];
  "recompute-granularity": Record<string, string>;
  "recompute-method": Record<string, string>;
  "recompute-num-layers": Record<string, number>;
  gpus_used: Record<string, number>;
  headroom_gib: number; // the smallest capacity minus peak_gib over the stages
  tight: boolean; // less than twice the default margin free
  // Its uncertainty band overlaps the first row's: the model cannot tell them apart.
  tie_with_best?: boolean;
  // Why it ranks where it does where not by time alone (a safer strategy within the noise).
  rank_note?: string;
  rank_note_text?: CoreText; // `rank_note` with its id and values
  // The search's identity of its layout (TP, PP, CP, EP, ETP, stage GPUs, ZeRO, offloads) and
  // the layout families it belongs to (core/src/search/top_strategies.hpp): the page never
  // re-derives either.
  layout: string;
  families: LayoutFamily[];
}

// What the results table draws of a ranked strategy (ui/columns.ts, ui/results-table.ts): all a
// row of the rows so far holds (wasm/bindings.cpp, kTableRowKeys), a few KB instead of the tens
// of KB of a result's row with its launches and per-stage report.
export type TableReport = Pick<
  Report,
  | "feasible"
  | "infeasible_reasons"
  | "infeasible_reason_ids"
  | "iteration_time_s"
  | "tokens_per_s_per_gpu"
  | "mfu"
  | "uncertainty"
  | "validation"
  | "num_gpus"
  | "data_parallel_size"
> & {
  memory: Pick<
    Report["memory"],
    "peak_gib_per_gpu" | "verdict" | "verdict_reason" | "verdict_reason_text"
  >;
};

export type TableRow = Pick<
  RankedStrategy,
  | "rank"
  | "strategy"
  | "headroom_gib"
  | "tight"
  | "tie_with_best"
  | "rank_note"
  | "rank_note_text"
  | "max-use-mem-size"
  | "pipeline-stage-chips"
  | "pipeline-stage-layers"
  | "recompute-granularity"
  | "recompute-method"
  | "recompute-num-layers"
  | "gpus_used"
> & { estimate: TableReport };

export type LayoutFamily = "tp" | "pp" | "cp" | "zero3" | "ep";

export interface SearchStats {
  space: number;
  evaluated: number;
  pruned: number;
  feasible: number;
  seconds: number;
  complete: boolean;
  stopped: string;
  stopped_text?: CoreText; // `stopped` with its id and values (i18n/core-texts.ts)
}

export interface SearchResult {
  strategies: RankedStrategy[];
  stats: SearchStats;
  diagnosis: string[];
  diagnosis_texts?: CoreText[]; // one per diagnosis line, with its id and values
  // The best strategy of each layout family over every strategy the search saw (rank 0 where
  // it is not listed); absent for families with none.
  family_bests?: Partial<Record<LayoutFamily, RankedStrategy>>;
}

export interface SearchProgress {
  evaluated: number;
  pruned: number;
  fraction: number;
  best_iteration_time_s: number;
  best_layout?: string; // the best so far: "TP 2 · PP 4 · VP 10 · ..."
  elapsed_s: number;
  // The ranking so far (newer modules, a search's reports where it changed since the last one):
  // provisional, the search goes on. Each row holds only what the results table draws.
  rows?: TableRow[];
}

// A Chrome trace (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid?: number;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}

// The trace's otherData: what was simulated and what the drawing leaves out.
export interface TraceOtherData {
  iteration_time_s?: number;
  micro_batches?: number;
  simulated_micro_batches?: number;
  elided?: { from_s: number; to_s: number; micro_batches: number } | null;
}

export interface TraceResult {
  report: Report;
  trace: { traceEvents: TraceEvent[]; otherData?: TraceOtherData };
}

export interface ModelPreset {
  id: string;
  aliases?: string[];
  source: string;
  model: Record<string, unknown>;
  parameters: number;
  published_parameters?: number;
  nominal_parameters?: number;
}

export interface GpuPreset {
  id: string;
  name: string;
  aliases?: string[];
  tensor_tflops: Partial<Record<"fp32" | "fp16" | "bf16" | "fp8", number>>;
  hbm_gib: number;
  intra_node: { name: string; gb_per_s: number; gpus: number };
  inter_node: { name: string; gb_per_s: number };
  // GPUs one host launches, where it differs from the NVLink domain (GB200 NVL72: 4 of 72).
  gpus_per_host?: number;
  // CUDA compute capability (9.0 Hopper, 10.0 Blackwell): the fp8 weight copies it keeps.
  compute_capability?: number;
  // What the timing model assumes beyond the datasheet (presets/gpus/*.json).
  hbm_gb_per_s?: number;
  efficiency?: Partial<Record<string, [number, number][]>>;
  sources?: Record<string, string>;
}

export interface Presets {
  models: ModelPreset[];
  gpus: GpuPreset[];
}

// A scenario (contract section 2), as this page builds it.
export interface Scenario {
  model: string | Record<string, unknown>;
  training: {
    global_batch_size: number;
    seq_length: number;
    precision: string;
  };
  cluster: {
    gpus_per_node?: number;
    num_gpus?: number;
    gpus: { type: string | Record<string, unknown>; count: number }[];
  };
  strategy?: Record<string, unknown>;
  framework?: string;
}

export interface SearchRequest {
  scenario: Scenario;
  options: {
    top: number;
    time_budget_s: number;
    tp_across_nodes: boolean;
    allow_at_risk?: boolean; // rank by time alone, at_risk strategies too
    memory_margin?: string; // GiB, or "N%" of each GPU's memory; the core's default without
  };
}

// A model's parameter counts (core ParameterCounts): totals and per-layer parts.
export interface ParameterCounts {
  total: number;
  active: number;
  mtp: number;
  embedding: number;
  output_layer: number;
  attention_per_layer: number;
  dense_mlp_per_layer: number;
  moe_mlp_per_layer: number;
}

// A key of a Hugging Face config.json that did not become a model field.
export interface UnmappedKey {
  key: string;
  status: "ignored" | "unsupported" | "unknown";
  reason: string;
  reason_text?: CoreText; // `reason` with its id and values (i18n/import-texts.ts)
}

// The module's importHfConfig: a config.json mapped to a scenario's model object.
export interface HfImport {
  architecture: string;
  model: Record<string, unknown>;
  unmapped: UnmappedKey[];
  parameters: ParameterCounts;
}

// A scaling series (paraplan scaling): the search request and the cluster sizes to search it at.
export interface ScalingRequest extends SearchRequest {
  scaling: { from: number; to: number; step: number; weak: boolean };
}

// One size of a series: its best strategy (null when none fits) and its search's statistics.
export interface ScalingPointResult {
  num_gpus: number;
  global_batch_size: number;
  best: RankedStrategy | null;
  stats: SearchStats;
  reason?: string; // why there is no strategy, where best is null
  reason_text?: CoreText; // `reason` with its id and values
}

// A hardware sweep (paraplan sweep): the search request and one or two "NAME=VALUES".
export interface SweepRequest extends SearchRequest {
  sweep: string[];
}

export interface SweepGrid {
  parameters: string[];
  points: number[][];
}

export interface SweepPointResult {
  point: number;
  parameters: Record<string, number>;
  best: RankedStrategy | null;
  stats: Pick<SearchStats, "evaluated" | "feasible" | "seconds" | "complete">;
}
