// Property: for any job and any pinned keys, the search returns only strategies that the public
// estimate accepts, with the same numbers, keeping every pin. Random jobs and pins, fixed seed.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "paraplan/search.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// Pins a random key of any kind (the switch has no default, so -Wswitch names a new kind): a
// scalar near its useful range, a subset of a choice set, a fraction, or a stage list.
void pin_random_key(std::mt19937& random, const nlohmann::json& cluster, nlohmann::json& pins) {
  const auto keys = strategy_keys();
  const StrategyKey& key = keys[std::uniform_int_distribution<size_t>(0, keys.size() - 1)(random)];
  const auto pick = [&](std::vector<nlohmann::json> values) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(random)];
  };
  switch (key.type) {
    case KeyType::boolean:
      pins[key.name] = pick({true, false});
      break;
    case KeyType::choice:
      pins[key.name] =
          key.choices[std::uniform_int_distribution<size_t>(0, key.choices.size() - 1)(random)];
      break;
    case KeyType::integer:
      pins[key.name] =
          key.id == StrategyKeyId::zero_stage ? pick({0, 1, 2, 3}) : pick({1, 1, 2, 2, 3, 4, 8});
      break;
    case KeyType::choice_set: {  // a random subset of the choices, the empty one included
      const int64_t bits =
          std::uniform_int_distribution<int64_t>(0, (int64_t{1} << key.choices.size()) - 1)(random);
      nlohmann::json names = nlohmann::json::array();
      for (const std::string_view name : choice_set_names(key, bits)) {
        names.push_back(std::string(name));
      }
      pins[key.name] = names;
      break;
    }
    case KeyType::fraction:
      pins[key.name] = pick({0.0, 0.25, 0.5, 1.0});
      break;
    case KeyType::gpu_list: {
      nlohmann::json stages = nlohmann::json::array();
      const nlohmann::json& gpus = cluster["gpus"];
      for (int i = 0; i < 2; ++i)
        stages.push_back(gpus[static_cast<size_t>(i) % gpus.size()]["type"]);
      pins[key.name] = stages;
      break;
    }
    case KeyType::integer_list:
      pins[key.name] = pick({nlohmann::json{8, 8}, nlohmann::json{6, 10}, nlohmann::json{16}});
      break;
  }
}

nlohmann::json random_job(std::mt19937& random) {
  const auto pick = [&](std::vector<nlohmann::json> values) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(random)];
  };
  const nlohmann::json dense = nlohmann::json::parse(R"({"name": "dense", "num_layers": 16,
      "hidden_size": 2048, "ffn_hidden_size": 5632, "num_attention_heads": 16,
      "num_query_groups": 4, "vocab_size": 32000, "activation": "swiglu"})");
  const nlohmann::json moe = nlohmann::json::parse(R"({"name": "moe", "num_layers": 16,
      "hidden_size": 2048, "ffn_hidden_size": 5632, "num_attention_heads": 16,
      "num_query_groups": 8, "vocab_size": 32000, "activation": "swiglu",
      "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 1408}})");
  nlohmann::json job;
  job["model"] = pick({dense, moe, "llama2-7b", "gpt3-1.3b"});
  if (job["model"] == "gpt3-1.3b") job["model"] = dense;  // keep the run short
  job["training"] = {{"global_batch_size", pick({8, 16, 32, 64})},
                     {"seq_length", pick({1024, 2048, 4096})},
                     {"precision", pick({"bf16", "bf16", "fp16", "fp8"})}};
  const nlohmann::json single = {
      {{"type", pick({"h100", "a100", "a800"})}, {"count", pick({8, 16})}}};
  const nlohmann::json mixed = {{{"type", "a800"}, {"count", 8}}, {{"type", "h800"}, {"count", 8}}};
  job["cluster"] = {{"gpus", pick({single, single, mixed})}};
  return job;
}

}  // namespace

TEST_CASE("for random jobs and pins, every strategy the search returns passes the estimate") {
  std::mt19937 random(20261122);
  int searches_with_results = 0;
  // A third of the trials under the sanitizers (the same seed: their first 40).
  const int trials = test::kSanitizedBuild ? 40 : 120;
  for (int trial = 0; trial < trials; ++trial) {
    nlohmann::json document = random_job(random);
    nlohmann::json pins = nlohmann::json::object();
    const int pin_count = std::uniform_int_distribution<int>(0, 3)(random);
    for (int i = 0; i < pin_count; ++i) pin_random_key(random, document["cluster"], pins);
    document["strategy"] = pins;
    CAPTURE(document.dump());
    Scenario scenario;
    try {
      scenario = parse_scenario(document);
    } catch (const InputError&) {
      continue;  // a pin out of range for this model (say, more stages than layers)
    }
    SearchOptions options;
    options.top = 5;
    options.time_budget_s = 600;
    const SearchResult result = search(scenario, options);
    CHECK(result.stats.rejected_on_estimate == 0);
    CHECK(result.stats.complete);
    if (result.strategies.empty()) CHECK(result.diagnosis.size() == 1);
    searches_with_results += result.strategies.empty() ? 0 : 1;
    for (const RankedStrategy& ranked : result.strategies) {
      nlohmann::json pinned = document;
      pinned["strategy"] = to_json(ranked.strategy, scenario.cluster);
      CAPTURE(pinned["strategy"].dump());
      // Every pin holds in the result (per-GPU keys may come back as {"<GPU type>": value}).
      for (const auto& [key, value] : pins.items()) {
        const nlohmann::json& out = pinned["strategy"][key];
        if (out.is_object()) {
          for (const auto& [gpu, item] : out.items()) CHECK(item == value);
        } else {
          CHECK(out == value);
        }
      }
      const Report direct = estimate(parse_scenario(pinned));
      INFO(nlohmann::json(direct.infeasible_reasons).dump());
      CHECK(direct.feasible);
      CHECK(direct.iteration_time_s == doctest::Approx(ranked.report.iteration_time_s));
    }
  }
  CHECK(searches_with_results > trials / 3);  // the property is not vacuous
}
