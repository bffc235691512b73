// Bad input is an InputError naming the JSON path and what was expected.
#include <doctest/doctest.h>

#include "paraplan/request.hpp"
#include "support.hpp"

using paraplan::test::input_error;

namespace {

// The id and values the error of `json` carries, for the page to write it in its language
// (web/src/i18n/error-texts.ts), with its English as `text`.
paraplan::CoreText error_text(std::string_view json) {
  try {
    paraplan::test::scenario(json);
  } catch (const paraplan::InputError& error) {
    return error.text();
  }
  return {};
}

using Args = std::vector<std::pair<std::string, std::string>>;

const char* kCluster = R"("cluster": {"gpus": [{"type": "a100", "count": 8}]})";
const char* kTraining = R"("training": {"global_batch_size": 8, "seq_length": 2048})";

std::string with_strategy(const std::string& strategy) {
  return std::string(R"({"model": "llama2-7b", )") + kTraining + ", " + kCluster +
         R"(, "strategy": )" + strategy + "}";
}

}  // namespace

TEST_CASE("a valid scenario parses") {
  CHECK(input_error(with_strategy(R"({"tensor_model_parallel_size": 2})")) == "");
}

TEST_CASE("errors name the field and the expectation") {
  CHECK(input_error(with_strategy(R"({"tensor_model_parallel_size": 0})")) ==
        "strategy.tensor_model_parallel_size: expected an integer from 1 to 16777216, got 0");
  CHECK(input_error(with_strategy(R"({"tensor_model_parallel_size": 2.5})"))
            .find("strategy.tensor_model_parallel_size: expected an integer") == 0);
  CHECK(input_error(with_strategy(R"({"sequence_parallel": "yes"})")) ==
        "strategy.sequence_parallel: expected true or false, got the string \"yes\"");
  CHECK(input_error(with_strategy(R"({"recompute_granularity": "some"})")) ==
        "strategy.recompute_granularity: expected one of \"none\", \"selective\", \"full\", got "
        "the string \"some\"");
  CHECK(input_error(with_strategy(R"({"zero_stage": 4})")) ==
        "strategy.zero_stage: expected an integer from 0 to 3, got 4");
}

TEST_CASE("the strict readers' errors carry an id and the values they name") {
  const paraplan::CoreText range = error_text(with_strategy(R"({"zero_stage": 4})"));
  CHECK(range.id == "input error: expected an integer in a range");
  CHECK(range.text == "expected an integer from 0 to 3, got 4");
  CHECK(range.args == Args{{"min", "0"}, {"max", "3"}, {"got_type", "number"}, {"got_value", "4"}});
  const paraplan::CoreText choice =
      error_text(with_strategy(R"({"recompute_granularity": "some"})"));
  CHECK(choice.id == "input error: expected one of the choices");
  CHECK(choice.args == Args{{"choices", "\"none\", \"selective\", \"full\""},
                            {"got_type", "string"},
                            {"got_value", "\"some\""}});
  CHECK(error_text(with_strategy(R"({"sequence_parallel": [1]})")).args ==
        Args{{"got_type", "array"}, {"got_value", "an array"}});
  const paraplan::CoreText unknown = error_text(with_strategy(R"({"tensor_parallel_size": 2})"));
  CHECK(unknown.id == "input error: unknown key");
  CHECK(unknown.args == Args{{"closest", "tensor_model_parallel_size"}});
  CHECK(error_text(R"({"training": {}})").id == "input error: is required");
  CHECK(error_text(R"([1])").id == "input error: expected an object");
  // The readers' own checks too (issue 30 item 9): with the values their message names.
  const paraplan::CoreText twice =
      error_text(std::string(R"({"model": "llama2-7b", )") + kTraining +
                 R"(, "cluster": {"gpus": [{"type": "a100", "count": 8}, {"type": "a100", )"
                 R"("count": 8}]}})");
  CHECK(twice.id == "input error: GPU type listed twice");
  CHECK(twice.args == Args{{"gpu", "a100"}});
  const paraplan::CoreText heads =
      error_text(std::string(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 64, )") +
                 R"("ffn_hidden_size": 128, "num_attention_heads": 8, "num_query_groups": 3, )"
                 R"("vocab_size": 100, "activation": "swiglu"}, )" +
                 kTraining + R"(, "cluster": {"gpus": [{"type": "a100", "count": 8}]}})");
  CHECK(heads.id == "input error: must divide the heads");
  CHECK(heads.args == Args{{"heads", "8"}, {"got_value", "3"}});
}

TEST_CASE("a number key reads within its own limits: a capacity factor above 1") {
  CHECK(input_error(with_strategy(R"({"moe_expert_capacity_factor": 1.5})")) == "");
  CHECK(input_error(with_strategy(R"({"moe_expert_capacity_factor": -1})"))
            .find("strategy.moe_expert_capacity_factor: expected a number") == 0);
  CHECK(input_error(with_strategy(R"({"optimizer_offload_fraction": 1.5})"))
            .find("strategy.optimizer_offload_fraction: expected a number") == 0);
}

TEST_CASE("unknown keys are errors, with a suggestion for near misses") {
  CHECK(input_error(with_strategy(R"({"tensor_parallel_size": 2})")) ==
        "strategy.tensor_parallel_size: unknown key (did you mean "
        "\"tensor_model_parallel_size\"?)");
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining + ", " + kCluster +
                    R"(, "extra": 1})") == "extra: unknown key");
}

TEST_CASE("the framework is one of the launch targets") {
  const std::string job = std::string(R"({"model": "llama2-7b", )") + kTraining + ", " + kCluster;
  CHECK(input_error(job + R"(, "framework": "deepspeed"})") == "");
  CHECK(input_error(job + R"(, "framework": "megatron-bridge"})") == "");
  CHECK(input_error(job + R"(, "framework": "fairseq"})") ==
        "framework: expected one of \"megatron\", \"megatron-bridge\", \"mindspeed-llm\", "
        "\"deepspeed\", \"colossalai\", \"torchtitan\", got the string \"fairseq\"");
}

TEST_CASE("the framework version is a Megatron-Core release, under a framework that runs one") {
  const std::string job = std::string(R"({"model": "llama2-7b", )") + kTraining + ", " + kCluster;
  CHECK(input_error(job + R"(, "framework_version": "core_v0.12"})") == "");
  CHECK(input_error(job + R"(, "framework": "megatron-bridge", "framework_version": "dev"})") ==
        "");
  const std::string unknown = input_error(job + R"(, "framework_version": "25.11"})");
  CHECK(unknown.find("framework_version: expected one of \"core_v0.5\", ") == 0);
  CHECK(unknown.find("\"core_v0.19\", \"dev\", got the string \"25.11\"") != std::string::npos);
  const std::string torchtitan = job + R"(, "framework": "torchtitan", "framework_version":
      "core_v0.15"})";
  CHECK(input_error(torchtitan) ==
        "framework_version: names a Megatron-Core release, but framework torchtitan does not run "
        "on Megatron-Core");
  const paraplan::CoreText text = error_text(torchtitan);
  CHECK(text.id == "input error: release without Megatron-Core");
  CHECK(text.args == Args{{"framework", "torchtitan"}});
}

TEST_CASE("a GPU's host.by_release: increasing releases, each with its three costs") {
  const auto with_host = [](const std::string& by_release) {
    return std::string(R"({"model": "llama2-7b", )") + kTraining +
           R"(, "cluster": {"gpus": [{"type": {"base": "h100", "id": "x",
               "host": {"by_release": )" +
           by_release + R"(}}, "count": 16}]}})";
  };
  const std::string entry16 =
      R"({"from": "core_v0.16", "torch_op_us": 1, "torch_linear_us": 2, "te_module_us": 3})";
  const std::string entry17 =
      R"({"from": "core_v0.17", "torch_op_us": 1, "torch_linear_us": 2, "te_module_us": 3})";
  CHECK(input_error(with_host("[" + entry16 + ", " + entry17 + "]")) == "");
  CHECK(input_error(with_host("[" + entry17 + ", " + entry16 + "]")) ==
        "cluster.gpus[0].type.host.by_release[1].from: releases must increase from entry to "
        "entry");
  CHECK(error_text(with_host("[" + entry16 + ", " + entry16 + "]")).id ==
        "input error: releases must increase");
  CHECK(error_text(with_host("[]")).id == "input error: expected release entries");
  CHECK(input_error(with_host(R"([{"from": "core_v0.16", "torch_op_us": 1}])")) ==
        "cluster.gpus[0].type.host.by_release[0].torch_linear_us: is required");
  CHECK(input_error(with_host(R"([{"from": "core_v0.16", "torch_op_us": 1, "torch_linear_us": 2,
      "te_module_us": 3, "sync_gap_us": 4}])"))
            .find("cluster.gpus[0].type.host.by_release[0].sync_gap_us: unknown key") == 0);
}

TEST_CASE("unknown presets list the known ones") {
  const std::string message =
      input_error(std::string(R"({"model": "llama9", )") + kTraining + ", " + kCluster + "}");
  CHECK(message.find("model: unknown model preset the string \"llama9\" (known: ") == 0);
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                    R"(, "cluster": {"gpus": [{"type": "v100", "count": 8}]}})")
            .find("cluster.gpus[0].type: unknown GPU preset") == 0);
}

TEST_CASE("inconsistent model dimensions are input errors") {
  CHECK(input_error(std::string(R"({"model": {"num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "num_query_groups": 3,
      "vocab_size": 1000, "activation": "gelu"}, )") +
                    kTraining + ", " + kCluster + "}") ==
        "model.num_query_groups: must divide num_attention_heads (16), got 3");
  CHECK(input_error(std::string(R"({"model": {"num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "vocab_size": 1000,
      "activation": "gelu", "moe": {"num_experts": 4, "top_k": 5}}, )") +
                    kTraining + ", " + kCluster + "}") ==
        "model.moe.top_k: expected an integer from 1 to 4, got 5");
  CHECK(input_error(std::string(R"({"model": {"num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "activation": "gelu"}, )") +
                    kTraining + ", " + kCluster + "}") == "model.vocab_size: is required");
}

TEST_CASE("sliding-window fields: non-negative integers, the skip frequency only with a window") {
  const auto with_window = [](const std::string& fields) {
    return input_error(std::string(R"({"model": {"num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "vocab_size": 1000,
      "activation": "gelu")") +
                       fields + "}, " + kTraining + ", " + kCluster + "}");
  };
  CHECK(with_window(R"(, "window_size": 127, "window_attn_skip_freq": 2)") == "");
  CHECK(with_window(R"(, "window_size": 0)") == "");
  CHECK(with_window(R"(, "window_size": -1)") ==
        "model.window_size: expected an integer from 0 to 67108864, got -1");
  CHECK(with_window(R"(, "window_size": 12.5)").find("model.window_size: expected an integer") ==
        0);
  CHECK(with_window(R"(, "window_size": "128,0")").find("model.window_size: expected an integer") ==
        0);
  CHECK(with_window(R"(, "window_size": 127, "window_attn_skip_freq": 0)") ==
        "model.window_attn_skip_freq: expected an integer from 1 to 65536, got 0");
  CHECK(with_window(R"(, "window_attn_skip_freq": 2)") ==
        "model.window_attn_skip_freq: needs window_size (a sliding window of at least 1 token): "
        "without one every layer has full attention");
  CHECK(with_window(R"(, "window_size": 0, "window_attn_skip_freq": 2)")
            .find("model.window_attn_skip_freq: needs window_size") == 0);
}

TEST_CASE("stage layers must sum to the model's layers; stage lists must match pipeline size") {
  CHECK(input_error(with_strategy(R"({"pipeline_stage_layers": [16, 15]})")) ==
        "strategy.pipeline_stage_layers: layers must sum to the model's num_layers (32), got 31");
  CHECK(input_error(with_strategy(
            R"({"pipeline_model_parallel_size": 4, "pipeline_stage_layers": [16, 16]})")) ==
        "strategy.pipeline_stage_layers: has 2 entries but pipeline_model_parallel_size is 4");
  CHECK(input_error(with_strategy(R"({"pipeline_stage_gpus": ["a100", "h100"]})")) ==
        "strategy.pipeline_stage_gpus[1]: \"h100\" is not a GPU type of cluster.gpus");
}

TEST_CASE("per-GPU-type recompute names types of the cluster") {
  CHECK(input_error(with_strategy(R"({"recompute_granularity": {"h800": "full"}})")) ==
        "strategy.recompute_granularity.h800: is not a GPU type of cluster.gpus");
}

TEST_CASE("inline GPUs: overrides of a preset, or complete objects") {
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                    R"(, "cluster": {"gpus": [{"type": {"base": "h100", "id": "h100-slow-net",
                        "inter_node": {"gb_per_s": 12.5}}, "count": 16}]}})") == "");
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                    R"(, "cluster": {"gpus": [{"type": {"base": "h100",
                        "inter_node": {"gb_per_s": -1}}, "count": 16}]}})") ==
        "cluster.gpus[0].type.id: is required: name the customised GPU");
  CHECK(
      input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                  R"(, "cluster": {"gpus": [{"type": {"base": "h100", "id": "x",
                        "inter_node": {"gb_per_s": -1}}, "count": 16}]}})") ==
      "cluster.gpus[0].type.inter_node.gb_per_s: expected a number from 0.001 to 1000000, got -1");
}

TEST_CASE("a GPU's host time per SequentialMLP expert is a number of microseconds") {
  for (const std::string field :
       {"sequential_mlp_expert_forward_us", "sequential_mlp_expert_backward_us"}) {
    CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                      R"(, "cluster": {"gpus": [{"type": {"base": "h100", "id": "x",
                        "host": {")" +
                      field + R"(": -1}}, "count": 16}]}})") ==
          "cluster.gpus[0].type.host." + field + ": expected a number from 0 to 1000000, got -1");
  }
}

TEST_CASE("a GPU's host.sync_gap_us is a number of microseconds, default 57.07") {
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                    R"(, "cluster": {"gpus": [{"type": {"base": "h100", "id": "x",
                        "host": {"sync_gap_us": "fast"}}, "count": 16}]}})") ==
        "cluster.gpus[0].type.host.sync_gap_us: expected a number from 0 to 1000000, got the "
        "string \"fast\"");
  CHECK(paraplan::HostIssueCost{}.sync_gap_s == 57.07e-6);
}

TEST_CASE("a GPU's scatter_add_over_copy is a share of a copy's rate") {
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                    R"(, "cluster": {"gpus": [{"type": {"base": "h100", "id": "x",
                        "scatter_add_over_copy": 0}, "count": 16}]}})") ==
        "cluster.gpus[0].type.scatter_add_over_copy: expected a number from 0.01 to 1, got 0");
}

TEST_CASE("a GPU's host.cpu_stream_efficiency is a share of the DRAM peak") {
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                    R"(, "cluster": {"gpus": [{"type": {"base": "h100", "id": "x",
                        "host": {"cpu_stream_efficiency": 1.5}}, "count": 16}]}})") ==
        "cluster.gpus[0].type.host.cpu_stream_efficiency: expected a number from 0.01 to 1, got "
        "1.5");
}

TEST_CASE("FlashAttention-2 curves: both or neither, and the backend a choice") {
  CHECK(input_error(std::string(R"({"model": "llama2-7b", )") + kTraining +
                    R"(, "cluster": {"gpus": [{"type": {"base": "a100", "id": "x",
                        "efficiency": {"attention_forward_flash": [[1, 0.3]]}},
                        "count": 8}]}})") ==
        "cluster.gpus[0].type.efficiency.attention_backward_flash: is required with the other "
        "FlashAttention-2 curve");
  CHECK(input_error(with_strategy(R"({"attention_backend": "flash"})")) == "");
  CHECK(input_error(with_strategy(R"({"attention_backend": "cudnn"})")) ==
        "strategy.attention_backend: expected one of \"auto\", \"fused\", \"flash\", got the "
        "string \"cudnn\"");
}

TEST_CASE("JSON text: syntax errors, size and depth limits") {
  using paraplan::parse_json_text;
  CHECK_THROWS_WITH_AS(parse_json_text("{\"a\": ", "input"),
                       doctest::Contains("input: is not valid JSON: parse error"),
                       paraplan::InputError);
  // Found by fuzzing: a number too large for a double is an out_of_range error in nlohmann.
  CHECK_THROWS_WITH_AS(parse_json_text(R"({"a": 11e308})", "input"),
                       "input: is not valid JSON: number overflow parsing '11e308'",
                       paraplan::InputError);
  CHECK_THROWS_WITH_AS(parse_json_text(std::string(100000, '['), "input"),
                       "input: nests deeper than 32 levels", paraplan::InputError);
  CHECK_THROWS_WITH_AS(parse_json_text(std::string(9 << 20, ' '), "input"),
                       doctest::Contains("bytes; at most 8388608 are accepted"),
                       paraplan::InputError);
}

TEST_CASE("a search request's memory margin: GiB, \"N%\", or an error naming it") {
  const auto request = [](const std::string& margin) {
    return paraplan::parse_search_request(nlohmann::json::parse(
        std::string(R"({"scenario": {"model": "llama2-7b", )") + kTraining + ", " + kCluster +
        R"(}, "options": {"memory_margin": )" + margin + "}}"));
  };
  CHECK(request("3").options.memory_margin.bytes == doctest::Approx(3.0 * (1 << 30)));
  CHECK(request(R"("3")").options.memory_margin.bytes == doctest::Approx(3.0 * (1 << 30)));
  CHECK(request(R"("10%")").options.memory_margin.fraction == doctest::Approx(0.1));
  for (const char* bad : {"true", R"("ten")", "-2", R"("100%")"}) {
    CAPTURE(bad);
    try {
      request(bad);
      FAIL("accepted");
    } catch (const paraplan::InputError& error) {
      CHECK(error.path() == "options.memory_margin");
    }
  }
  // The model keys that came with it.
  CHECK(input_error(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 64,
      "ffn_hidden_size": 256, "num_attention_heads": 4, "vocab_size": 100, "activation": "gelu",
      "position_embedding_type": "alibi"}, )" +
                    std::string(kTraining) + ", " + kCluster + "}")
            .find("model.position_embedding_type: expected one of") == 0);
}
