// The text of the decision aids (why this strategy, sensitivities, comparison, campaign,
// Pareto view, estimate mode, grouping, trust), in English and Chinese; messages.ts merges them.

export const decisionEn = {
  "compare.add": "Add to comparison",
  "compare.remove": "Remove from comparison",
  "compare.title": "Comparison ({n})",
  "compare.hint": "Open another strategy and add it to compare side by side (up to three).",
  "compare.strategy": "Strategy",
  "compare.removeRank": "Remove #{rank} from the comparison",

  "why.title": "Why this strategy",
  "why.memoryBound":
    "Memory-bound at micro-batch {mbs}: one more sample per micro-batch does not fit.",
  "why.partBound": "{part}-bound: {share} of the iteration is exposed {part}.",
  "why.computeBound": "Compute-bound: compute is {share} of the iteration.",
  "why.runnerUp": "Runner-up",
  "why.tp": "Best TP-heavy (TP ≥ 4 and ≥ PP)",
  "why.pp": "Best PP-heavy (PP ≥ 4 and > TP)",
  "why.cp": "Best with CP",
  "why.zero3": "Best ZeRO-3 / FSDP",
  "why.ep": "Best with EP",
  "why.noneListed": "none that fits among the strategies the search saw",
  "why.notListed": "not listed",
  "why.thisOne": "this one",
  "why.against": "Against",
  "why.layout": "Layout",
  "why.timeDelta": "Iteration time",
  "why.memoryDelta": "Memory/GPU",
  "why.hint":
    "Differences are the other strategy's minus this one's: + is slower or needs more memory.",

  "sens.title": "Sensitivities",
  "sens.change": "Change",
  "sens.mbsUp": "Micro-batch +1",
  "sens.recomputeUp": "One more recomputed layer",
  "sens.nodeUp": "More nodes: {gpus} GPUs",
  "sens.nodeDown": "Fewer nodes: {gpus} GPUs",
  "sens.hint":
    "More or fewer nodes: the nearest cluster size, in whole nodes, whose data-parallel size the global batch divides. Each row is the module's estimate of the changed strategy.",
  "sens.notApplicable": "does not apply to this strategy",
  "sens.throughputDelta": "Change",

  "trust.title": "Trust",
  "trust.unknown": "This module does not say whether the result lies in a validated regime.",
  "trust.validated": "Inside the regimes the validation against published runs covers.",
  "trust.outside": "Outside the validated regimes:",
  "trust.mfuCausal":
    "MFU {mfu} counts full attention (Narayanan et al.); with the causal mask halved, as Megatron-LM logs it: {causal}.",

  "campaign.title": "Training campaign",
  "campaign.tokens": "Tokens to train",
  "campaign.price": "Price per GPU-hour",
  "campaign.days": "Days",
  "campaign.gpuHours": "GPU-hours",
  "campaign.cost": "Cost",
  "campaign.tokensError": "Enter a number of tokens, e.g. 2T, 300B or 1.5e12.",
  "campaign.priceError": "Enter a price of 0 or more, or leave it empty.",
  "campaign.hint":
    "At this strategy's steady throughput, without restarts, evaluation or checkpoints.",

  "pareto.title": "Throughput against memory",
  "pareto.hint":
    "Every listed feasible strategy; the line joins those no other beats on both throughput and memory. A point opens its strategy.",
  "pareto.xAxis": "Peak memory per GPU (GiB)",
  "pareto.yAxis": "Tokens/s/GPU",

  "estimate.run": "Report for the fixed keys (no search)",
  "estimate.title": "Fixed strategy",
  "estimate.hint":
    "The module's estimate of the strategy the fixed keys give; keys left on auto take the core's defaults.",

  "group.toggle": "Group near-duplicates",
  "group.variants": "+{n} like it",
  "group.variantsHint": "{n} more with the same layout and memory (other recompute)",

  "validation.title": "Validation against published runs",
  "validation.hint":
    "Tokens/s per GPU of published training runs against this model's estimate; the error is predicted / measured − 1. Nothing in the model is fitted to these numbers.",
  "validation.summary": "{runs} runs, |error| median {median}, p90 {p90}, max {max}",
  "validation.infeasible": "{count} of them wrongly called infeasible",
  "validation.dense": "Dense models",
  "validation.moe": "Mixture of experts",
  "validation.run": "Run",
  "validation.measured": "Measured",
  "validation.predicted": "Predicted",
  "validation.error": "Error",
  "trust.seeTable": "See the validation table",

  "gpu.assumptions": "What the model assumes of {gpu}",
  "gpu.peak": "Peak tensor ({precision})",
  "gpu.gemmPlateau": "Achievable GEMM plateau",
  "gpu.memory": "Memory",
  "gpu.intra": "Within a node",
  "gpu.inter": "Between nodes",
  "gpu.reached": "{share} reached by collectives",

  "table.sortedBy": "Sorted by {column}, {direction}",
  "table.ascending": "ascending",
  "table.descending": "descending",
  "table.ranking": "Sorted by the search's ranking",
};

export const decisionZh: Record<keyof typeof decisionEn, string> = {
  "compare.add": "加入对比",
  "compare.remove": "移出对比",
  "compare.title": "对比（{n}）",
  "compare.hint": "打开另一个策略并加入对比，最多三个并排显示。",
  "compare.strategy": "策略",
  "compare.removeRank": "把 #{rank} 移出对比",

  "why.title": "为什么选这个策略",
  "why.memoryBound": "受显存限制（micro-batch {mbs}）：每个 micro-batch 再多一个样本就放不下。",
  "why.partBound": "受{part}限制：迭代中有 {share} 是未被掩盖的{part}。",
  "why.computeBound": "受计算限制：计算占迭代的 {share}。",
  "why.runnerUp": "第二名",
  "why.tp": "最佳 TP 为主（TP ≥ 4 且 ≥ PP）",
  "why.pp": "最佳 PP 为主（PP ≥ 4 且 > TP）",
  "why.cp": "最佳使用 CP",
  "why.zero3": "最佳 ZeRO-3 / FSDP",
  "why.ep": "最佳使用 EP",
  "why.noneListed": "搜索见到的策略中没有能放下的",
  "why.notListed": "未列出",
  "why.thisOne": "即本策略",
  "why.against": "对比对象",
  "why.layout": "布局",
  "why.timeDelta": "迭代时间",
  "why.memoryDelta": "每卡显存",
  "why.hint": "差值为对方减本策略：+ 表示更慢或需要更多显存。",

  "sens.title": "敏感性",
  "sens.change": "改动",
  "sens.mbsUp": "micro-batch +1",
  "sens.recomputeUp": "多重计算一层",
  "sens.nodeUp": "增加节点：{gpus} 张 GPU",
  "sens.nodeDown": "减少节点：{gpus} 张 GPU",
  "sens.hint":
    "增加或减少节点：取最近的整节点集群规模，使全局批大小能被数据并行规模整除。每行是模块对改动后策略的估算。",
  "sens.notApplicable": "不适用于此策略",
  "sens.throughputDelta": "变化",

  "trust.title": "可信度",
  "trust.unknown": "此模块未说明结果是否处于已验证的范围内。",
  "trust.validated": "处于与公开训练记录对比验证过的范围内。",
  "trust.outside": "超出已验证的范围：",
  "trust.mfuCausal":
    "MFU {mfu} 按完整注意力计（Narayanan 等）；按 Megatron-LM 日志的因果掩码减半口径为 {causal}。",

  "campaign.title": "训练规划",
  "campaign.tokens": "训练 token 数",
  "campaign.price": "每 GPU 小时价格",
  "campaign.days": "天数",
  "campaign.gpuHours": "GPU 小时",
  "campaign.cost": "费用",
  "campaign.tokensError": "请输入 token 数，例如 2T、300B 或 1.5e12。",
  "campaign.priceError": "请输入不小于 0 的价格，或留空。",
  "campaign.hint": "按此策略的稳定吞吐计算，不含重启、评估和检查点。",

  "pareto.title": "吞吐与显存",
  "pareto.hint":
    "所有列出的可行策略；折线连接在吞吐和显存上都不被其他策略超越的策略。点击一个点可打开该策略。",
  "pareto.xAxis": "每卡峰值显存（GiB）",
  "pareto.yAxis": "每卡每秒 token 数",

  "estimate.run": "计算固定键的策略（不搜索）",
  "estimate.title": "固定策略",
  "estimate.hint": "由模块估算固定键给出的策略；保持自动的键取核心的默认值。",

  "group.toggle": "合并近似重复",
  "group.variants": "+{n} 个相似",
  "group.variantsHint": "另有 {n} 个布局和显存相同的策略（重计算不同）",

  "validation.title": "与公开训练记录的对比验证",
  "validation.hint":
    "公开训练记录的每卡每秒 token 数与本模型的估算对比；误差 = 预测 / 实测 − 1。模型没有针对这些数字做任何拟合。",
  "validation.summary": "{runs} 个训练记录，|误差| 中位数 {median}，p90 {p90}，最大 {max}",
  "validation.infeasible": "其中 {count} 个被误判为不可行",
  "validation.dense": "稠密模型",
  "validation.moe": "混合专家模型",
  "validation.run": "训练记录",
  "validation.measured": "实测",
  "validation.predicted": "预测",
  "validation.error": "误差",
  "trust.seeTable": "查看验证表",

  "gpu.assumptions": "模型对 {gpu} 的假设",
  "gpu.peak": "张量峰值（{precision}）",
  "gpu.gemmPlateau": "可达 GEMM 平台",
  "gpu.memory": "显存",
  "gpu.intra": "节点内",
  "gpu.inter": "节点间",
  "gpu.reached": "集合通信可达 {share}",

  "table.sortedBy": "按{column}{direction}排序",
  "table.ascending": "升序",
  "table.descending": "降序",
  "table.ranking": "按搜索排名排序",
};
