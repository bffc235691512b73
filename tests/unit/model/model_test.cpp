#include "paraplan/model.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "paraplan/presets.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

ModelSpec preset(const char* id) { return parse_model(nlohmann::json(id), "model"); }

}  // namespace

TEST_CASE("parameter counts match the published checkpoints exactly") {
  // meta-llama/Llama-2-70b-hf: 68,976,648,192 parameters (GQA with 8 groups, SwiGLU, untied).
  CHECK(count_parameters(preset("llama2-70b")).total == 68'976'648'192.0);
  // meta-llama/Llama-2-7b-hf: 6,738,415,616.
  CHECK(count_parameters(preset("llama2-7b")).total == 6'738'415'616.0);

  // Llama 3.1 8B (config.json: 32 layers, 4096 hidden, 14336 FFN, 32 heads, 8 KV heads,
  // vocabulary 128256): 8,030,261,248.
  const ModelSpec llama3 = parse_model(nlohmann::json::parse(R"({
      "num_layers": 32, "hidden_size": 4096, "ffn_hidden_size": 14336,
      "num_attention_heads": 32, "num_query_groups": 8, "vocab_size": 128256,
      "activation": "swiglu", "untie_embeddings_and_output_weights": true})"),
                                       "model");
  CHECK(count_parameters(llama3).total == 8'030'261'248.0);

  // Mixtral 8x7B (8 experts of 14336, top-2): 46,702,792,704 in total, 12.88B active.
  const ModelSpec mixtral = parse_model(nlohmann::json::parse(R"({
      "num_layers": 32, "hidden_size": 4096, "ffn_hidden_size": 14336,
      "num_attention_heads": 32, "num_query_groups": 8, "vocab_size": 32000,
      "activation": "swiglu", "untie_embeddings_and_output_weights": true,
      "moe": {"num_experts": 8, "top_k": 2}})"),
                                        "model");
  const ParameterCounts counts = count_parameters(mixtral);
  CHECK(counts.total == 46'702'792'704.0);
  CHECK(counts.active == doctest::Approx(12.88e9).epsilon(0.005));
}

TEST_CASE("GPT-3 175B: 12 h^2 per layer plus norms, tied embedding") {
  const double h = 12288;
  const double expected = 96 * (12 * h * h + 2 * h) + 51200 * h + h;
  CHECK(count_parameters(preset("gpt3-175b")).total == expected);
}

TEST_CASE("model FLOPs per token follow Megatron-LM's formula") {
  // Narayanan et al. 2021 eq. 3 without recompute: 72 L h^2 (1 + s/6h + V/12Lh) per token.
  const ModelSpec gpt = preset("gpt3-175b");
  const double L = 96, h = 12288, s = 2048, V = 51200;
  const double megatron = 72 * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
  CHECK(model_flops_per_token(gpt, 2048) == doctest::Approx(megatron).epsilon(1e-12));

  // With grouped-query attention and SwiGLU (Megatron-LM num_floating_point_operations):
  // 12 L h^2 [(1 + g/a + s/h) ad/h + 1.5 f/h] + 6 h V.
  const ModelSpec llama = preset("llama2-70b");
  const double a = 64, g = 8, d = 128, f = 28672, s70 = 4096, h70 = 8192, L70 = 80, V70 = 32000;
  const double expected =
      12 * L70 * h70 * h70 * ((1 + g / a + s70 / h70) * (a * d / h70) + 1.5 * f / h70) +
      6 * h70 * V70;
  CHECK(model_flops_per_token(llama, 4096) == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("causal model FLOPs halve the core attention, as Megatron-LM logs them") {
  // training.py num_floating_point_operations: 2 * sum(L^2) * h * p for the core attention
  // (scores and context, causal), against Narayanan et al.'s 4 s^2 h: the difference per token
  // is 3 x L x s h_attention x 2 (forward + backward, 2 FLOPs per multiply-add, QK^T and AV).
  const ModelSpec llama = preset("llama3.1-8b");
  const double L = 32, s = 8192, ad = 32 * 128;
  CHECK(model_flops_per_token(llama, 8192) - model_flops_per_token_causal(llama, 8192) ==
        doctest::Approx(3 * L * 2 * s * ad).epsilon(1e-12));
  // Megatron-Bridge 25.11 reports Llama 3 8B at 30,624 tokens/s/GPU and 1,576 model TFLOP/s/GPU
  // on B200 (s = 8192): 51.46 GFLOP per token in its (causal) convention.
  CHECK(model_flops_per_token_causal(llama, 8192) ==
        doctest::Approx(1576e12 / 30624).epsilon(2e-3));
}

TEST_CASE("every model preset matches its published parameter count") {
  // Exact published counts (released checkpoints) within 1%; sizes known only by name
  // ("175B", or AIAK's own definitions) within 5%.
  for (const std::string& id : preset_ids(PresetKind::model)) {
    CAPTURE(id);
    const nlohmann::json& file = *find_preset(PresetKind::model, id);
    const double total = count_parameters(parse_model(file.at("model"), id)).total;
    if (file.contains("published_parameters")) {
      CHECK(total == doctest::Approx(file["published_parameters"].get<double>()).epsilon(0.01));
    } else {
      CHECK(total == doctest::Approx(file.at("nominal_parameters").get<double>()).epsilon(0.05));
    }
    CHECK(file.at("source").get<std::string>().size() > 20);
  }
}

TEST_CASE("preset names ignore case and separators") {
  CHECK(find_preset(PresetKind::gpu, "H800") != nullptr);
  CHECK(find_preset(PresetKind::gpu, "A100_80G") == find_preset(PresetKind::gpu, "a100"));
  CHECK(find_preset(PresetKind::model, "LLAMA2-70B") != nullptr);
  CHECK(find_preset(PresetKind::model, "llama2-71b") == nullptr);
}

TEST_CASE("defaults: GPT-style models keep Megatron's dropout and biases, gated ones drop them") {
  const ModelSpec gpt = parse_model(nlohmann::json::parse(test::gpt_model(2, 1024, 16)), "m");
  CHECK(gpt.add_bias_linear);
  CHECK(gpt.hidden_dropout == 0.1);
  const ModelSpec llama = preset("llama2-7b");
  CHECK_FALSE(llama.add_bias_linear);
  CHECK(llama.attention_dropout == 0.0);
}
