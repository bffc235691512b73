// A Hugging Face family's layers beyond the dense ones: its attention notes, experts (Qwen3-MoE,
// Mixtral, gpt-oss, DeepSeek), DeepSeek's latent attention and gpt-oss's YaRN and clamp.
#include <optional>
#include <string>

#include "input/hf_families.hpp"
#include "model/text_ids.hpp"

namespace paraplan::detail {
namespace {

using nlohmann::json;

// A config's MoE layer step (`key`, default 1) must be 1: Paraplan models an MoE MLP in every
// layer after the first dense ones.
void require_moe_every_layer(ConfigReader& reader, const char* key) {
  const int64_t step = reader.count(key, kMaxDimension, 1);
  if (step != 1) {
    throw detail::input_error(key, text_id::kErrorHfMoeEveryLayer,
                              "Paraplan models an MoE MLP in every layer after the first dense "
                              "ones; expected 1, got " +
                                  std::to_string(step),
                              {{"got_value", std::to_string(step)}});
  }
}

// The first-k dense layers of Qwen-MoE's mlp_only_layers and decoder_sparse_step.
int64_t qwen_dense_layers(ConfigReader& reader, int64_t num_layers) {
  require_moe_every_layer(reader, "decoder_sparse_step");
  const json* dense = reader.value("mlp_only_layers");
  if (dense == nullptr) return 0;
  if (!dense->is_array()) {
    throw detail::value_error("mlp_only_layers", text_id::kErrorHfDenseLayers,
                              "expected a list of layer indices", {}, *dense);
  }
  for (size_t i = 0; i < dense->size(); ++i) {
    if ((*dense)[i] != json(i)) {
      std::vector<std::pair<std::string, std::string>> args = detail::got_args((*dense)[i]);
      args.emplace_back("position", std::to_string(i));
      throw detail::input_error("mlp_only_layers", text_id::kErrorHfDenseFirst,
                                "Paraplan models dense layers only as the first k layers; "
                                "expected 0, 1, ..., k-1, got " +
                                    detail::describe((*dense)[i]) + " at position " +
                                    std::to_string(i),
                                std::move(args));
    }
  }
  if (static_cast<int64_t>(dense->size()) >= num_layers) {
    throw detail::input_error("mlp_only_layers", text_id::kErrorHfNoMoeLayer,
                              "leaves no MoE layer");
  }
  return static_cast<int64_t>(dense->size());
}

// gpt-oss's experts: top-k as num_experts_per_tok or experts_per_token (equal when both given).
json gpt_oss_moe(ConfigReader& reader, int64_t ffn) {
  json moe;
  moe["num_experts"] = reader.positive("num_local_experts", kMaxDimension);
  const int64_t experts = moe["num_experts"].get<int64_t>();
  const std::optional<int64_t> per_token = reader.optional_positive("num_experts_per_tok", experts);
  const std::optional<int64_t> experts_per_token =
      reader.optional_positive("experts_per_token", experts);
  if (per_token && experts_per_token && *per_token != *experts_per_token) {
    const std::string top_k = std::to_string(*per_token), got = std::to_string(*experts_per_token);
    throw detail::input_error("experts_per_token", text_id::kErrorHfTopKDiffers,
                              "differs from num_experts_per_tok (" + top_k + "), got " + got,
                              {{"per_token", top_k}, {"got_value", got}});
  }
  if (!per_token && !experts_per_token) {
    throw detail::input_error("num_experts_per_tok", text_id::kErrorHfTopKRequired,
                              "is required (or experts_per_token)");
  }
  moe["top_k"] = per_token ? *per_token : *experts_per_token;
  moe["moe_ffn_hidden_size"] = ffn;
  return moe;
}

// DeepSeek-V2/V3's experts (DeepseekV3Config, configuration_deepseek_v3.py; Megatron-Bridge
// deepseek_v3_bridge.py).
json deepseek_moe(ConfigReader& reader, int64_t num_layers) {
  require_moe_every_layer(reader, "moe_layer_freq");
  json moe;
  moe["num_experts"] = reader.positive("n_routed_experts", kMaxDimension);
  moe["top_k"] = reader.positive("num_experts_per_tok", moe["num_experts"].get<int64_t>());
  moe["moe_ffn_hidden_size"] = reader.positive("moe_intermediate_size", kMaxDimension);
  moe["num_shared_experts"] = reader.count("n_shared_experts", 1024);
  moe["first_k_dense_layers"] = reader.count("first_k_dense_replace", num_layers - 1);
  // "noaux_tc": DeepSeek-V3's auxiliary-loss-free balancing by a per-expert bias
  // (e_score_correction_bias; Megatron-LM --moe-router-enable-expert-bias).
  const std::string topk_method = reader.text("topk_method").value_or("greedy");
  moe["moe_router_enable_expert_bias"] = topk_method == "noaux_tc";
  return moe;
}

// DeepSeek's group-limited routing: not modelled, reported.
void deepseek_expert_groups(ConfigReader& reader) {
  const int64_t groups_of_experts = reader.count("n_group", kMaxDimension, 1);
  reader.find("topk_group");
  if (groups_of_experts > 1) {
    const std::string groups = std::to_string(groups_of_experts);
    reader.report(
        "n_group", "unsupported",
        {text_id::kHfGroupLimitedRouting,
         "group-limited routing (each token's experts in at most topk_group of " + groups +
             " groups; Megatron-LM --moe-router-num-groups, "
             "--moe-router-group-topk): Paraplan counts the all-to-all as if a "
             "token's experts may sit on any GPU",
         {{"groups", groups}},
         {}});
    reader.ignore_if_present("topk_group", ConfigReader::see_key("n_group"));
  } else {
    const CoreText one_group{
        text_id::kHfOneExpertGroup, "one group: no group-limited routing", {}, {}};
    reader.ignore_if_present("n_group", one_group);
    reader.ignore_if_present("topk_group", one_group);
  }
}

// DeepSeek's multi-latent attention and multi-token prediction into `model`.
void deepseek_latent_attention(ConfigReader& reader, json& model) {
  json mla;
  mla["q_lora_rank"] = reader.count("q_lora_rank", kMaxDimension);
  mla["kv_lora_rank"] = reader.positive("kv_lora_rank", kMaxDimension);
  mla["qk_head_dim"] = reader.positive("qk_nope_head_dim", kMaxDimension);
  mla["qk_pos_emb_head_dim"] = reader.count("qk_rope_head_dim", kMaxDimension);
  mla["v_head_dim"] = reader.positive("v_head_dim", kMaxDimension);
  model["multi_latent_attention"] = mla;
  model["kv_channels"] = mla["v_head_dim"];
  model["mtp_num_layers"] = reader.count("num_nextn_predict_layers", limits::kMaxLayers);
}

// GPT-OSS's rope_scaling {rope_type: "yarn", factor: 32, original_max_position_embeddings: 4096,
// beta_fast: 32, beta_slow: 1, truncate: false}: Megatron-Bridge's gpt_oss_bridge.py sets
// position_embedding_type yarn and yarn_rotary_scaling_factor,
// yarn_original_max_position_embeddings, yarn_beta_fast, yarn_beta_slow and
// yarn_correction_range_round_to_int (truncate) from the same values, leaving yarn_mscale and
// yarn_mscale_all_dim unset.
void gpt_oss_yarn(ConfigReader& reader, json& model) {
  const json* scaling = reader.value("rope_scaling");
  if (scaling == nullptr) return;
  const auto type = scaling->is_object() ? scaling->find("rope_type") : scaling->end();
  const auto factor = scaling->is_object() ? scaling->find("factor") : scaling->end();
  if (type == scaling->end() || *type != "yarn" || factor == scaling->end()) {
    reader.report("rope_scaling", "ignored",
                  ConfigReader::ignored_key("rope_scaling", ignored_keys().at("rope_scaling")));
    return;
  }
  model["yarn_rotary_scaling_factor"] = detail::read_number(*factor, "rope_scaling.factor", 1, 1e6);
  if (const auto it = scaling->find("original_max_position_embeddings"); it != scaling->end()) {
    model["yarn_original_max_position_embeddings"] = detail::read_integer(
        *it, "rope_scaling.original_max_position_embeddings", 1, limits::kMaxSeqLength);
  }
  if (const auto it = scaling->find("beta_fast"); it != scaling->end()) {
    model["yarn_beta_fast"] = detail::read_number(*it, "rope_scaling.beta_fast", 1e-3, 1e6);
  }
  if (const auto it = scaling->find("beta_slow"); it != scaling->end()) {
    model["yarn_beta_slow"] = detail::read_number(*it, "rope_scaling.beta_slow", 1e-3, 1e6);
  }
  if (const auto it = scaling->find("truncate"); it != scaling->end()) {
    model["yarn_correction_range_round_to_int"] =
        detail::read_boolean(*it, "rope_scaling.truncate");
  }
}

}  // namespace

// What a family's attention has that the model document cannot say, reported on architectures.
void hf_family_attention_notes(ConfigReader& reader, Family family, const HfDimensions& d,
                               int64_t head_dim) {
  if (family == Family::qwen2) {
    // Qwen2Attention: q_proj, k_proj and v_proj with bias=True (modeling_qwen2.py).
    const double qkv_biases =
        static_cast<double>(d.num_layers) * (d.heads + 2 * d.groups) * head_dim;
    const std::string parameters = count_text(qkv_biases);
    reader.report("architectures", "unsupported",
                  {text_id::kHfQkvBiasesOnly,
                   "Qwen2 has biases on the q, k and v projections only (Megatron-LM "
                   "--add-qkv-bias); add_bias_linear covers every linear layer, so they are left "
                   "out (" +
                       parameters + " parameters)",
                   {{"parameters", parameters}},
                   {}});
  } else if (family == Family::gpt_oss) {
    // GptOssAttention.sinks: one learned logit per head (modeling_gpt_oss.py).
    const std::string heads = std::to_string(d.heads);
    reader.report("architectures", "unsupported",
                  {text_id::kHfAttentionSinks,
                   "gpt-oss adds a learned attention-sink logit per head (" + heads +
                       " parameters per layer): not modelled",
                   {{"heads", heads}},
                   {}});
  } else {
    reader.find("architectures");
  }
}

// The family's experts (and DeepSeek's latent attention) into `model`.
void hf_family_layers(ConfigReader& reader, Family family, const HfDimensions& d, json& model) {
  switch (family) {
    case Family::llama:
    case Family::mistral:
    case Family::qwen2:
      break;
    case Family::qwen3:
      model["qk_layernorm"] = true;  // Qwen3Attention's q_norm and k_norm (qwen3_bridge.py)
      break;
    case Family::qwen3_moe: {
      // Qwen3MoeAttention's q_norm and k_norm (qwen3_moe_bridge.py: provider.qk_layernorm).
      model["qk_layernorm"] = true;
      json moe;
      moe["num_experts"] = reader.positive("num_experts", kMaxDimension);
      moe["top_k"] = reader.positive("num_experts_per_tok", moe["num_experts"].get<int64_t>());
      moe["moe_ffn_hidden_size"] = reader.positive("moe_intermediate_size", kMaxDimension);
      moe["first_k_dense_layers"] = qwen_dense_layers(reader, d.num_layers);
      model["moe"] = moe;
      break;
    }
    case Family::mixtral: {
      // MixtralSparseMoeBlock: every expert is intermediate_size wide (modeling_mixtral.py).
      json moe;
      moe["num_experts"] = reader.positive("num_local_experts", kMaxDimension);
      moe["top_k"] = reader.positive("num_experts_per_tok", moe["num_experts"].get<int64_t>());
      moe["moe_ffn_hidden_size"] = d.ffn;
      model["moe"] = moe;
      break;
    }
    case Family::gpt_oss:
      model["moe"] = gpt_oss_moe(reader, d.ffn);
      // GptOssExperts clamps the gate half from above and the linear half to
      // [-swiglu_limit, swiglu_limit] (modeling_gpt_oss.py); Megatron-Bridge's gpt_oss_bridge.py
      // sets activation_func_clamp_value from it (7.0).
      if (const json* limit = reader.value("swiglu_limit")) {
        model["activation_func_clamp_value"] = detail::read_number(*limit, "swiglu_limit", 0, 1e6);
      }
      gpt_oss_yarn(reader, model);
      break;
    case Family::deepseek:
      model["moe"] = deepseek_moe(reader, d.num_layers);
      deepseek_expert_groups(reader);
      deepseek_latent_attention(reader, model);
      break;
  }
}

}  // namespace paraplan::detail
