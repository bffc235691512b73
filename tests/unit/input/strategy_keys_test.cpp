// The strategy-key table drives parsing, JSON, ordering, the cost-cache key and the schema:
// every key must take part in each, so a forgotten place is a named failure here.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "model/cost_cache.hpp"
#include "paraplan/estimate.hpp"
#include "paraplan/megatron.hpp"
#include "paraplan/request.hpp"
#include "search/top_strategies.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// A MoE model on a mixed cluster, so that every key can take a non-default value.
nlohmann::json document() {
  return nlohmann::json::parse(R"({"model": {"name": "moe", "num_layers": 8,
      "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 16,
      "num_query_groups": 4, "vocab_size": 32000, "activation": "swiglu",
      "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 1024}},
      "training": {"global_batch_size": 64, "seq_length": 2048},
      "cluster": {"gpus": [{"type": "h100", "count": 16}, {"type": "a100", "count": 16}]}})");
}

Scenario base() { return parse_scenario(document()); }

// A value of `key` other than its default (for per-GPU keys, on GPU type 1 only).
void set_other(const StrategyKey& key, Strategy& s) {
  if (key.type == KeyType::gpu_list) {
    s.pipeline_stage_gpus = {1, 0};
  } else if (key.type == KeyType::integer_list) {
    s.pipeline_stage_layers = {3, 5};
  } else {
    const int64_t other = key.default_value() == key.min ? key.min + 1 : key.min;
    key.set(s, key.per_gpu ? 1 : 0, other);
  }
}

// A strategy that parses on base(): two stages, one per GPU type, 4 layers each.
Strategy valid_strategy() {
  Strategy s;
  s.recompute.resize(2);
  s.pipeline_model_parallel_size = 2;
  s.pipeline_stage_gpus = {0, 1};
  s.pipeline_stage_layers = {4, 4};
  return s;
}

}  // namespace

TEST_CASE("every key has a row, a unique name, a default and a schema entry") {
  REQUIRE(strategy_keys().size() == kNumStrategyKeys);
  const nlohmann::json schema = input_schema()["strategy_keys"];
  REQUIRE(schema.size() == kNumStrategyKeys);
  for (size_t i = 0; i < kNumStrategyKeys; ++i) {
    const StrategyKey& key = strategy_keys()[i];
    CAPTURE(key.name);
    CHECK(static_cast<size_t>(key.id) == i);
    CHECK(schema[i]["name"] == key.name);
    CHECK_FALSE(key.description.empty());
    if (key.megatron != MegatronFlag::composite) CHECK_FALSE(key.megatron_flag.empty());
    if (key.scalar()) {
      CHECK((key.get != nullptr && key.set != nullptr));
      CHECK(schema[i].contains("default"));
    }
  }
}

TEST_CASE("every key round-trips through JSON and changes the ordering key") {
  const Scenario scenario = base();
  for (const StrategyKey& key : strategy_keys()) {
    CAPTURE(key.name);
    Strategy s = valid_strategy();
    if (key.id == StrategyKeyId::pipeline_model_parallel_size) {  // the stage lists follow it
      s.pipeline_model_parallel_size = 4;
      s.pipeline_stage_gpus = {0, 0, 1, 1};
      s.pipeline_stage_layers = {2, 2, 2, 2};
    } else {
      set_other(key, s);
    }
    CHECK(detail::ordering_key(s) != detail::ordering_key(valid_strategy()));
    nlohmann::json with_strategy = document();
    with_strategy["strategy"] = to_json(s, scenario.cluster);
    const Scenario parsed = parse_scenario(with_strategy);
    const Strategy back = complete_strategy(parsed);
    CHECK(detail::ordering_key(back) == detail::ordering_key(s));
    CHECK(to_json(back, parsed.cluster) == with_strategy["strategy"]);
  }
}

TEST_CASE("a key outside the layer shape never changes per-layer costs") {
  // Layer costs are cached by the layer_cost keys' values: a key that changed them without
  // being marked would make the cache return another shape's costs.
  const Scenario scenario = base();
  const GpuSpec& gpu = scenario.cluster.pools[0].gpu;
  const auto costs = [&](const Strategy& s) {
    const detail::ModelCosts c =
        detail::compute_model_costs(scenario.model, scenario.training, gpu, 8, s);
    return std::vector<double>{
        c.dense.forward.total_s(), c.dense.backward.total_s(), c.dense.activation_bytes,
        c.dense.parameters,        c.moe.forward.total_s(),    c.moe.backward.total_s(),
        c.moe.activation_bytes,    c.moe.expert_parameters,    c.embedding.forward.total_s(),
        c.head.backward.total_s(), c.head.transient_bytes,     c.dense.checkpoint_bytes};
  };
  // A shape where every layer key acts: tensor and sequence parallel, experts, context.
  Strategy shape = valid_strategy();
  shape.tensor_model_parallel_size = 2;
  shape.sequence_parallel = true;
  shape.use_flash_attn = true;
  shape.context_parallel_size = 2;
  shape.expert_model_parallel_size = 2;
  const std::vector<double> reference = costs(shape);
  for (const StrategyKey& key : strategy_keys()) {
    CAPTURE(key.name);
    Strategy changed = shape;
    if (key.scalar()) {
      const int64_t value = key.get(shape, 0);
      key.set(changed, 0, value == key.min ? key.min + 1 : key.min);
    } else {
      set_other(key, changed);
    }
    if (key.layer_cost) CHECK(detail::layer_shape(changed, 0) != detail::layer_shape(shape, 0));
    if (!key.layer_cost) CHECK(costs(changed) == reference);
  }
}

TEST_CASE("pins set exactly the keys they give") {
  const Scenario scenario = test::scenario(R"({"model": "llama2-7b",
      "training": {"global_batch_size": 64, "seq_length": 2048},
      "cluster": {"gpus": [{"type": "h100", "count": 16}, {"type": "a100", "count": 16}]},
      "strategy": {"micro_batch_size": 2, "recompute_granularity": {"a100": "full"},
                   "pipeline_stage_gpus": ["h100", "a100"]}})");
  const StrategyPins& pins = scenario.strategy;
  CHECK(pins.get(StrategyKeyId::micro_batch_size) == 2);
  CHECK_FALSE(pins.get(StrategyKeyId::tensor_model_parallel_size).has_value());
  CHECK(pins.get(StrategyKeyId::pipeline_model_parallel_size) == 2);  // from the stage list
  CHECK_FALSE(pins.get(StrategyKeyId::recompute_granularity, 0).has_value());
  CHECK(pins.get(StrategyKeyId::recompute_granularity, 1) == 2);
  CHECK(pins.given(StrategyKeyId::recompute_granularity));
  CHECK(pins.given(StrategyKeyId::pipeline_stage_gpus));
  CHECK_FALSE(pins.given(StrategyKeyId::pipeline_stage_layers));
  const Strategy s = complete_strategy(scenario);
  CHECK(s.recompute[0].granularity == RecomputeGranularity::none);
  CHECK(s.recompute[1].granularity == RecomputeGranularity::full);
}

TEST_CASE(
    "MoE defaults: alltoall with expert parallelism, grouped GEMM and fused permutation "
    "where the framework has them, no biases") {
  const auto parsed = [](int expert_parallel, const std::string& keys,
                         const std::string& framework = "megatron") {
    return test::scenario(R"({"model": {"name": "moe", "num_layers": 8,
        "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 16,
        "vocab_size": 32000, "activation": "gelu", "moe": {"num_experts": 8, "top_k": 2}},
        "training": {"global_batch_size": 64, "seq_length": 2048},
        "cluster": {"gpus": [{"type": "h100", "count": 16}]}, "framework": ")" +
                          framework + R"(", "strategy": {"expert_model_parallel_size": )" +
                          std::to_string(expert_parallel) + keys + "}}");
  };
  const Scenario folded = parsed(8, "");
  const Strategy s = complete_strategy(folded);
  CHECK(s.moe_token_dispatcher_type == MoeDispatcher::alltoall);
  CHECK(s.moe_grouped_gemm);
  CHECK(s.moe_permute_fusion);
  const std::string flags = join_arguments(megatron_arguments(s, folded.model, folded.training));
  CHECK(flags.find("--moe-token-dispatcher-type alltoall") != std::string::npos);
  CHECK(flags.find("--moe-grouped-gemm") != std::string::npos);
  CHECK(flags.find("--moe-permute-fusion") != std::string::npos);
  CHECK_FALSE(folded.model.add_bias_linear);  // a GeLU MLP, but MoE

  CHECK(complete_strategy(parsed(1, "")).moe_token_dispatcher_type == MoeDispatcher::allgather);
  const Strategy pinned = complete_strategy(
      parsed(8, R"(, "moe_token_dispatcher_type": "allgather", "moe_grouped_gemm": false)"));
  CHECK(pinned.moe_token_dispatcher_type == MoeDispatcher::allgather);
  CHECK_FALSE(pinned.moe_grouped_gemm);
  CHECK(pinned.moe_permute_fusion);
  // Megatron-DeepSpeed has neither switch; torchtitan has grouped GEMM, not the fused permute.
  const Strategy deepspeed = complete_strategy(parsed(8, "", "deepspeed"));
  CHECK_FALSE(deepspeed.moe_grouped_gemm);
  CHECK_FALSE(deepspeed.moe_permute_fusion);
  const Strategy torchtitan = complete_strategy(parsed(8, "", "torchtitan"));
  CHECK(torchtitan.moe_grouped_gemm);
  CHECK_FALSE(torchtitan.moe_permute_fusion);

  const Scenario dense = test::scenario(R"({"model": {"name": "gpt", "num_layers": 8,
      "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 16,
      "vocab_size": 32000, "activation": "gelu"},
      "training": {"global_batch_size": 64, "seq_length": 2048},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  CHECK(dense.model.add_bias_linear);  // Megatron-LM's GPT default
  CHECK_FALSE(complete_strategy(dense).moe_grouped_gemm);
}

TEST_CASE(
    "MoE default: expert tensor parallel equal to tensor parallel where that launches, else 1") {
  // Qwen3-235B-A22B's Megatron-Bridge H100 layout (TP 2, PP 8, EP 32 on 256 GPUs) launches only
  // with expert tensor parallel 1: 2 x 32 x 8 does not divide 256.
  const auto completed = [](int gpus, int expert_parallel, const std::string& keys = "") {
    const Scenario scenario = test::scenario(R"({"model": "qwen3-235b-a22b",
        "training": {"global_batch_size": 2048, "seq_length": 4096},
        "cluster": {"gpus": [{"type": "h100", "count": )" +
                                             std::to_string(gpus) + R"(}]},
        "strategy": {"tensor_model_parallel_size": 2, "pipeline_model_parallel_size": 8,
                     "expert_model_parallel_size": )" +
                                             std::to_string(expert_parallel) + keys + "}}");
    return std::pair{scenario, complete_strategy(scenario)};
  };
  const auto [folded, s] = completed(256, 32);
  CHECK(s.expert_tensor_parallel() == 1);
  const std::string flags = join_arguments(megatron_arguments(s, folded.model, folded.training));
  CHECK(flags.find("--expert-tensor-parallel-size 1") != std::string::npos);
  for (const std::string& reason : estimate(folded).infeasible_reasons) {
    CHECK(reason.find("does not divide") == std::string::npos);
  }
  // Where tensor parallel launches, Megatron-LM's default stays.
  CHECK(completed(512, 32).second.expert_tensor_parallel_size == 0);
  // Pinned, it stays, and the estimate says why it cannot launch.
  const auto [pinned, p] = completed(256, 32, R"(, "expert_tensor_parallel_size": 2)");
  CHECK(p.expert_tensor_parallel() == 2);
  const Report report = estimate(pinned);
  REQUIRE_FALSE(report.infeasible_reasons.empty());
  CHECK(report.infeasible_reasons.front().find("does not divide the 256 GPUs") !=
        std::string::npos);
}

TEST_CASE("fp8 default: fp8 parameter gathers where the optimizer and the framework allow them") {
  const auto completed = [](const std::string& precision, const std::string& keys,
                            const std::string& framework = "megatron") {
    return complete_strategy(test::scenario(R"({"model": "llama3-8b",
        "training": {"global_batch_size": 64, "seq_length": 2048, "precision": ")" +
                                            precision + R"("},
        "cluster": {"gpus": [{"type": "h100", "count": 8}]}, "framework": ")" +
                                            framework + R"(", "strategy": {"zero_stage": )" + keys +
                                            "}}"));
  };
  CHECK(completed("fp8", "1").fp8_param_gather);
  CHECK_FALSE(completed("bf16", "1").fp8_param_gather);
  CHECK_FALSE(completed("fp8", "0").fp8_param_gather);  // needs the distributed optimizer
  CHECK_FALSE(completed("fp8", R"(1, "fp8_param_gather": false)").fp8_param_gather);
  CHECK_FALSE(completed("fp8", "1", "deepspeed").fp8_param_gather);
}

TEST_CASE("reuse_fp32_param: MindSpeed's argument name, a boolean, off unless given") {
  nlohmann::json d = document();
  CHECK_FALSE(complete_strategy(parse_scenario(d)).reuse_fp32_param);
  d["strategy"] = {{"reuse_fp32_param", true}};
  const Scenario on = parse_scenario(d);
  CHECK(on.strategy.given(StrategyKeyId::reuse_fp32_param));
  const Strategy s = complete_strategy(on);
  CHECK(s.reuse_fp32_param);
  CHECK(to_json(s, on.cluster)["reuse_fp32_param"] == true);
  d["strategy"] = {{"reuse_fp32_param", "yes"}};
  CHECK_THROWS_AS(parse_scenario(d), InputError);
}
