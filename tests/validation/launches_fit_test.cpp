// Launches that ran, from their sources' own configuration files: each must fit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "paraplan/estimate.hpp"
#include "paraplan/units.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;
using units::kGiB;

namespace {

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
    const double capacity = smallest_capacity_bytes(r);
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

}  // namespace

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
