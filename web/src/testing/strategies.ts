// Ranked strategies as a search returns them, for the unit tests: a homogeneous default,
// changed where a test says.
import { STRATEGY_DEFAULTS } from "../paraplan/strategy.generated";
import type {
  LayoutFamily,
  RankedStrategy,
  Report,
  SearchResult,
  Strategy,
} from "../paraplan/types";

export interface StrategyChanges {
  rank: number;
  tokens?: number;
  mfu?: number;
  tp?: number;
  feasible?: boolean;
  megatronArgs?: string;
  families?: LayoutFamily[];
}

export function rankedStrategy(changes: StrategyChanges): RankedStrategy {
  const { rank, tokens = 1000, mfu = 0.5, tp = 1, feasible = true } = changes;
  const strategy: Strategy = {
    ...STRATEGY_DEFAULTS,
    tensor_model_parallel_size: tp,
    pipeline_model_parallel_size: 2,
    virtual_pipeline_model_parallel_size: 1,
    context_parallel_size: 1,
    expert_model_parallel_size: 1,
    micro_batch_size: 1,
    sequence_parallel: tp > 1,
    recompute_granularity: "selective",
    recompute_method: "uniform",
    recompute_num_layers: 1,
    zero_stage: 1,
    use_flash_attn: true,
    overlap_grad_reduce: true,
    overlap_param_gather: true,
    tp_comm_overlap: false,
  };
  const estimate: Report = {
    feasible,
    infeasible_reasons: feasible ? [] : ["needs 90 GiB of 80"],
    iteration_time_s: 4096 / tokens,
    tokens_per_s_per_gpu: tokens,
    samples_per_s: 1,
    model_tflops_per_gpu: 300,
    mfu,
    hfu: mfu,
    memory: { peak_gib_per_gpu: 60 + rank, per_stage: [] },
    time_breakdown_s: {
      compute: 1,
      recompute: 0,
      tp_comm: 0,
      pp_comm: 0,
      dp_comm: 0,
      cp_comm: 0,
      ep_comm: 0,
      optimizer: 0,
      bubble: 0,
    },
    pipeline: { stages: [], bottleneck_stage: 0, num_micro_batches: 8 },
    num_gpus: 8,
    data_parallel_size: 8 / (2 * tp),
    model_parameters: 7e9,
    model_flops_per_token: 4.2e10,
  };
  return {
    rank,
    strategy,
    estimate,
    megatron_args: changes.megatronArgs ?? `--tensor-model-parallel-size ${tp}`,
    sim_throughput: tokens,
    sim_total_time_s: estimate.iteration_time_s,
    "max-use-mem-size": { a800: 60 + rank, h800: 0 },
    "pipeline-stage-chips": ["a800", "a800"],
    "pipeline-stage-layers": [16, 16],
    "recompute-granularity": { a800: "selective" },
    "recompute-method": { a800: "uniform" },
    "recompute-num-layers": { a800: 1 },
    gpus_used: { a800: 8, h800: 0 },
    headroom_gib: 20 - rank,
    tight: false,
    // As the search keys a layout: here only tensor parallelism differs between fixtures.
    layout: JSON.stringify([tp, 2, 1, 1, 0, 1, 0, 0]),
    families: changes.families ?? [],
  };
}

export function searchResult(strategies: RankedStrategy[], feasible: number): SearchResult {
  return {
    strategies,
    stats: {
      space: 1000,
      evaluated: 100,
      pruned: 900,
      feasible,
      seconds: 0.1,
      complete: true,
      stopped: "",
    },
    diagnosis: [],
  };
}
