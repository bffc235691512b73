// Accuracy against published measurements (tests/validation/data, a copy of shared/validation):
// throughput of 73 real training runs, with a table per source, and memory (Korthikanti et al.'s
// figures, Megatron-LM's CI golden values), and the order of published sweeps (SC21 section 5).
// Nothing in the model is fitted to these numbers.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "model/validated_regime.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/search.hpp"
#include "paraplan/units.hpp"

using namespace paraplan;
using units::kGiB;

namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream file(std::string(PARAPLAN_VALIDATION_DIR) + "/" + name);
  REQUIRE(file.good());
  return nlohmann::json::parse(file);
}

nlohmann::json scenario_of(const nlohmann::json& entry) {
  nlohmann::json scenario;
  for (const char* key : {"model", "training", "cluster", "strategy"}) scenario[key] = entry[key];
  return scenario;
}

// The sources of published-runs.json, in the order the tables print, each recognised by a
// phrase of its `source`.
struct Source {
  const char* label;
  const char* phrase;
};
const Source kSources[] = {
    {"Megatron-LM SC21 Table 1, weak scaling (A100)", "Table 1 (weak scaling"},
    {"SC21 Table 2, DeepSpeed ZeRO-3 of 2021 (A100)", "Table 2 (PTD-P vs ZeRO-3"},
    {"Korthikanti et al. 2022 Table 5 (A100)", "Korthikanti"},
    {"Megatron-LM README (H100)", "NVIDIA/Megatron-LM README"},
    {"NVIDIA DGX Cloud recipes (H100)", "dgxc-benchmarking"},
    {"MegaScale, Megatron-LM baseline (A100)", "MegaScale: Scaling"},
    {"MegaScale-MoE, Megatron-LM baseline (H800)", "MegaScale-MoE"},
    {"BLOOM-176B, Megatron-DeepSpeed (A100)", "BLOOM-176B"},
    {"NeMo 24.07 fp8 (H100)", "NeMo docs/source/performance"},
    {"Megatron-Bridge 25.11 (H100, B200, GB200)", "Megatron-Bridge"},
};

size_t source_index(const std::string& source) {
  for (size_t i = 0; i < std::size(kSources); ++i) {
    if (source.find(kSources[i].phrase) != std::string::npos) return i;
  }
  FAIL("no source table for " << source);
  return 0;
}

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
  const bool flex = (deepseek && (grace || gpu == "h100")) || (qwen3 && grace);
  strategy["moe_token_dispatcher_type"] = flex ? "flex" : "alltoall";
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
  if (moe && source.find("Megatron-Bridge") != std::string::npos) with_bridge_moe(scenario);
  return scenario;
}

// Where a run's recompute is an assumption (the source does not state it) and the assumed one
// does not fit, the run evidently fitted: the least recompute that fits, every other key as
// estimated, chosen by the search with no memory margin. Returns the scenario unchanged otherwise.
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
  bool memory_only = !stated.feasible;
  for (const std::string& reason : stated.infeasible_reasons) {
    memory_only &= reason.find("GiB per GPU, more than") != std::string::npos;
  }
  if (!memory_only || !unstated() || scenario["strategy"].contains("recompute_modules")) {
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

struct Row {
  std::string id, name, framework;
  int64_t zero_stage = 0;
  size_t source = 0;
  bool moe = false;
  double measured = 0, predicted = 0, as_given = 0;
  double free_fraction = 0;  // smallest headroom over the stages, as a fraction of capacity
  bool feasible = false, as_given_feasible = false;
  std::vector<std::string> reasons;
  std::string note;  // how the test filled in what the source does not state
  double error() const { return predicted / measured - 1; }
  double error_as_given() const { return as_given / measured - 1; }
};

std::vector<Row> run_published() {
  std::vector<Row> rows;
  for (const nlohmann::json& entry : load("published-runs.json")) {
    const std::string source = entry.value("source", "");
    Row row;
    row.id = entry["id"];
    row.name = entry["name"];
    row.source = source_index(source);
    row.moe = entry["model"].is_object() && entry["model"].contains("moe");
    row.measured = entry["measured"]["tokens_per_s_per_gpu"];
    // As given: the entry alone, as README.md hands it to `paraplan estimate` (and as outside
    // checks run other published runs), every unstated key at its documented default.
    const Report as_given = estimate(parse_scenario(scenario_of(entry)));
    row.as_given = as_given.tokens_per_s_per_gpu;
    row.as_given_feasible = as_given.feasible;
    const nlohmann::json stated_scenario = with_stated_settings(scenario_of(entry), source);
    // PARAPLAN_DUMP_SCENARIO=R120 writes that run's scenario, with its stated settings, to
    // stdout: `paraplan estimate` then shows its whole report.
    if (const char* dump = std::getenv("PARAPLAN_DUMP_SCENARIO"); dump && row.id == dump) {
      std::printf("%s\n", stated_scenario.dump(1).c_str());
    }
    row.framework = stated_scenario.value("framework", "megatron");
    const nlohmann::json fitted_scenario = with_unstated_recompute_fitted(
        stated_scenario, entry, estimate(parse_scenario(stated_scenario)));
    const Report stated = estimate(parse_scenario(fitted_scenario));
    if (fitted_scenario != stated_scenario) {
      const nlohmann::json& s = fitted_scenario["strategy"];
      row.note = "recompute not stated; the least that fits: " + s["recompute_granularity"].dump() +
                 " " + s["recompute_method"].dump() + " " + s["recompute_num_layers"].dump() + " " +
                 s["recompute_modules"].dump();
    }
    row.zero_stage = fitted_scenario["strategy"].value("zero_stage", 0);
    row.predicted = stated.tokens_per_s_per_gpu;
    row.feasible = stated.feasible;
    row.free_fraction = stated.stages.empty() ? 0 : 1;
    for (const StageReport& stage : stated.stages) {
      row.free_fraction =
          std::min(row.free_fraction,
                   (stage.capacity_bytes - stage.memory.peak_bytes()) / stage.capacity_bytes);
    }
    row.reasons = stated.infeasible_reasons;
    rows.push_back(row);
  }
  return rows;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

struct Summary {
  size_t runs = 0, infeasible = 0;
  double median = 0, p90 = 0, max = 0, mean = 0;
};

// Errors with the stated settings, or of the entries as given.
Summary summarise(const std::vector<const Row*>& rows, bool as_given = false) {
  Summary s;
  std::vector<double> errors;
  for (const Row* r : rows) {
    errors.push_back(std::abs(as_given ? r->error_as_given() : r->error()));
    s.infeasible += (as_given ? r->as_given_feasible : r->feasible) ? 0 : 1;
  }
  s.runs = rows.size();
  if (errors.empty()) return s;
  s.median = quantile(errors, 0.5);
  s.p90 = quantile(errors, 0.9);
  s.max = *std::max_element(errors.begin(), errors.end());
  s.mean = std::accumulate(errors.begin(), errors.end(), 0.0) / static_cast<double>(errors.size());
  return s;
}

void print_summary(const char* label, const Summary& s) {
  std::printf("%-46s %4zu runs  median %5.1f%%  p90 %5.1f%%  max %6.1f%%  mean %5.1f%%%s\n", label,
              s.runs, 100 * s.median, 100 * s.p90, 100 * s.max, 100 * s.mean,
              s.infeasible ? ("  " + std::to_string(s.infeasible) + " INFEASIBLE").c_str() : "");
}

template <typename Pick>
std::vector<const Row*> select(const std::vector<Row>& rows, Pick pick) {
  std::vector<const Row*> out;
  for (const Row& r : rows) {
    if (pick(r)) out.push_back(&r);
  }
  return out;
}

double rounded(double value, double step) { return std::round(value / step) * step; }

nlohmann::json summary_json(const Summary& s) {
  return {{"runs", s.runs},
          {"infeasible", s.infeasible},
          {"median_abs_error", rounded(s.median, 1e-4)},
          {"p90_abs_error", rounded(s.p90, 1e-4)},
          {"max_abs_error", rounded(s.max, 1e-4)},
          {"mean_abs_error", rounded(s.mean, 1e-4)}};
}

// The tables above as the web page shows them (web/src/validation/validation.json): errors are
// predicted / measured - 1, rounded to 0.01 percentage points, throughputs to 0.1 tokens/s.
nlohmann::json validation_table(const std::vector<Row>& rows) {
  nlohmann::json sources = nlohmann::json::array();
  for (size_t source = 0; source < std::size(kSources); ++source) {
    nlohmann::json runs = nlohmann::json::array();
    for (const Row& r : rows) {
      if (r.source != source) continue;
      runs.push_back({{"id", r.id},
                      {"name", r.name},
                      {"measured_tokens_per_s_per_gpu", rounded(r.measured, 0.1)},
                      {"predicted_tokens_per_s_per_gpu", rounded(r.predicted, 0.1)},
                      {"error", rounded(r.error(), 1e-4)},
                      {"feasible", r.feasible}});
    }
    sources.push_back({{"label", kSources[source].label},
                       {"runs", runs},
                       {"summary", summary_json(summarise(select(
                                       rows, [&](const Row& r) { return r.source == source; })))}});
  }
  return {{"what", "tokens/s per GPU of published training runs against the model's estimate"},
          {"regenerate",
           "PARAPLAN_VALIDATION_JSON=web/src/validation/validation.json "
           "build/native/tests/validation_test"},
          {"sources", sources},
          {"dense", summary_json(summarise(select(rows, [](const Row& r) { return !r.moe; })))},
          {"moe", summary_json(summarise(select(rows, [](const Row& r) { return r.moe; })))}};
}

}  // namespace

TEST_CASE("published training runs: tokens/s per GPU, a table per source") {
  const std::vector<Row> rows = run_published();
  for (size_t source = 0; source < std::size(kSources); ++source) {
    std::printf("\n%s\n%-5s %-40s %-9s %11s %11s %8s %9s %6s\n", kSources[source].label, "id",
                "run", "framework", "measured", "predicted", "error", "as given", "free");
    for (const Row& r : rows) {
      if (r.source != source) continue;
      std::printf("%-5s %-40.40s %-9s %11.1f %11.1f %+7.1f%% %+8.1f%% %5.1f%%%s\n", r.id.c_str(),
                  r.name.c_str(), r.framework.c_str(), r.measured, r.predicted, 100 * r.error(),
                  100 * r.error_as_given(), 100 * r.free_fraction,
                  r.feasible ? "" : "  INFEASIBLE");
      if (!r.feasible) std::printf("      %s\n", r.reasons.front().c_str());
      if (!r.note.empty()) std::printf("      %s\n", r.note.c_str());
    }
    print_summary("", summarise(select(rows, [&](const Row& r) { return r.source == source; })));
  }
  std::printf("\n");
  const auto is_dense = [](const Row& r) { return !r.moe; };
  const auto is_moe = [](const Row& r) { return r.moe; };
  const Summary dense = summarise(select(rows, is_dense));
  const Summary moe = summarise(select(rows, is_moe));
  print_summary("all dense runs", dense);
  print_summary("all mixture-of-experts runs", moe);
  const Summary dense_as_given = summarise(select(rows, is_dense), true);
  const Summary moe_as_given = summarise(select(rows, is_moe), true);
  print_summary("all dense runs, as given", dense_as_given);
  print_summary("all mixture-of-experts runs, as given", moe_as_given);

  // The runs the model was first built beside (SC21 Table 1, Korthikanti et al., the Megatron-LM
  // README and DGX Cloud tables): they must stay where they were.
  const std::vector<const Row*> first =
      select(rows, [](const Row& r) { return r.source == 0 || (r.source >= 2 && r.source <= 4); });
  const Summary first_summary = summarise(first);
  print_summary("first 38 runs (SC21 T1, Korthikanti, README, DGX)", first_summary);
  CHECK(first_summary.runs == 38);
  CHECK(first_summary.infeasible == 0);
  CHECK(first_summary.median <= 0.10);
  // R036 (Megatron-LM README, GPT-32B at TP 8 and DP 48, one data-parallel rank per node) is
  // the worst at -31%: its fp32 gradient reduce-scatter over 48 nodes in 82 buckets pays NCCL's
  // per-step ring latency; the README does not state the NCCL version (2.23+ would run PAT).
  CHECK(first_summary.max <= 0.31);
  // Every published run ran, so every one must fit (issue 11); the all-run medians must not
  // slip back from where they are (dense 7.3%, mixture-of-experts 46.9%). The MoE runs are
  // MegaScale-MoE's baseline on Megatron-LM of October 2024, whose unpermute still multiplied
  // by the probs and kept its input; the model follows Megatron-Core 0.12 and later (the probs
  // weight the experts' activation), which moved them from 45.5% to 49.0%. The Hopper attention
  // curves measured on a lent H100 (cuDNN, 2026-11-26; presets/README.md) moved the dense median
  // from 7.1% to 7.6% and R036 from -29.3% to -30.4%, and every H100 table's p90 down (README
  // 22.6% to 19.9%, DGX Cloud 14.4% to 12.7%, NeMo fp8 14.8% to 11.6%, Bridge 18.9% to 17.0%;
  // with A100 taking their shape, MegaScale 28.0% to 27.1%, all dense 22.5% to 21.5%). The
  // overlap slowdown taken from Lee et al. 2025 (0.16 where 0.15 was assumed; presets/gpus)
  // moved the dense median from 7.6% to 7.3% and R036 from -30.4% to -30.7%.
  CHECK(dense.infeasible == 0);
  CHECK(moe.infeasible == 0);
  CHECK(dense.median <= 0.074);
  CHECK(moe.median <= 0.47);
  // As given, every MoE entry fits (the MoE defaults, docs/model.md section 5), and every dense
  // one but three of NVIDIA's tuned recipes (fp8 runs gather fp8 parameters by default): R096 and
  // R115 reduce gradients in bf16 where Megatron-LM's default keeps them in fp32 (R115 also keeps
  // Adam's moments in bf16), R120 offloads activations; the entries cannot state any of these.
  CHECK(moe_as_given.infeasible == 0);
  CHECK(dense_as_given.infeasible <= 3);
  // The DeepSpeed-era runs (SC21 Table 2, BLOOM-176B) are priced as DeepSpeed, the rest as
  // Megatron-LM.
  for (const Row& r : rows) {
    const std::string label = kSources[r.source].label;
    const bool deepspeed = label.find("DeepSpeed") != std::string::npos;
    CHECK_MESSAGE(r.framework == (deepspeed ? "deepspeed" : "megatron"), r.id);
  }
  // The report's validated frameworks and ZeRO stages (model/validated_regime.cpp) are these
  // rows'.
  std::set<std::pair<std::string, int64_t>> ran, validated;
  for (const Row& r : rows) ran.insert({r.framework, r.zero_stage});
  for (const detail::ValidatedFramework& v : detail::validated_frameworks()) {
    validated.insert({std::string(to_string(v.framework)), v.zero_stage});
  }
  CHECK(ran == validated);
  const Summary table5 = summarise(select(rows, [](const Row& r) { return r.source == 2; }));
  std::printf("Korthikanti et al. 2022 Table 5: mean |error| %.1f%% (Calculon: 3.7%%)\n",
              100 * table5.mean);
  CHECK(table5.mean <= 0.05);

  // The page's copy of these tables: written with PARAPLAN_VALIDATION_JSON=PATH, else it must
  // equal what the model gives now (a model change regenerates it).
  const nlohmann::json table = validation_table(rows);
  if (const char* path = std::getenv("PARAPLAN_VALIDATION_JSON"); path && *path) {
    std::ofstream(path) << table.dump(1) << "\n";
    std::printf("wrote %s\n", path);
  } else {
    std::ifstream file(PARAPLAN_WEB_VALIDATION_JSON);
    REQUIRE_MESSAGE(file.good(), PARAPLAN_WEB_VALIDATION_JSON << " is missing");
    const nlohmann::json committed = nlohmann::json::parse(file);
    CHECK_MESSAGE(committed == table,
                  "web/src/validation/validation.json is stale: regenerate it with "
                  "PARAPLAN_VALIDATION_JSON=web/src/validation/validation.json "
                  "build/native/tests/validation_test");
  }
}

TEST_CASE("published memory: Korthikanti et al. 2022 Figure 1, first pipeline stage") {
  std::printf("\n%-22s %10s %10s %8s %10s %10s %8s\n", "entry", "static", "predicted", "error",
              "activation", "predicted", "error");
  for (nlohmann::json entry : load("published-memory.json")) {
    // The Figure 1 models are GPT models with GeLU MLPs (Korthikanti et al. Table 3), and the
    // expected weight memory is exactly 18 bytes x 12Lh^2/t, the two-matrix MLP; the entries
    // label them "geglu", which would mean three matrices. Use the paper's GeLU.
    entry["model"]["activation"] = "gelu";
    // The source states fp32 gradients ("fp16 weights, fp32 gradients and Adam state (18
    // bytes/parameter)"): Megatron-LM's --accumulate-allreduce-grads-in-fp32 in fp16 training.
    entry["strategy"]["accumulate_allreduce_grads_in_fp32"] = true;
    const Report r = estimate(parse_scenario(scenario_of(entry)));
    REQUIRE(!r.stages.empty());
    // Figure 1's weight memory is 18 bytes x 12 L h^2 / (t p): the transformer layers only. A
    // middle stage holds layers only; the first also holds the embedding (with one stage, the
    // first stage it is). Activations are the first stage's, which holds the most in flight.
    const StageMemory& m = r.stages.front().memory;
    const StageMemory& layers_only = r.stages[r.stages.size() / 2].memory;
    const double statics =
        (layers_only.weights_bytes + layers_only.gradients_bytes + layers_only.optimizer_bytes) /
        kGiB;
    const double activations = m.activations_bytes / kGiB;
    const double expected_static = entry["expected_gib"]["weights_gradients_optimizer"];
    const double expected_activations = entry["expected_gib"]["activations"];
    std::printf("%-22s %10.2f %10.2f %+7.1f%% %10.2f %10.2f %+7.1f%%\n",
                entry["id"].get<std::string>().substr(8).c_str(), expected_static, statics,
                100 * (statics / expected_static - 1), expected_activations, activations,
                100 * (activations / expected_activations - 1));
    CHECK(statics == doctest::Approx(expected_static).epsilon(0.05));
    CHECK(activations == doctest::Approx(expected_activations).epsilon(0.05));
  }
}

TEST_CASE("measured memory: Megatron-LM CI golden values, max allocated") {
  std::printf("\n%-5s %-60s %10s %10s %8s\n", "id", "run", "measured", "predicted", "error");
  for (nlohmann::json entry : load("measured-memory.json")) {
    // The entries' assumptions: untied embeddings (--untie-embeddings-and-output-weights is not
    // set, but the CI model's output layer is separate: see the entry's assumptions).
    entry["model"]["untie_embeddings_and_output_weights"] = true;
    const Report r = estimate(parse_scenario(scenario_of(entry)));
    REQUIRE(r.stages.size() >= 1);
    const bool last = entry["measured"]["stage"].get<std::string>().find("last") == 0;
    const StageMemory& m = last ? r.stages.back().memory : r.stages.front().memory;
    const double allocated = m.peak_allocated_bytes() / kGiB;
    const double measured = entry["measured"]["peak_gib"];
    std::printf("%-5s %-60.60s %10.2f %10.2f %+7.1f%%  (peak %.2f, reserve %.2f)\n",
                entry["id"].get<std::string>().c_str(), entry["name"].get<std::string>().c_str(),
                measured, allocated, 100 * (allocated / measured - 1), m.peak_bytes() / kGiB,
                m.other_bytes() / kGiB);
    CHECK(allocated == doctest::Approx(measured).epsilon(0.05));
  }
}

// Configurations launched for published benchmarks, from their sources' own files: each ran, so
// each must fit. Only memory is checked; the files hold no throughput. `exceptions`: launches the
// model is known to reject, each with why, which must still be rejected (a fix shows up here).
void check_recipes_fit(const std::string& file,
                       const std::vector<std::pair<std::string, std::string>>& exceptions) {
  const nlohmann::json recipes = load(file);
  std::printf("\n%s\n%-56s %10s %10s %8s\n", recipes["source"].get<std::string>().c_str(), "recipe",
              "peak GiB", "capacity", "free");
  int feasible = 0;
  const nlohmann::json& list = recipes["recipes"];
  for (const nlohmann::json& recipe : list) {
    const std::string name = recipe["name"];
    const Report r = estimate(parse_scenario(recipe["scenario"]));
    REQUIRE(!r.stages.empty());
    double capacity = r.stages.front().capacity_bytes;
    for (const StageReport& stage : r.stages) capacity = std::min(capacity, stage.capacity_bytes);
    const auto exception =
        std::find_if(exceptions.begin(), exceptions.end(),
                     [&](const std::pair<std::string, std::string>& e) { return e.first == name; });
    std::printf("%-56.56s %10.1f %10.1f %7.1f%%%s\n", name.c_str(), r.peak_memory_bytes() / kGiB,
                capacity / kGiB, 100 * r.headroom_bytes() / capacity,
                r.feasible
                    ? ""
                    : ("  INFEASIBLE" +
                       (exception == exceptions.end() ? std::string() : ": " + exception->second))
                          .c_str());
    CAPTURE(name);
    CHECK(r.feasible == (exception == exceptions.end()));
    CHECK(std::isfinite(r.tokens_per_s_per_gpu));
    CHECK(r.tokens_per_s_per_gpu > 0);
    feasible += r.feasible;
  }
  std::printf("%d of %zu launches fit\n", feasible, list.size());
}

// Megatron-Bridge's performance recipes (recipe-configs.json, made from its
// workload_base_configs.py by scripts/validation/bridge_recipes.py).
TEST_CASE("shipped performance recipes fit: Megatron-Bridge's workload_base_configs") {
  REQUIRE(load("recipe-configs.json")["recipes"].size() >= 70);
  check_recipes_fit("recipe-configs.json", {});
}

// The next release's (v0.3.0, NeMo 26.02; recipe-configs-26.02.json, same script): B300 and
// GB300 added, "V2" batches. Four have no row in its performance table
// (docs/performance-summary.md at v0.3.0: no Llama 3.1 405B on DGX-B300, none in bf16 on
// DGX-GB200), so they may never have run; the model rejects exactly those.
TEST_CASE("shipped performance recipes fit: Megatron-Bridge 26.02") {
  REQUIRE(load("recipe-configs-26.02.json")["recipes"].size() >= 140);
  const std::string b300 =
      "TP 2 without context parallelism keeps all 8 micro-batches' activations in flight "
      "(interleaved warm-up); no B300 row for Llama 3.1 405B in the release's table";
  check_recipes_fit("recipe-configs-26.02.json",
                    {{"LLAMA31_405B_PRETRAIN_CONFIG_B300_BF16_V1", b300},
                     {"LLAMA31_405B_PRETRAIN_CONFIG_B300_FP8_CS_V1", b300},
                     {"LLAMA31_405B_PRETRAIN_CONFIG_B300_FP8_MX_V1", b300},
                     {"LLAMA31_405B_PRETRAIN_CONFIG_GB200_BF16_V2",
                      "no bf16 row for Llama 3.1 405B on GB200 in the release's table"}});
}

// NVIDIA's Megatron-MoE-ModelZoo best-practice launches (moe-model-zoo-configs.json, made by
// scripts/validation/moe_model_zoo.py): DeepSeek-V3, Kimi-K2, Qwen3 and Mixtral on H100, B200,
// GB200 and GB300, to 256k tokens, fine-grained activation offloading among them.
TEST_CASE("published MoE best-practice launches fit: Megatron-MoE-ModelZoo") {
  REQUIRE(load("moe-model-zoo-configs.json")["recipes"].size() >= 25);
  check_recipes_fit(
      "moe-model-zoo-configs.json",
      {{"best_practice/mixtral/run_mixtral_8x22B.sh:28",
        "dropless with an auxiliary-loss router: the busiest rank's load is modelled from a 3B "
        "model's MaxVio at loss coefficient 0.001 (moe_dispatch.cpp), this launch sets 0.01 "
        "(model_configs/benchmarking/Mixtral-8x22B.yaml); force-balanced (line 31) it fits"}});
}

// torchtitan's published benchmark configurations (torchtitan-configs.json, written from
// benchmarks/llama3_h100_202412_torchtitan.md's table captions): FSDP2 alone, with context
// parallelism to 262k tokens, with tensor parallelism, and with pipelines (1F1B and
// interleaved), selective (per-op) and full activation checkpointing, bf16 and Float8.
TEST_CASE("published benchmark configurations fit: torchtitan") {
  REQUIRE(load("torchtitan-configs.json")["recipes"].size() == 16);
  check_recipes_fit("torchtitan-configs.json", {});
  // benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md: vanilla against async TP.
  REQUIRE(load("torchtitan-async-tp-configs.json")["recipes"].size() == 8);
  check_recipes_fit("torchtitan-async-tp-configs.json", {});
  // benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md: FSDP on 32 and 64 H200.
  REQUIRE(load("torchtitan-h200-configs.json")["recipes"].size() == 2);
  check_recipes_fit("torchtitan-h200-configs.json", {});
}

// MindSpeed-LLM's example launches for Atlas 800T A2 (mindspeed-llm-configs.json, made from
// examples/mcore/*/pretrain_*.sh by scripts/validation/mindspeed_llm.py): Qwen3 0.6B-32B,
// Qwen2.5 72B (at 32k, and at 4k with --swap-attention), Qwen3 30B-A3B, DeepSeek-V2-Lite,
// Ling-mini, Phi-3.5-MoE and a two-layer Kimi-K2 on Ascend 910B; the seven that pass
// --reuse-fp32-param are priced with its saving (reuse_fp32_param).
TEST_CASE("published example launches fit: MindSpeed-LLM on Ascend 910B") {
  REQUIRE(load("mindspeed-llm-configs.json")["recipes"].size() >= 16);
  check_recipes_fit("mindspeed-llm-configs.json", {});
}

// Real out-of-memory outcomes (oom-outcomes.json, made by scripts/validation/oom_outcomes.py):
// launches that ran out of GPU/NPU memory, from the commits and threads that fixed them, and the
// fixes (or siblings measured beside them) that ran. The model agrees with a case when it
// rejects the launch for memory exactly when the launch ran out of memory. `disagreements`: the
// cases the model gets wrong today, each with why (a fix shows up here).
TEST_CASE("real out-of-memory outcomes: the model rejects what ran out of memory") {
  const nlohmann::json outcomes = load("oom-outcomes.json");
  const std::vector<std::pair<std::string, std::string>> disagreements = {
      {"OOM01",
       "priced 64.6 GiB of 79.2; the run failed with 58.8 GB allocated: ~20 GB held beside the "
       "live tensors (fragmentation, says PR #3107's skill; TE CUDA graphs' private pools) where "
       "the model's reserve is 2.8 GiB; the mlp graphs' static buffers add 16 MiB (their inputs "
       "replace eager tensors nothing else keeps; only attention graphs take a mask), the graph "
       "pool's fragmentation is not priced"},
      {"OOM02", "as OOM01 (layernorm recompute saves next to nothing, measured and priced)"},
  };
  std::printf("\n%s\n%-6s %-72s %5s %9s %9s %9s %9s %7s %s\n",
              outcomes["source"].get<std::string>().c_str(), "id", "case", "out", "peak GiB",
              "alloc GiB", "reported", "capacity", "model", "agree");
  const nlohmann::json& cases = outcomes["cases"];
  int agreements = 0;
  int out_of_memory = 0;
  for (const nlohmann::json& entry : cases) {
    const std::string id = entry["id"];
    const bool ran_out = entry["outcome"] == "oom";
    out_of_memory += ran_out;
    const Report r = estimate(parse_scenario(entry["scenario"]));
    REQUIRE(!r.stages.empty());
    double capacity_bytes = r.stages.front().capacity_bytes;
    for (const StageReport& stage : r.stages) {
      capacity_bytes = std::min(capacity_bytes, stage.capacity_bytes);
    }
    // Infeasible on memory: every reason is a stage's peak over its capacity (the reasons for
    // sizes that do not divide are not memory).
    bool memory_only = !r.feasible;
    for (const std::string& reason : r.infeasible_reasons) {
      memory_only &= reason.find("GiB per GPU, more than") != std::string::npos;
    }
    const bool agrees = memory_only == ran_out;
    agreements += agrees;
    // The source's own number, where it gives one: PyTorch's max allocated, in GB as printed.
    char reported[16] = "-";
    if (entry.contains("reported")) {
      std::snprintf(reported, sizeof reported, "%.1f", entry["reported"]["peak_gb"].get<double>());
    }
    const auto known =
        std::find_if(disagreements.begin(), disagreements.end(),
                     [&](const std::pair<std::string, std::string>& d) { return d.first == id; });
    std::printf("%-6s %-72.72s %5s %9.1f %9.1f %9s %9.1f %7s %s\n", id.c_str(),
                entry["name"].get<std::string>().c_str(), ran_out ? "OOM" : "ran",
                r.peak_memory_bytes() / kGiB, r.peak_allocated_bytes() / kGiB, reported,
                capacity_bytes / kGiB, memory_only ? "OOM" : "fits",
                agrees
                    ? "yes"
                    : ("NO" + (known == disagreements.end() ? std::string() : ": " + known->second))
                          .c_str());
    CAPTURE(id);
    CHECK(r.feasible == !memory_only);
    CHECK(agrees == (known == disagreements.end()));
  }
  std::printf("the model agrees on %d of %zu outcomes (%d out of memory, %zu ran)\n", agreements,
              cases.size(), out_of_memory, cases.size() - out_of_memory);
  CHECK(cases.size() == 13);
  CHECK(agreements >= 11);
}

// Published sweeps (published-sweeps.json, made by scripts/validation/sc21_sweeps.py): one model
// under several configurations, with the published order of their throughput (SC21 section 5,
// from the scripts NVIDIA released to reproduce its figures). Only the order is checked: the
// sweeps hold no throughput. Each configuration is estimated as the SC21 Table 1 runs are
// (with_stated_settings, the entries' own strategy keys).
namespace {

struct SweepRow {
  std::string name;
  double predicted = 0;  // tokens/s per GPU; 0 where the model finds it infeasible
  bool feasible = false, published_feasible = true;
  int published_rank = 0;  // 1 = best; tied configurations share a rank; 0 = out of memory
  int predicted_rank = 0;
  TimeBreakdown time;
  double peak_gib = 0;
  std::string reason;
};

struct SweepResult {
  std::string id;
  double tau = 0;
  bool best_matches = false;
  int discordant = 0;  // pairs the model orders against the published order
  int infeasible_published = 0, infeasible_matched = 0, feasible_rejected = 0;
  std::map<std::string, double> predicted;  // tokens/s per GPU by configuration name
};

// Kendall's tau-b of the predicted throughputs against the published ranks: pairs tied in either
// order shrink its denominator; a sweep without an untied pair scores 0.
double kendall_tau_b(const std::vector<const SweepRow*>& rows, int& discordant_pairs) {
  double concordant = 0, discordant = 0, tied_predicted = 0, tied_published = 0, pairs = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = i + 1; j < rows.size(); ++j) {
      const double predicted = rows[i]->predicted - rows[j]->predicted;
      const int published = rows[j]->published_rank - rows[i]->published_rank;
      pairs += 1;
      tied_predicted += predicted == 0;
      tied_published += published == 0;
      if (predicted == 0 || published == 0) continue;
      ((predicted > 0) == (published > 0) ? concordant : discordant) += 1;
    }
  }
  discordant_pairs = static_cast<int>(discordant);
  const double denominator = std::sqrt((pairs - tied_predicted) * (pairs - tied_published));
  return denominator > 0 ? (concordant - discordant) / denominator : 0;
}

SweepResult run_sweep(const nlohmann::json& sweep) {
  const std::string source = sweep["source"];
  std::vector<SweepRow> rows;
  for (const nlohmann::json& configuration : sweep["configurations"]) {
    // A configuration is the sweep's scenario with its own strategy (and batch), or a whole
    // scenario of its own.
    nlohmann::json entry = configuration.contains("scenario") ? configuration["scenario"] : sweep;
    if (configuration.contains("strategy")) entry["strategy"] = configuration["strategy"];
    if (configuration.contains("global_batch_size")) {
      entry["training"]["global_batch_size"] = configuration["global_batch_size"];
    }
    nlohmann::json scenario = with_stated_settings(scenario_of(entry), source);
    if (entry.contains("framework")) scenario["framework"] = entry["framework"];
    const Report r = estimate(parse_scenario(scenario));
    SweepRow row;
    row.name = configuration["name"];
    row.feasible = r.feasible;
    row.predicted = r.feasible ? r.tokens_per_s_per_gpu : 0;
    row.published_feasible = configuration["published_feasible"];
    row.time = r.time_breakdown;
    row.peak_gib = r.peak_memory_bytes() / kGiB;
    if (!r.feasible) row.reason = r.infeasible_reasons.front();
    const nlohmann::json& order = sweep["published_order"];
    for (size_t group = 0; group < order.size(); ++group) {
      for (const nlohmann::json& name : order[group]) {
        if (name == row.name) row.published_rank = static_cast<int>(group) + 1;
      }
    }
    CHECK_MESSAGE(row.published_feasible == (row.published_rank > 0), row.name);
    rows.push_back(row);
  }
  // Ranked: the configurations that ran (published out of memory ones have no rank).
  std::vector<SweepRow*> by_prediction;
  for (SweepRow& r : rows) {
    if (r.published_feasible) by_prediction.push_back(&r);
  }
  std::stable_sort(
      by_prediction.begin(), by_prediction.end(),
      [](const SweepRow* a, const SweepRow* b) { return a->predicted > b->predicted; });
  for (size_t i = 0; i < by_prediction.size(); ++i) {
    by_prediction[i]->predicted_rank = static_cast<int>(i) + 1;
  }
  const std::vector<const SweepRow*> ranked(by_prediction.begin(), by_prediction.end());
  SweepResult result;
  result.id = sweep["id"];
  for (const SweepRow& r : rows) result.predicted[r.name] = r.predicted;
  result.tau = kendall_tau_b(ranked, result.discordant);
  result.best_matches = !by_prediction.empty() && by_prediction.front()->feasible &&
                        by_prediction.front()->published_rank == 1;
  int name_width = 26;
  for (const SweepRow& r : rows) name_width = std::max(name_width, static_cast<int>(r.name.size()));
  std::printf("\n%s %s\n%-*s %11s %5s %5s %8s %8s %8s %8s %8s %8s %8s %7s\n", result.id.c_str(),
              sweep["name"].get<std::string>().c_str(), name_width, "configuration", "tokens/s/GPU",
              "pred", "publ", "compute", "recomp", "tp", "pp", "dp", "ep", "bubble", "GiB");
  for (const SweepRow& r : rows) {
    const std::string published =
        r.published_feasible ? std::to_string(r.published_rank) : std::string("OOM");
    const std::string predicted =
        r.published_feasible ? std::to_string(r.predicted_rank) : std::string("-");
    std::printf("%-*s %11.1f %5s %5s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %7.1f%s\n",
                name_width, r.name.c_str(), r.predicted, predicted.c_str(), published.c_str(),
                r.time.compute_s, r.time.recompute_s, r.time.tp_comm_s, r.time.pp_comm_s,
                r.time.dp_comm_s, r.time.ep_comm_s, r.time.bubble_s, r.peak_gib,
                r.feasible ? (r.published_feasible ? "" : "  ran out of memory, predicted to fit")
                           : "  INFEASIBLE");
    if (!r.published_feasible) {
      result.infeasible_published += 1;
      result.infeasible_matched += !r.feasible;
    } else if (!r.feasible) {
      result.feasible_rejected += 1;
      std::printf("      %s\n", r.reason.c_str());
    }
  }
  std::printf("%s: Kendall's tau-b %+.2f, %d discordant, predicted best %s (published best: %s)",
              result.id.c_str(), result.tau, result.discordant, by_prediction.front()->name.c_str(),
              sweep["published_order"][0].dump().c_str());
  if (result.infeasible_published > 0) {
    std::printf(", published out of memory %d, predicted infeasible %d",
                result.infeasible_published, result.infeasible_matched);
  }
  std::printf("%s\n", result.best_matches ? "" : "  BEST MISSED");
  return result;
}

}  // namespace

TEST_CASE("published sweeps: the order of one model's configurations (SC21 section 5)") {
  const nlohmann::json data = load("published-sweeps.json");
  std::vector<SweepResult> results;
  for (const nlohmann::json& sweep : data["sweeps"]) results.push_back(run_sweep(sweep));
  int best = 0;
  double tau_sum = 0;
  for (const SweepResult& r : results) {
    best += r.best_matches;
    tau_sum += r.tau;
  }
  const double mean_tau = tau_sum / static_cast<double>(results.size());
  std::printf("\n%zu sweeps: best predicted in %d, mean Kendall's tau-b %+.2f\n", results.size(),
              best, mean_tau);
  REQUIRE(results.size() == 15);

  // What the model gets right today (a floor, not a target): every sweep's best but S16-b128's,
  // and no pair ordered against the paper's but S16-b128's micro-batch sizes 1 and 2. There the
  // model gains 1.9% of compute per sample from micro-batch 2, less than the 4.8% of bubble it
  // adds; the paper's runs gained about 7% (Figure 16 at batch 512, read from the plot). Against
  // the plot, micro-batch 2 alone runs faster than the model (by about 1%; 1, 4 and 8 run 2-5%
  // slower), at both batch sizes: a per-micro-batch constant would not do that.
  CHECK(mean_tau >= 0.95);
  for (const SweepResult& r : results) {
    CAPTURE(r.id);
    const bool micro_batch_miss = r.id == "S16-b128";
    if (!micro_batch_miss) CHECK(r.best_matches);
    CHECK(r.discordant <= (micro_batch_miss ? 1 : 0));
    CHECK(r.feasible_rejected == 0);
  }
  // Not asserted, because the model misses it: S17's five configurations without recompute at
  // batch 16 and above ran out of memory on 80 GB; the model puts them at 65.4 GiB, with its
  // activations (43.5 GiB, 16 micro-batches of 5 layers) at Korthikanti et al.'s closed form.
}

// torchtitan's published benchmarks (torchtitan-sweeps.json): the order of each table's rows, the
// configurations from the files the must-fit tests read. The model prices them 14% to 186%
// faster than published (500 W H100s, torchtitan's own kernels: docs/model.md section 6); only
// the order is checked.
TEST_CASE("published sweeps: the order of torchtitan's benchmark tables") {
  const nlohmann::json data = load("torchtitan-sweeps.json");
  std::map<std::string, int> discordant_by_sweep;
  int best = 0;
  for (nlohmann::json sweep : data["sweeps"]) {
    const nlohmann::json recipes = load(sweep["configs"].get<std::string>())["recipes"];
    sweep["source"] = data["source"];
    for (const nlohmann::json& group : sweep["published_order"]) {
      for (const nlohmann::json& name : group) {
        const auto recipe =
            std::find_if(recipes.begin(), recipes.end(),
                         [&](const nlohmann::json& r) { return r["name"] == name; });
        REQUIRE_MESSAGE(recipe != recipes.end(), name);
        sweep["configurations"].push_back(
            {{"name", name}, {"scenario", (*recipe)["scenario"]}, {"published_feasible", true}});
      }
    }
    const SweepResult result = run_sweep(sweep);
    discordant_by_sweep[result.id] = result.discordant;
    best += result.best_matches;
    CHECK(result.feasible_rejected == 0);
  }
  REQUIRE(discordant_by_sweep.size() == 6);
  std::printf("\n%zu torchtitan sweeps: best predicted in %d\n", discordant_by_sweep.size(), best);
  // A floor: every best and every pair in the published order but one, Llama 3.1 8B's bf16 with
  // async TP against Float8 without it (TT-A8), where the model gains more from async TP (20%
  // against the published 10%) than from Float8 (12% against 16%).
  CHECK(best == 6);
  for (const auto& [id, discordant] : discordant_by_sweep) {
    CAPTURE(id);
    CHECK(discordant <= (id == "TT-A8" ? 1 : 0));
  }
}

// NVIDIA's MoE Parallel Folding paper (moe-folding-sweeps.json, made by
// scripts/validation/moe_folding_sweeps.py): Mixtral-8x22B, its fine-grained G8T8 variant and
// Qwen2-57B-A14B on 64 to 1024 H100 under the mappings of its appendix, with and without folding
// (ETP 1, EP across TP), against FSDP, FSDP + EP and TP + EP + DP, at 16k to 128k tokens, and in
// bf16 against fp8. Only the order of each sweep's MFU is checked.
TEST_CASE("published sweeps: the order of the MoE Parallel Folding paper's configurations") {
  const nlohmann::json data = load("moe-folding-sweeps.json");
  std::map<std::string, SweepResult> results;
  for (const nlohmann::json& sweep : data["sweeps"]) {
    const SweepResult r = run_sweep(sweep);
    results[r.id] = r;
  }
  int best = 0;
  double tau_sum = 0;
  for (const auto& [id, r] : results) {
    best += r.best_matches;
    tau_sum += r.tau;
  }
  const double mean_tau = tau_sum / static_cast<double>(results.size());
  std::printf(
      "\n%zu MoE Parallel Folding sweeps: best predicted in %d, mean Kendall's tau-b %+.2f\n",
      results.size(), best, mean_tau);
  REQUIRE(results.size() == 21);

  // The paper's claim, in every sweep: the folded mapping runs faster than Megatron-Core's
  // unfolded one beside it (the same precision in Table 2).
  int folded_pairs = 0;
  for (const auto& [id, r] : results) {
    for (const auto& [name, folded] : r.predicted) {
      if (name.rfind("MCore w/ Folding", 0) != 0) continue;
      const std::string precision = name.substr(name.rfind(')') + 1);
      for (const auto& [other, plain] : r.predicted) {
        if (other.rfind("MCore (", 0) != 0 || other.substr(other.rfind(')') + 1) != precision) {
          continue;
        }
        CAPTURE(id);
        CAPTURE(name);
        CHECK(folded > plain);
        folded_pairs += 1;
      }
    }
  }
  CHECK(folded_pairs == 22);

  // What the model gets right today (a floor, not a target): the best of 13 sweeps and every pair
  // but those below. Each pair it orders against the paper has FSDP + EP in it, but two:
  // - FSDP + EP runs in the model at 40-52% MFU (published 22-26%): ahead of both Megatron-Core
  //   mappings for Qwen2-57B-A14B up to 512 GPUs and for Mixtral-8x22B at batch 256 and on 512
  //   and 1024 GPUs, and ahead of Mixtral's TP + EP + DP everywhere. The model prices
  //   Megatron-FSDP, each layer's gathers prefetched under its neighbour (Mixtral at 128 GPUs:
  //   0.29 s of 3.4 s exposed). The only FSDP of Megatron-Core at the paper's time was PyTorch's
  //   FSDP2 (r0.11.0 --use-torch-fsdp2, torch_fully_sharded_data_parallel.py: one unit per
  //   transformer layer over the data-parallel group with context parallelism), whose
  //   arguments.py warns that "sequence parallelism requires setting the environment variable
  //   CUDA_DEVICE_MAX_CONNECTIONS to 1 while FSDP2 requires not setting" it "for better
  //   parallelization": the paper's "communication ... cannot be fully overlapped".
  // - Mixtral-8x22B at 1024 GPUs: TP + EP + DP ahead of both pipelined mappings (published 36%
  //   against 42-45%). At batch 1024 on 1024 GPUs PP 8 runs 16 micro-batches, and the model's
  //   1F1B bubble (7/16 of the compute, no interleaving: the ModelZoo's VPP 1 for this model) cuts
  //   the folded mapping from 53% MFU at 128 GPUs to 36%; the paper's fell from 52% to 45%.
  const std::map<std::string, int> known_discordant = {
      {"MPF-T3-mixtral", 3},     {"MPF-T3-qwen2", 2},       {"MPF-T4-mixtral-128", 1},
      {"MPF-T4-mixtral-256", 1}, {"MPF-T4-mixtral-512", 3}, {"MPF-T4-mixtral-1024", 5},
      {"MPF-T4-qwen2-64", 2},    {"MPF-T4-qwen2-128", 2},   {"MPF-T4-qwen2-256", 2},
      {"MPF-T4-qwen2-512", 2}};
  CHECK(best >= 13);
  CHECK(mean_tau >= 0.65);
  for (const auto& [id, r] : results) {
    CAPTURE(id);
    const auto known = known_discordant.find(id);
    CHECK(r.discordant <= (known == known_discordant.end() ? 0 : known->second));
    CHECK(r.feasible_rejected == 0);
  }
}
