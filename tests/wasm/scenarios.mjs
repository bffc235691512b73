// Scenarios run through both the module and the CLI.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, readJson } from "./support.mjs";

const training = {
  global_batch_size: 512,
  seq_length: 4096,
  precision: "bf16",
};

export const ESTIMATES = {
  ...Object.fromEntries(
    readdirSync(join(ROOT, "examples"))
      .filter((file) => file.endsWith(".json"))
      .map((file) => [`examples/${file}`, readJson("examples", file)]),
  ),
  "mixed cluster, layers given per stage": {
    model: "llama2-70b",
    training,
    cluster: {
      gpus_per_node: 8,
      gpus: [
        { type: "a800", count: 96 },
        { type: "h800", count: 160 },
      ],
    },
    strategy: {
      tensor_model_parallel_size: 1,
      pipeline_model_parallel_size: 8,
      context_parallel_size: 4,
      zero_stage: 1,
      use_flash_attn: true,
      pipeline_stage_gpus: [
        "a800",
        "a800",
        "a800",
        "h800",
        "h800",
        "h800",
        "h800",
        "h800",
      ],
      pipeline_stage_layers: [4, 4, 4, 14, 14, 14, 13, 13],
    },
  },
  "MoE with expert parallelism, fp8": {
    model: "mixtral-8x7b",
    training: { global_batch_size: 256, seq_length: 4096, precision: "fp8" },
    cluster: { gpus: [{ type: "h100", count: 64 }] },
    strategy: {
      tensor_model_parallel_size: 2,
      pipeline_model_parallel_size: 2,
      expert_model_parallel_size: 8,
      sequence_parallel: true,
    },
  },
  "custom model on a GPU with a slower network": {
    model: {
      name: "my-13b",
      num_layers: 40,
      hidden_size: 5120,
      ffn_hidden_size: 13824,
      num_attention_heads: 40,
      num_query_groups: 40,
      vocab_size: 32000,
      activation: "swiglu",
    },
    training: { global_batch_size: 128, seq_length: 2048, precision: "bf16" },
    cluster: {
      gpus: [
        {
          type: {
            base: "h100",
            id: "slow-h100",
            inter_node: { gb_per_s: 12.5 },
          },
          count: 32,
        },
      ],
    },
    strategy: {
      tensor_model_parallel_size: 4,
      pipeline_model_parallel_size: 2,
      recompute_granularity: "full",
      recompute_method: "block",
      recompute_num_layers: 2,
    },
  },
  "infeasible: out of memory": {
    model: "llama2-70b",
    training,
    cluster: { gpus: [{ type: "a100-40g", count: 8 }] },
    strategy: { tensor_model_parallel_size: 8 },
  },
};

const aiak = (gpus, numGpus) => ({
  model: "llama2-70b",
  training,
  cluster: { num_gpus: numGpus, gpus },
});

export const SEARCHES = {
  "AIAK example 2: a800:128,h800:160 on 256 GPUs": {
    scenario: aiak(
      [
        { type: "a800", count: 128 },
        { type: "h800", count: 160 },
      ],
      256,
    ),
    top: 10,
  },
  "AIAK example 1: a800:256": {
    scenario: aiak([{ type: "a800", count: 256 }], 256),
    top: 10,
  },
  "pinned keys, MoE": {
    scenario: {
      model: "mixtral-8x7b",
      training: { global_batch_size: 256, seq_length: 4096, precision: "bf16" },
      cluster: { gpus: [{ type: "h100", count: 64 }] },
      strategy: {
        tensor_model_parallel_size: 2,
        recompute_granularity: "selective",
      },
    },
    top: 5,
  },
  "nothing fits": {
    scenario: {
      model: "llama3.1-405b",
      training,
      cluster: { gpus: [{ type: "a100-40g", count: 8 }] },
    },
    top: 3,
    nothingFits: true,
  },
};

// A search of some seconds (three GPU types, 1,536 GPUs), for stopping one midway.
export const LONG_SEARCH = {
  model: "llama3.1-405b",
  training: { global_batch_size: 2048, seq_length: 8192, precision: "bf16" },
  cluster: {
    gpus: [
      { type: "a800", count: 512 },
      { type: "h800", count: 512 },
      { type: "h100", count: 512 },
    ],
  },
};

// A search far longer than any time budget the tests give: DeepSeek-V3 on three GPU types of
// 512 each runs past 30 s on an idle machine (LONG_SEARCH, 0.7-0.9 s since the search sped up, no
// longer outlasts a budget of 0.6 s), and finds rows within 0.1 s.
export const BUDGET_SEARCH = {
  model: "deepseek-v3",
  training: { global_batch_size: 4096, seq_length: 4096, precision: "bf16" },
  cluster: {
    gpus: [
      { type: "a800", count: 512 },
      { type: "h800", count: 512 },
      { type: "h100", count: 512 },
    ],
  },
};
