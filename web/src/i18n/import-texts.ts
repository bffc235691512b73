// The Hugging Face import's reasons for the keys of a config.json it did not map, in Chinese, by
// their id (core/src/model/text_ids.hpp, "config ..."; core/src/input/hf_*.cpp) and values.
import type { Write } from "./core-texts";

// The table of keys that change nothing Paraplan counts (core/src/input/hf_config_reader.cpp
// ignored_keys), by key; import-texts.test.ts fails on a key of the table not written here.
export const IGNORED_KEYS_ZH: Record<string, string> = {
  _name_or_path: "检查点的来源（用作模型名称）",
  auto_map: "加载检查点所用的 Python 类",
  aux_loss_alpha: "负载均衡损失的权重：不影响大小和时间",
  bos_token_id: "一个 token id",
  eos_token_id: "一个 token id",
  pad_token_id: "一个 token id",
  dtype: "检查点的存储类型；训练精度在 training 中设置",
  torch_dtype: "检查点的存储类型；训练精度在 training 中设置",
  ep_size: "推理设置；专家并行由搜索选择",
  initial_context_length: "RoPE 缩放之前的上下文长度",
  initializer_range: "权重初始化",
  max_position_embeddings: "模型设计支持的最长序列；序列长度在 training 中设置",
  max_window_layers: "仅在 use_sliding_window 时使用",
  model_type: "模型家族，与 architectures 一起读取",
  norm_topk_prob: "路由权重的归一化：不影响大小和时间",
  output_router_logits: "一个输出选项",
  pretraining_tp: "原始检查点的一个数值选项",
  quantization_config: "检查点的存储格式；训练精度在 training 中设置",
  rms_norm_eps: "一个数值常数",
  rope_parameters: "RoPE 频率不改变权重形状和 FLOP 数",
  rope_scaling: "RoPE 频率缩放不改变权重形状和 FLOP 数",
  rope_theta: "RoPE 基数不改变权重形状和 FLOP 数",
  routed_scaling_factor: "路由专家输出的缩放系数",
  router_aux_loss_coef: "负载均衡损失的权重：不影响大小和时间",
  scoring_func: "路由器的打分函数：不影响大小和时间",
  seq_aux: "负载均衡损失的平均方式",
  transformers_version: "写出该文件的库版本",
  use_cache: "一个推理选项（键/值缓存）",
  use_mrope: "多模态 RoPE 位置：不改变权重形状和 FLOP 数",
};

const BIASES_LEFT_OUT = "add_bias_linear 覆盖所有线性层，因此略去这些偏置";
const FULL_ATTENTION_EVERY_LAYER = "Paraplan 在每一层都按完整的因果注意力计算";

export const IMPORT_TEXTS_ZH: Record<string, Write> = {
  "config key: ignored": (a) => IGNORED_KEYS_ZH[a.key ?? ""],
  "config key: unknown": (a) =>
    `不是 Paraplan 对 ${a.architecture} 已知的键：已略去；请确认它不改变模型的层`,
  "config key: see another key": (a) => `见 ${a.key}`,
  "config: biases on the attention only": (a) =>
    `只有注意力投影带偏置：${BIASES_LEFT_OUT}（${a.parameters} 个参数）`,
  "config: biases on the MLP only": () => `只有 MLP 带偏置：${BIASES_LEFT_OUT}`,
  "config: biases on q, k and v only": (a) =>
    `Qwen2 只在 q、k、v 投影上带偏置（Megatron-LM --add-qkv-bias）；${BIASES_LEFT_OUT}` +
    `（${a.parameters} 个参数）`,
  "config: attention sinks": (a) =>
    `gpt-oss 为每个注意力头增加一个可学习的 attention-sink logit（每层 ${a.heads} 个参数）：未建模`,
  "config: group-limited routing": (a) =>
    `分组限制路由（每个 token 的专家至多分布在 ${a.groups} 组中的 topk_group 组；Megatron-LM ` +
    `--moe-router-num-groups、--moe-router-group-topk）：Paraplan 按 token 的专家可位于任意 GPU ` +
    `来计算 all-to-all`,
  "config: one expert group": () => "只有一组：没有分组限制路由",
  "config: no sliding window": () => "没有滑动窗口：全注意力",
  "config: sliding window switched off": () => "use_sliding_window 为 false：全注意力",
  "config: layer_types lists the windows": () => "layer_types 已列出使用窗口的层",
  "config: layer_types not understood": (a) =>
    `每层应为 sliding_attention 或 full_attention 之一（共 ${a.num_layers} 层）：每层都按全注意力计算`,
  "config: no layer uses the window": () => "没有层使用该窗口：全注意力",
  "config: window of the query alone": () =>
    "只含查询自身的窗口没有对应的 Megatron-LM --window-size：按全注意力计算",
  "config: sliding-window pattern": (a) =>
    `${a.num_layers} 层中有 ${a.windowed_layers} 层使用 ${a.window} token 的滑动窗口注意力，` +
    `其排布既不是每层都用、也不是每 N 层空一层（window_attn_skip_freq）：${FULL_ATTENTION_EVERY_LAYER}，` +
    `因此序列长于窗口时高估这些层的注意力时间`,
  "config: every layer full attention": () => "每一层都是全注意力",
  "config: other layers without a window": () =>
    `有非全注意力的层，但没有 sliding_window：${FULL_ATTENTION_EVERY_LAYER}`,
};
