#include "stated_settings.hpp"

#include "paraplan/search.hpp"
#include "validation_data.hpp"

namespace paraplan::validation {
namespace {

// MegaScale-MoE (arXiv:2505.11432) §6.1 on its Megatron-LM baseline: "Our evaluation uses the
// Megatron-LM on GitHub with commit hash f1f03922", so Megatron-LM's defaults of that commit
// (transformer_config.py: moe_token_dispatcher_type "allgather", moe_grouped_gemm False, no
// fused permutation; one tensor-parallel size for attention and experts), pinned here where
// Paraplan's MoE defaults differ (docs/model.md section 5); "Megatron-LM adopts TP within each
// node, with both systems configured with a PP size of 15" (the entries' TP 8, PP 15). The model:
// the name "Internal-352B" and Table 2 (60 layers, h 4096, 32 heads, m 4, h_ffn 14336, 32 experts,
// top-3) give 352B parameters only with gated (SwiGLU) experts and one shared expert of h_ffn
// beside the 32 routed ones (351.6B; GELU experts give 228.5B), and §6.1's "MFU of MegaScale-MoE
// declines from 32.48% to 27.89%" with Table 3's 272.9k and 1407.7k tokens/s on 240 and 1440 H800
// (989 TFLOP/s, Table 4) means 282 GFLOP per token: exactly 6 x (60 x 746M + h x vocab) + causal
// attention for four such experts per token (gated, three routed and one shared), against 166 for
// GELU experts.
void with_megascale_moe(nlohmann::json& scenario) {
  nlohmann::json& model = scenario["model"];
  model["activation"] = "swiglu";
  model["moe"]["num_shared_experts"] = 1;
  nlohmann::json& strategy = scenario["strategy"];
  strategy["moe_token_dispatcher_type"] = "allgather";
  strategy["moe_grouped_gemm"] = false;
  strategy["moe_permute_fusion"] = false;
}

// MegaScale (Jiang et al., NSDI '24, arXiv:2402.15627) compares with "Megatron-LM" without a
// version, and counts overlapping data-parallel communication with computation among its own
// additions (abstract: "computation and communication overlapping"; §3.2). NSDI '24 took papers
// on 2023-04-27 and 2023-09-14, and the Megatron-LM of either date could not overlap them on the
// entries' interleaved schedule (VP 6 and 3): --overlap-grad-reduce came for the non-interleaved
// schedules in 2d5220a424 (2023-08-16) and for the interleaved one in 5d745a79cd (2023-09-25),
// --overlap-param-gather in f048bf8c08 (2023-11-17). The entries' overlap flags are today's
// defaults, not the baseline's: its gradient reduce-scatter and parameter all-gather ran after
// the last backward and after the optimizer step, one bucket per model chunk.
void with_megascale_baseline(nlohmann::json& scenario) {
  nlohmann::json& strategy = scenario["strategy"];
  strategy["overlap_grad_reduce"] = false;
  strategy["overlap_param_gather"] = false;
}

// Megatron-Bridge 25.11 (docs/performance-summary-archive.md, "25.11 NeMo Container"): "In MoE
// training benchmarks, we force-balance the token distribution among experts and all
// benchmarks are token-dropless". Its recipes (scripts/performance/configs/*/
// workload_base_configs.py at v0.2.0, 2025-11-26) set expert_tensor_parallel_size=1 for
// DeepSeek-V3, Qwen3 and GPT-OSS; the model providers set moe_grouped_gemm=True and
// moe_permute_fusion=True (deepseek_provider.py, qwen_provider.py, gpt_oss_provider.py); the
// GB200/GB300 DeepSeek-V3 and Qwen3 configs and the H100 DeepSeek-V3 config set
// moe_flex_dispatcher_backend (hybridep, deepep), which selects moe_token_dispatcher_type
// "flex" (flex_dispatcher_backend.py), the others keep the providers' "alltoall". DeepSeek-V3
// is the deepseek-v3 preset (the recipe builds it from the Hugging Face config) with
// mtp_num_layers 0 "w/o MTP", and recipes/deepseek/deepseek_v3.py's layout for PP 4 x VP 4:
// ["embedding"] + 4 decoder layers, 14 chunks of 4, then 1 decoder layer + "loss", i.e. stages of
// 16, 16, 16 and 13 layers.
void with_bridge_moe(nlohmann::json& scenario) {
  nlohmann::json& strategy = scenario["strategy"];
  const std::string name = scenario["model"].value("name", "");
  const std::string gpu = scenario["cluster"]["gpus"][0].value("type", "");
  const bool grace = gpu == "gb200" || gpu == "gb300";
  const bool deepseek = name.find("DeepSeek") != std::string::npos;
  const bool qwen3 = name.find("Qwen3") != std::string::npos;
  strategy["moe_router_force_load_balancing"] = true;
  strategy["expert_tensor_parallel_size"] = 1;
  strategy["moe_grouped_gemm"] = true;
  strategy["moe_permute_fusion"] = true;
  // scripts/performance/configs/{deepseek,qwen,gpt_oss}/*_llm_pretrain.py (97ad8cc6f): the
  // common configs (set_deepseek_v3_common_configs, deepseek_llm_pretrain.py:47;
  // set_qwen3_common_configs, qwen3_llm_pretrain.py:66; set_gpt_oss_common_configs,
  // gpt_oss_llm_pretrain.py:38) set cfg.model.moe_router_fusion = True; the release's
  // Megatron-Core (3rdparty/Megatron-LM 92c8482e6d, core 0.16.0) has it.
  strategy["moe_router_fusion"] = true;
  const bool flex = (deepseek && (grace || gpu == "h100")) || (qwen3 && grace);
  strategy["moe_token_dispatcher_type"] = flex ? "flex" : "alltoall";
  // Megatron-Bridge 97ad8cc6f (25.11) scripts/performance/configs/deepseek/
  // deepseek_workload_base_configs.py and qwen/qwen3_workload_base_configs.py: the GB200 and
  // GB300 configs set moe_flex_dispatcher_backend="hybridep", DeepSeek-V3's H100 config "deepep".
  if (flex) strategy["moe_flex_dispatcher_backend"] = grace ? "hybridep" : "deepep";
  if (deepseek) {
    const bool mtp = name.find("w/ MTP") != std::string::npos;
    nlohmann::json model = nlohmann::json::parse(R"({"name": "DeepSeek-V3", "num_layers": 61,
        "hidden_size": 7168, "ffn_hidden_size": 18432, "num_attention_heads": 128,
        "num_query_groups": 128, "vocab_size": 129280, "activation": "swiglu",
        "untie_embeddings_and_output_weights": true, "kv_channels": 128,
        "moe": {"num_experts": 256, "top_k": 8, "moe_ffn_hidden_size": 2048,
                "num_shared_experts": 1, "first_k_dense_layers": 3,
                "moe_router_enable_expert_bias": true},
        "multi_latent_attention": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_head_dim": 128,
                                   "qk_pos_emb_head_dim": 64, "v_head_dim": 128}})");
    model["mtp_num_layers"] = mtp ? 1 : 0;
    scenario["model"] = model;
    if (strategy.value("pipeline_model_parallel_size", 1) == 4 &&
        strategy.value("virtual_pipeline_model_parallel_size", 1) == 4) {
      strategy["pipeline_stage_layers"] = {16, 16, 16, 13};
    }
    // scripts/performance/configs/deepseek/deepseek_llm_pretrain.py (v0.2.1):
    // `cfg.model.recompute_granularity = "selective"`; workload_base_configs.py: GB200, B200
    // `recompute_modules=["mla_up_proj"]`, H100 `["mla_up_proj", "mlp"]`, GB300 `["moe_act"]`.
    strategy["recompute_granularity"] = "selective";
    if (gpu == "gb300") {
      strategy["recompute_modules"] = {"moe_act"};
    } else if (gpu == "h100") {
      strategy["recompute_modules"] = {"mla_up_proj", "mlp"};
    } else {
      strategy["recompute_modules"] = {"mla_up_proj"};
    }
  }
}

}  // namespace

// Settings the source states but the entry leaves out. The Megatron-LM README: "We perform
// fine-grained overlapping of data-parallel (--overlap-grad-reduce --overlap-param-gather),
// tensor-parallel (--tp-comm-overlap) and pipeline-parallel communication". NVIDIA's DGX Cloud
// numbers come from NeMo's scripts/performance, whose recipes run in performance_mode with
// MegatronCommOverlapCallback(tp_comm_overlap=True).
//
// Gradient and optimizer dtypes, and fp8 recipes:
// - NeMo 24.07 (NVIDIA/NeMo-Framework-Launcher tag 24.07, the recipes of the container the
//   table names): every H100 fp8 example (examples/training/llama/h100/llama3_8b_fp8.sh,
//   llama2_*_fp8.sh, llama3_70b_fp8.sh, gpt/h100/175b_fp8_16node.sh) passes
//   "training.model.fp8=True" (Transformer Engine's delayed scaling) and
//   "+training.model.optim.grad_sync_dtype=bf16" to "optim: name: distributed_fused_adam", which
//   for a bf16 model with fp32 optimizer state sets "optim_kwargs['store_param_remainders'] =
//   True" (NeMo r2.0.0rc1 megatron_base_model.py): Megatron-LM's --grad-reduce-in-bf16 and the
//   precision-aware optimizer's fp32 masters kept as bf16 remainders. Nemotron-340B's
//   conf/training/nemotron/nemotron_340b.yaml: "grad_sync_dtype: bf16", "dtype: bf16" (Adam
//   state in bf16) and "position_embedding_type: rope".
// - Megatron-Bridge 25.11 (tag v0.2.0, scripts/performance): every recipe sets
//   "cfg.ddp.grad_reduce_in_fp32 = False"; the tables' FP8-CS is
//   bf16_with_fp8_current_scaling_mixed(): fp8_recipe = "tensorwise", fp8_param_gather = True.
// - DGX Cloud 25.04 Llama 3.1 (NeMo v2.3.0): scripts/performance/utils.py for fp8:
//   "recipe.trainer.plugins = bf16_with_fp8_mixed()" (fp8_recipe "delayed", fp8_param_gather
//   True) and "recipe.trainer.plugins.grad_reduce_in_fp32 = False"; llama31_405b.py
//   pretrain_performance_optimizations: "recipe.trainer.plugins.grad_reduce_in_fp32 = False".
nlohmann::json with_stated_settings(nlohmann::json scenario, const std::string& source) {
  nlohmann::json& strategy = scenario["strategy"];
  const auto from = [&](const char* phrase) { return source.find(phrase) != std::string::npos; };
  const bool states_overlap = from("NVIDIA/Megatron-LM README") || from("dgxc-benchmarking");
  if (states_overlap && strategy.value("sequence_parallel", false) &&
      strategy.value("tensor_model_parallel_size", 1) > 1) {
    strategy["tp_comm_overlap"] = true;
  }
  const bool fp8 = scenario["training"].value("precision", "bf16") == "fp8";
  const std::string model = scenario["model"].is_object() ? scenario["model"].value("name", "")
                                                          : scenario["model"].get<std::string>();
  if (from("NeMo docs/source/performance") && fp8) {
    strategy["grad_reduce_in_bf16"] = true;
    strategy["use_precision_aware_optimizer"] = true;
    if (model.find("Nemotron-340B") != std::string::npos) {
      strategy["exp_avg_dtype"] = "bf16";
      strategy["exp_avg_sq_dtype"] = "bf16";
      scenario["model"]["position_embedding_type"] = "rope";
    }
  }
  const bool bridge = from("Megatron-Bridge");
  if (bridge) {
    strategy["grad_reduce_in_bf16"] = true;
    if (fp8) {
      strategy["fp8_recipe"] = "tensorwise";
      strategy["fp8_param_gather"] = true;
    }
  }
  if (from("dgxc-benchmarking") && from("v25.04")) {
    if (fp8) {
      strategy["fp8_param_gather"] = true;
      strategy["grad_reduce_in_bf16"] = true;
    }
    if (model.find("405B") != std::string::npos) strategy["grad_reduce_in_bf16"] = true;
  }
  // Megatron-Bridge 25.11 (git 97ad8cc): models/gpt_provider.py `cross_entropy_loss_fusion: bool
  // = True`, and scripts/performance/utils/overrides.py `recipe.model.cross_entropy_fusion_impl
  // = "te"` (Transformer Engine's kernel, which current Megatron-LM's arguments.py refuses but
  // Megatron-Bridge's config path runs). Its Llama recipes run tensor-parallel overlap:
  // recipes/llama/llama3.py `"comm_overlap_config": CommOverlapConfig(tp_comm_overlap=True, ...)`
  // (Llama 3 70B, Llama 3.1 405B).
  // Its GB200 FP8-CS Llama3 70B preset offloads activations: scripts/performance/configs/llama3/
  // workload_base_configs.py (v0.2.1) `LLAMA3_70B_GB200_FP8_CS_BASE_CONFIG = replace(...,
  // micro_batch_size=2, use_megatron_fsdp=True, cpu_offloading_num_layers=40)`.
  if (bridge && fp8 && strategy.value("zero_stage", 0) == 3 &&
      scenario["cluster"]["gpus"][0].value("type", "") == "gb200" &&
      model.find("70B") != std::string::npos) {
    strategy["cpu_offloading_num_layers"] = 40;
  }
  if (bridge) {
    strategy["cross_entropy_loss_fusion"] = true;
    strategy["cross_entropy_fusion_impl"] = "te";
    const bool llama = scenario["model"].is_object() && !scenario["model"].contains("moe");
    if (llama && strategy.value("sequence_parallel", false) &&
        strategy.value("tensor_model_parallel_size", 1) > 1) {
      strategy["tp_comm_overlap"] = true;
    }
  }
  // The framework that ran them. SC21 §5.2 (arXiv:2104.04473), on Table 2: "We integrated ZeRO
  // into our codebase using the DeepSpeed Python library". BLOOM-176B: Megatron-DeepSpeed, whose
  // tr11-176B-ml slurm script sets "ZERO_STAGE=0 # important: bf16 must use z0! it implements
  // its own zero stage 1 equivalent" with "bf16": {"enabled": true} (DeepSpeed's BF16_Optimizer,
  // the entry's zero_stage 1), and Hugging Face's "The Technology Behind BLOOM Training": "both
  // Megatron-LM and DeepSpeed have Pipeline Parallelism and BF16 Optimizer implementations, but
  // we used the ones from DeepSpeed as they are integrated with ZeRO".
  if (from("Table 2 (PTD-P vs ZeRO-3") || from("BLOOM-176B")) scenario["framework"] = "deepspeed";
  const bool moe = scenario["model"].is_object() && scenario["model"].contains("moe");
  if (moe && source.find("MegaScale-MoE") != std::string::npos) with_megascale_moe(scenario);
  if (from("MegaScale: Scaling")) with_megascale_baseline(scenario);
  if (moe && source.find("Megatron-Bridge") != std::string::npos) with_bridge_moe(scenario);
  return scenario;
}

nlohmann::json with_unstated_recompute_fitted(nlohmann::json scenario, const nlohmann::json& entry,
                                              const Report& stated) {
  const auto unstated = [&] {
    for (const nlohmann::json& assumption : entry.value("assumptions", nlohmann::json::array())) {
      const std::string text = assumption.get<std::string>();
      if (text.rfind("recompute_granularity=", 0) == 0 &&
          text.find("not stated") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  if (!out_of_memory_only(stated) || !unstated() ||
      scenario["strategy"].contains("recompute_modules")) {
    return scenario;
  }
  const nlohmann::json original = scenario;
  const Scenario parsed = parse_scenario(scenario);
  Strategy strategy;
  strategy.recompute.resize(parsed.cluster.pools.size());
  apply_pins(parsed.strategy, strategy);
  nlohmann::json pinned = to_json(strategy, parsed.cluster);
  for (const char* key :
       {"recompute_granularity", "recompute_method", "recompute_num_layers", "recompute_modules"}) {
    pinned.erase(key);
  }
  scenario["strategy"] = pinned;
  SearchOptions options;
  options.top = 1;
  options.memory_margin = {0, 0};
  const SearchResult fitted = search(parse_scenario(scenario), options);
  if (fitted.strategies.empty()) return original;
  scenario["strategy"] = to_json(fitted.strategies.front().strategy, parsed.cluster);
  return scenario;
}

}  // namespace paraplan::validation
