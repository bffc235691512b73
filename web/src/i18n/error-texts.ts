// The core's input errors in Chinese, by their id (core/src/model/text_ids.hpp, "input error:
// ..."; core/src/input/json_reader.cpp) and values: the value got is written from its JSON type
// (`got_type`) and its text (`got_value`, strings quoted), never parsed from the English.
import type { Args, Write } from "./core-texts";

const GOT_TYPE_ZH: Record<string, (value: string) => string> = {
  string: (value) => `字符串 ${value}`,
  array: () => "数组",
  object: () => "对象",
};
const got = (a: Args): string =>
  (GOT_TYPE_ZH[a.got_type ?? ""] ?? ((value: string) => value))(a.got_value ?? "");

const STAGE_ITEMS_ZH: Record<string, string> = { "GPU types": "GPU 类型", "layer counts": "层数" };
const PRESET_KIND_ZH: Record<string, string> = { gpu: " GPU 预设", model: "模型预设" };
const NUMBER_KIND_ZH = (a: Args): string => (a.integer === "true" ? "整数" : "数");

// The core's other input errors (request, scenario, model, GPU, scaling, sweep and Hugging Face
// import readers), from the values each message names.
const OTHER_ERRORS_ZH: Record<string, Write> = {
  "input error: JSON too large": (a) => `为 ${a.bytes} 字节；最多接受 ${a.max_bytes} 字节`,
  "input error: JSON nested too deep": (a) => `嵌套超过 ${a.max_depth} 层`,
  "input error: not valid JSON": (a) => `不是有效的 JSON：${a.detail}`,
  "input error: memory margin out of range": (a) =>
    `应为 0 到 ${a.max_gib} 的 GiB 数，或每卡显存的 0% 到 ${a.max_percent}%，实际为 "${a.got_value}"`,
  "input error: memory margin not GiB or %": (a) =>
    `应为 GiB 数（数字）或如 "5%" 的字符串，实际为 ${got(a)}`,
  "input error: expected GPU entries": (a) =>
    `应为含 1 到 ${a.max} 个 {"type", "count"} 条目的数组，实际为 ${got(a)}`,
  "input error: GPU type listed twice": (a) => `GPU 类型 "${a.gpu}" 列出了两次`,
  "input error: expected an array of choices": (a) => `应为由可选名称组成的数组，实际为 ${got(a)}`,
  "input error: not a GPU type of the cluster": (a) =>
    (a.gpu === undefined ? "" : `"${a.gpu}" `) + "不是 cluster.gpus 中的 GPU 类型",
  "input error: expected one entry per stage": (a) =>
    STAGE_ITEMS_ZH[a.items] === undefined
      ? undefined
      : `应为每个流水线阶段一项的${STAGE_ITEMS_ZH[a.items]}数组，实际为 ${got(a)}`,
  "input error: stage layers do not sum": (a) =>
    `各阶段层数之和应为模型的 num_layers（${a.num_layers}），实际为 ${a.sum}`,
  "input error: stage list length": (a) =>
    `有 ${a.length} 项，但 pipeline_model_parallel_size 为 ${a.stages}`,
  "input error: stage GPU types required": () =>
    "cluster.gpus 列出多种 GPU 类型时为必填项（每个流水线阶段一种类型）",
  "input error: YaRN needs rotary positions": () =>
    "需要旋转位置编码（position_embedding_type rope）且不使用 multi_latent_attention（其旋转部分按自身的 YaRN 设置缩放）",
  "input error: YaRN key without YaRN": () => "需要 yarn_rotary_scaling_factor 大于 1（YaRN）",
  "input error: must divide the heads": (a) =>
    `必须整除 num_attention_heads（${a.heads}），实际为 ${a.got_value}`,
  "input error: head dimension required": (a) =>
    `hidden_size（${a.hidden_size}）不是 num_attention_heads（${a.heads}）的倍数时为必填项`,
  "input error: skip needs a window": () =>
    "需要 window_size（至少 1 个 token 的滑动窗口）：没有窗口时每层都是全注意力",
  "input error: clamp needs a gated unit": () =>
    "需要门控激活（swiglu 或 geglu）：Megatron-Core 截断门控单元的门控与线性两半",
  "input error: qk_layernorm with MLA": () =>
    "multi_latent_attention 已对其潜变量做归一化（q_layernorm 与 kv_layernorm）；qk_layernorm 用于标准注意力",
  "input error: unknown preset": (a) =>
    PRESET_KIND_ZH[a.kind] === undefined
      ? undefined
      : `未知的${PRESET_KIND_ZH[a.kind]} ${got(a)}` +
        (a.known === undefined ? "" : `（已知：${a.known}）`),
  "input error: expected a curve": (a) =>
    `应为含 1 到 ${a.max} 个 [规模, 效率] 对的数组，实际为 ${got(a)}`,
  "input error: expected a curve point": (a) => `应为一个 [规模, 效率] 对，实际为 ${got(a)}`,
  "input error: curve sizes must increase": () => "规模必须逐点递增",
  "input error: fp8 curve required": () => "tensor_tflops 含 fp8 时为必填项",
  "input error: FlashAttention curves paired": () =>
    "与另一条 FlashAttention-2 曲线同时给出时为必填项",
  "input error: id length": (a) => `应为 1 到 ${a.max} 个字符`,
  "input error: expected release entries": (a) =>
    `应为含 1 到 ${a.max} 个 {"from", "torch_op_us", "torch_linear_us", "te_module_us"} 条目的数组，实际为 ${got(a)}`,
  "input error: releases must increase": () => "各条目的版本（from）必须逐项递增",
  "input error: release without Megatron-Core": (a) =>
    `指定的是 Megatron-Core 版本，但 framework ${a.framework} 不基于 Megatron-Core 运行`,
  "input error: no 16-bit peak": () => "需要大于 0 的 bf16 或 fp16 峰值",
  "input error: expected a GPU preset id": (a) => `应为 GPU 预设 id，实际为 ${got(a)}`,
  "input error: name the customised GPU": () => "为必填项：为自定义的 GPU 命名",
  "input error: the range is empty": (a) =>
    (a.name === undefined ? "" : `${a.name}：`) + `范围为空：终点 ${a.to} 小于起点 ${a.from}`,
  "input error: too many scaling sizes": (a) =>
    `从 ${a.from} 到 ${a.to}、步长 ${a.step} 的范围有 ${a.count} 个规模；最多搜索 ${a.max} 个（请增大步长）`,
  "input error: weak-scaling batch above the limit": (a) =>
    `${a.num_gpus} 张 GPU 时的全局批次将为 ${a.batch}，超过上限 ${a.max}`,
  "input error: sweep value out of range": (a) =>
    `${a.name} 应为 ${a.min} 到 ${a.max} 之间的${NUMBER_KIND_ZH(a)}，实际为 "${a.got_value}"`,
  "input error: unknown sweep parameter": (a) => `未知的硬件参数 "${a.name}"（已知：${a.known}）`,
  "input error: sweep syntax": (a) => `应为 ${a.name}=FROM:TO:STEP 或 ${a.name}=V1,V2,...`,
  "input error: sweep range syntax": (a) => `应为 ${a.name}=FROM:TO:STEP，实际为 "${a.got_value}"`,
  "input error: sweep step": (a) =>
    `${a.name}：步长应为正${NUMBER_KIND_ZH(a)}，实际为 "${a.got_value}"`,
  "input error: too many sweep values": (a) =>
    `${a.name}：` +
    (a.count === undefined ? "" : `${a.count} 个取值；`) +
    `最多 ${a.max} 个` +
    (a.count === undefined ? "取值" : "（请增大步长）"),
  "input error: sweep required": (a) =>
    `为必填项：NAME=FROM:TO:STEP 或 NAME=V1,V2,...（参数名：${a.known}）`,
  "input error: too many sweep parameters": (a) => `一次最多扫描 ${a.max} 个参数`,
  "input error: parameter swept twice": (a) => `${a.name} 被扫描了两次`,
  "input error: too many sweep points": (a) => `扫描有 ${a.count} 个点；最多 ${a.max} 个`,
  "input error: expected a sweep list": (a) => `应为 "NAME=VALUES" 的列表，实际为 ${got(a)}`,
  "input error: expected a sweep item": (a) => `应为 "NAME=VALUES"，实际为 ${got(a)}`,
  "input error: sweep point out of range": (a) => `应为 0 到 ${a.max} 之间的点`,
  "input error: expected architectures": (a) => `应为类名列表，实际为 ${got(a)}`,
  "input error: unknown architecture": (a) => `应为 ${a.known} 之一，实际为 ${got(a)}`,
  "input error: unknown model type": (a) => `未知的模型类型 ${got(a)}（已知架构：${a.known}）`,
  "input error: architecture required": (a) => `为必填项（或 model_type），应为 ${a.known} 之一`,
  "input error: activation not gated": (a) => `应为 silu 或 gelu（门控 MLP），实际为 ${got(a)}`,
  "input error: the mapped model is invalid": (a, parts) =>
    `映射得到的模型无效：` + (a.path === "" ? "" : `${a.path}：`) + parts[0],
  "input error: config not an object": (a) =>
    `应为 JSON 对象（Hugging Face 的 config.json），实际为 ${got(a)}`,
  "input error: MoE in every layer": (a) =>
    `Paraplan 只模拟前几个稠密层之后每层都是 MoE MLP 的模型；应为 1，实际为 ${a.got_value}`,
  "input error: expected dense layer indices": (a) => `应为层序号列表，实际为 ${got(a)}`,
  "input error: dense layers not the first": (a) =>
    `Paraplan 只把前 k 层模拟为稠密层；应为 0, 1, ..., k-1，第 ${a.position} 项实际为 ${got(a)}`,
  "input error: no MoE layer": () => "没有留下任何 MoE 层",
  "input error: top-k keys differ": (a) =>
    `与 num_experts_per_tok（${a.per_token}）不同，实际为 ${a.got_value}`,
  "input error: top-k required": () => "为必填项（或 experts_per_token）",
};

export const ERROR_TEXTS_ZH: Record<string, Write> = {
  "input error: expected an integer in a range": (a) =>
    `应为 ${a.min} 到 ${a.max} 之间的整数，实际为 ${got(a)}`,
  "input error: expected a positive integer": (a) =>
    (a.max === undefined ? "应为正整数" : `应为不超过 ${a.max} 的正整数`) + `，实际为 ${got(a)}`,
  "input error: expected a number in a range": (a) =>
    `应为 ${a.min} 到 ${a.max} 之间的数，实际为 ${got(a)}`,
  "input error: expected true or false": (a) => `应为 true 或 false，实际为 ${got(a)}`,
  "input error: expected a string": (a) => `应为字符串，实际为 ${got(a)}`,
  "input error: expected one of the choices": (a) => `应为 ${a.choices} 之一，实际为 ${got(a)}`,
  "input error: expected an object": (a) => `应为对象，实际为 ${got(a)}`,
  "input error: is required": () => "为必填项",
  "input error: unknown key": (a) =>
    a.closest === undefined ? "未知的键" : `未知的键（是否想写 "${a.closest}"？）`,
  ...OTHER_ERRORS_ZH,
};
