// Arithmetic at the extremes AIAK allows (1,048,576 GPUs, tokens per sequence, global batch)
// and beyond: every output is a finite number, searches answer within their budget.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>

#include "model/text_ids.hpp"
#include "paraplan/search.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

constexpr int64_t kMillion = 1 << 20;

// Every number in a JSON document is finite (nlohmann writes NaN and Inf as null).
void check_numbers(const nlohmann::json& value, const std::string& path = "") {
  CAPTURE(path);
  if (value.is_null()) FAIL("null (a NaN or an infinity) at " << path);
  if (value.is_number()) CHECK(std::isfinite(value.get<double>()));
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) check_numbers(item, path + "." + key);
  }
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i)
      check_numbers(value[i], path + "[" + std::to_string(i) + "]");
  }
}

nlohmann::json scenario(const nlohmann::json& model, int64_t gpus, int64_t batch, int64_t seq,
                        const nlohmann::json& strategy) {
  nlohmann::json s = {{"model", model},
                      {"training", {{"global_batch_size", batch}, {"seq_length", seq}}},
                      {"cluster", {{"gpus", {{{"type", "h100"}, {"count", gpus}}}}}}};
  if (!strategy.is_null()) s["strategy"] = strategy;
  return s;
}

const nlohmann::json kHugeModel = {{"name", "huge"},
                                   {"num_layers", 65536},
                                   {"hidden_size", 1 << 24},
                                   {"ffn_hidden_size", 1 << 24},
                                   {"num_attention_heads", 1 << 16},
                                   {"vocab_size", 1 << 30},
                                   {"activation", "swiglu"}};

}  // namespace

TEST_CASE("estimates stay finite over a grid of extreme scenarios") {
  const std::vector<nlohmann::json> models = {"llama2-7b", "llama-1800b", "deepseek-v3",
                                              kHugeModel};
  const std::vector<nlohmann::json> strategies = {nullptr,
                                                  {{"tensor_model_parallel_size", 8},
                                                   {"pipeline_model_parallel_size", 16},
                                                   {"sequence_parallel", true},
                                                   {"use_flash_attn", true},
                                                   {"zero_stage", 3}},
                                                  {{"context_parallel_size", 1024},
                                                   {"use_flash_attn", true},
                                                   {"recompute_granularity", "full"}},
                                                  {{"micro_batch_size", kMillion},
                                                   {"recompute_granularity", "full"},
                                                   {"recompute_method", "block"},
                                                   {"recompute_num_layers", 1}},
                                                  {{"expert_model_parallel_size", 256},
                                                   {"expert_tensor_parallel_size", 1},
                                                   {"moe_token_dispatcher_type", "flex"},
                                                   {"moe_grouped_gemm", true},
                                                   {"overlap_moe_expert_parallel_comm", true}}};
  for (const nlohmann::json& model : models) {
    for (const int64_t gpus : {int64_t{1}, int64_t{1024}, kMillion, kMillion * 16}) {
      for (const int64_t batch : {int64_t{1}, kMillion}) {
        for (const int64_t seq : {int64_t{1}, int64_t{4096}, kMillion}) {
          for (const nlohmann::json& strategy : strategies) {
            const nlohmann::json document = scenario(model, gpus, batch, seq, strategy);
            CAPTURE(document.dump());
            const Report report = estimate(parse_scenario(document));
            check_numbers(to_json(report));
            if (report.feasible) CHECK(report.iteration_time_s > 0);
          }
        }
      }
    }
  }
}

TEST_CASE("searches at the extremes answer within their time budget, with finite numbers") {
  for (const int64_t gpus : {kMillion, int64_t{3}}) {
    for (const int64_t seq : {int64_t{1}, kMillion}) {
      const nlohmann::json document = scenario("llama-1800b", gpus, kMillion, seq, nullptr);
      CAPTURE(document.dump());
      SearchOptions options;
      options.top = 3;
      options.time_budget_s = 2;
      const auto start = std::chrono::steady_clock::now();
      const SearchResult result = search(parse_scenario(document), options);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      CHECK(seconds < 10);
      check_numbers(to_json(result, parse_scenario(document)));
      CHECK((!result.strategies.empty() || !result.diagnosis.empty() || !result.stats.complete));
    }
  }
}

TEST_CASE("a mixed cluster of many GPU types searches within its budget") {
  nlohmann::json gpus = nlohmann::json::array();
  for (const char* type : {"a100", "a800", "h100", "h800", "h20", "h200", "b200", "mi300x"}) {
    gpus.push_back({{"type", type}, {"count", 512}});
  }
  const nlohmann::json document = {
      {"model", "llama2-70b"},
      {"training", {{"global_batch_size", 1024}, {"seq_length", 4096}}},
      {"cluster", {{"gpus", gpus}, {"num_gpus", 2048}}}};
  SearchOptions options;
  options.top = 3;
  options.time_budget_s = 2;
  const auto start = std::chrono::steady_clock::now();
  const SearchResult result = search(parse_scenario(document), options);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10);
  check_numbers(to_json(result, parse_scenario(document)));
}

TEST_CASE("GPU types without the training precision are left out of a search") {
  const nlohmann::json document = nlohmann::json::parse(R"({"model": "llama2-7b",
      "training": {"global_batch_size": 64, "seq_length": 4096, "precision": "fp8"},
      "cluster": {"num_gpus": 16,
                  "gpus": [{"type": "a800", "count": 16}, {"type": "h800", "count": 16}]}})");
  SearchOptions options;
  options.top = 5;
  const SearchResult result = search(parse_scenario(document), options);
  REQUIRE_FALSE(result.strategies.empty());
  for (const RankedStrategy& ranked : result.strategies) {
    for (const int pool : ranked.strategy.pipeline_stage_gpus) CHECK(pool == 1);  // h800 only
    CHECK(ranked.report.feasible);
  }
  const nlohmann::json only_a800 = {
      {"model", "llama2-7b"},
      {"training", {{"global_batch_size", 64}, {"seq_length", 4096}, {"precision", "fp8"}}},
      {"cluster", {{"gpus", {{{"type", "a800"}, {"count", 16}}}}}}};
  const SearchResult none = search(parse_scenario(only_a800), options);
  CHECK(none.strategies.empty());
  REQUIRE(none.diagnosis.size() == 1);
  CHECK(none.diagnosis[0] == "no GPU type of the cluster has fp8 tensor cores");
  REQUIRE(none.diagnosis_texts.size() == 1);
  CHECK(none.diagnosis_texts[0].id == std::string(text_id::kNoTensorCores));
  CHECK(none.diagnosis_texts[0].args ==
        std::vector<std::pair<std::string, std::string>>{{"precision", "fp8"}});
}
