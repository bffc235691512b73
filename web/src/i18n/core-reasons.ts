// The core's infeasible reasons in the page's language, found by their stable id (a rule's name,
// core/src/model/rules.cpp, or one of report.hpp's k...Reason ids), never by guessing from the
// text alone: the id picks the pattern that reads the numbers out of the English text. An id
// without a translation, or a text its pattern does not match, stays in English.
import { language } from "./i18n";

type Translate = (match: RegExpMatchArray) => string;

// The numbers and names of "X (3) does not divide Y (64)" (rules.cpp's does_not_divide).
const DOES_NOT_DIVIDE = /^(.+) \((\d+)\) does not divide (.+) \((\d+)\)$/;
const doesNotDivide: [RegExp, Translate] = [
  DOES_NOT_DIVIDE,
  (m) => `${m[1]}（${m[2]}）不能整除 ${m[3]}（${m[4]}）`,
];

const STAGE = String.raw`pipeline stage (\d+) \((.+), (\d+) layers\)`;
const stage = (m: RegExpMatchArray) => `流水线阶段 ${m[1]}（${m[2]}，${m[3]} 层）`;

// zh: by id, the English pattern and its translation.
const ZH: Record<string, [RegExp, Translate]> = {
  "every pipeline stage fits in GPU memory": [
    new RegExp(`^${STAGE} needs (.+) per GPU, more than the (.+) it has$`),
    (m) => `${stage(m)}每卡需要 ${m[4]}，超过其 ${m[5]} 显存`,
  ],
  "offloaded activations fit in host memory": [
    new RegExp(
      `^${STAGE} offloads (.+) of activations per GPU, more than the (.+) of host memory per GPU$`,
    ),
    (m) => `${stage(m)}每卡卸载 ${m[4]} 激活，超过每卡 ${m[5]} 的主机内存`,
  ],
  "pipeline stages use the GPUs of their type": [
    /^(\d+) pipeline stages of (\d+) GPUs on (.+) use (\d+) GPUs, but the cluster gives (\d+)$/,
    (m) =>
      `${m[3]} 上 ${m[1]} 个流水线阶段、每个 ${m[2]} 卡，共用 ${m[4]} 卡，但集群只给 ${m[5]} 卡`,
  ],
  "the estimate stays finite": [/^.*$/, () => "规模过大，无法用双精度估算（时间或显存溢出）"],
  "model parallelism divides the GPUs": [
    /^tensor_model_parallel_size x context_parallel_size x pipeline_model_parallel_size \((\d+)\) does not divide the (\d+) GPUs$/,
    (m) => `张量 × 上下文 × 流水线并行（${m[1]}）不能整除 ${m[2]} 块 GPU`,
  ],
  "expert grid divides the GPUs": [
    /^expert_tensor_parallel_size x expert_model_parallel_size x pipeline_model_parallel_size \((\d+) x (\d+) x (\d+)\) does not divide the (\d+) GPUs$/,
    (m) => `专家张量 × 专家 × 流水线并行（${m[1]} × ${m[2]} × ${m[3]}）不能整除 ${m[4]} 块 GPU`,
  ],
  "data parallel x micro-batch divides the global batch": [
    /^data parallel \((\d+)\) x micro_batch_size \((\d+)\) does not divide global_batch_size \((\d+)\)$/,
    (m) => `数据并行（${m[1]}）× micro_batch_size（${m[2]}）不能整除 global_batch_size（${m[3]}）`,
  ],
  "every pipeline stage holds a layer": [
    /^pipeline_model_parallel_size \((\d+)\) exceeds num_layers \((\d+)\)$/,
    (m) => `pipeline_model_parallel_size（${m[1]}）超过 num_layers（${m[2]}）`,
  ],
  "every virtual pipeline chunk holds a layer": [
    /^pipeline_model_parallel_size x virtual_pipeline_model_parallel_size \((\d+)\) exceeds num_layers \+ 2 \((\d+)\): some chunk would hold no layer$/,
    (m) => `流水线 × 虚拟流水线（${m[1]}）超过 num_layers + 2（${m[2]}）：有的分块将没有层`,
  ],
  "interleaving needs pipeline parallelism": [
    /^virtual_pipeline_model_parallel_size (\d+) needs pipeline_model_parallel_size > 1$/,
    (m) => `virtual_pipeline_model_parallel_size ${m[1]} 需要 pipeline_model_parallel_size > 1`,
  ],
  "interleaving runs micro-batches in groups of the pipeline size": [
    /^the interleaved schedule \(virtual_pipeline_model_parallel_size (\d+)\) needs the (\d+) micro-batches per iteration to be a multiple of pipeline_model_parallel_size \((\d+)\)$/,
    (m) =>
      `交错调度（virtual_pipeline_model_parallel_size ${m[1]}）要求每次迭代的 ${m[2]} 个微批次是 pipeline_model_parallel_size（${m[3]}）的倍数`,
  ],
  "Megatron-FSDP runs without pipeline parallelism": [
    /^zero_stage (\d+) shards with Megatron-FSDP, which needs pipeline_model_parallel_size 1 \(got (\d+)\)$/,
    (m) =>
      `zero_stage ${m[1]} 使用 Megatron-FSDP 分片，要求 pipeline_model_parallel_size 为 1（实际为 ${m[2]}）`,
  ],
  "MoE with tensor parallelism needs sequence parallelism": [
    /^a MoE model with tensor_model_parallel_size (\d+) needs sequence_parallel \(Megatron-LM requires it\)$/,
    (m) =>
      `MoE 模型在 tensor_model_parallel_size ${m[1]} 时需要 sequence_parallel（Megatron-LM 的要求）`,
  ],
  // Both reach the page's sensitivities ("recompute one more layer" of a MoE strategy).
  "expert-parallel overlap excludes full recompute": [
    /^overlap_moe_expert_parallel_comm needs recompute_granularity none or selective$/,
    () => "overlap_moe_expert_parallel_comm 要求 recompute_granularity 为 none 或 selective",
  ],
  "per-layer CUDA graphs exclude full recompute": [
    /^cuda_graph_impl with a per-layer scope needs recompute_granularity none or selective$/,
    () => "逐层作用域的 cuda_graph_impl 要求 recompute_granularity 为 none 或 selective",
  ],
  "tensor-parallel overlap needs sequence parallelism": [
    /^tp_comm_overlap needs sequence_parallel and tensor_model_parallel_size > 1$/,
    () => "tp_comm_overlap 需要 sequence_parallel 且 tensor_model_parallel_size > 1",
  ],
};

// Every rule whose reason is rules.cpp's does_not_divide.
for (const id of [
  "tensor parallel divides the attention heads",
  "tensor parallel divides the query groups",
  "tensor parallel divides the MLP width",
  "expert tensor parallel divides the expert MLP width",
  "expert parallel divides the experts",
  "sequence parallel splits the sequence over tensor parallel",
  "context parallel splits the sequence into 2 x cp chunks",
  "all-to-all context parallelism divides the heads",
])
  ZH[id] ??= doesNotDivide;

// `text` (the core's English reason with stable id `id`) in the page's language.
export function coreReason(text: string, id: string | undefined): string {
  if (language() !== "zh" || id === undefined) return text;
  const entry = ZH[id];
  if (entry === undefined) return text;
  const match = text.match(entry[0]);
  return match === null ? text : entry[1](match);
}

// A report's reasons in the page's language, one per reason (ids may be absent: English).
export function coreReasons(report: {
  infeasible_reasons: string[];
  infeasible_reason_ids?: string[];
}): string[] {
  return report.infeasible_reasons.map((text, index) =>
    coreReason(text, report.infeasible_reason_ids?.[index]),
  );
}
