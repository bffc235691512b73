// Hugging Face config.json -> Paraplan's model document. Key names and defaults follow
// transformers' configuration classes (models/<family>/configuration_<family>.py); the mapping
// to Megatron-LM's arguments follows Megatron-Bridge's model bridges (src/megatron/bridge/models/
// <family>/*_bridge.py).
#include "paraplan/hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "input/json_reader.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/model.hpp"

namespace paraplan {
namespace {

using nlohmann::json;

enum class Family { llama, mistral, qwen2, qwen3, qwen3_moe, mixtral, deepseek, gpt_oss };

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

// Keys that change nothing Paraplan counts, whatever their value, with the reason.
const std::map<std::string, std::string, std::less<>>& ignored_keys() {
  static const std::map<std::string, std::string, std::less<>> keys = {
      {"_name_or_path", "where the checkpoint came from (used as the model's name)"},
      {"auto_map", "which Python classes load the checkpoint"},
      {"aux_loss_alpha", "weight of the load-balancing loss: no effect on sizes or time"},
      {"bos_token_id", "a token id"},
      {"eos_token_id", "a token id"},
      {"pad_token_id", "a token id"},
      {"dtype", "the checkpoint's storage type; the training precision is set under training"},
      {"torch_dtype",
       "the checkpoint's storage type; the training precision is set under training"},
      {"ep_size", "an inference setting; the search chooses expert parallelism"},
      {"initial_context_length", "the context length before RoPE scaling"},
      {"initializer_range", "weight initialization"},
      {"max_position_embeddings",
       "the longest sequence the model was built for; the sequence length is set under "
       "training"},
      {"max_window_layers", "used only with use_sliding_window"},
      {"model_type", "the family, read with architectures"},
      {"norm_topk_prob", "normalization of the routing weights: no effect on sizes or time"},
      {"output_router_logits", "an output option"},
      {"pretraining_tp", "a numerics option of the original checkpoint"},
      {"quantization_config",
       "the checkpoint's storage format; the training precision is set under training"},
      {"rms_norm_eps", "a numerical constant"},
      {"rope_parameters", "RoPE frequencies change no weight shape or FLOP count"},
      {"rope_scaling", "RoPE frequency scaling changes no weight shape or FLOP count"},
      {"rope_theta", "the RoPE base changes no weight shape or FLOP count"},
      {"routed_scaling_factor", "a scale of the routed experts' output"},
      {"router_aux_loss_coef", "weight of the load-balancing loss: no effect on sizes or time"},
      {"scoring_func", "the router's score function: no effect on sizes or time"},
      {"seq_aux", "how the load-balancing loss is averaged"},
      {"transformers_version", "the library version that wrote the file"},
      {"use_cache", "an inference option (key/value cache)"},
      {"use_mrope", "multimodal RoPE positions: no weight shape or FLOP count"},
  };
  return keys;
}

std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", x);
  return text;
}

std::string count_text(double parameters) {
  char text[32];
  if (parameters >= 1e9) {
    std::snprintf(text, sizeof text, "%.2fB", parameters / 1e9);
  } else if (parameters >= 1e6) {
    std::snprintf(text, sizeof text, "%.2fM", parameters / 1e6);
  } else {
    return number_text(parameters);
  }
  return text;
}

// Reads the config's keys, remembering which were used and what was reported.
class ConfigReader {
 public:
  explicit ConfigReader(const json& config) : config_(config) {}

  const json* find(std::string_view key) {
    const auto it = config_.find(key);
    if (it == config_.end()) return nullptr;
    used_.insert(std::string(key));
    return &*it;
  }
  // Present and not null.
  const json* value(std::string_view key) {
    const json* found = find(key);
    return found == nullptr || found->is_null() ? nullptr : found;
  }

  int64_t positive(std::string_view key, int64_t max) {
    const json* found = value(key);
    if (found == nullptr) throw InputError(std::string(key), "is required");
    return read_positive(*found, key, max);
  }
  std::optional<int64_t> optional_positive(std::string_view key, int64_t max) {
    const json* found = value(key);
    if (found == nullptr) return std::nullopt;
    return read_positive(*found, key, max);
  }
  // Non-negative; null and absent read as `otherwise`.
  int64_t count(std::string_view key, int64_t max, int64_t otherwise = 0) {
    const json* found = value(key);
    if (found == nullptr) return otherwise;
    if (!is_integer(*found) || found->get<double>() < 0 || found->get<double>() > max) {
      throw InputError(std::string(key), "expected an integer from 0 to " + std::to_string(max) +
                                             ", got " + detail::describe(*found));
    }
    return static_cast<int64_t>(found->get<double>());
  }
  bool flag(std::string_view key, bool otherwise) {
    const json* found = value(key);
    if (found == nullptr) return otherwise;
    if (!found->is_boolean()) {
      throw InputError(std::string(key), "expected true or false, got " + detail::describe(*found));
    }
    return found->get<bool>();
  }
  std::optional<double> fraction(std::string_view key) {
    const json* found = value(key);
    if (found == nullptr) return std::nullopt;
    return detail::read_number(*found, std::string(key), 0, 0.99);
  }
  std::optional<std::string> text(std::string_view key) {
    const json* found = value(key);
    if (found == nullptr) return std::nullopt;
    if (!found->is_string()) {
      throw InputError(std::string(key), "expected a string, got " + detail::describe(*found));
    }
    return found->get<std::string>();
  }

  // Reports `key` (when present, or always when `synthetic`) as not mapped.
  void report(std::string_view key, std::string status, std::string reason) {
    used_.insert(std::string(key));
    unmapped_.push_back({std::string(key), std::move(status), std::move(reason)});
  }
  void ignore_if_present(std::string_view key, std::string reason) {
    if (config_.contains(key)) report(key, "ignored", std::move(reason));
  }
  void unsupported_if_present(std::string_view key, std::string reason) {
    if (config_.contains(key)) report(key, "unsupported", std::move(reason));
  }
  bool used(std::string_view key) const { return used_.count(key) > 0; }
  bool present(std::string_view key) const {
    const auto it = config_.find(key);
    return it != config_.end() && !it->is_null();
  }

  // Every key not yet used: ignored with the table's reason, or unknown.
  std::vector<UnmappedKey> finish(std::string_view architecture) {
    for (const auto& [key, value] : config_.items()) {
      if (used_.count(key)) continue;
      const auto known = ignored_keys().find(key);
      if (known != ignored_keys().end()) {
        unmapped_.push_back({key, "ignored", known->second});
      } else {
        unmapped_.push_back({key, "unknown",
                             "not a key Paraplan knows for " + std::string(architecture) +
                                 ": left out; check that it does not change the layers"});
      }
    }
    std::stable_sort(unmapped_.begin(), unmapped_.end(),
                     [](const UnmappedKey& a, const UnmappedKey& b) { return a.key < b.key; });
    return std::move(unmapped_);
  }

 private:
  static bool is_integer(const json& value) {
    if (!value.is_number()) return false;
    const double x = value.get<double>();
    return std::isfinite(x) && x == std::floor(x);
  }
  static int64_t read_positive(const json& value, std::string_view key, int64_t max) {
    if (!is_integer(value) || value.get<double>() < 1) {
      throw InputError(std::string(key),
                       "expected a positive integer, got " + detail::describe(value));
    }
    if (value.get<double>() > static_cast<double>(max)) {
      throw InputError(std::string(key), "expected a positive integer up to " +
                                             std::to_string(max) + ", got " +
                                             detail::describe(value));
    }
    return static_cast<int64_t>(value.get<double>());
  }

  const json& config_;
  std::set<std::string, std::less<>> used_;
  std::vector<UnmappedKey> unmapped_;
};

constexpr int64_t kMaxDimension = limits::kMaxModelDimension;

const Architecture& architecture_of(ConfigReader& reader) {
  std::string listed;
  for (const Architecture& known : kArchitectures) {
    listed += (listed.empty() ? "" : ", ") + std::string(known.architecture);
  }
  if (const json* architectures = reader.value("architectures")) {
    if (!architectures->is_array() || architectures->empty() || !(*architectures)[0].is_string()) {
      throw InputError("architectures",
                       "expected a list of class names, got " + detail::describe(*architectures));
    }
    const std::string name = (*architectures)[0].get<std::string>();
    for (const Architecture& known : kArchitectures) {
      if (known.architecture == name) {
        reader.find("model_type");
        return known;
      }
    }
    throw InputError("architectures", "expected one of " + listed + ", got " +
                                          detail::describe((*architectures)[0]));
  }
  if (const std::optional<std::string> model_type = reader.text("model_type")) {
    for (const Architecture& known : kArchitectures) {
      if (known.model_type == *model_type) return known;
    }
    throw InputError("model_type", "unknown model type " + detail::describe(json(*model_type)) +
                                       " (known architectures: " + listed + ")");
  }
  throw InputError("architectures", "is required (or model_type), one of " + listed);
}

std::string activation_of(ConfigReader& reader) {
  // transformers' ACT2FN names; every family here has a gated MLP (gate, up and down).
  const std::optional<std::string> act = reader.text("hidden_act");
  if (!act || *act == "silu" || *act == "swish") return "swiglu";
  if (*act == "gelu" || *act == "gelu_new" || *act == "gelu_pytorch_tanh" || *act == "gelu_fast") {
    return "geglu";
  }
  throw InputError("hidden_act",
                   "expected silu or gelu (a gated MLP), got " + detail::describe(json(*act)));
}

// Sliding-window attention -> window_size and window_attn_skip_freq. Hugging Face's
// sliding_window counts the query itself, Megatron-LM's left window does not: window_size is
// sliding_window - 1 (Megatron-Bridge gpt_oss_bridge.py: window_size = (sliding_window - 1, 0)).
// Which layers are windowed: layer_types (gpt-oss), else Qwen's max_window_layers (layers from
// that index on, configuration_qwen2.py), else every layer (Mistral). Megatron-LM expresses every
// layer, or all but every N-th (window_attn_skip_freq N); other patterns are reported.
void sliding_window(ConfigReader& reader, Family family, int64_t num_layers, json& model) {
  if (!reader.present("sliding_window")) {
    reader.ignore_if_present("sliding_window", "null: full attention");
    reader.ignore_if_present("use_sliding_window", "no sliding window");
    return;
  }
  // Qwen2/Qwen3 apply sliding_window only with use_sliding_window (configuration_qwen2.py).
  const bool qwen =
      family == Family::qwen2 || family == Family::qwen3 || family == Family::qwen3_moe;
  if (qwen && !reader.flag("use_sliding_window", false)) {
    reader.report("sliding_window", "ignored", "use_sliding_window is false: full attention");
    reader.ignore_if_present("use_sliding_window", "false: full attention");
    return;
  }
  reader.find("use_sliding_window");
  const int64_t window = reader.positive("sliding_window", limits::kMaxSeqLength);
  const std::string width = std::to_string(window) + " tokens";
  std::vector<bool> sliding(static_cast<size_t>(num_layers), true);
  if (const json* types = reader.value("layer_types"); types != nullptr) {
    const bool known = types->is_array() && static_cast<int64_t>(types->size()) == num_layers &&
                       std::all_of(types->begin(), types->end(), [](const json& type) {
                         return type == json("sliding_attention") || type == json("full_attention");
                       });
    if (!known) {
      reader.report("layer_types", "unsupported",
                    "expected one of sliding_attention or full_attention per layer (" +
                        std::to_string(num_layers) + "): every layer counted with full attention");
      reader.report("sliding_window", "unsupported", "see layer_types");
      return;
    }
    for (size_t i = 0; i < sliding.size(); ++i)
      sliding[i] = (*types)[i] == json("sliding_attention");
    reader.ignore_if_present("max_window_layers", "layer_types lists the windowed layers");
  } else if (qwen) {
    const int64_t full = reader.count("max_window_layers", limits::kMaxLayers, 0);
    for (int64_t i = 0; i < num_layers && i < full; ++i) sliding[static_cast<size_t>(i)] = false;
  }
  const int64_t windowed = std::count(sliding.begin(), sliding.end(), true);
  if (windowed == 0) {
    reader.report("sliding_window", "ignored", "no layer uses the window: full attention");
    return;
  }
  if (window < 2) {
    reader.report("sliding_window", "unsupported",
                  "a window of the query alone has no Megatron-LM --window-size: full attention "
                  "counted");
    return;
  }
  if (windowed == num_layers) {
    model["window_size"] = window - 1;
    return;
  }
  // Megatron-LM utils.py is_layer_window_attention: layer_number % N != 0 is windowed.
  for (int64_t n = 2; n <= num_layers; ++n) {
    bool matches = true;
    for (int64_t i = 0; i < num_layers && matches; ++i) {
      matches = sliding[static_cast<size_t>(i)] == ((i + 1) % n != 0);
    }
    if (matches) {
      model["window_size"] = window - 1;
      model["window_attn_skip_freq"] = n;
      return;
    }
  }
  reader.report("sliding_window", "unsupported",
                "sliding-window attention over " + width + " in " + std::to_string(windowed) +
                    " of " + std::to_string(num_layers) +
                    " layers in a pattern other than every layer or all but every N-th "
                    "(window_attn_skip_freq): Paraplan counts full causal attention in every "
                    "layer, so their attention time is overestimated for sequences longer than "
                    "the window");
  reader.ignore_if_present("layer_types", "see sliding_window");
  reader.ignore_if_present("max_window_layers", "see sliding_window");
}

// layer_types naming only full attention (newer transformers write it for every model).
void full_layer_types(ConfigReader& reader) {
  const json* types = reader.value("layer_types");
  if (types == nullptr) return;
  const bool all_full =
      types->is_array() && std::all_of(types->begin(), types->end(), [](const json& type) {
        return type == json("full_attention");
      });
  if (all_full) {
    reader.report("layer_types", "ignored", "every layer has full attention");
  } else {
    reader.report("layer_types", "unsupported",
                  "layers other than full attention without a sliding_window: Paraplan counts "
                  "full causal attention in every layer");
  }
}

// The first-k dense layers of Qwen-MoE's mlp_only_layers and decoder_sparse_step.
int64_t qwen_dense_layers(ConfigReader& reader, int64_t num_layers) {
  const int64_t step = reader.count("decoder_sparse_step", kMaxDimension, 1);
  if (step != 1) {
    throw InputError("decoder_sparse_step",
                     "Paraplan models an MoE MLP in every layer after the first dense ones; "
                     "expected 1, got " +
                         std::to_string(step));
  }
  const json* dense = reader.value("mlp_only_layers");
  if (dense == nullptr) return 0;
  if (!dense->is_array()) {
    throw InputError("mlp_only_layers",
                     "expected a list of layer indices, got " + detail::describe(*dense));
  }
  for (size_t i = 0; i < dense->size(); ++i) {
    if ((*dense)[i] != json(i)) {
      throw InputError("mlp_only_layers",
                       "Paraplan models dense layers only as the first k layers; expected 0, "
                       "1, ..., k-1, got " +
                           detail::describe((*dense)[i]) + " at position " + std::to_string(i));
    }
  }
  if (static_cast<int64_t>(dense->size()) >= num_layers) {
    throw InputError("mlp_only_layers", "leaves no MoE layer");
  }
  return static_cast<int64_t>(dense->size());
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

// The dense dimensions every family maps (transformers' names, Megatron-LM's fields).
struct HfDimensions {
  int64_t num_layers, hidden, heads, ffn, groups;
};

// The layers' sizes, the activation and the per-head dimension into `model`.
HfDimensions hf_dense_dimensions(ConfigReader& reader, Family family, json& model) {
  const int64_t num_layers = reader.positive("num_hidden_layers", limits::kMaxLayers);
  const int64_t hidden = reader.positive("hidden_size", kMaxDimension);
  const int64_t heads = reader.positive("num_attention_heads", kMaxDimension);
  const int64_t ffn = reader.positive("intermediate_size", kMaxDimension);
  const int64_t vocab = reader.positive("vocab_size", limits::kMaxVocab);
  const int64_t groups = reader.optional_positive("num_key_value_heads", heads).value_or(heads);
  if (heads % groups != 0) {
    throw InputError("num_key_value_heads", "must divide num_attention_heads (" +
                                                std::to_string(heads) + "), got " +
                                                std::to_string(groups));
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
    throw InputError("head_dim", "is required when hidden_size (" + std::to_string(hidden) +
                                     ") is not a multiple of num_attention_heads (" +
                                     std::to_string(heads) + ")");
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
    reader.report("attention_bias", "unsupported",
                  "biases on the attention projections only: add_bias_linear covers every "
                  "linear layer, so they are left out (" +
                      count_text(attention_biases) + " parameters)");
  }
  if (mlp_bias && !all_biases) {
    reader.report("mlp_bias", "unsupported",
                  "biases on the MLP only: add_bias_linear covers every linear layer, so they "
                  "are left out");
  }
  return head_dim;
}

// What a family's attention has that the model document cannot say, reported on architectures.
void hf_family_attention_notes(ConfigReader& reader, Family family, const HfDimensions& d,
                               int64_t head_dim) {
  if (family == Family::qwen2) {
    // Qwen2Attention: q_proj, k_proj and v_proj with bias=True (modeling_qwen2.py).
    const double qkv_biases =
        static_cast<double>(d.num_layers) * (d.heads + 2 * d.groups) * head_dim;
    reader.report("architectures", "unsupported",
                  "Qwen2 has biases on the q, k and v projections only (Megatron-LM "
                  "--add-qkv-bias); add_bias_linear covers every linear layer, so they are left "
                  "out (" +
                      count_text(qkv_biases) + " parameters)");
  } else if (family == Family::gpt_oss) {
    // GptOssAttention.sinks: one learned logit per head (modeling_gpt_oss.py).
    reader.report("architectures", "unsupported",
                  "gpt-oss adds a learned attention-sink logit per head (" +
                      std::to_string(d.heads) + " parameters per layer): not modelled");
  } else {
    reader.find("architectures");
  }
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
    throw InputError("experts_per_token", "differs from num_experts_per_tok (" +
                                              std::to_string(*per_token) + "), got " +
                                              std::to_string(*experts_per_token));
  }
  if (!per_token && !experts_per_token) {
    throw InputError("num_experts_per_tok", "is required (or experts_per_token)");
  }
  moe["top_k"] = per_token ? *per_token : *experts_per_token;
  moe["moe_ffn_hidden_size"] = ffn;
  return moe;
}

// DeepSeek-V2/V3's experts (DeepseekV3Config, configuration_deepseek_v3.py; Megatron-Bridge
// deepseek_v3_bridge.py).
json deepseek_moe(ConfigReader& reader, int64_t num_layers) {
  const int64_t layer_freq = reader.count("moe_layer_freq", kMaxDimension, 1);
  if (layer_freq != 1) {
    throw InputError("moe_layer_freq",
                     "Paraplan models an MoE MLP in every layer after the first dense ones; "
                     "expected 1, got " +
                         std::to_string(layer_freq));
  }
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
    reader.report("n_group", "unsupported",
                  "group-limited routing (each token's experts in at most topk_group of " +
                      std::to_string(groups_of_experts) +
                      " groups; Megatron-LM --moe-router-num-groups, "
                      "--moe-router-group-topk): Paraplan counts the all-to-all as if a "
                      "token's experts may sit on any GPU");
    reader.ignore_if_present("topk_group", "see n_group");
  } else {
    reader.ignore_if_present("n_group", "one group: no group-limited routing");
    reader.ignore_if_present("topk_group", "one group: no group-limited routing");
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
    reader.report("rope_scaling", "ignored", ignored_keys().at("rope_scaling"));
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
      if (error.path() == field) throw InputError(std::string(key), error.message());
    }
    throw InputError("", "the mapped model is invalid: " + std::string(error.what()));
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
    throw InputError(
        "", "expected a JSON object (a Hugging Face config.json), got " + detail::describe(config));
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
    unmapped.push_back({{"key", key.key}, {"status", key.status}, {"reason", key.reason}});
  }
  return {{"architecture", imported.architecture},
          {"model", imported.model},
          {"unmapped", unmapped},
          {"parameters", to_json(count_parameters(parse_model(imported.model, "model")))}};
}

}  // namespace paraplan
