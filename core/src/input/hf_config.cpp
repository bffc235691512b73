// Hugging Face config.json -> Paraplan's model document. Key names and defaults follow
// transformers' configuration classes (models/<family>/configuration_<family>.py); the mapping
// to Megatron-LM's arguments follows Megatron-Bridge's model bridges (src/megatron/bridge/models/
// <family>/*_bridge.py).
#include "paraplan/hf_config.hpp"

#include <algorithm>
#include <optional>

#include "input/hf_config_reader.hpp"
#include "input/hf_families.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/model.hpp"

namespace paraplan {
namespace {

using detail::ConfigReader;
using detail::count_text;
using detail::Family;
using detail::HfDimensions;
using detail::kMaxDimension;
using nlohmann::json;

struct Architecture {
  std::string_view architecture;  // config.json "architectures"[0]
  std::string_view model_type;    // config.json "model_type"
  Family family;
};

constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", "llama", Family::llama},
    {"MistralForCausalLM", "mistral", Family::mistral},
    {"Qwen2ForCausalLM", "qwen2", Family::qwen2},
    {"Qwen3ForCausalLM", "qwen3", Family::qwen3},
    {"Qwen3MoeForCausalLM", "qwen3_moe", Family::qwen3_moe},
    {"MixtralForCausalLM", "mixtral", Family::mixtral},
    {"DeepseekV2ForCausalLM", "deepseek_v2", Family::deepseek},
    {"DeepseekV3ForCausalLM", "deepseek_v3", Family::deepseek},
    {"GptOssForCausalLM", "gpt_oss", Family::gpt_oss},
};

const Architecture& architecture_of(ConfigReader& reader) {
  std::string listed;
  for (const Architecture& known : kArchitectures) {
    listed += (listed.empty() ? "" : ", ") + std::string(known.architecture);
  }
  if (const json* architectures = reader.value("architectures")) {
    if (!architectures->is_array() || architectures->empty() || !(*architectures)[0].is_string()) {
      throw detail::value_error("architectures", text_id::kErrorHfArchitectures,
                                "expected a list of class names", {}, *architectures);
    }
    const std::string name = (*architectures)[0].get<std::string>();
    for (const Architecture& known : kArchitectures) {
      if (known.architecture == name) {
        reader.find("model_type");
        return known;
      }
    }
    throw detail::value_error("architectures", text_id::kErrorHfArchitecture,
                              "expected one of " + listed, {{"known", listed}},
                              (*architectures)[0]);
  }
  if (const std::optional<std::string> model_type = reader.text("model_type")) {
    for (const Architecture& known : kArchitectures) {
      if (known.model_type == *model_type) return known;
    }
    const json got = *model_type;
    std::vector<std::pair<std::string, std::string>> args = detail::got_args(got);
    args.emplace_back("known", listed);
    throw detail::input_error(
        "model_type", text_id::kErrorHfModelType,
        "unknown model type " + detail::describe(got) + " (known architectures: " + listed + ")",
        std::move(args));
  }
  throw detail::input_error("architectures", text_id::kErrorHfArchitectureRequired,
                            "is required (or model_type), one of " + listed, {{"known", listed}});
}

std::string activation_of(ConfigReader& reader) {
  // transformers' ACT2FN names; every family here has a gated MLP (gate, up and down).
  const std::optional<std::string> act = reader.text("hidden_act");
  if (!act || *act == "silu" || *act == "swish") return "swiglu";
  if (*act == "gelu" || *act == "gelu_new" || *act == "gelu_pytorch_tanh" || *act == "gelu_fast") {
    return "geglu";
  }
  throw detail::value_error("hidden_act", text_id::kErrorHfActivation,
                            "expected silu or gelu (a gated MLP)", {}, json(*act));
}

std::string family_name(const Architecture& architecture, std::string_view name,
                        ConfigReader& reader) {
  if (const json* path = reader.value("_name_or_path"); path && path->is_string()) {
    std::string text = path->get<std::string>();
    const size_t slash = text.find_last_of('/');
    if (slash != std::string::npos && slash + 1 < text.size()) text = text.substr(slash + 1);
    if (!text.empty()) return text;
  }
  if (!name.empty()) return std::string(name);
  return std::string(architecture.architecture);
}

// The layers' sizes, the activation and the per-head dimension into `model`.
HfDimensions hf_dense_dimensions(ConfigReader& reader, Family family, json& model) {
  const int64_t num_layers = reader.positive("num_hidden_layers", limits::kMaxLayers);
  const int64_t hidden = reader.positive("hidden_size", kMaxDimension);
  const int64_t heads = reader.positive("num_attention_heads", kMaxDimension);
  const int64_t ffn = reader.positive("intermediate_size", kMaxDimension);
  const int64_t vocab = reader.positive("vocab_size", limits::kMaxVocab);
  const int64_t groups = reader.optional_positive("num_key_value_heads", heads).value_or(heads);
  if (heads % groups != 0) {
    throw detail::must_divide_heads_error("num_key_value_heads", heads, groups);
  }
  model["num_layers"] = num_layers;
  model["hidden_size"] = hidden;
  model["ffn_hidden_size"] = ffn;
  model["num_attention_heads"] = heads;
  model["num_query_groups"] = groups;
  model["vocab_size"] = vocab;
  model["activation"] = activation_of(reader);

  // Per-head dimension: head_dim when given (Qwen3, gpt-oss), else hidden / heads.
  if (const std::optional<int64_t> head_dim = reader.optional_positive("head_dim", kMaxDimension)) {
    model["kv_channels"] = *head_dim;
  } else if (family != Family::deepseek && hidden % heads != 0) {
    throw detail::head_dim_required_error("head_dim", hidden, heads);
  }
  return {num_layers, hidden, heads, ffn, groups};
}

// Tied embeddings and dropout into `model`.
void hf_embeddings_and_dropout(ConfigReader& reader, json& model) {
  // transformers' default for every family here is untied (tie_word_embeddings=False).
  model["untie_embeddings_and_output_weights"] = !reader.flag("tie_word_embeddings", false);
  const double attention_dropout = reader.fraction("attention_dropout").value_or(0.0);
  model["hidden_dropout"] = 0.0;
  model["attention_dropout"] = attention_dropout;
}

// Biases into `model`; returns the per-head dimension the model counts.
int64_t hf_linear_biases(ConfigReader& reader, Family family, const HfDimensions& d, json& model) {
  // Biases: Paraplan's add_bias_linear puts a bias on every linear layer (Megatron-LM
  // --add-bias-linear); a model with biases on some layers only is mapped without them.
  const bool attention_bias = reader.flag("attention_bias", false);
  const bool mlp_bias = reader.flag("mlp_bias", false);
  const bool all_biases = family == Family::gpt_oss ? attention_bias : attention_bias && mlp_bias;
  model["add_bias_linear"] = all_biases;
  const int64_t head_dim = model.contains("kv_channels")
                               ? model["kv_channels"].get<int64_t>()
                               : (d.hidden / std::max<int64_t>(d.heads, 1));
  const double attention_biases =
      static_cast<double>(d.num_layers) * ((d.heads + 2 * d.groups) * head_dim + d.hidden);
  if (attention_bias && !all_biases) {
    const std::string parameters = count_text(attention_biases);
    reader.report("attention_bias", "unsupported",
                  {text_id::kHfAttentionBiasesOnly,
                   "biases on the attention projections only: add_bias_linear covers every "
                   "linear layer, so they are left out (" +
                       parameters + " parameters)",
                   {{"parameters", parameters}},
                   {}});
  }
  if (mlp_bias && !all_biases) {
    reader.report("mlp_bias", "unsupported",
                  {text_id::kHfMlpBiasesOnly,
                   "biases on the MLP only: add_bias_linear covers every linear layer, so they "
                   "are left out",
                   {},
                   {}});
  }
  return head_dim;
}

// The mapped document must be a model the core accepts: a last check, named as the config's.
void check_mapped_model(const json& model) {
  try {
    parse_model(model, "model");
  } catch (const InputError& error) {
    // The model field's config.json key, where one maps to it.
    static const std::pair<std::string_view, std::string_view> kKeys[] = {
        {"model.num_layers", "num_hidden_layers"},
        {"model.hidden_size", "hidden_size"},
        {"model.ffn_hidden_size", "intermediate_size"},
        {"model.num_attention_heads", "num_attention_heads"},
        {"model.num_query_groups", "num_key_value_heads"},
        {"model.vocab_size", "vocab_size"},
        {"model.kv_channels", "head_dim"},
        {"model.window_size", "sliding_window"}};
    for (const auto& [field, key] : kKeys) {
      if (error.path() == field) throw InputError(std::string(key), error.text());
    }
    throw InputError("", CoreText{text_id::kErrorHfMappedModel,
                                  "the mapped model is invalid: " + std::string(error.what()),
                                  {{"path", error.path()}},
                                  {error.text()}});
  }
}

}  // namespace

std::vector<std::string> hf_architectures() {
  std::vector<std::string> names;
  for (const Architecture& known : kArchitectures) names.emplace_back(known.architecture);
  return names;
}

HfImport import_hf_config(const json& config, std::string_view name) {
  if (!config.is_object()) {
    throw detail::value_error("", text_id::kErrorHfNotObject,
                              "expected a JSON object (a Hugging Face config.json)", {}, config);
  }
  ConfigReader reader(config);
  const Architecture& architecture = architecture_of(reader);
  const Family family = architecture.family;

  json model;
  model["name"] = family_name(architecture, name, reader);
  const HfDimensions dimensions = hf_dense_dimensions(reader, family, model);
  hf_embeddings_and_dropout(reader, model);
  const int64_t head_dim = hf_linear_biases(reader, family, dimensions, model);
  hf_family_attention_notes(reader, family, dimensions, head_dim);
  sliding_window(reader, family, dimensions.num_layers, model);
  if (!reader.used("layer_types")) full_layer_types(reader);
  hf_family_layers(reader, family, dimensions, model);

  HfImport imported;
  imported.architecture = std::string(architecture.architecture);
  imported.unmapped = reader.finish(architecture.architecture);
  check_mapped_model(model);
  imported.model = std::move(model);
  return imported;
}

json to_json(const HfImport& imported) {
  json unmapped = json::array();
  for (const UnmappedKey& key : imported.unmapped) {
    unmapped.push_back({{"key", key.key},
                        {"status", key.status},
                        {"reason", key.reason},
                        {"reason_text", to_json(key.reason_text)}});
  }
  return {{"architecture", imported.architecture},
          {"model", imported.model},
          {"unmapped", unmapped},
          {"parameters", to_json(count_parameters(parse_model(imported.model, "model")))}};
}

}  // namespace paraplan
