// The core's texts that carry an id (core/src/model/text_ids.hpp: the memory verdict's reason,
// the uncertainty band's regime and basis, the trust notes, why a search found no strategy or
// stopped early, why a launch target cannot launch, the Hugging Face import's reasons, the input
// errors) in the page's language, written from their id and values, never parsed from the English. A text without an id, or with an id this
// file does not know, stays English; core-texts.test.ts fails on an id of the core not written.
import type { CoreText, Validation } from "../paraplan/types";
import { coreReason } from "./core-reasons";
import { ERROR_TEXTS_ZH } from "./error-texts";
import { language } from "./i18n";
import { IMPORT_TEXTS_ZH } from "./import-texts";
import { LAUNCH_TEXTS_ZH } from "./launch-reasons";

export type Args = Record<string, string>;
// A text from its values and its parts (already written); undefined where a table it reads has
// no entry for a value (the text then stays English).
export type Write = (args: Args, parts: string[]) => string | undefined;

// Names inside the core's values: GPU families (model/uncertainty.cpp gpu_family) and model
// families' parts (model/validated_regime.cpp model_family); proper names stay as they are.
const ZH_NAMES: Record<string, string> = {
  custom: "自定义 GPU",
  mixed: "混合 GPU",
  dense: "稠密",
  "multi-latent attention": "多头潜在注意力",
  "gated MLP": "门控 MLP",
  "non-gated MLP": "非门控 MLP",
};
const name = (value: string | undefined): string => ZH_NAMES[value ?? ""] ?? value ?? "";
const family = (value: string | undefined): string =>
  (value ?? "").split(", ").map(name).join("，");

const VERDICT_ZH: Record<string, string> = {
  fits: "各阶段中最高，低于默认余量",
  at_risk: "在默认余量之内，已发表的启动在此有的成功有的显存不足",
  oom: "超过其容量",
};

// "pipeline stage 0 (h100) peaks at 70.1 GiB of 79.1 GiB (89%, 9.0 GiB free): ..." (estimate.cpp
// verdict_text).
const verdict =
  (what: string): Write =>
  (a) =>
    `流水线阶段 ${a.stage}（${a.gpu}）峰值 ${a.peak_gib} GiB / ${a.capacity_gib} GiB` +
    `（${a.share_percent}%，空闲 ${a.free_gib} GiB）：${VERDICT_ZH[what]}` +
    `（默认余量保留 ${a.margin_gib} GiB（${a.margin_percent}%）空闲，按分配器模式：` +
    (a.allocator === "expandable_segments" ? "可扩展段" : "PyTorch 默认固定段") +
    (a.cuda_graphs === "true" ? "，含 CUDA Graph" : "") +
    (a.p2p_context_parallel === "true" ? "，含点对点环形上下文并行" : "") +
    `；docs/model.md“Memory verdict”）`;

const band = (a: Args): string =>
  `来自 ${a.publishers} 家发布方表格的 ${a.runs} 个公开运行的实测/预测 token/s，` +
  `其 80% 分裂共形区间：估计值的 ${a.low} 至 ${a.high} 倍`;

const framework = (a: Args) => `${a.framework}（zero_stage ${a.zero_stage}）`;

const measured = (a: Args, parts: string[]) =>
  `“${parts[0]}”的公开运行实测为预测 token/s 的 ${a.low} 至 ${a.high} 倍（${a.runs} 个运行的 80% 区间）`;

// "no strategy fits in GPU memory: the closest (...) needs ..." (search/diagnosis.cpp memory_miss).
const memoryMiss: Write = (a) =>
  `没有策略能放入 GPU 显存：最接近的策略（张量 ${a.tensor}，流水线 ${a.pipeline}，上下文 ` +
  `${a.context}，微批次 ${a.micro_batch}，ZeRO ${a.zero}，重计算 ${a.recompute}）在流水线阶段 ` +
  `${a.stage}（${a.gpu}）每卡需要 ${a.needs_gib} GiB，比其 ${a.capacity_gib} GiB` +
  (a.margin_gib === undefined ? " " : `（减去 ${a.margin_gib} GiB 显存余量）`) +
  `多 ${a.over_gib} GiB`;

// zh: by id (text_ids.hpp), the text from its values and its parts (already written).
export const ZH_TEXTS: Record<string, Write> = {
  ...LAUNCH_TEXTS_ZH,
  ...IMPORT_TEXTS_ZH,
  ...ERROR_TEXTS_ZH,
  "memory verdict: fits": verdict("fits"),
  "memory verdict: at_risk": verdict("at_risk"),
  "memory verdict: oom": verdict("oom"),
  "memory not estimated: rejected": () => "未估算显存：策略在此之前已被拒绝",
  "memory not estimated: overflow": () => "未估算显存：规模超出双精度可表示的范围",
  "regime: GPU family, kind, framework family": (a) =>
    `${name(a.gpu_family)}，${name(a.kind)}，${a.framework_family}`,
  "regime: GPU family, kind": (a) => `${name(a.gpu_family)}，${name(a.kind)}，任意框架`,
  "regime: kind": (a) => `${name(a.kind)}，任意 GPU 与框架`,
  "regime: all runs": () => "全部公开运行",
  "regime with too few runs": (a, parts) =>
    `“${parts[0]}”只有来自 ${a.publishers} 家发布方表格的 ${a.runs} 个公开运行`,
  "band from published runs": band,
  "band from a wider regime": (a, parts) =>
    `${band(a)}；采用更宽的范围，因为${parts.join("；")}` +
    `（一个区间需要来自 ${a.min_publishers} 家发布方的 ${a.min_runs} 个运行）`,
  "ranked above: safer memory verdict": (a) =>
    `排在一个快 ${a.slower_percent} 的策略之上，差距在已发表吞吐 ${a.noise_percent} 的噪声之内：` +
    `其显存判定为 ${a.verdict}，而对方为 ${a.other_verdict}`,
  "ranked above: fewer risky switches": (a) =>
    `排在一个快 ${a.slower_percent} 的策略之上，差距在已发表吞吐 ${a.noise_percent} 的噪声之内：` +
    `风险开关更少（优化器 CPU 卸载、CUDA Graph、激活卸载）`,
  "no strategy: no tensor cores for the precision": (a) =>
    `集群中没有任何 GPU 类型具备 ${a.precision} 张量核心`,
  "no strategy: nothing fits in GPU memory": memoryMiss,
  "no strategy: the rules ruled it out": (_a, parts) =>
    "没有策略能整除并满足 Megatron-LM 的规则；" +
    (parts.length > 0 ? `排除候选的原因：${parts.join("；")}` : "没有剩余可尝试的候选"),
  // The rule's own reason, written by its id where it has a translation (core-reasons.ts).
  "candidates a rule ruled out": (a) =>
    `${coreReason(a.reason ?? "", a.reason_id)}（${a.count} 个候选）`,
  "search stopped: time budget": (a) => `已达到 ${a.budget_s} 秒的时间预算`,
  "search stopped: cancelled": () => "已取消",
  "the search stopped early": (_a, parts) =>
    parts.length > 0 ? `搜索提前停止（${parts[0]}）` : "搜索提前停止",
  "no strategy at this size": (a, parts) =>
    parts.length > 0 ? parts.join("；") : `在 ${a.num_gpus} 块 GPU 上没有可行的策略`,
  "GPU not a preset": (a) =>
    `GPU ${a.gpu} 不是原样发布的预设（其字段由用户给出或覆盖）：没有公开运行测量过它`,
  "GPU type never validated": (a) => `GPU 类型 ${a.gpu} 从未与公开运行对照验证`,
  "precision never validated on the GPU": (a) =>
    `${a.gpu}（${name(a.gpu_family)}）上的 ${a.precision} 训练从未与公开运行对照验证`,
  "MFU above the best published": (a) =>
    `因果 MFU ${a.mfu} 高于 ${a.gpu}（${name(a.gpu_family)}）在 ${a.precision} 下已发表的最佳值` +
    `（${a.best_mfu}，运行 ${a.run}）`,
  "model family never validated": (a) => `模型类别“${family(a.family)}”从未与公开运行对照验证`,
  "framework and ZeRO stage never validated": (a) => `${framework(a)} 从未与公开运行对照验证`,
  "torchtitan never validated, ranked as its benchmarks": (a) =>
    `${framework(a)} 的吞吐从未与公开运行对照验证；其公开基准（500 W H100）对配置的排序与模型一致，` +
    `但在 8192 token 时比预测慢 14% 至 62%，使用上下文并行时更慢`,
  "DeepSpeed ZeRO-3 of 2021 ran slower than predicted": (a) =>
    `${framework(a)}：其仅有的公开运行（2021 年的 DeepSpeed ZeRO-3，SC21 表 2）比预测慢 1.4 至 3.1 倍：` +
    `其逐参数的主机端开销未建模`,
  "grouped GEMM off is a lower bound": () =>
    "关闭 moe_grouped_gemm 时由主机逐个专家启动，其启动时间未计 Transformer Engine 的开销，是下界：" +
    "此类已验证运行（MegaScale-MoE 的 Megatron-LM 基线，每卡多个专家）比预测慢 1.2 至 1.3 倍",
  "CUDA graph pool not priced": (a) =>
    "CUDA Graph 只按其静态缓冲计入，未计其内存池的碎片：使用 Transformer Engine Graph 与 PyTorch" +
    "默认分配器的已发表启动，在模型预计仍有 17.5% 显存空闲时就已显存不足；使用 CUDA Graph 时默认余量为 " +
    `${a.margin_percent}%`,
  "sequence longer than validated": (a) =>
    `序列长度 ${a.seq_length} 超过任何已验证的运行（${a.longest}）`,
  "mixture-of-experts measured error": (a, parts) =>
    `混合专家（MoE）模型，模型误差最大之处：${measured(a, parts)}`,
  "FSDP measured error": (a, parts) =>
    `FSDP：测量它的公开运行很少（Megatron-FSDP 两个，torchtitan 的 FSDP2 没有）；${measured(a, parts)}`,
  "torchtitan drops multi-token prediction": (a) =>
    `torchtitan v0.2.2 的 ${a.family} 模型没有多 token 预测（models/deepseek_v3/model/model.py ` +
    `不构建）：估算与启动均不含模型的 ${a.mtp_num_layers} 层 MTP`,
};

// `text` in Chinese, or undefined where it or one of its parts has no translation.
function zhText(text: CoreText): string | undefined {
  const write = ZH_TEXTS[text.id];
  if (write === undefined) return undefined;
  const parts = (text.parts ?? []).map(zhText);
  if (parts.some((part) => part === undefined)) return undefined;
  return write(text.args, parts as string[]);
}

// Texts of the core in the page's language, one per English text (`texts` in the same order).
export function coreTextList(english: string[], texts: CoreText[] | undefined): string[] {
  return english.map((text, index) => coreText(text, texts?.[index]));
}

// The core's English `english`, with id and values `text`, in the page's language.
export function coreText(english: string, text: CoreText | undefined): string {
  if (language() !== "zh" || text === undefined) return english;
  return zhText(text) ?? english;
}

// A report's trust notes in the page's language, one per note.
export function coreNotes(validation: Validation | undefined): string[] {
  return coreTextList(validation?.notes ?? [], validation?.note_texts);
}
