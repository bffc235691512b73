// The search: exact top N (against exhaustive enumeration and an independent brute force),
// the AIAK semantics of mixed clusters, pins, diagnosis, progress and cancellation.
#include "paraplan/search.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "model/rules.hpp"
#include "model/text_ids.hpp"
#include "paraplan/units.hpp"
#include "search/final_order.hpp"
#include "search/top_strategies.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// The value of `text`'s argument `name`, empty where it has none.
std::string arg_of(const CoreText& text, std::string_view name) {
  for (const auto& [key, value] : text.args)
    if (key == name) return value;
  return "";
}

Scenario job(const std::string& model, const std::string& gpus, int batch, int seq,
             const std::string& extra = "") {
  return test::scenario(R"({"model": ")" + model + R"(", "training": {"global_batch_size": )" +
                        std::to_string(batch) + R"(, "seq_length": )" + std::to_string(seq) +
                        R"(}, "cluster": {"gpus": )" + gpus + "}" + extra + "}");
}

// The default margin as a hard limit (at_risk strategies ranked by time, none inside the
// margin): the feasibility the brute forces below enumerate.
SearchResult run(const Scenario& scenario, int top, bool exhaustive = false,
                 bool distinct_layouts = false) {
  SearchOptions options;
  options.top = top;
  options.exhaustive = exhaustive;
  options.distinct_layouts = distinct_layouts;
  options.memory_margin = MemoryMargin{};
  options.allow_at_risk = true;
  options.time_budget_s = 600;
  return search(scenario, options);
}

// A hard margin of 4% of each GPU's memory, ranked by time: where memory binds, the scenarios
// below leave the offloading variants just this much room.
SearchResult run_thin_margin(const Scenario& scenario, int top) {
  SearchOptions options;
  options.top = top;
  options.time_budget_s = 600;
  options.distinct_layouts = false;
  options.memory_margin = parse_memory_margin("4%", "margin");
  options.allow_at_risk = true;
  return search(scenario, options);
}

void check_same_ranking(const Scenario& scenario, int top) {
  const SearchResult pruned = run(scenario, top);
  const SearchResult exhaustive = run(scenario, top, true);
  REQUIRE(pruned.strategies.size() == exhaustive.strategies.size());
  CHECK(pruned.stats.space == exhaustive.stats.space);
  CHECK(pruned.stats.evaluated < exhaustive.stats.evaluated);
  for (size_t i = 0; i < pruned.strategies.size(); ++i) {
    CAPTURE(i);
    CHECK(pruned.strategies[i].report.iteration_time_s ==
          exhaustive.strategies[i].report.iteration_time_s);
    CHECK(to_json(pruned.strategies[i].strategy, scenario.cluster) ==
          to_json(exhaustive.strategies[i].strategy, scenario.cluster));
  }
}

}  // namespace

TEST_CASE("pruning keeps the exact top N of the exhaustive search") {
  SUBCASE("dense model, one GPU type") {
    const Scenario s = job("llama2-13b", R"([{"type": "a800", "count": 32}])", 64, 4096);
    check_same_ranking(s, 8);
  }
  SUBCASE("mixed cluster") {
    const Scenario s =
        job("llama2-7b", R"([{"type": "a800", "count": 16}, {"type": "h800", "count": 16}])", 64,
            4096, R"(, "strategy": {"context_parallel_size": 1})");
    check_same_ranking(s, 6);
  }
  SUBCASE("mixture of experts") {
    const Scenario s = test::scenario(R"({"model": {"name": "moe", "num_layers": 8,
        "hidden_size": 2048, "ffn_hidden_size": 8192, "num_attention_heads": 16,
        "num_query_groups": 4, "vocab_size": 32000, "activation": "swiglu",
        "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 1408}},
        "training": {"global_batch_size": 32, "seq_length": 2048},
        "cluster": {"gpus": [{"type": "h100", "count": 16}]}})");
    check_same_ranking(s, 5);
  }
  SUBCASE("mixture of experts with leading dense layers (the bound counts each stage's kinds)") {
    const Scenario s = test::scenario(R"({"model": {"name": "moe", "num_layers": 8,
        "hidden_size": 2048, "ffn_hidden_size": 8192, "num_attention_heads": 16,
        "num_query_groups": 4, "vocab_size": 32000, "activation": "swiglu",
        "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 1408,
                "first_k_dense_layers": 3}},
        "training": {"global_batch_size": 32, "seq_length": 2048},
        "cluster": {"gpus": [{"type": "h100", "count": 16}]}})");
    check_same_ranking(s, 5);
  }
  SUBCASE(
      "where memory binds (subtrees whose activations or mean weights, gradients and "
      "optimizer state overflow are counted)") {
    // 40 GB GPUs at sequence 8192: many recompute choices' activations alone exceed a stage's
    // memory, with the layers split evenly (Llama 2 13B's 40) and left to the leaf (61 layers;
    // a mixed cluster), and many ZeRO 0 and 1 leaves hold more state than fits. Every strategy
    // that fits is listed (the time bound never prunes a list that is not full), so a memory
    // bound that counted one away fails here.
    const int every = 1000000;
    check_same_ranking(job("llama2-13b", R"([{"type": "a100-40g", "count": 16}])", 64, 8192),
                       every);
    // Under the sanitizers the first exhaustive search is enough (the optimised build runs all).
    if (!test::kSanitizedBuild) {
      check_same_ranking(job("llama2-13b", R"([{"type": "a100-40g", "count": 8}])", 32, 4096),
                         every);
      const std::string layers61 = R"({"model": {"name": "61", "num_layers": 61,
        "hidden_size": 4096, "ffn_hidden_size": 11008, "num_attention_heads": 32,
        "vocab_size": 32000, "activation": "swiglu"},
        "training": {"global_batch_size": 64, "seq_length": 8192}, "cluster": {"gpus": )";
      check_same_ranking(test::scenario(layers61 + R"([{"type": "a100-40g", "count": 16}]}})"),
                         every);
      check_same_ranking(test::scenario(layers61 + R"([{"type": "a100-40g", "count": 8},
        {"type": "a800", "count": 8}]}, "strategy": {"context_parallel_size": 1}})"),
                         every);
    }
  }
  SUBCASE("mixture of experts under each framework (each with its own rules for the count)") {
    // A pruned shape's count is walked once per value of the keys its rules read, then
    // replayed (shape_count.cpp): each framework's rules change those keys.
    nlohmann::json document = nlohmann::json::parse(R"({"model": {"name": "moe",
        "num_layers": 6, "hidden_size": 2048, "ffn_hidden_size": 8192,
        "num_attention_heads": 16, "num_query_groups": 4, "vocab_size": 32000,
        "activation": "swiglu", "moe": {"num_experts": 8, "top_k": 2,
        "moe_ffn_hidden_size": 1408, "first_k_dense_layers": 1}},
        "training": {"global_batch_size": 32, "seq_length": 2048},
        "cluster": {"gpus": [{"type": "a100-40g", "count": 8}]}})");
    for (const std::string framework : {"megatron", "megatron-bridge", "mindspeed-llm", "deepspeed",
                                        "colossalai", "torchtitan"}) {
      CAPTURE(framework);
      // Colossal-AI's launch (MixtralForCausalLM) has no leading dense layers and torchtitan's
      // no MoE model and untied embeddings only (framework_rules.cpp): each searches the nearest
      // model it can launch.
      nlohmann::json framed = document;
      if (framework == "colossalai") framed["model"]["moe"].erase("first_k_dense_layers");
      if (framework == "torchtitan") {
        framed["model"].erase("moe");
        framed["model"]["untie_embeddings_and_output_weights"] = true;
      }
      framed["framework"] = framework;
      const Scenario s = parse_scenario(framed);
      CHECK_FALSE(run(s, 1).strategies.empty());
      check_same_ranking(s, 5);
    }
  }
}

TEST_CASE("MoE: with attention at TP 8, the search folds the experts into expert parallel") {
  // 64 small experts, top-4: splitting each expert 8 ways and gathering top-4 copies over TP
  // loses to experts whole on their GPU (ETP 1) with a grouped GEMM (MoE parallel folding).
  // Enough micro-batches (128 sequences a data-parallel rank) for the all-to-all overlap to pair.
  // ZeRO-1 (the distributed optimizer, as the folding paper's Megatron-Core mappings): Megatron-
  // FSDP keeps experts whole another way, sharding all 64 over expert-data parallelism (16 ranks
  // with ETP 1, 8 a node) and hiding their gathers under micro-batches of 32.
  const Scenario s = test::scenario(R"({"model": {"name": "moe", "num_layers": 16,
      "hidden_size": 4096, "ffn_hidden_size": 14336, "num_attention_heads": 32,
      "num_query_groups": 8, "vocab_size": 32000, "activation": "swiglu",
      "moe": {"num_experts": 64, "top_k": 4, "moe_ffn_hidden_size": 1536}},
      "training": {"global_batch_size": 256, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 16}]},
      "strategy": {"tensor_model_parallel_size": 8, "zero_stage": 1}})");
  const SearchResult result = run(s, 3);
  REQUIRE_FALSE(result.strategies.empty());
  const Strategy& best = result.strategies.front().strategy;
  CHECK(best.expert_tensor_parallel() == 1);
  CHECK(best.expert_model_parallel_size > 1);
  CHECK(best.moe_grouped_gemm);
  CHECK(best.moe_token_dispatcher_type != MoeDispatcher::allgather);
}

// Left to the optimised build: it runs the estimate on some 60,000 strategies, minutes under
// the sanitizers, which the other search tests already take through the same code.
TEST_CASE("the search agrees with a brute force over every strategy the estimate accepts" *
          doctest::skip(test::kSanitizedBuild)) {
  // A superset of the space, filtered by the public estimate's feasibility: what remains is
  // the search space (overlap flags on where they act and the fused loss, as the search sets
  // them).
  const Scenario scenario = job("llama2-7b", R"([{"type": "h100", "count": 16}])", 32, 4096,
                                R"(, "strategy": {"recompute_method": "uniform"})");
  Estimator estimator(scenario.model, scenario.training, scenario.cluster);
  std::vector<double> times;
  std::map<std::vector<int64_t>, double> layout_best_s;  // the fastest of each layout
  const auto fitted = [&](const Strategy& strategy, double time_s) {
    times.push_back(time_s);
    Strategy staged = strategy;
    staged.pipeline_stage_gpus.assign(static_cast<size_t>(strategy.pipeline_model_parallel_size),
                                      0);
    const auto [best, added] = layout_best_s.emplace(detail::layout_key(staged), time_s);
    if (!added) best->second = std::min(best->second, time_s);
  };
  int offloaded_optimizers = 0, offloaded_activations = 0;
  Strategy s;
  s.recompute.resize(1);
  s.cross_entropy_loss_fusion = true;
  for (const int64_t t : {1, 2, 4, 8})
    for (const int64_t cp : {1, 2, 4, 8, 16})
      for (const auto cp_type : {CpCommType::p2p, CpCommType::a2a})
        for (const int64_t p : {1, 2, 4, 8, 16})
          for (int64_t v = 1; v <= 17; ++v)
            for (const int64_t mbs : {1, 2, 4, 8, 16, 32})
              for (const bool sp : {false, true})
                for (const bool flash : {false, true})
                  for (const auto granularity :
                       {RecomputeGranularity::none, RecomputeGranularity::selective,
                        RecomputeGranularity::full})
                    for (const int zero : {0, 1, 2, 3}) {
                      if (sp && t == 1) continue;  // the same strategy as without
                      if (cp == 1 && cp_type != CpCommType::p2p) continue;  // no context parallel
                      s.tensor_model_parallel_size = t;
                      s.context_parallel_size = cp;
                      s.cp_comm_type = cp_type;
                      s.pipeline_model_parallel_size = p;
                      s.virtual_pipeline_model_parallel_size = v;
                      s.micro_batch_size = mbs;
                      s.sequence_parallel = sp;
                      s.use_flash_attn = flash;
                      s.recompute[0] = {granularity, RecomputeMethod::uniform, 1};
                      s.zero_stage = zero;
                      const int64_t dp = 16 / (t * cp * p);
                      if (dp * t * cp * p != 16) continue;
                      if (dp * cp == 1 && zero > 0) continue;  // nothing to shard
                      s.overlap_grad_reduce = dp * cp > 1;
                      s.overlap_param_gather = dp * cp > 1 && zero >= 1;
                      // The search keeps the default memory margin free on every GPU.
                      const auto fits = [&](const Report& r) {
                        const double margin = MemoryMargin{}.of(
                            r.stages.empty() ? 0 : r.stages.front().capacity_bytes);
                        return r.feasible && r.headroom_bytes() >= margin;
                      };
                      const Report r = estimator.estimate(s);
                      if (fits(r)) {
                        fitted(s, r.iteration_time_s);
                      } else {
                        // Where memory binds, the search steps the optimizer on the CPU, and
                        // offloads the fewest layers' activations that fit.
                        if (zero >= 1) {
                          Strategy offloaded = s;
                          offloaded.optimizer_cpu_offload = true;
                          offloaded.use_precision_aware_optimizer = true;
                          offloaded.overlap_cpu_optimizer_d2h_h2d = true;
                          const Report o = estimator.estimate(offloaded);
                          if (fits(o)) fitted(offloaded, o.iteration_time_s);
                          offloaded_optimizers += fits(o);
                        }
                        for (int64_t n = 1; p == 1 && n < 32; ++n) {
                          Strategy offloaded = s;
                          offloaded.cpu_offloading_num_layers = n;
                          const Report o = estimator.estimate(offloaded);
                          if (!fits(o)) continue;
                          fitted(offloaded, o.iteration_time_s);
                          ++offloaded_activations;
                          break;
                        }
                      }
                    }
  std::sort(times.begin(), times.end());
  const SearchResult result = run(scenario, 10);
  REQUIRE(result.strategies.size() == 10);
  REQUIRE(times.size() >= 10);
  for (size_t i = 0; i < 10; ++i) {
    CAPTURE(i);
    CHECK(result.strategies[i].report.iteration_time_s == doctest::Approx(times[i]).epsilon(1e-12));
  }
  const SearchResult all = run(scenario, 10, true);
  CHECK(all.stats.feasible == static_cast<int64_t>(times.size()));

  // With distinct layouts: the fastest of each layout, the N fastest layouts.
  std::vector<double> layout_times;
  for (const auto& [layout, time_s] : layout_best_s) layout_times.push_back(time_s);
  std::sort(layout_times.begin(), layout_times.end());
  const SearchResult distinct = run(scenario, 10, false, true);
  REQUIRE(distinct.strategies.size() == 10);
  std::set<std::vector<int64_t>> layouts;
  for (size_t i = 0; i < 10; ++i) {
    CAPTURE(i);
    CHECK(distinct.strategies[i].report.iteration_time_s ==
          doctest::Approx(layout_times[i]).epsilon(1e-12));
    layouts.insert(detail::layout_key(distinct.strategies[i].strategy));
  }
  CHECK(layouts.size() == 10);      // no two rows of one layout
  CHECK(offloaded_optimizers > 0);  // the grid reaches both kinds of offloading
  CHECK(offloaded_activations > 0);
}

TEST_CASE("where GPU memory binds, the search steps the optimizer on the CPU") {
  // Llama 3 8B on 4 A100-40G: nothing fits with the whole optimizer on the GPUs but Megatron-FSDP
  // at context parallel 2; the pipeline with the optimizer on the CPU is faster.
  nlohmann::json document = nlohmann::json::parse(R"({"model": "llama3-8b",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "a100-40g", "count": 4}]}})");
  const SearchResult offloaded = run_thin_margin(parse_scenario(document), 3);
  REQUIRE_FALSE(offloaded.strategies.empty());
  const RankedStrategy& best = offloaded.strategies.front();
  CHECK(best.strategy.optimizer_cpu_offload);
  CHECK(best.strategy.use_precision_aware_optimizer);
  CHECK(best.report.feasible);
  CHECK(best.report.stages.front().memory.host_bytes > 0);
  document["strategy"] = {{"optimizer_cpu_offload", false}};
  const SearchResult on_gpu = run_thin_margin(parse_scenario(document), 3);
  REQUIRE_FALSE(on_gpu.strategies.empty());
  CHECK(on_gpu.strategies.front().report.iteration_time_s > best.report.iteration_time_s);
  // Pinned on, it brings the precision-aware optimizer.
  document["strategy"] = {{"optimizer_cpu_offload", true}};
  const SearchResult pinned = run_thin_margin(parse_scenario(document), 1);
  REQUIRE_FALSE(pinned.strategies.empty());
  CHECK(pinned.strategies.front().strategy.use_precision_aware_optimizer);
  // Where memory does not bind, nothing is offloaded.
  document["cluster"]["gpus"][0]["count"] = 16;
  document.erase("strategy");
  const SearchResult roomy = run_thin_margin(parse_scenario(document), 3);
  REQUIRE_FALSE(roomy.strategies.empty());
  CHECK_FALSE(roomy.strategies.front().strategy.optimizer_cpu_offload);
}

TEST_CASE("where GPU memory binds, a MindSpeed-LLM search reuses the fp32 parameter copy") {
  // Qwen3 8B on 4 Ascend 910B: with the bf16 weights inside the fp32 masters the pipeline of
  // four fits without recompute, which is faster than anything that fits without.
  nlohmann::json document = nlohmann::json::parse(R"({"model": "qwen3-8b",
      "framework": "mindspeed-llm", "training": {"global_batch_size": 32, "seq_length": 4096},
      "cluster": {"gpus_per_node": 8, "gpus": [{"type": "ascend-910b", "count": 4}]}})");
  const SearchResult reusing = run_thin_margin(parse_scenario(document), 3);
  REQUIRE_FALSE(reusing.strategies.empty());
  const RankedStrategy& best = reusing.strategies.front();
  CHECK(best.strategy.reuse_fp32_param);
  CHECK(best.report.feasible);
  document["strategy"] = {{"reuse_fp32_param", false}};
  const SearchResult without = run_thin_margin(parse_scenario(document), 3);
  REQUIRE_FALSE(without.strategies.empty());
  CHECK(without.strategies.front().report.iteration_time_s > best.report.iteration_time_s);
  for (const RankedStrategy& r : without.strategies) CHECK_FALSE(r.strategy.reuse_fp32_param);
  // Where memory does not bind, it stays off (it slows the optimizer step).
  document.erase("strategy");
  document["cluster"]["gpus"][0]["count"] = 16;
  const SearchResult roomy = run_thin_margin(parse_scenario(document), 3);
  REQUIRE_FALSE(roomy.strategies.empty());
  CHECK_FALSE(roomy.strategies.front().strategy.reuse_fp32_param);
  // Other frameworks cannot launch it: their searches never try it.
  document["cluster"]["gpus"][0]["count"] = 4;
  for (const char* framework :
       {"megatron", "megatron-bridge", "deepspeed", "colossalai", "torchtitan"}) {
    CAPTURE(framework);
    document["framework"] = framework;
    document.erase("strategy");
    const SearchResult free = run_thin_margin(parse_scenario(document), 3);
    document["strategy"] = {{"reuse_fp32_param", false}};
    const SearchResult pinned = run_thin_margin(parse_scenario(document), 3);
    CHECK(free.stats.evaluated == pinned.stats.evaluated);
    CHECK(free.stats.feasible == pinned.stats.feasible);
    REQUIRE(free.strategies.size() == pinned.strategies.size());
    for (size_t i = 0; i < free.strategies.size(); ++i) {
      CHECK_FALSE(free.strategies[i].strategy.reuse_fp32_param);
      CHECK(free.strategies[i].report.iteration_time_s ==
            pinned.strategies[i].report.iteration_time_s);
    }
  }
}

TEST_CASE("every returned strategy is feasible and re-estimates to the same numbers") {
  const auto check = [](nlohmann::json document, int top) {
    CAPTURE(document.dump());
    const Scenario scenario = parse_scenario(document);
    const SearchResult result = run(scenario, top);
    REQUIRE(!result.strategies.empty());
    for (size_t i = 0; i < result.strategies.size(); ++i) {
      const RankedStrategy& ranked = result.strategies[i];
      CAPTURE(i);
      document["strategy"] = to_json(ranked.strategy, scenario.cluster);
      INFO(nlohmann::json(ranked.report.infeasible_reasons).dump());
      REQUIRE(ranked.report.feasible);
      const Report direct = estimate(parse_scenario(document));
      CHECK(direct.iteration_time_s == ranked.report.iteration_time_s);
      CHECK(direct.peak_memory_bytes() == ranked.report.peak_memory_bytes());
      if (i > 0) {
        // Sorted by time; times within a relative 1e-9 tie (top_strategies.hpp).
        CHECK(result.strategies[i - 1].report.iteration_time_s <=
              ranked.report.iteration_time_s * (1 + 1e-9));
      }
    }
  };
  const auto document = [](const char* model, nlohmann::json gpus, int batch) {
    return nlohmann::json{{"model", model},
                          {"training", {{"global_batch_size", batch}, {"seq_length", 4096}}},
                          {"cluster", {{"gpus", std::move(gpus)}}}};
  };
  // Deep virtual pipelines whose even split counts the embedding and loss as layers.
  check(document("llama2-70b", {{{"type", "a800"}, {"count", 256}}}, 512), 20);
  check(document("llama2-7b", {{{"type", "h100"}, {"count", 16}}}, 32), 500);
  check(document("mixtral-8x7b", {{{"type", "h100"}, {"count", 64}}}, 256), 50);
  check(document("llama2-13b",
                 {{{"type", "a800"}, {"count", 16}}, {{"type", "h800"}, {"count", 16}}}, 64),
        50);
}

TEST_CASE("mixed clusters: caps, GPU total, one type and a layer count per stage") {
  const Scenario scenario = test::scenario(R"({"model": "llama2-70b",
      "training": {"global_batch_size": 512, "seq_length": 4096},
      "cluster": {"num_gpus": 256,
                  "gpus": [{"type": "a800", "count": 128}, {"type": "h800", "count": 160}]}})");
  REQUIRE(scenario.cluster.num_gpus == 256);
  const SearchResult result = run(scenario, 10);
  REQUIRE_FALSE(result.strategies.empty());
  bool both_types = false;
  for (const RankedStrategy& ranked : result.strategies) {
    const Strategy& s = ranked.strategy;
    const int64_t p = s.pipeline_model_parallel_size;
    REQUIRE(static_cast<int64_t>(s.pipeline_stage_gpus.size()) == p);
    REQUIRE(static_cast<int64_t>(s.pipeline_stage_layers.size()) == p);
    int64_t layers = 0;
    for (const int64_t l : s.pipeline_stage_layers) layers += l;
    CHECK(layers == 80);
    const int64_t stage_gpus = 256 / p;
    const auto used = [&](int pool) {
      return stage_gpus *
             std::count(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(), pool);
    };
    CHECK(used(0) <= 128);
    CHECK(used(1) <= 160);
    CHECK(used(0) + used(1) == 256);
    CHECK(ranked.report.num_gpus == 256);
    both_types |= used(0) > 0 && used(1) > 0;
  }
  CHECK(both_types);
  const nlohmann::json json = to_json(result, scenario);
  const nlohmann::json& best = json["strategies"][0];
  CHECK(best["pipeline-stage-chips"].size() == best["pipeline-stage-layers"].size());
  CHECK(best.contains("max-use-mem-size"));
  CHECK(best["megatron_args"].get<std::string>().find("--tensor-model-parallel-size") == 0);
  CHECK(json["stats"]["evaluated"].get<int64_t>() > 0);
}

namespace {

// The keys of `object`, in order.
std::vector<std::string> keys_of(const nlohmann::json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

}  // namespace

TEST_CASE("a table row is the result entry's table keys, with the same values") {
  // What the page's results table draws (web/src/paraplan/types.ts, TableRow), on a mixed
  // cluster (the per-GPU-type keys with two types): each value as the result's entry has it,
  // and none of its launches, flags or per-stage report.
  const Scenario scenario = test::scenario(R"({"model": "llama2-70b",
      "training": {"global_batch_size": 512, "seq_length": 4096},
      "cluster": {"num_gpus": 256,
                  "gpus": [{"type": "a800", "count": 128}, {"type": "h800", "count": 160}]}})");
  const SearchResult result = run(scenario, 5);
  REQUIRE_FALSE(result.strategies.empty());
  const std::vector<std::string> row_keys = {"estimate",
                                             "gpus_used",
                                             "headroom_gib",
                                             "max-use-mem-size",
                                             "pipeline-stage-chips",
                                             "pipeline-stage-layers",
                                             "rank",
                                             "recompute-granularity",
                                             "recompute-method",
                                             "recompute-num-layers",
                                             "strategy",
                                             "tie_with_best",
                                             "tight"};
  const std::vector<std::string> report_keys = {"data_parallel_size",
                                                "feasible",
                                                "infeasible_reason_ids",
                                                "infeasible_reasons",
                                                "iteration_time_s",
                                                "memory",
                                                "mfu",
                                                "num_gpus",
                                                "tokens_per_s_per_gpu",
                                                "uncertainty",
                                                "validation"};
  const std::vector<std::string> memory_keys = {"peak_gib_per_gpu", "verdict", "verdict_reason",
                                                "verdict_reason_text"};
  bool two_types = false;
  for (size_t i = 0; i < result.strategies.size(); ++i) {
    const nlohmann::json row = to_table_json(result.strategies[i], i + 1, scenario);
    const nlohmann::json entry = to_json(result.strategies[i], i + 1, scenario);
    std::vector<std::string> expected = row_keys;
    if (entry.contains("rank_note")) {
      expected.insert(expected.end(), {"rank_note", "rank_note_text"});
    }
    std::sort(expected.begin(), expected.end());
    CHECK(keys_of(row) == expected);
    CHECK(keys_of(row["estimate"]) == report_keys);
    CHECK(keys_of(row["estimate"]["memory"]) == memory_keys);
    for (const std::string& key : keys_of(row)) {
      if (key != "estimate") CHECK_MESSAGE(row[key] == entry[key], key);
    }
    for (const std::string& key : report_keys) {
      if (key != "memory") CHECK_MESSAGE(row["estimate"][key] == entry["estimate"][key], key);
    }
    for (const std::string& key : memory_keys) {
      CHECK(row["estimate"]["memory"][key] == entry["estimate"]["memory"][key]);
    }
    two_types = two_types || row["gpus_used"].size() == 2;
    // A tenth or so of the entry.
    CHECK(row.dump().size() * 4 < entry.dump().size());
  }
  CHECK(two_types);
}

// AIAK example 1 as the bench searches it (top 10 layouts): before its micro-batch size is known
// to fit, a leaf the recompute settings' time bound rules out is counted on its memory verdict
// alone where it fits, not estimated (Searcher::evaluate_bounded; 4,646 estimated leaves at
// 07aa263, where every such leaf was estimated), and the space is the same.
TEST_CASE("a leaf the time bound rules out is asked only whether it fits") {
  const Scenario scenario = job("llama2-70b", R"([{"type": "a800", "count": 256}])", 512, 4096);
  SearchOptions options;
  options.top = 10;
  options.time_budget_s = 600;
  const SearchResult result = search(scenario, options);
  CHECK(result.stats.space == 196240);
  CHECK(result.stats.evaluated <= 3754);
}

TEST_CASE("a hand-made good strategy is never faster than the search's best") {
  const Scenario scenario = job("llama2-70b", R"([{"type": "a800", "count": 256}])", 512, 4096);
  const SearchResult result = run(scenario, 1);
  REQUIRE(result.strategies.size() == 1);
  const Report manual = estimate(test::scenario(R"({"model": "llama2-70b",
      "training": {"global_batch_size": 512, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "a800", "count": 256}]},
      "strategy": {"tensor_model_parallel_size": 8, "pipeline_model_parallel_size": 4,
        "virtual_pipeline_model_parallel_size": 5, "sequence_parallel": true,
        "recompute_granularity": "selective", "zero_stage": 1, "use_flash_attn": true,
        "overlap_grad_reduce": true, "overlap_param_gather": true}})"));
  REQUIRE(manual.feasible);
  CHECK(result.strategies[0].report.iteration_time_s <= manual.iteration_time_s);
}

TEST_CASE("strategy keys in the scenario are pinned") {
  const Scenario scenario = job("llama2-13b", R"([{"type": "h800", "count": 32}])", 64, 4096,
                                R"(, "strategy": {"tensor_model_parallel_size": 4,
                                    "recompute_granularity": "full", "zero_stage": 1})");
  const SearchResult result = run(scenario, 5);
  REQUIRE_FALSE(result.strategies.empty());
  for (const RankedStrategy& ranked : result.strategies) {
    CHECK(ranked.strategy.tensor_model_parallel_size == 4);
    CHECK(ranked.strategy.recompute[0].granularity == RecomputeGranularity::full);
    CHECK(ranked.strategy.zero_stage == 1);
  }
}

// Where nothing fits, the memory floors skip only leaves that overflow by more than the closest
// miss so far (closest_miss_bound.cpp): the answer names the exhaustive search's closest miss.
TEST_CASE("where nothing fits, the bounds keep the exhaustive search's closest miss") {
  struct Case {
    const char* name;
    Scenario scenario;
  };
  // The page's default job with llama-1800b (issue 30 item 8), 84,704 leaves estimated without
  // this limit, 37,299 with it, is left out: its exhaustive search takes most of 18 s on a
  // loaded machine (the CLI gives the same answer as the build without the limit).
  const std::vector<Case> cases = {
      {"llama2-70b on 4 a800", job("llama2-70b", R"([{"type": "a800", "count": 4}])", 8, 4096)},
      {"llama-1800b on 64 a800",
       job("llama-1800b", R"([{"type": "a800", "count": 64}])", 512, 4096)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    for (const bool hard_margin : {true, false}) {
      CAPTURE(hard_margin);
      SearchOptions options;
      options.top = 10;
      options.time_budget_s = 600;
      if (hard_margin) {
        options.memory_margin = MemoryMargin{};
        options.allow_at_risk = true;
      }
      const SearchResult pruned = search(c.scenario, options);
      options.exhaustive = true;
      const SearchResult exhaustive = search(c.scenario, options);
      CHECK(pruned.strategies.empty());
      CHECK(exhaustive.strategies.empty());
      REQUIRE(exhaustive.diagnosis.size() == 1);
      CHECK(exhaustive.diagnosis[0].find("no strategy fits in GPU memory: the closest") == 0);
      CHECK(pruned.diagnosis == exhaustive.diagnosis);
      CHECK(pruned.stats.evaluated < exhaustive.stats.evaluated);
    }
  }
}

TEST_CASE("a job with no feasible strategy says why") {
  SUBCASE("memory") {
    const SearchResult r = run(job("llama2-70b", R"([{"type": "a800", "count": 4}])", 8, 4096), 3);
    CHECK(r.strategies.empty());
    REQUIRE(r.diagnosis.size() == 1);
    CHECK(r.diagnosis[0].find("no strategy fits in GPU memory: the closest") == 0);
    CHECK(r.diagnosis[0].find("GiB more than its 79.3 GiB") != std::string::npos);
    // The same with its id and values (translations never parse the English).
    REQUIRE(r.diagnosis_texts.size() == 1);
    const CoreText& text = r.diagnosis_texts[0];
    CHECK(text.id == std::string(text_id::kNoStrategyFits));
    CHECK(text.text == r.diagnosis[0]);
    CHECK(arg_of(text, "gpu") == "a800");
    CHECK(arg_of(text, "capacity_gib") == "79.3");
    CHECK(r.diagnosis[0].find("needs " + arg_of(text, "needs_gib") +
                              " GiB per GPU on pipeline stage " + arg_of(text, "stage")) !=
          std::string::npos);
  }
  SUBCASE("memory names the margin only where one is kept") {
    // Issue 30: the scaling view's gap read "less the 0.0 GiB memory margin" with none kept.
    const Scenario scenario = job("llama2-70b", R"([{"type": "a800", "count": 4}])", 8, 4096);
    SearchOptions options;
    options.top = 3;
    options.time_budget_s = 600;
    options.memory_margin = MemoryMargin::none();
    const SearchResult none = search(scenario, options);
    REQUIRE(none.diagnosis.size() == 1);
    CHECK(none.diagnosis[0].find("memory margin") == std::string::npos);
    CHECK(none.diagnosis[0].ends_with("GiB more than its 79.3 GiB"));
    CHECK(arg_of(none.diagnosis_texts.at(0), "margin_gib").empty());
    options.memory_margin = parse_memory_margin("10", "margin");
    const SearchResult ten = search(scenario, options);
    REQUIRE(ten.diagnosis.size() == 1);
    CHECK(ten.diagnosis[0].ends_with("than its 79.3 GiB less the 10.0 GiB memory margin"));
    CHECK(arg_of(ten.diagnosis_texts.at(0), "margin_gib") == "10.0");
  }
  SUBCASE("divisibility") {
    // 4 layers on 7 GPUs, batch 5: 7 divides neither the heads, 2 x the sequence, the layers
    // (7 stages) nor the batch.
    const SearchResult r =
        run(test::scenario(R"({"model": )" + test::gpt_model(4, 1024, 16) +
                           R"(, "training": {"global_batch_size": 5, "seq_length": 4096},
                          "cluster": {"gpus": [{"type": "a800", "count": 7}]}})"),
            3);
    CHECK(r.strategies.empty());
    REQUIRE(r.diagnosis.size() == 1);
    CHECK(r.diagnosis[0].find("no strategy divides evenly") == 0);
    // Each rule that ruled candidates out is a part: its reason with the reason's id (the
    // rule's name, which the page translates it by) and its count, as the line writes them.
    REQUIRE(r.diagnosis_texts.size() == 1);
    const CoreText& text = r.diagnosis_texts[0];
    CHECK(text.id == std::string(text_id::kNoStrategyMeetsRules));
    CHECK(text.text == r.diagnosis[0]);
    REQUIRE(!text.parts.empty());
    std::set<std::string> names;
    for (const detail::Rule& rule : detail::rules()) names.insert(std::string(rule.name));
    for (const CoreText& part : text.parts) {
      CHECK(part.id == std::string(text_id::kRuledOutCandidates));
      CHECK(names.contains(arg_of(part, "reason_id")));
      CHECK(r.diagnosis[0].find(arg_of(part, "reason") + " (" + arg_of(part, "reason_id") + ", " +
                                arg_of(part, "count") + " candidate") != std::string::npos);
    }
  }
  SUBCASE("a rule of the launch target that reads no strategy key, only the model") {
    // MindSpeed-LLM has no sliding-window attention; gpt-oss-20b has a window (framework_rules.cpp
    // "model.window_size", whose reads are empty): the search checks it at its first level.
    const SearchResult r = run(job("gpt-oss-20b", R"([{"type": "h100", "count": 8}])", 16, 4096,
                                   R"(, "framework": "mindspeed-llm")"),
                               3);
    CHECK(r.strategies.empty());
    REQUIRE(r.diagnosis.size() == 1);
    CHECK(r.diagnosis[0].find("window") != std::string::npos);
  }
}

TEST_CASE("progress reports arrive and cancelling stops the search") {
  const Scenario scenario = job("llama2-70b", R"([{"type": "a800", "count": 256}])", 512, 4096);
  SearchOptions options;
  options.progress_every = 1000;
  int calls = 0;
  options.on_progress = [&](const SearchProgress& p) {
    CHECK(p.evaluated >= 0);
    // The best so far streams with its layout once there is one.
    CHECK((p.best_iteration_time_s > 0) == !p.best_layout.empty());
    if (!p.best_layout.empty()) CHECK(p.best_layout.rfind("TP ", 0) == 0);
    return ++calls < 3;
  };
  const SearchResult result = search(scenario, options);
  CHECK(calls == 3);
  CHECK_FALSE(result.stats.complete);
  CHECK(result.stats.stopped == "cancelled");
  CHECK(result.stats.stopped_text.id == std::string(text_id::kStoppedCancelled));

  options.on_progress = nullptr;
  options.time_budget_s = 0;
  const SearchResult timed = search(scenario, options);
  CHECK_FALSE(timed.stats.complete);
  CHECK(timed.stats.stopped == "time budget of 0 s reached");
  CHECK(timed.stats.stopped_text.id == std::string(text_id::kStoppedTimeBudget));
  CHECK(arg_of(timed.stats.stopped_text, "budget_s") == "0");
}

TEST_CASE("progress reports carry the ranking so far, by the clock, only when it changed") {
  // Qwen3-30B-A3B on 64 H100 runs for a quarter of a second or more (0.25 to 0.5 s idle on the
  // 2-core machine): reports come by the clock long before `progress_every` evaluations, and
  // carry the rows so far.
  const Scenario scenario = job("qwen3-30b-a3b", R"([{"type": "h100", "count": 64}])", 512, 4096);
  SearchOptions options;
  options.top = 5;
  options.time_budget_s = 600;
  options.progress_every = int64_t{1} << 40;  // never by count: only the clock reports
  options.progress_rows = 3;
  std::vector<SearchProgress> reports;
  options.on_progress = [&](const SearchProgress& p) {
    reports.push_back(p);
    return true;
  };
  const SearchResult result = search(scenario, options);
  REQUIRE(result.stats.complete);
  REQUIRE(result.strategies.size() == 5);
  REQUIRE_FALSE(reports.empty());
  // The first feasible strategy is reported at once, before kFirstProgressS; the first report
  // by the clock comes soon after kFirstProgressS, then one every kProgressIntervalS (a third
  // report only where the search outlasts kFirstProgressS + kProgressIntervalS: an idle machine
  // finishes this one sooner, and it asked for three and failed).
  REQUIRE(reports.size() >= 2);
  CHECK(reports[0].best_iteration_time_s > 0);
  CHECK_FALSE(reports[0].rows.empty());
  CHECK(reports[0].elapsed_s < kFirstProgressS);
  CHECK(reports[1].elapsed_s >= kFirstProgressS);
  CHECK(reports[1].elapsed_s < kFirstProgressS + kProgressIntervalS);
  for (size_t i = 2; i < reports.size(); ++i) {
    CHECK(reports[i].elapsed_s - reports[i - 1].elapsed_s >= kProgressIntervalS);
  }
  const auto with_rows = std::count_if(reports.begin(), reports.end(),
                                       [](const SearchProgress& p) { return !p.rows.empty(); });
  CHECK(with_rows >= 1);
  // Rows only when the ranking changed: two reports in a row never carry the same rows.
  std::vector<RankedStrategy> last_rows;
  for (const SearchProgress& p : reports) {
    if (p.rows.empty()) continue;
    CHECK(p.rows.size() <= 3);
    CHECK(p.rows.front().report.feasible);
    CHECK(p.best_iteration_time_s > 0);
    std::vector<std::string> labels, last_labels;
    for (const RankedStrategy& r : p.rows) labels.push_back(to_json(r, 1, scenario).dump());
    for (const RankedStrategy& r : last_rows) last_labels.push_back(to_json(r, 1, scenario).dump());
    CHECK(labels != last_labels);
    last_rows = p.rows;
  }
  // The rows stream as the final result lists them: each provisional first row is no faster
  // than the exact best.
  for (const SearchProgress& p : reports) {
    if (p.rows.empty()) continue;
    CHECK(p.rows.front().report.iteration_time_s >=
          result.strategies.front().report.iteration_time_s * (1 - 0.05));
  }
  // Without progress_rows the reports carry no rows.
  options.progress_rows = 0;
  reports.clear();
  search(scenario, options);
  for (const SearchProgress& p : reports) CHECK(p.rows.empty());
}

TEST_CASE("the first feasible strategy is reported at once, not an interval later") {
  // The first report comes before anything fits (first_progress_s 0: at the first reading of
  // the clock); the next comes as soon as the search holds a feasible strategy, with the rows so
  // far, where the clock alone would wait kProgressIntervalS (issue 30 item 8).
  // DeepSeek-V3 on 256 A800 (the page's default job) holds nothing feasible after its first few
  // evaluations, and its first feasible strategy within about 0.05 s natively.
  const Scenario scenario = job("deepseek-v3", R"([{"type": "a800", "count": 256}])", 512, 4096);
  SearchOptions options;
  options.top = 5;
  options.time_budget_s = 600;
  options.progress_every = int64_t{1} << 40;  // never by count: only the clock reports
  options.progress_rows = 3;
  options.first_progress_s = 0;
  std::vector<SearchProgress> reports;
  // Stops two reports after the first with a best, however many clock reports come before it (a
  // loaded or sanitized build may need several intervals to find it).
  size_t after_best = 0;
  options.on_progress = [&](const SearchProgress& p) {
    reports.push_back(p);
    if (p.best_iteration_time_s > 0) ++after_best;
    return after_best < 3;
  };
  search(scenario, options);
  REQUIRE(reports.size() >= 2);
  REQUIRE(reports[0].best_iteration_time_s == 0);
  const auto first_best = std::find_if(reports.begin(), reports.end(), [](const SearchProgress& p) {
    return p.best_iteration_time_s > 0;
  });
  REQUIRE(first_best != reports.end());
  CHECK_FALSE(first_best->rows.empty());
  CHECK(first_best->elapsed_s - std::prev(first_best)->elapsed_s < kProgressIntervalS);
  // Once: the reports after it come by the clock again.
  for (auto it = std::next(first_best); it != reports.end(); ++it) {
    CHECK(it->elapsed_s - std::prev(it)->elapsed_s >= kProgressIntervalS);
  }
}

TEST_CASE("the search ranks at_risk strategies below those that fit, unless allowed") {
  // Llama 2 13B on 16 A800 at 4096 tokens: the fastest strategies keep less than the default
  // margin free.
  const Scenario scenario = job("llama2-13b", R"([{"type": "a800", "count": 16}])", 64, 4096);
  SearchOptions options;
  options.top = 20;
  options.time_budget_s = 600;
  const SearchResult tiered = search(scenario, options);
  options.allow_at_risk = true;
  const SearchResult allowed = search(scenario, options);
  REQUIRE(tiered.strategies.size() == 20);
  REQUIRE(allowed.strategies.size() == 20);
  const auto at_risk = [](const RankedStrategy& r) {
    return r.report.memory_verdict == MemoryVerdict::at_risk;
  };
  // Allowed, time alone ranks, and the fastest are at_risk.
  CHECK(at_risk(allowed.strategies.front()));
  for (size_t i = 1; i < allowed.strategies.size(); ++i) {
    CHECK(allowed.strategies[i - 1].report.iteration_time_s <=
          allowed.strategies[i].report.iteration_time_s * (1 + 1e-9));
  }
  // By default, every strategy that fits comes before every at_risk one, each tier by time.
  CHECK(tiered.strategies.front().report.memory_verdict == MemoryVerdict::fits);
  for (size_t i = 1; i < tiered.strategies.size(); ++i) {
    const RankedStrategy& a = tiered.strategies[i - 1];
    const RankedStrategy& b = tiered.strategies[i];
    CHECK_FALSE((at_risk(a) && !at_risk(b)));
    // Within a tier by time, except a safer row within the noise that says why it moved up.
    if (at_risk(a) == at_risk(b) &&
        a.report.iteration_time_s > b.report.iteration_time_s * (1 + 1e-9)) {
      CHECK_FALSE(a.rank_note.empty());
      CHECK(a.report.iteration_time_s <=
            b.report.iteration_time_s * (1 + detail::kRankNoiseFraction));
    }
    CHECK(b.report.memory_verdict != MemoryVerdict::oom);
  }
  CHECK(tiered.strategies.front().report.iteration_time_s >
        allowed.strategies.front().report.iteration_time_s);
}

TEST_CASE("the search never ranks a strategy above capacity minus the memory margin") {
  const Scenario scenario = job("llama2-13b", R"([{"type": "a800", "count": 16}])", 64, 4096);
  const auto search_with = [&](const std::string& margin) {
    SearchOptions options;
    options.top = 20;
    options.time_budget_s = 600;
    options.memory_margin = parse_memory_margin(margin, "margin");
    options.allow_at_risk = true;  // the given margin alone decides
    return search(scenario, options);
  };
  const auto tightest = [](const SearchResult& result) {
    double headroom = 1e30;
    for (const RankedStrategy& r : result.strategies) {
      headroom = std::min(headroom, r.report.headroom_bytes());
    }
    return headroom;
  };
  const double capacity = scenario.cluster.pools[0].gpu.hbm_bytes;
  const SearchResult none = search_with("0");
  const SearchResult by_default = search(scenario, SearchOptions{});
  const SearchResult wide = search_with("25%");
  const SearchResult fixed = search_with("12");
  REQUIRE(!none.strategies.empty());
  REQUIRE(!wide.strategies.empty());
  CHECK(tightest(none) >= 0);
  // By default the margin is soft: the at_risk strategies inside it rank after the 20 that fit.
  CHECK(tightest(by_default) >= MemoryMargin{}.of(capacity));
  CHECK(tightest(wide) >= 0.25 * capacity);
  CHECK(tightest(fixed) >= 12 * units::kGiB);
  // The margin removes strategies the unmargined search ranks first: the memory-hungry ones.
  CHECK(tightest(none) < 0.25 * capacity);
  CHECK(wide.strategies.front().report.iteration_time_s >=
        none.strategies.front().report.iteration_time_s);
}

TEST_CASE("memory margins parse as GiB or a percentage; anything else names the field") {
  CHECK(parse_memory_margin("2.5", "m").bytes == doctest::Approx(2.5 * units::kGiB));
  CHECK(parse_memory_margin("2.5", "m").fraction == 0);
  CHECK(parse_memory_margin("7%", "m").fraction == doctest::Approx(0.07));
  CHECK(parse_memory_margin("7%", "m").bytes == 0);
  CHECK(MemoryMargin{}.fraction == doctest::Approx(limits::default_memory_margin_percent() / 100));
  for (const char* bad : {"", "%", "abc", "-1", "95%", "5%%", "2GiB", "1e9"}) {
    CAPTURE(bad);
    try {
      parse_memory_margin(bad, "--memory-margin");
      FAIL("accepted");
    } catch (const InputError& error) {
      CHECK(error.path() == "--memory-margin");
    }
  }
}

TEST_CASE(
    "layers that do not divide over the pipeline are split unevenly, estimated and searched") {
  // DeepSeek-V3's 61 layers on 4 stages x 4 chunks (Megatron-Bridge's GB200 recipe): no even
  // split, with or without the embedding and loss counted.
  const std::string model = R"({"name": "61", "num_layers": 61, "hidden_size": 2048,
      "ffn_hidden_size": 8192, "num_attention_heads": 16, "vocab_size": 129280,
      "activation": "swiglu"})";
  const auto scenario = [&](const std::string& strategy) {
    return test::scenario(R"({"model": )" + model +
                          R"(, "training": {"global_batch_size": 64, "seq_length": 4096},
        "cluster": {"gpus": [{"type": "h100", "count": 16}]}, "strategy": )" +
                          strategy + "}");
  };
  const Report balanced = estimate(scenario(R"({"pipeline_model_parallel_size": 4,
      "virtual_pipeline_model_parallel_size": 4, "use_flash_attn": true})"));
  REQUIRE(balanced.feasible);
  int64_t layers = 0;
  for (const StageReport& stage : balanced.stages) layers += stage.layers;
  CHECK(layers == 61);
  // The estimate's split is no slower than any split with the stages' layers within 2 of 61/4.
  double best = 1e300;
  for (int a = 13; a <= 17; ++a)
    for (int b = 13; b <= 17; ++b)
      for (int c = 13; c <= 17; ++c) {
        const int d = 61 - a - b - c;
        if (d < 13 || d > 17) continue;
        const Report r = estimate(scenario(R"({"pipeline_model_parallel_size": 4,
            "virtual_pipeline_model_parallel_size": 4, "use_flash_attn": true,
            "pipeline_stage_layers": [)" + std::to_string(a) +
                                           "," + std::to_string(b) + "," + std::to_string(c) + "," +
                                           std::to_string(d) + "]}"));
        if (r.feasible) best = std::min(best, r.iteration_time_s);
      }
  CHECK(balanced.iteration_time_s <= best * 1.002);

  // The search finds uneven splits, and pruning keeps the exhaustive top 5.
  const Scenario open = test::scenario(R"({"model": )" + model +
                                       R"(, "training": {"global_batch_size": 64,
      "seq_length": 4096}, "cluster": {"gpus": [{"type": "h100", "count": 16}]},
      "strategy": {"pipeline_model_parallel_size": 4}})");
  const SearchResult result = run(open, 5);
  REQUIRE_FALSE(result.strategies.empty());
  for (const RankedStrategy& ranked : result.strategies) {
    const std::vector<int64_t>& split = ranked.strategy.pipeline_stage_layers;
    REQUIRE(split.size() == 4);
    CHECK(std::accumulate(split.begin(), split.end(), int64_t{0}) == 61);
  }
  check_same_ranking(open, 5);
}

TEST_CASE("the best of each layout family comes from every strategy the search saw") {
  // Llama 2 7B on 16 H100: the top 3 layouts leave families out that the search still saw.
  const Scenario scenario = job("llama2-7b", R"([{"type": "h100", "count": 16}])", 32, 4096);
  const SearchResult top3 = run(scenario, 3, false, true);
  const SearchResult exhaustive = run(scenario, 1, true, true);
  REQUIRE(top3.strategies.size() == 3);
  REQUIRE_FALSE(exhaustive.family_bests.empty());
  for (const FamilyBest& best : exhaustive.family_bests) {
    CAPTURE(to_string(best.family));
    CHECK(detail::in_family(best.best.strategy, best.family));
    CHECK(best.best.report.feasible);
    // Exact where it could rank: a family best of the pruned search that is no slower than the
    // third row is the exhaustive search's.
    const auto pruned = std::find_if(top3.family_bests.begin(), top3.family_bests.end(),
                                     [&](const FamilyBest& f) { return f.family == best.family; });
    if (pruned != top3.family_bests.end() &&
        pruned->best.report.iteration_time_s <= top3.strategies.back().report.iteration_time_s) {
      CHECK(pruned->best.report.iteration_time_s ==
            doctest::Approx(best.best.report.iteration_time_s).epsilon(1e-12));
    }
    // Listed with its rank where it is one of the rows.
    if (best.rank > 0) {
      CHECK(detail::ordering_key(exhaustive.strategies[best.rank - 1].strategy) ==
            detail::ordering_key(best.best.strategy));
    }
  }
  // Families beyond the three rows are found.
  CHECK(top3.family_bests.size() >= 2);
}
