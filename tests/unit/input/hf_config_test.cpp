// Hugging Face config.json import: the published configs of tests/unit/data/hf (each named after
// its Hugging Face repository, listed in that folder's README.md) map to the model the
// published parameter counts describe, with every key accounted for.
#include "paraplan/hf_config.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "paraplan/errors.hpp"
#include "paraplan/model.hpp"

using namespace paraplan;

namespace {

nlohmann::json config(const std::string& file) {
  std::ifstream in(std::string(PARAPLAN_UNIT_DATA_DIR) + "/hf/" + file);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

HfImport imported(const std::string& file) { return import_hf_config(config(file)); }

ParameterCounts counts(const std::string& file) {
  return count_parameters(parse_model(imported(file).model, "model"));
}

const UnmappedKey* find_key(const HfImport& result, std::string_view key) {
  for (const UnmappedKey& entry : result.unmapped) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

std::string status(const HfImport& result, std::string_view key) {
  const UnmappedKey* entry = find_key(result, key);
  return entry ? entry->status : "mapped";
}

std::string error_of(const nlohmann::json& document) {
  try {
    import_hf_config(document);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// Every field of the model spec but its name.
void check_same_model(const ModelSpec& a, const ModelSpec& b) {
  CHECK(a.num_layers == b.num_layers);
  CHECK(a.hidden_size == b.hidden_size);
  CHECK(a.ffn_hidden_size == b.ffn_hidden_size);
  CHECK(a.num_attention_heads == b.num_attention_heads);
  CHECK(a.num_query_groups == b.num_query_groups);
  CHECK(a.vocab_size == b.vocab_size);
  CHECK(a.activation == b.activation);
  CHECK(a.kv_channels == b.kv_channels);
  CHECK(a.untie_embeddings_and_output_weights == b.untie_embeddings_and_output_weights);
  CHECK(a.position_embedding_type == b.position_embedding_type);
  CHECK(a.add_bias_linear == b.add_bias_linear);
  CHECK(a.hidden_dropout == b.hidden_dropout);
  CHECK(a.attention_dropout == b.attention_dropout);
  CHECK(a.mtp_num_layers == b.mtp_num_layers);
  CHECK(a.window_size == b.window_size);
  CHECK(a.window_attn_skip_freq == b.window_attn_skip_freq);
  REQUIRE(a.moe.has_value() == b.moe.has_value());
  if (a.moe) {
    CHECK(a.moe->num_experts == b.moe->num_experts);
    CHECK(a.moe->top_k == b.moe->top_k);
    CHECK(a.moe->moe_ffn_hidden_size == b.moe->moe_ffn_hidden_size);
    CHECK(a.moe->num_shared_experts == b.moe->num_shared_experts);
    CHECK(a.moe->first_k_dense_layers == b.moe->first_k_dense_layers);
    CHECK(a.moe->moe_router_enable_expert_bias == b.moe->moe_router_enable_expert_bias);
  }
  REQUIRE(a.mla.has_value() == b.mla.has_value());
  if (a.mla) {
    CHECK(a.mla->q_lora_rank == b.mla->q_lora_rank);
    CHECK(a.mla->kv_lora_rank == b.mla->kv_lora_rank);
    CHECK(a.mla->qk_head_dim == b.mla->qk_head_dim);
    CHECK(a.mla->qk_pos_emb_head_dim == b.mla->qk_pos_emb_head_dim);
    CHECK(a.mla->v_head_dim == b.mla->v_head_dim);
  }
}

}  // namespace

TEST_CASE("HF import: a config equals the preset built from the same config.json") {
  const std::pair<const char*, const char*> pairs[] = {
      {"Meta-Llama-3-8B.json", "llama3-8b"},   {"Llama-2-70b-hf.json", "llama2-70b"},
      {"Qwen2.5-7B.json", "qwen2.5-7b"},       {"Mixtral-8x7B-v0.1.json", "mixtral-8x7b"},
      {"DeepSeek-V3.json", "deepseek-v3"},     {"Qwen3-32B.json", "qwen3-32b"},
      {"Qwen3-30B-A3B.json", "qwen3-30b-a3b"}, {"gpt-oss-120b.json", "gpt-oss-120b"},
      {"gpt-oss-20b.json", "gpt-oss-20b"},
  };
  for (const auto& [file, preset] : pairs) {
    CAPTURE(file);
    check_same_model(parse_model(imported(file).model, "model"),
                     parse_model(nlohmann::json(preset), "model"));
  }
}

TEST_CASE("HF import: parameter counts match the published totals") {
  // Hugging Face safetensors totals, exact where the model has no bias or norm Paraplan leaves
  // out: meta-llama/Meta-Llama-3-8B 8,030,261,248; meta-llama/Llama-2-70b-hf 68,976,648,192;
  // mistralai/Mixtral-8x7B-v0.1 46,702,792,704.
  CHECK(counts("Meta-Llama-3-8B.json").total == 8030261248.0);
  CHECK(counts("Llama-2-70b-hf.json").total == 68976648192.0);
  CHECK(counts("Mixtral-8x7B-v0.1.json").total == 46702792704.0);
  // Qwen/Qwen2.5-7B 7,615,616,512 with its 129,024 QKV biases, which are left out.
  CHECK(counts("Qwen2.5-7B.json").total == 7615616512.0 - 28 * (3584 + 2 * 4 * 128));
  // Qwen3 technical report (arXiv:2505.09388) Tables 1-2: Qwen3-32B 32.8B; Qwen3-30B-A3B 30.5B
  // total, 3.3B activated.
  CHECK(counts("Qwen3-32B.json").total == doctest::Approx(32.8e9).epsilon(0.002));
  CHECK(counts("Qwen3-30B-A3B.json").total == doctest::Approx(30.5e9).epsilon(0.002));
  CHECK(counts("Qwen3-30B-A3B.json").active == doctest::Approx(3.3e9).epsilon(0.02));
  // DeepSeek-V3 technical report (arXiv:2412.19437): 671B total, 37B activated; the README's
  // 685B adds the 14B MTP module, whose checkpoint repeats the embedding and output head.
  const ParameterCounts deepseek = counts("DeepSeek-V3.json");
  CHECK(deepseek.total == doctest::Approx(671e9).epsilon(0.002));
  CHECK(deepseek.active == doctest::Approx(37e9).epsilon(0.02));
  CHECK(deepseek.mtp + deepseek.embedding + deepseek.output_layer ==
        doctest::Approx(14e9).epsilon(0.05));
  // openai/gpt-oss model card (arXiv:2508.10925, Table 1): gpt-oss-120b 116.83B total, 5.13B
  // active; gpt-oss-20b 20.91B total, 3.61B active, the active counts without the input
  // embedding (the card's convention). The biases (attention, experts, router) are left out:
  // 0.04%.
  const ParameterCounts oss120 = counts("gpt-oss-120b.json");
  CHECK(oss120.total == doctest::Approx(116.83e9).epsilon(0.002));
  CHECK(oss120.active - oss120.embedding == doctest::Approx(5.13e9).epsilon(0.01));
  const ParameterCounts oss20 = counts("gpt-oss-20b.json");
  CHECK(oss20.total == doctest::Approx(20.91e9).epsilon(0.002));
  CHECK(oss20.active - oss20.embedding == doctest::Approx(3.61e9).epsilon(0.01));
}

TEST_CASE("HF import: the family-specific fields") {
  const HfImport qwen3 = imported("Qwen3-32B.json");
  CHECK(qwen3.architecture == "Qwen3ForCausalLM");
  CHECK(qwen3.model["kv_channels"] == 128);  // head_dim, not hidden / heads = 80
  // Qwen3Attention's q_norm and k_norm: Megatron-Bridge's qk_layernorm.
  CHECK(qwen3.model["qk_layernorm"] == true);
  CHECK(status(qwen3, "architectures") == "mapped");
  CHECK(status(qwen3, "sliding_window") == "ignored");

  const HfImport qwen_moe = imported("Qwen3-30B-A3B.json");
  CHECK(qwen_moe.model["qk_layernorm"] == true);
  CHECK(qwen_moe.model["moe"] == nlohmann::json({{"num_experts", 128},
                                                 {"top_k", 8},
                                                 {"moe_ffn_hidden_size", 768},
                                                 {"first_k_dense_layers", 0}}));

  const HfImport qwen2 = imported("Qwen2.5-7B.json");
  CHECK(status(qwen2, "architectures") == "unsupported");  // QKV biases
  CHECK(find_key(qwen2, "architectures")->reason.find("--add-qkv-bias") != std::string::npos);
  CHECK(status(qwen2, "sliding_window") == "ignored");  // use_sliding_window is false

  const HfImport deepseek = imported("DeepSeek-V3.json");
  CHECK(deepseek.model["mtp_num_layers"] == 1);
  CHECK(deepseek.model["moe"]["moe_router_enable_expert_bias"] == true);  // noaux_tc
  CHECK(deepseek.model["multi_latent_attention"]["q_lora_rank"] == 1536);
  CHECK(status(deepseek, "n_group") == "unsupported");  // group-limited routing
  CHECK(status(deepseek, "quantization_config") == "ignored");
  CHECK(status(deepseek, "rope_scaling") == "ignored");

  const HfImport oss = imported("gpt-oss-120b.json");
  CHECK(oss.model["add_bias_linear"] == true);
  CHECK(oss.model["kv_channels"] == 64);
  CHECK(oss.model["moe"]["top_k"] == 4);
  // sliding_window 128 on the even layers (0-based): Megatron-Bridge's (127, 0), skip 2.
  CHECK(oss.model["window_size"] == 127);
  CHECK(oss.model["window_attn_skip_freq"] == 2);
  CHECK(status(oss, "sliding_window") == "mapped");
  CHECK(status(oss, "layer_types") == "mapped");
  CHECK(status(oss, "architectures") == "unsupported");  // attention sinks
  // swiglu_limit 7.0: Megatron-Bridge's activation_func_clamp_value.
  CHECK(oss.model["activation_func_clamp_value"] == 7.0);
  CHECK(status(oss, "swiglu_limit") == "mapped");
  // rope_scaling {rope_type yarn, factor 32}: Megatron-Bridge's yarn_rotary_scaling_factor.
  CHECK(oss.model["yarn_rotary_scaling_factor"] == 32.0);
  CHECK(oss.model["yarn_original_max_position_embeddings"] == 4096);
  CHECK(oss.model["yarn_beta_fast"] == 32.0);
  CHECK(oss.model["yarn_beta_slow"] == 1.0);
  CHECK(oss.model["yarn_correction_range_round_to_int"] == false);  // truncate false
  CHECK(status(oss, "rope_scaling") == "mapped");

  const HfImport llama = imported("Meta-Llama-3-8B.json");
  CHECK(status(llama, "rope_scaling") == "ignored");
  CHECK(status(llama, "architectures") == "mapped");
}

TEST_CASE("HF import: every key is mapped or reported, unknown keys too") {
  for (const char* file :
       {"Meta-Llama-3-8B.json", "Llama-2-70b-hf.json", "Qwen2.5-7B.json", "Qwen3-32B.json",
        "Qwen3-30B-A3B.json", "Mixtral-8x7B-v0.1.json", "DeepSeek-V3.json", "gpt-oss-120b.json"}) {
    CAPTURE(file);
    const HfImport result = imported(file);
    for (const UnmappedKey& entry : result.unmapped) {
      CAPTURE(entry.key);
      CHECK(entry.status != "unknown");  // the published configs hold no key Paraplan lacks
      CHECK(!entry.reason.empty());
      // Its id and values, for the page's languages (web/src/i18n/import-texts.ts).
      CHECK(!entry.reason_text.id.empty());
      CHECK(entry.reason_text.text == entry.reason);
    }
  }
  nlohmann::json odd = config("Meta-Llama-3-8B.json");
  odd["frobnication"] = 3;
  const HfImport result = import_hf_config(odd);
  CHECK(status(result, "frobnication") == "unknown");
  const UnmappedKey* frobnication = find_key(result, "frobnication");
  REQUIRE(frobnication != nullptr);
  CHECK(frobnication->reason_text.id == "config key: unknown");
  CHECK(frobnication->reason_text.args ==
        std::vector<std::pair<std::string, std::string>>{{"architecture", "LlamaForCausalLM"}});
  CHECK(to_json(result)["unmapped"][0].contains("reason_text"));
  CHECK(result.model["name"] == "LlamaForCausalLM");
  CHECK(import_hf_config(odd, "my-llama").model["name"] == "my-llama");
  odd["_name_or_path"] = "meta-llama/Meta-Llama-3-8B";
  CHECK(import_hf_config(odd, "my-llama").model["name"] == "Meta-Llama-3-8B");
}

TEST_CASE("HF import: bad configs name the key") {
  nlohmann::json bad = config("Meta-Llama-3-8B.json");
  bad["hidden_size"] = 0;
  CHECK(error_of(bad) == "hidden_size: expected a positive integer, got 0");
  bad["hidden_size"] = "4096";
  CHECK(error_of(bad) == "hidden_size: expected a positive integer, got the string \"4096\"");
  bad.erase("hidden_size");
  CHECK(error_of(bad) == "hidden_size: is required");
  bad = config("Meta-Llama-3-8B.json");
  bad["num_key_value_heads"] = 7;
  CHECK(error_of(bad) == "num_key_value_heads: must divide num_attention_heads (32), got 7");
  bad = config("Meta-Llama-3-8B.json");
  bad["architectures"] = {"BertModel"};
  CHECK(error_of(bad).find("architectures: expected one of LlamaForCausalLM") == 0);
  bad["hidden_act"] = "tanh";
  bad["architectures"] = {"LlamaForCausalLM"};
  CHECK(error_of(bad) ==
        "hidden_act: expected silu or gelu (a gated MLP), got the string \"tanh\"");
  bad = config("Qwen3-30B-A3B.json");
  bad["mlp_only_layers"] = {3, 7};
  CHECK(error_of(bad).find("mlp_only_layers: Paraplan models dense layers only as the first") == 0);
  bad = config("Qwen3-30B-A3B.json");
  bad["num_experts_per_tok"] = 200;
  CHECK(error_of(bad) == "num_experts_per_tok: expected a positive integer up to 128, got 200");
  bad = config("Meta-Llama-3-8B.json");
  bad["num_attention_heads"] = 8192;  // more heads than hidden_size: the core's own limit
  bad["num_key_value_heads"] = 8192;
  bad["head_dim"] = 128;
  CHECK(error_of(bad) == "num_attention_heads: expected an integer from 1 to 4096, got 8192");
  CHECK(error_of(nlohmann::json::array()) ==
        "expected a JSON object (a Hugging Face config.json), got an array");
  CHECK(error_of(nlohmann::json::object()).find("architectures: is required") == 0);
}

TEST_CASE("HF import: to_json holds the model, the unmapped keys and the parameter counts") {
  const nlohmann::json output = to_json(imported("Meta-Llama-3-8B.json"));
  CHECK(output["architecture"] == "LlamaForCausalLM");
  CHECK(output["parameters"]["total"] == 8030261248.0);
  CHECK(output["unmapped"].is_array());
  CHECK(output["unmapped"][0].contains("reason"));
  CHECK_NOTHROW(parse_model(output["model"], "model"));
}

namespace {

// A small gpt-oss-like or Qwen3 config with the given sliding-window keys.
HfImport windowed(const std::string& architecture, const nlohmann::json& keys) {
  nlohmann::json c = {{"architectures", {architecture}},
                      {"hidden_size", 512},
                      {"intermediate_size", 1024},
                      {"num_hidden_layers", 6},
                      {"num_attention_heads", 8},
                      {"num_key_value_heads", 2},
                      {"head_dim", 64},
                      {"vocab_size", 1000}};
  if (architecture == "GptOssForCausalLM") {
    c["num_local_experts"] = 4;
    c["num_experts_per_tok"] = 2;
  }
  c.update(keys);
  return import_hf_config(c);
}

nlohmann::json types(std::initializer_list<int> sliding) {
  nlohmann::json list = nlohmann::json::array();
  for (const int s : sliding) list.push_back(s ? "sliding_attention" : "full_attention");
  return list;
}

}  // namespace

TEST_CASE("HF import: sliding windows Megatron-LM can express map, others are reported") {
  // Alternating from a sliding layer 0: every 2nd layer (1-based) full, Megatron-LM's skip 2.
  const HfImport alternating = windowed(
      "GptOssForCausalLM", {{"sliding_window", 128}, {"layer_types", types({1, 0, 1, 0, 1, 0})}});
  CHECK(alternating.model["window_size"] == 127);
  CHECK(alternating.model["window_attn_skip_freq"] == 2);
  CHECK(status(alternating, "layer_types") == "mapped");
  // Two sliding, one full: skip 3.
  CHECK(windowed("GptOssForCausalLM",
                 {{"sliding_window", 64}, {"layer_types", types({1, 1, 0, 1, 1, 0})}})
            .model["window_attn_skip_freq"] == 3);
  // Every layer sliding (Mistral's sliding_window without layer_types): no skip frequency.
  const HfImport every = windowed("MistralForCausalLM", {{"sliding_window", 4096}});
  CHECK(every.model["window_size"] == 4095);
  CHECK(!every.model.contains("window_attn_skip_freq"));
  CHECK(status(every, "sliding_window") == "mapped");
  // Full layer first (1-based layer 1 full) is no integer skip frequency: reported, no window.
  const HfImport shifted = windowed(
      "GptOssForCausalLM", {{"sliding_window", 128}, {"layer_types", types({0, 1, 0, 1, 0, 1})}});
  CHECK(!shifted.model.contains("window_size"));
  CHECK(status(shifted, "sliding_window") == "unsupported");
  CHECK(find_key(shifted, "sliding_window")->reason.find("3 of 6 layers") != std::string::npos);
  CHECK(find_key(shifted, "sliding_window")->reason_text.args ==
        std::vector<std::pair<std::string, std::string>>{
            {"window", "128"}, {"windowed_layers", "3"}, {"num_layers", "6"}});
  // Qwen: windows from max_window_layers on; all layers (0) maps, the first 2 full does not.
  const HfImport qwen_all =
      windowed("Qwen3ForCausalLM",
               {{"sliding_window", 1024}, {"use_sliding_window", true}, {"max_window_layers", 0}});
  CHECK(qwen_all.model["window_size"] == 1023);
  const HfImport qwen_some =
      windowed("Qwen3ForCausalLM",
               {{"sliding_window", 1024}, {"use_sliding_window", true}, {"max_window_layers", 2}});
  CHECK(!qwen_some.model.contains("window_size"));
  CHECK(status(qwen_some, "sliding_window") == "unsupported");
  CHECK(status(qwen_some, "max_window_layers") == "ignored");
  // The window must be a positive integer.
  CHECK_THROWS_AS(windowed("MistralForCausalLM", {{"sliding_window", -4}}), InputError);
}
