// Why a launch target cannot express a strategy, in Chinese, by the rule's id (the core's
// framework_rule_id: "<framework>: <field>", " #N" for a target's N-th rule on the field;
// core/src/model/framework_rules_<target>.cpp). Code names, flags, files and quoted messages stay
// as the frameworks write them. launch-reasons.test.ts fails on a rule without a translation.
import { coreReason } from "./core-reasons";
import type { Write } from "./core-texts";

export const LAUNCH_RULES_ZH: Record<string, string> = {
  // Megatron-LM, Megatron-Bridge and MindSpeed-LLM (framework_rules_megatron.cpp).
  "megatron: cross_entropy_fusion_impl":
    'megatron/training/arguments.py 断言禁止 Transformer Engine 的损失融合（"disabled due to stability issues"）；Megatron-Bridge 的配置仍会设置它',
  "megatron: reuse_fp32_param":
    "Megatron-LM 没有 --reuse-fp32-param：参数副本复用是 MindSpeed 的功能（mindspeed/features_manager/memory/reuse_fp32_param.py）",
  "megatron: fp8_dot_product_attention":
    "Megatron-LM 没有对应参数：arguments.py 将 fp8_dot_product_attention 列为没有命令行参数的 TransformerConfig 字段（_add_network_size_args）；Megatron-Bridge 设置它（mixed_precision.fp8_dot_product_attention）",
  "megatron-bridge: reuse_fp32_param":
    "Megatron-Bridge 所配置的 Megatron-Core OptimizerConfig 没有参数副本复用：那是 MindSpeed 的 --reuse-fp32-param",
  "mindspeed-llm: zero_stage":
    "ZeRO-2/3 需要 --use-custom-fsdp（MindSpeed-LLM 的特性列表未注册）或 torch FSDP2（PP 1、EP 1）（launch-targets.md 第 3 节）",
  "mindspeed-llm: tp_comm_overlap":
    "CUDA userbuffers（--tp-comm-overlap）不适用于昇腾；MindSpeed 的 mc2/coc 是另外的内核（launch-targets.md 第 3 节）",
  "mindspeed-llm: overlap_moe_expert_parallel_comm":
    "Megatron-LM core_v0.12.1 的 arguments.py 中没有 --overlap-moe-expert-parallel-comm",
  "mindspeed-llm: moe_router_force_load_balancing":
    "Megatron-LM core_v0.12.1 的 arguments.py 中没有 --moe-router-force-load-balancing",
  "mindspeed-llm: recompute_modules":
    "Megatron-LM core_v0.12.1 的 transformer_config.py 允许 core_attn、moe_act、layernorm、mla_up_proj、mlp 和 moe；shared_experts 是后来加入的",
  "mindspeed-llm: cpu_offloading_num_layers":
    "Megatron-LM core_v0.12.1 的 arguments.py 没有 --cpu-offloading-num-layers",
  "mindspeed-llm: offload_modules":
    "Megatron-LM core_v0.12.1 的 arguments.py 没有 --fine-grained-activation-offloading；MindSpeed 的 --swap-attention 一并卸载 attn_norm、qkv_linear、core_attn、attn_proj 和 mlp_norm（docs/features/swap_attention.md）",
  "mindspeed-llm: cuda_graph_impl":
    "CUDA Graph 仅限 CUDA；MindSpeed-LLM 运行在昇腾 NPU 上（其特性列表未注册图捕获）",
  "mindspeed-llm: graph_capture_record_stream_reuse":
    "graph_capture_record_stream_reuse 是 PyTorch CUDA 缓存分配器用于 CUDA Graph 捕获的选项（c10/cuda/CUDACachingAllocator.cpp free_safe_blocks_in_capture）；MindSpeed-LLM 运行在昇腾 NPU 上（PYTORCH_NPU_ALLOC_CONF），不捕获 CUDA Graph",
  "mindspeed-llm: cross_entropy_fusion_impl":
    "Transformer Engine 的 Triton 损失内核仅限 CUDA；MindSpeed-LLM 运行在昇腾上",
  "mindspeed-llm: moe_shared_expert_overlap":
    'Megatron-LM core_v0.12.1 的 transformer_config.py："moe_shared_expert_overlap only works with alltoall token dispatcher"（flex 即 DeepEP，且仅限 CUDA）',
  "mindspeed-llm: moe_permute_fusion":
    'MindSpeed 的 fused_moe_permute 特性断言 "Only alltoall and alltoall_seq dispatcher supports --moe-permute-fusion"（mindspeed/features_manager/fusions/fused_moe_permute.py）',
  "mindspeed-llm: moe_router_fusion":
    "MindSpeed-LLM 所修补的 Megatron-LM core_v0.12.1 没有 moe_router_fusion（由 c08d89bea0 加入 transformer_config.py，首次发布于 core_v0.14.0）",
  "mindspeed-llm: moe_flex_dispatcher_backend":
    "MindSpeed-LLM 所修补的 Megatron-LM core_v0.12.1 没有 --moe-flex-dispatcher-backend（HybridEP 由 3df200905e 于 2025-11-18 加入，首次发布于 core_v0.16.0）",
  "mindspeed-llm: fp8_param_gather":
    'Megatron-LM core_v0.12.1 的 transformer_config.py："MXFP8 currently does not support fp8_param"',
  "mindspeed-llm: fp8_dot_product_attention":
    "Megatron-LM core_v0.12.1 的 arguments.py 没有 fp8 注意力参数，且 MindSpeed-LLM 运行在昇腾 NPU 上，没有 cuDNN 的 fp8 注意力内核",
  "mindspeed-llm: fp8_recipe":
    "Megatron-LM core_v0.12.1 的 arguments.py：--fp8-recipe 可选 delayed、tensorwise 或 mxfp8；没有 blockwise",
  "mindspeed-llm: exp_avg_dtype":
    "Megatron-LM core_v0.12.1 的 arguments.py：--exp-avg-dtype 和 --exp-avg-sq-dtype 可选 fp32、fp16 或 fp8；没有 bf16",
  "mindspeed-llm: model.window_size":
    "Megatron-LM core_v0.12.1 的 arguments.py 没有 --window-size（滑动窗口注意力）",
  "mindspeed-llm: model.yarn_correction_range_round_to_int":
    "MindSpeed-LLM 的 YaRN 对其校正范围取整（tasks/common/yarn_rope.py yarn_find_correction_range：floor 与 ceil），并以整数接收 --beta-fast 和 --beta-slow（features_manager/common/rotary.py）",
  "megatron: deallocate_pipeline_outputs":
    "Megatron-LM 没有对应参数：其训练固定设置 deallocate_pipeline_outputs=True（megatron/training/argument_utils.py；arguments.py 将其列为没有参数的字段）",
  "mindspeed-llm: deallocate_pipeline_outputs":
    "Megatron-LM core_v0.12.1 的训练固定设置 deallocate_pipeline_outputs=True（megatron/training/arguments.py core_transformer_config_from_args），没有对应参数",

  // DeepSpeed (Megatron-DeepSpeed, framework_rules_deepspeed.cpp).
  "deepspeed: virtual_pipeline_model_parallel_size":
    "DeepSpeed 的流水线引擎（PipelineModule）没有交错调度",
  "deepspeed: pipeline_stage_layers":
    "Megatron-DeepSpeed 将 partition_method 固定为 type:transformer，即均匀划分（megatron/model/gpt_model.py）",
  "deepspeed: cp_comm_type":
    "没有 ring 或 all-gather 上下文并行；只有 Ulysses（--ds-sequence-parallel-size）",
  "deepspeed: context_parallel_size":
    "Ulysses 序列并行与张量并行、流水线并行以及 --sequence-parallel 不兼容（examples_deepspeed/sequence_parallel/README.md，megatron/initialize.py）",
  "deepspeed: expert_tensor_parallel_size":
    "--enable-expert-tensor-parallelism 是一个开关：专家使用张量并行大小或 1",
  "deepspeed: zero_stage":
    "ZeRO-2 和 ZeRO-3 与流水线并行不兼容（deepspeed/runtime/pipe/engine.py）",
  "deepspeed: overlap_param_gather":
    "只有 ZeRO-3 预取参数；ZeRO-1/2 没有参数收集重叠（docs/_pages/config-json.md）",
  "deepspeed: tp_comm_overlap": "Megatron-DeepSpeed 没有张量并行通信重叠",
  "deepspeed: fp8_recipe": "Megatron-DeepSpeed 的 --fp8-e4m3/--fp8-hybrid 只使用 delayed 缩放",
  "deepspeed: recompute_granularity":
    "选择性重计算只在非 flash 路径上检查点核心注意力（megatron/model/transformer.py）：使用 flash attention 时不起作用",
  "deepspeed: recompute_method":
    "DeepSpeed 的流水线不支持 block 重计算方法（megatron/training.py）",
  "deepspeed: recompute_modules": "Megatron-DeepSpeed 没有 --recompute-modules",
  "deepspeed: recompute_granularity #2":
    "一个 ds_config 和一份参数列表只能为所有 GPU 类型设置同一种重计算",
  "deepspeed: moe_grouped_gemm":
    "Megatron-DeepSpeed 的 MoE（deepspeed.moe）没有 Megatron-Core 的任何 MoE 开关（grouped GEMM、permute 融合、共享专家重叠、EP 通信重叠、强制均衡）",
  "deepspeed: moe_token_dispatcher_type": "deepspeed.moe 只用 all-to-all 分发 token",
  "deepspeed: use_precision_aware_optimizer":
    "Megatron-DeepSpeed 没有精度感知优化器，也不能设置优化器状态的数据类型",
  "deepspeed: fp8_param_gather": "Megatron-DeepSpeed 没有 --fp8-param-gather",
  "deepspeed: fp8_dot_product_attention":
    "Megatron-DeepSpeed 没有 fp8 注意力参数（Transformer Engine 的 fp8_dpa）",
  "deepspeed: cpu_offloading_num_layers": "Megatron-DeepSpeed 没有 --cpu-offloading-num-layers",
  "deepspeed: offload_modules": "Megatron-DeepSpeed 没有 --fine-grained-activation-offloading",
  "deepspeed: reuse_fp32_param":
    "DeepSpeed 的优化器保留自己的 fp32 主副本；参数副本复用是 MindSpeed 的 --reuse-fp32-param",
  "deepspeed: cuda_graph_impl": "Megatron-DeepSpeed 没有 --cuda-graph-impl",
  "deepspeed: cross_entropy_loss_fusion": "Megatron-DeepSpeed 没有 --cross-entropy-loss-fusion",
  "deepspeed: grad_reduce_in_bf16":
    "Megatron-DeepSpeed 没有 --grad-reduce-in-bf16，启动所写的 ds_config 也不设置梯度数据类型",
  "deepspeed: accumulate_allreduce_grads_in_fp32":
    "梯度由 DeepSpeed 引擎归约，而不是 --accumulate-allreduce-grads-in-fp32 所配置的 Megatron DDP；启动所写的 ds_config 也不设置梯度数据类型",
  "deepspeed: model": "Megatron-DeepSpeed 没有多头潜在注意力",
  "deepspeed: zero_stage #2":
    'deepspeed.initialize 在 ZeRO-3 下拒绝 Megatron-DeepSpeed 的原生 MoE 层："Native DeepSpeed MoE is not supported with ZeRO Stage 3"（runtime/engine.py _validate_zero3_moe_compatibility）',
  "deepspeed: model.window_size":
    "Megatron-DeepSpeed 的 megatron/arguments.py 没有滑动窗口注意力选项",
  "deepspeed: model.yarn_rotary_scaling_factor":
    "Megatron-DeepSpeed 的 megatron/arguments.py 有旋转位置编码（--use-rotary-position-embeddings、--rotary-percent），但没有 YaRN 缩放",
  "deepspeed: optimizer_cpu_offload":
    "Megatron-DeepSpeed 没有 --optimizer-cpu-offload（DeepSpeed 的 offload_optimizer 会移走 ZeRO 的全部优化器，是另一种划分）",
  "deepspeed: defer_embedding_wgrad_compute":
    "把输出层的权重梯度推迟到 flush 是 Megatron-Core 的做法（tensor_parallel/layers.py grad_output_buffer）；Megatron-DeepSpeed 的流水线引擎没有此选项",
  "deepspeed: deallocate_pipeline_outputs":
    "保留每个阶段的完整输出是 Megatron-LM 在 deallocate_pipeline_outputs 关闭时的调度；Megatron-DeepSpeed 的流水线引擎没有此选项",

  // Colossal-AI (framework_rules_colossalai.cpp).
  "colossalai: sequence_parallel":
    "TP 区域的序列并行（split_gather）与 ring/all-to-all 上下文并行同属一个 sequence_parallelism_mode，不能同时使用（shardformer/layer/linear.py）",
  "colossalai: cp_comm_type":
    "sequence_parallelism_mode 有 ring_attn 和 all_to_all，没有 K、V 的 all-gather",
  "colossalai: expert_tensor_parallel_size":
    "MoeHybridParallelPlugin 没有专家张量并行大小：专家不按张量并行切分",
  "colossalai: expert_model_parallel_size":
    'MoeHybridParallelPlugin 只从数据并行中划出专家并行："dp_size should be divisible by ep_size"，其中 dp_size = world / (tp_size x pp_size x sp_size)（booster/plugin/moe_hybrid_parallel_plugin.py）；Megatron-LM 的 EP 可以跨越 TP',
  "colossalai: zero_stage": "HybridParallelPlugin 的 zero_stage 为 0-2，使用流水线并行时最多为 1",
  "colossalai: recompute_granularity": "没有选择性（核心注意力）重计算：梯度检查点以整层为单位",
  "colossalai: recompute_method":
    "PipelineGradientCheckpointConfig 检查点每个阶段的前 N 层（block）或每一层，而不是 N 层一组",
  "colossalai: recompute_granularity #2": "一个插件只能为所有 GPU 类型设置同一种梯度检查点",
  "colossalai: tp_comm_overlap": "没有张量并行通信重叠",
  "colossalai: fp8_recipe": "use_fp8 不能选择缩放方案",
  "colossalai: pipeline_stage_layers":
    "num_layers_per_stage 每个流水线 rank 只有一项：层数不均时不能交错（pipeline/stage_manager.py）",
  "colossalai: micro_batch_size":
    "交错调度要求微批次数能被 pp_size 整除（pipeline/schedule/interleaved_pp.py）",
  "colossalai: moe_grouped_gemm": "Shardformer 的 MoE 模型没有 Megatron-Core 的任何 MoE 开关",
  "colossalai: use_precision_aware_optimizer": "没有精度感知优化器，也不能设置优化器状态的数据类型",
  "colossalai: cpu_offloading_num_layers": "没有按层的激活卸载",
  "colossalai: offload_modules": "没有按子模块的激活卸载",
  "colossalai: reuse_fp32_param":
    "混合精度优化器保留自己的 fp32 主副本；参数副本复用是 MindSpeed 的 --reuse-fp32-param",
  "colossalai: cuda_graph_impl": "其插件没有 CUDA Graph 捕获选项",
  "colossalai: fp8_param_gather": "没有 fp8 参数收集",
  "colossalai: fp8_dot_product_attention":
    "没有 fp8 注意力：其插件以 16 位运行注意力（fp8 仅用于通信和线性层）",
  "colossalai: optimizer_cpu_offload":
    "不能在 GPU 之外让 CPU 执行一部分优化器步骤（HybridDeviceOptimizer）",
  "colossalai: grad_reduce_in_bf16":
    "启动所写的插件不设置梯度归约的数据类型（没有 grad_reduce_in_bf16 关键字）",
  "colossalai: accumulate_allreduce_grads_in_fp32":
    "启动所写的插件不设置梯度累加的数据类型（没有 accumulate_allreduce_grads_in_fp32 关键字）",
  "colossalai: cross_entropy_fusion_impl": "Colossal-AI 没有 Transformer Engine 交叉熵内核的开关",
  "colossalai: zero_stage #2":
    'MoeHybridParallelPlugin 把 ZeRO-2 变为 ZeRO-1（"ZeRO-2 or comm overlap cause program hang when some experts are not routed"，booster/plugin/moe_hybrid_parallel_plugin.py）',
  "colossalai: overlap_grad_reduce":
    "MoeHybridParallelPlugin 关闭 overlap_communication（同一警告，moe_hybrid_parallel_plugin.py）",
  "colossalai: cp_comm_type #2":
    "MoeHybridParallelPlugin 处理 split_gather、ring 和 all_to_all 序列并行；ring_attn 会使其缺少 dp_size（moe_hybrid_parallel_plugin.py）",
  "colossalai: model.activation":
    "启动构建 transformers 的 LlamaForCausalLM 或 MixtralForCausalLM（SwiGLU、RMSNorm、旋转位置编码）：GeLU/LayerNorm/可学习位置编码的模型（如 GPT-3）会被当作另一个模型训练",
  "colossalai: model.moe": "启动所用的 MixtralForCausalLM 没有共享专家，也没有前置稠密层",
  "colossalai: model":
    "Shardformer 0.5.0 只为远程代码类（transformers_modules.modeling_deepseek）提供 DeepSeek-V3 策略，没有 transformers 的 DeepseekV3ForCausalLM 的策略（shardformer/policies/auto_policy.py）；其他类都没有多头潜在注意力",
  "colossalai: model.window_size":
    "启动构建 LlamaConfig 或 MixtralConfig 模型，而 Shardformer 的注意力不带窗口（colossalai/shardformer/layer/attn.py：window_size (-1, -1)）",
  "colossalai: model.yarn_rotary_scaling_factor":
    "启动所用的 LlamaConfig 或 MixtralConfig 不带 rope_scaling：YaRN 位置会被当作普通旋转位置训练",
  "colossalai: defer_embedding_wgrad_compute":
    "把输出层的权重梯度推迟到 flush 是 Megatron-Core 的做法（tensor_parallel/layers.py grad_output_buffer）；ColossalAI 的流水线调度没有此选项",
  "colossalai: deallocate_pipeline_outputs":
    "保留每个阶段的完整输出是 Megatron-LM 在 deallocate_pipeline_outputs 关闭时的调度；ColossalAI 的流水线调度没有此选项",

  // torchtitan v0.2.2 (framework_rules_torchtitan.cpp).
  "torchtitan: cross_entropy_fusion_impl": "torchtitan 没有 Transformer Engine 交叉熵内核的开关",
  "torchtitan: zero_stage": "没有只切分优化器的方式：数据并行是 DDP（ZeRO-0）或 FSDP2（ZeRO-2/3）",
  "torchtitan: cp_comm_type": "上下文并行只有 ring attention；没有按注意力头的 Ulysses all-to-all",
  "torchtitan: sequence_parallel": "v0.2.2 在张量并行时总是启用序列并行",
  "torchtitan: expert_tensor_parallel_size": "expert_tensor_parallel_degree 只能为 1 或张量并行度",
  "torchtitan: recompute_modules":
    '选择性检查点按算子进行（selective_ac_option = "op"：保留每个算子的输出，但每隔一个矩阵乘不保留，distributed/activation_checkpoint.py），不能选择模块',
  "torchtitan: recompute_method":
    "完全重计算作用于每一层或每隔 N 层（selective_ac_option = N），而不是 N 层一组或每个阶段的前 N 层",
  "torchtitan: recompute_granularity": "一个作业文件只能为所有 GPU 类型设置同一种激活检查点",
  "torchtitan: fp8_recipe":
    "Float8 训练有 tensorwise 和 rowwise 方案（以及 MX）；没有 delayed 或 blockwise 缩放（components/quantization/float8.py）",
  "torchtitan: fp8_param_gather": "enable_fsdp_float8_all_gather 需要 tensorwise 缩放和 FSDP",
  "torchtitan: fp8_dot_product_attention":
    "Float8 训练只转换线性层（components/quantization/float8.py）：注意力的 SDPA 以 16 位运行",
  "torchtitan: moe_token_dispatcher_type":
    '专家并行用 all-to-all 分发 token（expert_parallel_comm_backend "standard"），或只在 deepseek_v3 和 llama4 中且不带专家张量并行时用 DeepEP（"deepep"，即 Megatron-LM 的 flex）（models/deepseek_v3/infra/parallelize.py："DeepEP with Expert Tensor Parallelism (ETP) is not supported yet"）；qwen3 和 gpt_oss 的 parallelize 从不使用 DeepEP',
  "torchtitan: moe_flex_dispatcher_backend":
    'torchtitan v0.2.2 的 expert_parallel_comm_backend 为 "standard" 或 "deepep"；HybridEP 是后来才有的',
  "torchtitan: moe_permute_fusion":
    "没有 Megatron-Core 的任何 MoE 开关（permute 融合、共享专家重叠、EP 通信重叠、token 丢弃、路由融合）；强制均衡是 [debug] moe_force_load_balance",
  "torchtitan: use_precision_aware_optimizer": "没有精度感知优化器，也不能设置优化器状态的数据类型",
  "torchtitan: optimizer_cpu_offload":
    "不能让 CPU 执行一部分优化器步骤（FSDP2 的 CPU 卸载会移走全部参数）",
  "torchtitan: model.activation":
    "torchtitan v0.2.2 的每个语言模型（llama3、llama4、qwen3、deepseek_v3、gpt_oss）都是 SwiGLU、RMSNorm、旋转位置编码的 Transformer（torchtitan/models/*/model/model.py）：无法表达 GeLU、LayerNorm 或可学习位置编码（GPT-3）",
  "torchtitan: model.add_bias_linear":
    "只有 gpt_oss 有线性层偏置（models/gpt_oss/model/model.py），而它每层都是 MoE，并且每隔一层使用滑动窗口注意力；llama3、qwen3 和 deepseek_v3 都没有偏置",
  "torchtitan: model.window_size":
    "只有 gpt_oss 有滑动窗口注意力，位于无共享专家的 MoE 模型的每个偶数层（layer_id % 2 == 0，window_attn_skip_freq 2）（v0.2.2 的 models/gpt_oss/model/model.py）",
  "torchtitan: model.yarn_rotary_scaling_factor":
    "只有 gpt_oss 用 YaRN 缩放旋转位置（GptOssModelArgs rope_factor、original_seq_len、ntk_alpha、ntk_beta），且不对校正范围取整（v0.2.2 的 models/gpt_oss/model/model.py precompute_rope_cache）",
  "torchtitan: model.multi_latent_attention":
    "只有 deepseek_v3 有多头潜在注意力，且只在嵌入不共享的 MoE 模型中（models/deepseek_v3/model/args.py）",
  "torchtitan: model.moe.first_k_dense_layers":
    "MoE 层之前的稠密层是 deepseek_v3 的 n_dense_layers，它与多头潜在注意力一起出现；qwen3 和 gpt_oss 每层都是 MoE",
  "torchtitan: model":
    "torchtitan v0.2.2 的模型家族（llama3、qwen3、deepseek_v3、gpt_oss）都容纳不了这个模型（共享嵌入只有 qwen3 有，不等于 hidden / heads 的头维度只有 qwen3 有，共享专家只有 deepseek_v3 或 qwen3 有）",
  "torchtitan: pipeline_model_parallel_size":
    "gpt_oss 没有注册 pipelining_fn（models/gpt_oss/__init__.py get_train_spec：pipelining_fn=None），因此它的运行没有流水线并行",
  "torchtitan: grad_reduce_in_bf16":
    'training.mixed_precision_reduce 只接受 "float32"（config/job_config.py）',
  "torchtitan: precision":
    'training.mixed_precision_param 只接受 "bfloat16" 和 "float32"：没有 fp16（config/job_config.py）',
  "torchtitan: cpu_offloading_num_layers": "没有按层的激活卸载",
  "torchtitan: offload_modules": "没有按子模块的激活卸载",
  "torchtitan: reuse_fp32_param":
    "没有参数副本复用（MindSpeed 的 --reuse-fp32-param）：FSDP2 切分后的参数本身就是 fp32 主副本",
  "torchtitan: cuda_graph_impl":
    "没有 Megatron 式的逐层 CUDA Graph（它的图只随 torch.compile 出现）",
  "torchtitan: defer_embedding_wgrad_compute":
    "把输出层的权重梯度推迟到 flush 是 Megatron-Core 的做法（tensor_parallel/layers.py grad_output_buffer）；torch.distributed.pipelining 没有此选项",
  "torchtitan: deallocate_pipeline_outputs":
    "保留每个阶段的完整输出是 Megatron-LM 在 deallocate_pipeline_outputs 关闭时的调度；torch.distributed.pipelining 没有此选项",
};

// The launch's reasons by their id (core/src/model/text_ids.hpp): one of the target's own rules
// (by the rule's id: English where it has no translation), or a rule of the rulebook the target
// keeps (its reason by its own id, core-reasons.ts).
export const LAUNCH_TEXTS_ZH: Record<string, Write> = {
  "launch target cannot express": (a) => {
    const why = LAUNCH_RULES_ZH[a.rule ?? ""];
    return why === undefined ? undefined : `${a.field}：${why}`;
  },
  "launch target keeps a rule": (a) => `${a.field}：${coreReason(a.reason ?? "", a.reason_id)}`,
};
