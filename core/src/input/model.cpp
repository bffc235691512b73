#include "paraplan/model.hpp"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "input/json_reader.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/presets.hpp"

namespace paraplan {
namespace {

using detail::ObjectReader;

using limits::kMaxLayers;
using limits::kMaxModelDimension;
using limits::kMaxVocab;

constexpr std::array<std::string_view, 5> kActivations = {"gelu", "relu", "squared-relu", "swiglu",
                                                          "geglu"};
constexpr std::array<std::string_view, 3> kPositionEmbeddings = {"learned_absolute", "rope",
                                                                 "none"};

MoeSpec parse_moe(ObjectReader& object, const ModelSpec& model) {
  MoeSpec moe;
  moe.num_experts = object.integer("num_experts", 1, kMaxModelDimension);
  moe.top_k = object.integer("top_k", 1, moe.num_experts);
  moe.moe_ffn_hidden_size = object.optional_integer("moe_ffn_hidden_size", 1, kMaxModelDimension)
                                .value_or(model.ffn_hidden_size);
  moe.num_shared_experts = object.optional_integer("num_shared_experts", 0, 1024).value_or(0);
  moe.first_k_dense_layers =
      object.optional_integer("first_k_dense_layers", 0, model.num_layers - 1).value_or(0);
  moe.moe_router_enable_expert_bias =
      object.optional_boolean("moe_router_enable_expert_bias").value_or(false);
  object.reject_unknown_keys();
  return moe;
}

MlaSpec parse_mla(ObjectReader& object) {
  MlaSpec mla;
  mla.q_lora_rank = object.optional_integer("q_lora_rank", 0, kMaxModelDimension).value_or(0);
  mla.kv_lora_rank = object.integer("kv_lora_rank", 1, kMaxModelDimension);
  mla.qk_head_dim = object.integer("qk_head_dim", 1, kMaxModelDimension);
  mla.qk_pos_emb_head_dim = object.integer("qk_pos_emb_head_dim", 0, kMaxModelDimension);
  mla.v_head_dim = object.integer("v_head_dim", 1, kMaxModelDimension);
  object.reject_unknown_keys();
  return mla;
}

// YaRN rotary scaling: the factor, and its frequency correction only with a factor above 1.
void parse_yarn(ObjectReader& object, ModelSpec& model) {
  model.yarn_rotary_scaling_factor =
      object.optional_number("yarn_rotary_scaling_factor", 1, 1e6).value_or(1);
  if (model.yarn_rotary_scaling_factor > 1 &&
      (model.position_embedding_type != PositionEmbedding::rope || model.mla)) {
    throw detail::input_error(
        object.path_of("yarn_rotary_scaling_factor"), text_id::kErrorYarnNeedsRope,
        "needs rotary positions (position_embedding_type rope) without "
        "multi_latent_attention, whose rotary part scales by its own YaRN settings");
  }
  for (const char* key : {"yarn_original_max_position_embeddings", "yarn_beta_fast",
                          "yarn_beta_slow", "yarn_correction_range_round_to_int"}) {
    if (object.find(key) != nullptr && model.yarn_rotary_scaling_factor <= 1) {
      throw detail::input_error(object.path_of(key), text_id::kErrorYarnKeyNeedsFactor,
                                "needs yarn_rotary_scaling_factor above 1 (YaRN)");
    }
  }
  model.yarn_original_max_position_embeddings =
      object.optional_integer("yarn_original_max_position_embeddings", 1, limits::kMaxSeqLength)
          .value_or(model.yarn_original_max_position_embeddings);
  model.yarn_beta_fast =
      object.optional_number("yarn_beta_fast", 1e-3, 1e6).value_or(model.yarn_beta_fast);
  model.yarn_beta_slow =
      object.optional_number("yarn_beta_slow", 1e-3, 1e6).value_or(model.yarn_beta_slow);
  model.yarn_correction_range_round_to_int =
      object.optional_boolean("yarn_correction_range_round_to_int")
          .value_or(model.yarn_correction_range_round_to_int);
}

// The sizes: layers, hidden, MLP, heads and query groups, vocabulary, activation, head dim.
void parse_dimensions(ObjectReader& object, ModelSpec& model) {
  model.name = object.optional_string("name").value_or("custom");
  model.num_layers = object.integer("num_layers", 1, kMaxLayers);
  model.hidden_size = object.integer("hidden_size", 1, kMaxModelDimension);
  model.ffn_hidden_size = object.integer("ffn_hidden_size", 1, kMaxModelDimension);
  model.num_attention_heads = object.integer("num_attention_heads", 1, model.hidden_size);
  model.num_query_groups = object.optional_integer("num_query_groups", 1, model.num_attention_heads)
                               .value_or(model.num_attention_heads);
  if (model.num_attention_heads % model.num_query_groups != 0) {
    throw detail::must_divide_heads_error(object.path_of("num_query_groups"),
                                          model.num_attention_heads, model.num_query_groups);
  }
  model.vocab_size = object.integer("vocab_size", 1, kMaxVocab);
  model.activation = static_cast<Activation>(object.choice("activation", kActivations));
  const auto kv_channels = object.optional_integer("kv_channels", 1, kMaxModelDimension);
  if (kv_channels) {
    model.kv_channels = *kv_channels;
  } else if (model.hidden_size % model.num_attention_heads != 0) {
    throw detail::head_dim_required_error(object.path_of("kv_channels"), model.hidden_size,
                                          model.num_attention_heads);
  } else {
    model.kv_channels = model.hidden_size / model.num_attention_heads;
  }
}

// The embeddings' tying, biases, dropout and positions, with defaults by MLP kind.
void parse_family_defaults(ObjectReader& object, ModelSpec& model) {
  model.untie_embeddings_and_output_weights =
      object.optional_boolean("untie_embeddings_and_output_weights").value_or(false);
  // Defaults: GPT-style models (non-gated MLP) keep Megatron-LM's defaults (biases, dropout
  // 0.1); gated ones follow the Llama-family recipes (--disable-bias-linear, no dropout). A MoE
  // model trains without biases whatever its MLP: Megatron-Core's grouped experts refuse them
  // (experts.py GroupedMLP: "bias not supported in Grouped GEMM yet, please set
  // '--disable-bias-linear' instead"), and so does expert tensor parallelism (rules.cpp).
  const bool gpt_style = !is_gated(model.activation);
  const bool has_moe = object.find("moe") != nullptr;
  model.add_bias_linear =
      object.optional_boolean("add_bias_linear").value_or(gpt_style && !has_moe);
  const double default_dropout = gpt_style ? 0.1 : 0.0;
  model.hidden_dropout =
      object.optional_number("hidden_dropout", 0, 0.99).value_or(default_dropout);
  model.attention_dropout =
      object.optional_number("attention_dropout", 0, 0.99).value_or(default_dropout);
  model.position_embedding_type = static_cast<PositionEmbedding>(
      object.optional_choice("position_embedding_type", kPositionEmbeddings)
          .value_or(static_cast<int>(gpt_style ? PositionEmbedding::learned_absolute
                                               : PositionEmbedding::rope)));
}

// The optional MoE and multi-latent attention objects.
void parse_moe_and_mla(ObjectReader& object, ModelSpec& model) {
  if (const nlohmann::json* moe = object.find("moe")) {
    ObjectReader moe_object(*moe, object.path_of("moe"));
    model.moe = parse_moe(moe_object, model);
  }
  if (const nlohmann::json* mla = object.find("multi_latent_attention")) {
    ObjectReader mla_object(*mla, object.path_of("multi_latent_attention"));
    model.mla = parse_mla(mla_object);
  }
}

// Multi-token prediction, sliding windows, the clamped activation, query/key norms and YaRN.
void parse_layer_variants(ObjectReader& object, ModelSpec& model) {
  model.mtp_num_layers = object.optional_integer("mtp_num_layers", 0, kMaxLayers).value_or(0);
  model.window_size = object.optional_integer("window_size", 0, limits::kMaxSeqLength).value_or(0);
  model.window_attn_skip_freq =
      object.optional_integer("window_attn_skip_freq", 1, kMaxLayers).value_or(0);
  if (model.window_attn_skip_freq > 0 && model.window_size == 0) {
    throw detail::input_error(object.path_of("window_attn_skip_freq"),
                              text_id::kErrorWindowSkipNeedsWindow,
                              "needs window_size (a sliding window of at least 1 token): without "
                              "one every layer has full attention");
  }
  model.activation_func_clamp_value =
      object.optional_number("activation_func_clamp_value", 0, 1e6).value_or(0);
  if (model.activation_func_clamp_value > 0 && !is_gated(model.activation)) {
    throw detail::input_error(object.path_of("activation_func_clamp_value"),
                              text_id::kErrorClampNeedsGated,
                              "needs a gated activation (swiglu or geglu): Megatron-Core clamps "
                              "the gate and linear halves of a gated unit");
  }
  model.qk_layernorm = object.optional_boolean("qk_layernorm").value_or(false);
  if (model.qk_layernorm && model.mla) {
    throw detail::input_error(object.path_of("qk_layernorm"), text_id::kErrorQkLayernormWithMla,
                              "multi_latent_attention already normalises its latents "
                              "(q_layernorm and kv_layernorm); qk_layernorm is for standard "
                              "attention");
  }
}

ModelSpec parse_model_object(const nlohmann::json& value, const std::string& path) {
  ObjectReader object(value, path);
  ModelSpec model;
  parse_dimensions(object, model);
  parse_family_defaults(object, model);
  parse_moe_and_mla(object, model);
  parse_layer_variants(object, model);
  parse_yarn(object, model);
  object.reject_unknown_keys();
  return model;
}

double mlp_parameters(const ModelSpec& model, double ffn_hidden_size) {
  return (is_gated(model.activation) ? 3.0 : 2.0) * model.hidden_size * ffn_hidden_size;
}

// The norm weights counted with the attention: the layer's two norms (2h) and, with
// --qk-layernorm, the query's and the key's over the head dimension.
double attention_norm_parameters(const ModelSpec& model) {
  const double qk_norms = model.qk_layernorm ? 2.0 * static_cast<double>(model.kv_channels) : 0;
  return 2.0 * static_cast<double>(model.hidden_size) + qk_norms;
}

double attention_parameters(const ModelSpec& model) {
  const double h = model.hidden_size;
  const double heads = model.num_attention_heads;
  if (model.mla) {  // DeepSeek-V2 eqs. 9-18: down and up projections, output projection
    const MlaSpec& mla = *model.mla;
    const double qk = mla.qk_head_dim + mla.qk_pos_emb_head_dim;
    const double query = mla.q_lora_rank > 0
                             ? h * mla.q_lora_rank + mla.q_lora_rank * heads * qk + mla.q_lora_rank
                             : h * heads * qk;
    const double key_value = h * (mla.kv_lora_rank + mla.qk_pos_emb_head_dim) +
                             mla.kv_lora_rank * heads * (mla.qk_head_dim + mla.v_head_dim) +
                             mla.kv_lora_rank;
    return query + key_value + heads * mla.v_head_dim * h + 2 * h;
  }
  const double d = model.kv_channels;
  // QKV with grouped-query attention, output projection, the norms.
  return h * (heads + 2.0 * model.num_query_groups) * d + heads * d * h +
         attention_norm_parameters(model);
}

}  // namespace

double ModelSpec::yarn_concentration_factor() const {
  constexpr double kYarnMscaleSlope = 0.1;  // _yarn_get_mscale: 0.1 * mscale * ln(s) + 1
  if (yarn_rotary_scaling_factor <= 1) return 1.0;
  return kYarnMscaleSlope * std::log(yarn_rotary_scaling_factor) + 1.0;
}

std::span<const std::string_view> activation_names() { return kActivations; }

std::string_view to_string(Activation activation) {
  return kActivations[static_cast<size_t>(activation)];
}

ParameterCounts count_parameters(const ModelSpec& model) {
  ParameterCounts counts;
  const double h = model.hidden_size;
  counts.attention = attention_parameters(model);
  counts.dense_mlp = mlp_parameters(model, static_cast<double>(model.ffn_hidden_size));
  if (model.moe) {
    const MoeSpec& moe = *model.moe;
    const double expert = mlp_parameters(model, static_cast<double>(moe.moe_ffn_hidden_size));
    const double shared = moe.num_shared_experts * expert;
    const double router = h * moe.num_experts;
    counts.moe_expert_mlp = moe.num_experts * expert;
    counts.moe_mlp = router + counts.moe_expert_mlp + shared;
    counts.moe_active_mlp = router + moe.top_k * expert + shared;
  }
  counts.embedding = h * model.vocab_size;
  counts.output_layer = model.untie_embeddings_and_output_weights ? h * model.vocab_size : 0;
  const double dense_layers = static_cast<double>(model.num_layers - model.num_moe_layers());
  const double moe_layers = static_cast<double>(model.num_moe_layers());
  const double shared = counts.embedding + counts.output_layer + h;  // + final norm
  counts.total = model.num_layers * counts.attention + dense_layers * counts.dense_mlp +
                 moe_layers * counts.moe_mlp + shared;
  counts.active = model.num_layers * counts.attention + dense_layers * counts.dense_mlp +
                  moe_layers * counts.moe_active_mlp + shared;
  // Each MTP depth: a layer like the last one, eh_proj (2h x h) and three norms; the embedding
  // and LM head are shared (multi_token_prediction.py).
  const double last_mlp =
      model.is_moe_layer(model.num_layers - 1) ? counts.moe_mlp : counts.dense_mlp;
  counts.mtp = model.mtp_num_layers * (counts.attention + last_mlp + 2 * h * h + 3 * h);
  return counts;
}

nlohmann::json to_json(const ParameterCounts& counts) {
  return {{"total", counts.total},
          {"active", counts.active},
          {"mtp", counts.mtp},
          {"embedding", counts.embedding},
          {"output_layer", counts.output_layer},
          {"attention_per_layer", counts.attention},
          {"dense_mlp_per_layer", counts.dense_mlp},
          {"moe_mlp_per_layer", counts.moe_mlp}};
}

namespace {

// Model FLOPs per token with the core-attention term (scores and context over s x s) scaled
// by `attention_fraction`: 1 counts the full square, 0.5 the causal half.
double flops_per_token(const ModelSpec& model, int64_t seq_length, double attention_fraction) {
  const ParameterCounts counts = count_parameters(model);
  const double h = model.hidden_size;
  const double heads = model.num_attention_heads;
  // Attention scores and context: 2*s*(d_qk + d_v) per head and token, full s x s.
  const double head_dims =
      model.mla ? model.mla->qk_head_dim + model.mla->qk_pos_emb_head_dim + model.mla->v_head_dim
                : 2.0 * model.kv_channels;
  const double attention_scores = 2.0 * seq_length * heads * head_dims;
  const double norms = attention_norm_parameters(model);
  const double gemm_parameters_per_layer_sum =
      model.num_layers * (counts.attention - norms) +
      (model.num_layers - model.num_moe_layers()) * counts.dense_mlp +
      model.num_moe_layers() * counts.moe_active_mlp;
  const double logits = h * model.vocab_size;
  // MTP depths as Megatron-LM's num_floating_point_operations counts them: a layer like the
  // last one, eh_proj and the logits again.
  const double mtp = static_cast<double>(model.mtp_num_layers);
  const double last_mlp =
      model.is_moe_layer(model.num_layers - 1) ? counts.moe_active_mlp : counts.dense_mlp;
  const double mtp_gemm_parameters =
      mtp * (counts.attention - norms + last_mlp + 2 * h * h + logits);
  // Forward 2 FLOPs per weight per token; backward twice the forward (Narayanan et al. 2021, App.).
  return 3.0 * (2.0 * (gemm_parameters_per_layer_sum + logits + mtp_gemm_parameters) +
                (model.num_layers + mtp) * attention_fraction * attention_scores);
}

}  // namespace

double model_flops_per_token(const ModelSpec& model, int64_t seq_length) {
  return flops_per_token(model, seq_length, 1.0);
}

// Megatron-LM training.py, attn_layer_flops: "causal mask -> /2 cancels with FMA *2".
double model_flops_per_token_causal(const ModelSpec& model, int64_t seq_length) {
  return flops_per_token(model, seq_length, 0.5);
}

double window_attention_fraction(int64_t window_size, int64_t seq_length) {
  const double w = static_cast<double>(window_size);
  const double s = static_cast<double>(seq_length);
  if (window_size <= 0 || w >= s - 1) return 1.0;
  // Queries 0..w attend i + 1 keys, the other s - w - 1 attend w + 1 each.
  return (w + 1) * (2 * s - w) / (s * (s + 1));
}

double window_attention_layer_share(const ModelSpec& model, bool moe) {
  int64_t layers = 0;
  int64_t windowed = 0;
  for (int64_t i = 0; i < model.num_layers; ++i) {
    if (model.is_moe_layer(i) != moe) continue;
    ++layers;
    if (model.is_window_attention_layer(i)) ++windowed;
  }
  return layers == 0 ? 0.0 : static_cast<double>(windowed) / static_cast<double>(layers);
}

ModelSpec parse_model(const nlohmann::json& value, const std::string& path) {
  if (value.is_string()) {
    const std::string& name = value.get_ref<const std::string&>();
    const nlohmann::json* preset = find_preset(PresetKind::model, name);
    if (preset == nullptr) {
      std::string known;
      for (const std::string& id : preset_ids(PresetKind::model)) {
        known += (known.empty() ? "" : ", ") + id;
      }
      throw detail::unknown_preset_error(path, "model", value, known);
    }
    return parse_model_object(preset->at("model"), path);
  }
  return parse_model_object(value, path);
}

}  // namespace paraplan
