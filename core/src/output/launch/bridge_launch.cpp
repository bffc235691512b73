// Megatron-Bridge 067f987df03b (main, 2026-08-22; Megatron-LM 2a75ac12c54b as its submodule):
// the recipes' common ConfigContainer (recipes/common.py _pretrain_common) with the model defined
// in full on a model provider and the strategy set on it (launch-targets.md section 6;
// src/megatron/bridge/training/config.py).
#include <algorithm>

#include "model/number_text.hpp"
#include "output/launch/writers.hpp"

namespace paraplan::detail {
namespace {

// A Python string literal (appended, not prefixed: GCC 12 warns on "literal" + std::string).
std::string py_string(std::string_view value) {
  return std::string(1, '"').append(value).append(1, '"');
}

// The activation as Megatron-Core's callable (torch.nn.functional or megatron.core.activations).
std::string activation_func(Activation activation) {
  switch (activation) {
    case Activation::gelu:
    case Activation::geglu:
      return "F.gelu";
    case Activation::relu:
      return "F.relu";
    case Activation::squared_relu:
      return "squared_relu";
    case Activation::swiglu:
      return "F.silu";
  }
  return "F.gelu";
}

// The model defined in full on an explicit provider (GPTModelProvider, or MLAModelProvider for
// multi-latent attention), so nothing is taken from a recipe's Hugging Face config: the recipes
// of 067f987 build theirs with AutoBridge.from_hf_pretrained (a Hub download, gated for Llama).
std::string model_lines(const ModelSpec& model, const Training& training) {
  std::string t;
  const auto set = [&](const std::string& name, const std::string& value) {
    t += "m." + name + " = " + value + "\n";
  };
  const auto num = [&](const std::string& name, int64_t v) { set(name, std::to_string(v)); };
  // Norm and MLP as the model is priced (Megatron-LM's flags: --normalization RMSNorm with the
  // gated Llama family, LayerNorm otherwise; --swiglu; --squared-relu).
  set("normalization", is_gated(model.activation) ? "\"RMSNorm\"" : "\"LayerNorm\"");
  set("gated_linear_unit", py_bool(is_gated(model.activation)));
  set("activation_func", activation_func(model.activation));
  num("num_layers", model.num_layers);
  num("hidden_size", model.hidden_size);
  num("ffn_hidden_size", model.ffn_hidden_size);
  num("num_attention_heads", model.num_attention_heads);
  num("num_query_groups",
      model.num_query_groups > 0 ? model.num_query_groups : model.num_attention_heads);
  if (model.kv_channels > 0) num("kv_channels", model.kv_channels);
  set("vocab_size", std::to_string(model.vocab_size));
  num("seq_length", training.seq_length);
  const bool yarn = model.yarn_rotary_scaling_factor > 1;
  set("position_embedding_type",
      yarn                                                       ? "\"yarn\""
      : model.position_embedding_type == PositionEmbedding::rope ? "\"rope\""
      : model.position_embedding_type == PositionEmbedding::none ? "\"none\""
                                                                 : "\"learned_absolute\"");
  if (yarn) {  // GPTModelProvider's yarn_* fields, as gpt_oss_bridge.py sets them
    set("yarn_rotary_scaling_factor", number_text(model.yarn_rotary_scaling_factor));
    num("yarn_original_max_position_embeddings", model.yarn_original_max_position_embeddings);
    set("yarn_beta_fast", number_text(model.yarn_beta_fast));
    set("yarn_beta_slow", number_text(model.yarn_beta_slow));
    set("yarn_correction_range_round_to_int", py_bool(model.yarn_correction_range_round_to_int));
  }
  set("add_bias_linear", py_bool(model.add_bias_linear));
  if (model.qk_layernorm) set("qk_layernorm", "True");  // as Qwen3Bridge / Qwen3MoEBridge
  set("share_embeddings_and_output_weights", py_bool(!model.untie_embeddings_and_output_weights));
  set("hidden_dropout", number_text(model.hidden_dropout));
  set("attention_dropout", number_text(model.attention_dropout));
  if (model.moe) {
    num("num_moe_experts", model.moe->num_experts);
    num("moe_router_topk", model.moe->top_k);
    num("moe_ffn_hidden_size", model.moe->moe_ffn_hidden_size);
    if (model.moe->num_shared_experts > 0) {
      num("moe_shared_expert_intermediate_size",
          model.moe->num_shared_experts * model.moe->moe_ffn_hidden_size);
    }
    if (model.moe->first_k_dense_layers > 0) {
      set("moe_layer_freq", "[0] * " + std::to_string(model.moe->first_k_dense_layers) +
                                " + [1] * " +
                                std::to_string(model.num_layers - model.moe->first_k_dense_layers));
    }
    // Dense and MoE layers by moe_layer_freq: the decoder-block spec, as DeepSeekV3Bridge sets
    // it (models/deepseek/deepseek_v3_bridge.py); the default layer spec makes every layer MoE.
    set("transformer_layer_spec",
        "partial(get_gpt_decoder_block_spec, use_transformer_engine=True)");
    set("moe_router_enable_expert_bias", py_bool(model.moe->moe_router_enable_expert_bias));
    if (model.moe->moe_router_enable_expert_bias) {  // as Megatron-LM's launch (megatron.cpp)
      set("moe_router_score_function", "\"sigmoid\"");
    }
  }
  if (model.mla) {
    set("multi_latent_attention", "True");
    set("qk_layernorm", "True");  // the q/kv down-projections' norms (DeepSeekV3Bridge)
    num("q_lora_rank", model.mla->q_lora_rank);
    num("kv_lora_rank", model.mla->kv_lora_rank);
    num("qk_head_dim", model.mla->qk_head_dim);
    num("qk_pos_emb_head_dim", model.mla->qk_pos_emb_head_dim);
    num("v_head_dim", model.mla->v_head_dim);
  }
  if (model.mtp_num_layers > 0) num("mtp_num_layers", model.mtp_num_layers);
  if (model.window_size > 0) {  // TransformerConfig window_size (left, right)
    set("window_size", std::string("(").append(std::to_string(model.window_size)).append(", 0)"));
    if (model.window_attn_skip_freq > 0) {
      num("window_attn_skip_freq", model.window_attn_skip_freq);
    }
  }
  return t;
}

std::string mixed_precision(const Training& training, const Strategy& s) {
  switch (training.precision) {
    case Precision::bf16:
      return "\"bf16_mixed\"";
    case Precision::fp16:
      return "\"fp16_mixed\"";
    case Precision::fp32:
      return "None";
    case Precision::fp8:
      switch (s.fp8_recipe) {  // the recipes registered in training/mixed_precision.py
        case Fp8Recipe::delayed:
          return "\"bf16_with_fp8_delayed_scaling_mixed\"";
        case Fp8Recipe::tensorwise:
          return "\"bf16_with_fp8_current_scaling_mixed\"";
        case Fp8Recipe::mxfp8:
          return "\"bf16_with_mxfp8_mixed\"";
        case Fp8Recipe::blockwise:
          return "\"bf16_with_fp8_subchannel_scaling_mixed\"";
      }
  }
  return "\"bf16_mixed\"";
}

// A choice_set key's value as a Python list of strings: ["core_attn", "mlp"].
std::string python_names(StrategyKeyId id, int64_t bits) {
  std::string names;
  for (const std::string_view name : choice_set_names(strategy_key(id), bits)) {
    names += (names.empty() ? "\"" : ", \"") + std::string(name) + "\"";
  }
  return "[" + names + "]";
}

// Python assignment lines: `name = value`.
struct Assign {
  std::string& t;
  void operator()(const std::string& name, const std::string& value) const {
    t += name + " = " + value + "\n";
  }
};
struct AssignInt {
  const Assign& set;
  void operator()(const std::string& name, int64_t v) const { set(name, std::to_string(v)); }
};

// Parallel sizes and the pipeline's layer split.
void parallel_layout_lines(const LaunchInput& in, std::string& t) {
  const Strategy& s = in.strategy;
  const Assign set{t};
  const AssignInt num{set};
  num("m.tensor_model_parallel_size", s.tensor_model_parallel_size);
  num("m.pipeline_model_parallel_size", s.pipeline_model_parallel_size);
  // The layer split as Megatron-LM's flags spell it, under Megatron-Core's attribute names
  // (the same TransformerConfig fields, launch-targets.md section 6).
  const std::vector<std::string> args = megatron_program_arguments(in, 0);
  bool layout = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    const std::string next = i + 1 < args.size() ? args[i + 1] : "";
    if (word == "--pipeline-model-parallel-layout") {
      set("m.pipeline_model_parallel_layout", next);
      layout = true;
    }
    if (word == "--decoder-first-pipeline-num-layers")
      set("m.num_layers_in_first_pipeline_stage", next);
    if (word == "--decoder-last-pipeline-num-layers")
      set("m.num_layers_in_last_pipeline_stage", next);
    if (word == "--account-for-embedding-in-pipeline-split") {
      set("m.account_for_embedding_in_pipeline_split", "True");
    }
    if (word == "--account-for-loss-in-pipeline-split")
      set("m.account_for_loss_in_pipeline_split", "True");
  }
  set("m.virtual_pipeline_model_parallel_size",
      !layout && s.virtual_pipeline_model_parallel_size > 1
          ? std::to_string(s.virtual_pipeline_model_parallel_size)
          : "None");
  num("m.context_parallel_size", s.context_parallel_size);
  set("m.cp_comm_type", s.cp_comm_type == CpCommType::p2p   ? "\"p2p\""
                        : s.cp_comm_type == CpCommType::a2a ? "\"a2a\""
                                                            : "\"all_gather\"");
  num("m.expert_model_parallel_size", s.expert_model_parallel_size);
  set("m.expert_tensor_parallel_size",
      s.expert_tensor_parallel_size > 0 ? std::to_string(s.expert_tensor_parallel_size) : "None");
  set("m.sequence_parallel", py_bool(s.sequence_parallel && s.tensor_model_parallel_size > 1));
}

// The MoE layer's dispatcher, fusions and overlaps.
void moe_strategy_lines(const LaunchInput& in, std::string& t) {
  const Strategy& s = in.strategy;
  const Assign set{t};
  if (in.scenario.model.moe) {
    set("m.moe_token_dispatcher_type", py_string(to_string(s.moe_token_dispatcher_type)));
    if (s.moe_token_dispatcher_type == MoeDispatcher::flex) {
      set("m.moe_flex_dispatcher_backend", py_string(to_string(s.moe_flex_dispatcher_backend)));
    }
    set("m.moe_grouped_gemm", py_bool(s.moe_grouped_gemm));
    set("m.moe_permute_fusion", py_bool(s.moe_permute_fusion));
    set("m.moe_router_fusion", py_bool(s.moe_router_fusion));
    set("m.moe_shared_expert_overlap", py_bool(s.moe_shared_expert_overlap));
    set("m.overlap_moe_expert_parallel_comm", py_bool(s.overlap_moe_expert_parallel_comm));
    set("m.delay_wgrad_compute", py_bool(s.delay_wgrad_compute));
    if (s.moe_expert_capacity_factor > 0) {
      set("m.moe_expert_capacity_factor", number_text(s.moe_expert_capacity_factor));
      set("m.moe_pad_expert_input_to_capacity", py_bool(s.moe_pad_expert_input_to_capacity));
    }
  }
}

// Recomputation and activation offloading.
void memory_lines(const LaunchInput& in, const Recompute& r, std::string& t) {
  const Strategy& s = in.strategy;
  const Assign set{t};
  const AssignInt num{set};
  if (r.granularity == RecomputeGranularity::none) {
    set("m.recompute_granularity", "None");
  } else {
    set("m.recompute_granularity", py_string(to_string(r.granularity)));
  }
  if (r.granularity == RecomputeGranularity::full) {
    set("m.recompute_method", py_string(to_string(r.method)));
    num("m.recompute_num_layers", r.num_layers);
  }
  if (r.granularity == RecomputeGranularity::selective) {
    set("m.recompute_modules", python_names(StrategyKeyId::recompute_modules, r.modules));
  }
  if (s.cpu_offloading_num_layers > 0) {
    set("m.cpu_offloading", "True");
    num("m.cpu_offloading_num_layers", s.cpu_offloading_num_layers);
  }
  if (!s.deallocate_pipeline_outputs) set("m.deallocate_pipeline_outputs", "False");
  if (s.offload_modules != 0) {
    set("m.fine_grained_activation_offloading", "True");
    set("m.offload_modules", python_names(StrategyKeyId::offload_modules, s.offload_modules));
  }
}

// CUDA graphs, the attention backend and the cross-entropy fusion.
void kernel_lines(const LaunchInput& in, std::string& t) {
  const Strategy& s = in.strategy;
  const Assign set{t};
  // CUDA graphs through Megatron-Bridge's helpers (src/megatron/bridge/utils/cuda_graph.py
  // set_cuda_graph_modules, set_full_iteration_cuda_graph), as its performance overrides set
  // them (scripts/performance/utils/overrides.py _set_cuda_graph_overrides: the TE RNG tracker,
  // and no NaN check of the loss under a full-iteration graph).
  if (s.cuda_graph_impl != CudaGraphImpl::none) {
    t += "from megatron.bridge.utils.cuda_graph import set_cuda_graph_modules, "
         "set_full_iteration_cuda_graph\n";
    set("cfg.rng.te_rng_tracker = m.use_te_rng_tracker", "True");
    if (s.full_iteration_graph()) {
      t += "set_full_iteration_cuda_graph(m)\n";
      set("cfg.rerun_state_machine.check_for_nan_in_loss", "False");
    } else {
      const std::string_view impl = strategy_key(StrategyKeyId::cuda_graph_impl)
                                        .choices[static_cast<size_t>(s.cuda_graph_impl)];
      set("m.cuda_graph_impl", py_string(impl));
      t.append("set_cuda_graph_modules(m, ")
          .append(python_names(StrategyKeyId::cuda_graph_scope, s.cuda_graph_scope))
          .append(")\n");
    }
  }
  set("m.attention_backend",  // auto as the estimate prices it (megatron.cpp use_flash_attn)
      "AttnBackend." + std::string(s.use_flash_attn ? to_string(s.attention_backend) : "unfused"));
  set("m.cross_entropy_loss_fusion", py_bool(s.cross_entropy_loss_fusion));
  if (s.cross_entropy_fusion_impl == CrossEntropyFusionImpl::te) {
    set("m.cross_entropy_fusion_impl", "\"te\"");  // model_parallel_config.py: 'native' default
  }
}

// Batch, data-parallel sharding, gradient reduction and the optimizer.
void batch_and_optimizer_lines(const LaunchInput& in, std::string& t) {
  const Strategy& s = in.strategy;
  const Assign set{t};
  const AssignInt num{set};
  num("cfg.train.micro_batch_size", s.micro_batch_size);
  num("cfg.train.global_batch_size", in.scenario.training.global_batch_size);
  num("cfg.dataset.seq_length", in.scenario.training.seq_length);
  const bool fsdp = s.zero_stage >= 2;
  set("cfg.ddp.use_distributed_optimizer", py_bool(s.zero_stage >= 1));
  set("cfg.optimizer.use_distributed_optimizer", py_bool(s.zero_stage >= 1));
  set("cfg.ddp.use_megatron_fsdp", py_bool(fsdp));
  if (fsdp) {
    set("cfg.ddp.data_parallel_sharding_strategy",
        s.zero_stage == 2 ? "\"optim_grads\"" : "\"optim_grads_params\"");
    set("cfg.checkpoint.ckpt_format", "\"fsdp_dtensor\"");
  }
  set("cfg.ddp.overlap_grad_reduce", py_bool(s.overlap_grad_reduce));
  set("cfg.ddp.overlap_param_gather", py_bool(s.overlap_param_gather));
  // Megatron-LM passes accumulate_allreduce_grads_in_fp32 as the DDP config's grad_reduce_in_fp32,
  // set for bf16 unless --grad-reduce-in-bf16 and for fp16 only when asked (arguments.py
  // validate_args; model-review P6), as parameter_bytes.cpp prices the gradient buffer.
  const bool fp16 = in.scenario.training.precision == Precision::fp16;
  set("cfg.ddp.grad_reduce_in_fp32",
      py_bool(fp16 ? s.accumulate_allreduce_grads_in_fp32 : !s.grad_reduce_in_bf16));
  if (s.use_precision_aware_optimizer) {
    set("cfg.optimizer.use_precision_aware_optimizer", "True");
    set("cfg.optimizer.main_grads_dtype",
        std::string("torch.") +
            (s.main_grads_dtype == MainGradsDtype::bf16 ? "bfloat16" : "float32"));
    set("cfg.optimizer.main_params_dtype",
        std::string("torch.") +
            (s.main_params_dtype == MainParamsDtype::fp16 ? "float16" : "float32"));
    const auto moment = [](MomentDtype d) {
      return std::string(d == MomentDtype::fp16   ? "torch.float16"
                         : d == MomentDtype::bf16 ? "torch.bfloat16"
                         : d == MomentDtype::fp8  ? "torch.uint8"
                                                  : "torch.float32");
    };
    set("cfg.optimizer.exp_avg_dtype", moment(s.exp_avg_dtype));
    set("cfg.optimizer.exp_avg_sq_dtype", moment(s.exp_avg_sq_dtype));
  }
  if (s.optimizer_cpu_offload) {  // Megatron-Core OptimizerConfig (HybridDeviceOptimizer)
    set("cfg.optimizer.optimizer_cpu_offload", "True");
    set("cfg.optimizer.optimizer_offload_fraction", number_text(s.optimizer_offload_fraction));
    set("cfg.optimizer.overlap_cpu_optimizer_d2h_h2d", py_bool(s.overlap_cpu_optimizer_d2h_h2d));
  }
}

// Tensor-parallel communication overlap and the mixed precision.
void comm_overlap_and_precision_lines(const LaunchInput& in, std::string& t) {
  const Strategy& s = in.strategy;
  const Assign set{t};
  // CommOverlapConfig (tp_comm_overlap required) sets the model's deferral off unless given
  // (training/comm_overlap.py _get_model_comm_overlap_cfgs), as Bridge's Llama 3 SFT configs give
  // it.
  const bool deferral = s.defer_embedding_wgrad_compute || s.wgrad_deferral_limit != 0;
  if (s.tp_comm_overlap || deferral) {
    std::string overlap = std::string("tp_comm_overlap=") + py_bool(s.tp_comm_overlap);
    if (deferral) {
      overlap.append(", defer_embedding_wgrad_compute=")
          .append(py_bool(s.defer_embedding_wgrad_compute))
          .append(", wgrad_deferral_limit=")
          .append(std::to_string(s.wgrad_deferral_limit));
    }
    set("cfg.comm_overlap", "CommOverlapConfig(" + overlap + ")");
  }
  set("cfg.mixed_precision", mixed_precision(in.scenario.training, s));
  const bool fp8 = in.scenario.training.precision == Precision::fp8;
  if (fp8 && (s.fp8_param_gather || s.fp8_dot_product_attention)) {
    set("cfg.mixed_precision", "get_mixed_precision_config(cfg.mixed_precision)");
  }
  if (fp8 && s.fp8_param_gather) set("cfg.mixed_precision.fp8_param_gather", "True");
  // MixedPrecisionConfig.fp8_dot_product_attention (training/mixed_precision.py), which it
  // hands to the model's TransformerConfig.
  if (fp8 && s.fp8_dot_product_attention) {
    set("cfg.mixed_precision.fp8_dot_product_attention", "True");
  }
}

std::string strategy_lines(const LaunchInput& in, const Recompute& r) {
  std::string t;
  parallel_layout_lines(in, t);
  moe_strategy_lines(in, t);
  memory_lines(in, r, t);
  kernel_lines(in, t);
  batch_and_optimizer_lines(in, t);
  comm_overlap_and_precision_lines(in, t);
  return t;
}

// The script's imports, the recipes' common base and the model with its tokenizer.
std::string script_head(const ModelSpec& model, const Training& training) {
  const bool mla = model.mla.has_value();
  const std::string provider = mla ? "MLAModelProvider" : "GPTModelProvider";
  const std::string provider_module =
      mla ? "megatron.bridge.models.mla_provider" : "megatron.bridge.models.gpt_provider";
  return "# Megatron-Bridge 067f987df03b (main, 2026-08-22): pretrain " + model.name +
         " with the strategy Paraplan found.\n"
         "# Run with torchrun (the command).\n"
         "import os  # PARAPLAN_GPU_TYPE picks a GPU type's recompute where they differ\n\n"
         "from functools import partial\n\nimport torch\nimport torch.nn.functional as F\n"
         "from megatron.bridge.recipes.common import _pretrain_common\n"
         "from megatron.bridge.training.comm_overlap import CommOverlapConfig\n"
         "from megatron.bridge.training.gpt_step import forward_step\n"
         "from megatron.bridge.training.mixed_precision import get_mixed_precision_config\n"
         "from megatron.bridge.training.pretrain import pretrain\n"
         "from megatron.core.activations import squared_relu\n"
         "from megatron.core.models.gpt.gpt_layer_specs import get_gpt_decoder_block_spec\n"
         "from megatron.core.transformer.enums import AttnBackend\nfrom " +
         provider_module + " import " + provider +
         "\n\n"
         "# The recipes' common base (optimizer, scheduler, mock data, logging), "
         "without a recipe's\n"
         "# model: every recipe of 067f987 loads its model's config from the Hugging Face Hub.\n"
         "cfg = _pretrain_common()\n"
         "cfg.model = " +
         provider + "(num_layers=" + std::to_string(model.num_layers) +
         ", hidden_size=" + std::to_string(model.hidden_size) +
         ", num_attention_heads=" + std::to_string(model.num_attention_heads) +
         ")\n"
         "m = cfg.model\n" +
         model_lines(model, training) +
         "# Mock data with a null tokenizer of the model's vocabulary, as the megatron target's "
         "--mock-data;\n# set cfg.dataset and cfg.tokenizer for real data.\n"
         "cfg.tokenizer.tokenizer_type = \"NullTokenizer\"\ncfg.tokenizer.tokenizer_model = None\n"
         "cfg.tokenizer.vocab_size = " +
         std::to_string(model.vocab_size) + "\n";
}

// Whether the GPU types' recompute differs, so that the script branches per GPU type.
bool branches_per_gpu_type(const LaunchInput& in) {
  return std::any_of(in.hosts.groups.begin(), in.hosts.groups.end(), [&](const HostGroup& g) {
    return !(in.strategy.recompute[static_cast<size_t>(g.pool)] ==
             in.strategy.recompute[static_cast<size_t>(in.hosts.groups.front().pool)]);
  });
}

// Each line of TEXT indented by four spaces (a Python block).
std::string indented(const std::string& text) {
  std::string lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines += "    " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return lines;
}

// The strategy's lines: once, or one branch per GPU type only where their recompute differs.
std::string strategy_section(const LaunchInput& in, bool mixed) {
  if (!mixed) {
    return strategy_lines(in,
                          in.strategy.recompute[static_cast<size_t>(in.hosts.groups.front().pool)]);
  }
  std::string text = "gpu_type = os.environ[\"PARAPLAN_GPU_TYPE\"]\n";
  for (size_t g = 0; g < in.hosts.groups.size(); ++g) {
    const HostGroup& group = in.hosts.groups[g];
    const std::string body =
        strategy_lines(in, in.strategy.recompute[static_cast<size_t>(group.pool)]);
    text += std::string(g == 0 ? "if" : "elif") + " gpu_type == \"" + group.gpu + "\":\n" +
            indented(body);
  }
  return text;
}

// The command: the environment the strategy needs, the rendezvous and torchrun per host group.
std::string command_text(const LaunchInput& in, bool mixed) {
  std::string text = "# Megatron-Bridge 067f987df03b (main, 2026-08-22).\n";
  // Megatron-LM arguments.py: fine-grained activation offloading with Transformer Engine >= 2.10
  // needs NVTE_CPU_OFFLOAD_V1=1.
  if (in.strategy.offload_modules != 0) text += "export NVTE_CPU_OFFLOAD_V1=1\n";
  if (in.strategy.zero_stage < 2 &&
      (in.strategy.tensor_model_parallel_size > 1 || in.strategy.context_parallel_size > 1)) {
    text += device_connections_export(in.strategy);
  }
  text += allocator_environment(in.strategy, Framework::megatron_bridge);
  text += rendezvous_environment(in.hosts);
  text += torchrun_lines(
      in.hosts, [](const HostGroup&) { return std::string("pretrain_paraplan.py"); },
      [&](const HostGroup& group) {
        return mixed ? "PARAPLAN_GPU_TYPE=" + group.gpu + " " : std::string();
      });
  return text;
}

}  // namespace

Launch bridge_launch(const LaunchInput& in) {
  Launch launch;
  const bool mixed = branches_per_gpu_type(in);
  launch.files["pretrain_paraplan.py"] = script_head(in.scenario.model, in.scenario.training) +
                                         strategy_section(in, mixed) +
                                         "\npretrain(cfg, forward_step)\n";
  launch.command = command_text(in, mixed);
  return launch;
}

}  // namespace paraplan::detail
