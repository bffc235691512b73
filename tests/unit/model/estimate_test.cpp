// Invariants of the estimate: consistency, feasibility reasons, and sensitivity directions.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "paraplan/framework.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/report.hpp"
#include "paraplan/scenario.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

std::string job(const std::string& model, int gpus, int batch, int seq, const std::string& strategy,
                const std::string& gpu = "a800") {
  return R"({"model": ")" + model + R"(", "training": {"global_batch_size": )" +
         std::to_string(batch) + R"(, "seq_length": )" + std::to_string(seq) +
         R"(}, "cluster": {"gpus": [{"type": ")" + gpu + R"(", "count": )" + std::to_string(gpus) +
         R"(}]}, "strategy": )" + strategy + "}";
}

Report run(const std::string& json) { return estimate(test::scenario(json)); }

const std::string kGood = R"({"tensor_model_parallel_size": 8, "pipeline_model_parallel_size": 4,
    "sequence_parallel": true, "recompute_granularity": "selective", "zero_stage": 1,
    "use_flash_attn": true, "overlap_grad_reduce": true, "overlap_param_gather": true})";

void check_finite(const Report& r) {
  for (const double x : {r.iteration_time_s, r.tokens_per_s_per_gpu, r.samples_per_s, r.mfu, r.hfu,
                         r.model_tflops_per_gpu, r.time_breakdown.total_s()}) {
    CHECK(std::isfinite(x));
  }
}

}  // namespace

TEST_CASE("the time breakdown sums to the iteration time") {
  for (const char* recompute : {"none", "selective", "full"}) {
    CAPTURE(recompute);
    std::string strategy = kGood;
    strategy.replace(strategy.find("selective"), 9, recompute);
    const Report r = run(job("llama2-70b", 256, 512, 4096, strategy));
    REQUIRE(r.feasible);
    CHECK(r.time_breakdown.total_s() == doctest::Approx(r.iteration_time_s).epsilon(1e-9));
    CHECK(r.tokens_per_s_per_gpu == doctest::Approx(512.0 * 4096 / r.iteration_time_s / 256));
    CHECK(r.hfu >= r.mfu);
    check_finite(r);
  }
}

TEST_CASE("infeasible strategies give one reason per problem, naming the numbers") {
  const Report r = run(job("llama2-70b", 256, 500, 4096,
                           R"({"tensor_model_parallel_size": 3, "pipeline_model_parallel_size": 3,
                               "context_parallel_size": 2})"));
  CHECK_FALSE(r.feasible);
  const auto has = [&](const std::string& text) {
    for (const std::string& reason : r.infeasible_reasons) {
      if (reason == text) return true;
    }
    return false;
  };
  CHECK(has("tensor_model_parallel_size (3) does not divide num_attention_heads (64)"));
  CHECK(has("context_parallel_size 2 needs use_flash_attn"));
  CHECK(
      has("tensor_model_parallel_size x context_parallel_size x pipeline_model_parallel_size (18) "
          "does not divide the 256 GPUs"));
  check_finite(r);
}

TEST_CASE("out of memory names the stage, the need and the capacity") {
  const Report r = run(job("llama2-70b", 8, 8, 4096, R"({"tensor_model_parallel_size": 8})"));
  CHECK_FALSE(r.feasible);
  REQUIRE(r.infeasible_reasons.size() == 1);
  CHECK(r.infeasible_reasons[0].find("pipeline stage 0 (a800, 80 layers) needs ") == 0);
  CHECK(r.infeasible_reasons[0].find("more than the 79.3 GiB it has") != std::string::npos);
  CHECK(r.iteration_time_s > 0);  // timing is still reported for an out-of-memory strategy
}

TEST_CASE("the batch must divide into data-parallel micro-batches") {
  const Report r = run(job("llama2-7b", 8, 12, 4096, R"({"micro_batch_size": 2})"));
  CHECK_FALSE(r.feasible);
  CHECK(r.infeasible_reasons.at(0) ==
        "data parallel (8) x micro_batch_size (2) does not divide global_batch_size (12)");
}

TEST_CASE("sensitivities point the right way") {
  const double base = run(job("llama2-70b", 256, 512, 4096, kGood)).iteration_time_s;
  SUBCASE("full recompute costs time") {
    std::string full = kGood;
    full.replace(full.find("selective"), 9, "full");
    CHECK(run(job("llama2-70b", 256, 512, 4096, full)).iteration_time_s > base);
  }
  SUBCASE("a faster GPU is faster") {
    CHECK(run(job("llama2-70b", 256, 512, 4096, kGood, "h800")).iteration_time_s < base);
  }
  SUBCASE("hiding tensor-parallel communication helps") {
    std::string overlap = kGood;
    overlap.insert(1, R"("tp_comm_overlap": true, )");
    CHECK(run(job("llama2-70b", 256, 512, 4096, overlap)).iteration_time_s < base);
  }
  SUBCASE("a bigger batch amortises the pipeline bubble") {
    const Report small = run(job("llama2-70b", 256, 512, 4096, kGood));
    const Report big = run(job("llama2-70b", 256, 2048, 4096, kGood));
    CHECK(big.tokens_per_s_per_gpu > small.tokens_per_s_per_gpu);
    CHECK(big.time_breakdown.bubble_s / big.iteration_time_s <
          small.time_breakdown.bubble_s / small.iteration_time_s);
  }
}

TEST_CASE("the bubble follows (p - 1) / (v m) for balanced stages") {
  // GPT-3 175B without embeddings' imbalance mattering much: bubble / pipeline ~ (p-1)/(v m).
  std::string interleaved = kGood;
  interleaved.insert(1, R"("virtual_pipeline_model_parallel_size": 3, )");
  const Report r1 = run(job("gpt3-175b", 256, 512, 2048, kGood));
  const Report r3 = run(job("gpt3-175b", 256, 512, 2048, interleaved));
  REQUIRE(r1.feasible);
  REQUIRE(r3.feasible);
  CHECK(r3.time_breakdown.bubble_s < r1.time_breakdown.bubble_s * 0.45);
  CHECK(r3.time_breakdown.bubble_s > r1.time_breakdown.bubble_s * 0.25);
}

TEST_CASE("estimates are deterministic") {
  const std::string json = job("llama2-70b", 256, 512, 4096, kGood);
  CHECK(run(json).iteration_time_s == run(json).iteration_time_s);
}

// The memory verdict's margin follows the allocator mode the framework's launcher sets
// (core/src/input/framework.cpp): torchtitan's run script sets expandable_segments:True, the
// others leave PyTorch's default; each mode's margin is its own (input/memory_margin.cpp).
TEST_CASE("memory verdict: the margin of the framework's allocator mode") {
  CHECK(expandable_segments_by_default(Framework::torchtitan));
  CHECK_FALSE(expandable_segments_by_default(Framework::megatron));
  CHECK_FALSE(expandable_segments_by_default(Framework::megatron_bridge));
  CHECK_FALSE(expandable_segments_by_default(Framework::mindspeed_llm));
  const double capacity_bytes = 100.0;
  for (const bool expandable : {false, true}) {
    const limits::MarginClass margin_class{expandable ? limits::AllocatorMode::expandable_segments
                                                      : limits::AllocatorMode::default_segments};
    const double percent = limits::default_memory_margin_percent(margin_class);
    CAPTURE(expandable);
    CHECK(percent > 0);
    CHECK(memory_verdict_of(100 - percent - 0.5, capacity_bytes, margin_class) ==
          MemoryVerdict::fits);
    CHECK(memory_verdict_of(100 - percent + 0.5, capacity_bytes, margin_class) ==
          MemoryVerdict::at_risk);
    CHECK(memory_verdict_of(100.5, capacity_bytes, margin_class) == MemoryVerdict::oom);
  }
  CHECK(limits::default_memory_margin_percent() ==
        limits::default_memory_margin_percent(limits::MarginClass{}));
}

// Each class of launches takes the margin its own out-of-memory outcomes give
// (input/memory_margin.cpp): without graphs 18% (fujii-4d-sweep.json FWY152 at 82.8%), with
// graphs 18% (OOM01, 82.5% since its output projection's 16-bit input is priced), and with
// context parallelism over point-to-point sends 36% in any mode (FWY033 at 64.3%); the verdict
// reads the class's margin.
TEST_CASE("memory verdict: the margin of each class of launches") {
  const double capacity_bytes = 100.0;
  for (const bool expandable : {false, true}) {
    const limits::AllocatorMode mode = expandable ? limits::AllocatorMode::expandable_segments
                                                  : limits::AllocatorMode::default_segments;
    CAPTURE(expandable);
    CHECK(limits::default_memory_margin_percent({mode, false}) == 18);
    CHECK(limits::default_memory_margin_percent({mode, true}) == 18);
    for (const bool graphs : {false, true}) {
      const limits::MarginClass ring{mode, graphs, true};
      CHECK(limits::default_memory_margin_percent(ring) == 36);
      CHECK(memory_verdict_of(100 - 36 - 0.5, capacity_bytes, ring) == MemoryVerdict::fits);
      CHECK(memory_verdict_of(100 - 36 + 0.5, capacity_bytes, ring) == MemoryVerdict::at_risk);
      CHECK(memory_verdict_of(100 - 36 + 0.5, capacity_bytes, {mode, graphs}) ==
            MemoryVerdict::fits);
    }
  }
}

// A strategy a rule rejects before its memory is priced says so in its memory verdict's reason,
// as one rejected for its stages does, instead of an empty reason.
TEST_CASE("memory verdict: a strategy rejected before its memory is priced says why") {
  const Report r = run(R"({"model": "llama3.1-8b",
      "training": {"global_batch_size": 64, "seq_length": 8192},
      "cluster": {"gpus": [{"type": "a100-40g", "count": 16}]},
      "strategy": {"tensor_model_parallel_size": 4, "context_parallel_size": 2,
                   "use_flash_attn": false}})");
  REQUIRE_FALSE(r.feasible);
  CHECK(r.stages.empty());
  CHECK(r.memory_verdict_text.id == "memory not estimated: rejected");
  CHECK(r.memory_verdict_reason == "memory not estimated: the strategy is rejected before it");
}

// A strategy's class: context parallelism over point-to-point sends is cp_comm_type p2p with
// more than one context-parallel rank, outside torchtitan (whose ring runs on collectives).
TEST_CASE("memory verdict: the class of a strategy") {
  Strategy s;
  CHECK_FALSE(margin_class_of(s, Framework::megatron).p2p_context_parallel);
  s.context_parallel_size = 2;
  CHECK(margin_class_of(s, Framework::megatron).p2p_context_parallel);
  CHECK(margin_class_of(s, Framework::megatron_bridge).p2p_context_parallel);
  CHECK_FALSE(margin_class_of(s, Framework::torchtitan).p2p_context_parallel);
  s.cp_comm_type = CpCommType::a2a;
  CHECK_FALSE(margin_class_of(s, Framework::megatron).p2p_context_parallel);
  s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
  s.expandable_segments = true;
  CHECK(margin_class_of(s, Framework::megatron).cuda_graphs);
  CHECK(margin_class_of(s, Framework::megatron).mode == limits::AllocatorMode::expandable_segments);
}

// The strategy key expandable_segments: left out, the framework launcher's mode; given, it
// decides the verdict's allocator mode whatever the framework.
TEST_CASE("memory verdict: the strategy's allocator mode, left out the framework's") {
  const std::string json = job("llama2-70b", 256, 512, 4096, kGood);
  CHECK_FALSE(complete_strategy(test::scenario(json)).expandable_segments);
  nlohmann::json torchtitan = nlohmann::json::parse(json);
  torchtitan["framework"] = "torchtitan";
  torchtitan["strategy"] = {{"tensor_model_parallel_size", 8}, {"zero_stage", 2}};
  CHECK(complete_strategy(parse_scenario(torchtitan)).expandable_segments);
  torchtitan["strategy"]["expandable_segments"] = false;
  CHECK_FALSE(complete_strategy(parse_scenario(torchtitan)).expandable_segments);
  nlohmann::json pinned = nlohmann::json::parse(json);
  pinned["strategy"]["expandable_segments"] = true;
  const Report with = estimate(parse_scenario(pinned));
  const Report without = run(json);
  CHECK(with.memory_verdict_reason.find("expandable segments") != std::string::npos);
  CHECK(without.memory_verdict_reason.find("default fixed segments") != std::string::npos);
  // Nothing else of the estimate moves with the allocator mode.
  CHECK(with.iteration_time_s == without.iteration_time_s);
  CHECK(with.stages.front().memory.peak_bytes() == without.stages.front().memory.peak_bytes());
}
