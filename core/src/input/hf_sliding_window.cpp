// Hugging Face sliding-window attention and layer types -> Megatron-LM's window_size and
// window_attn_skip_freq.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "input/hf_families.hpp"

namespace paraplan::detail {
namespace {

using nlohmann::json;

}  // namespace

// Which layers use the window: layer_types (gpt-oss), else Qwen's max_window_layers (layers from
// that index on, configuration_qwen2.py), else every layer (Mistral). Nothing where layer_types
// names something else (reported).
std::optional<std::vector<bool>> windowed_layers(ConfigReader& reader, bool qwen,
                                                 int64_t num_layers) {
  std::vector<bool> sliding(static_cast<size_t>(num_layers), true);
  if (const json* types = reader.value("layer_types"); types != nullptr) {
    const bool known = types->is_array() && static_cast<int64_t>(types->size()) == num_layers &&
                       std::all_of(types->begin(), types->end(), [](const json& type) {
                         return type == json("sliding_attention") || type == json("full_attention");
                       });
    if (!known) {
      const std::string layers = std::to_string(num_layers);
      reader.report("layer_types", "unsupported",
                    {text_id::kHfLayerTypesUnknown,
                     "expected one of sliding_attention or full_attention per layer (" + layers +
                         "): every layer counted with full attention",
                     {{"num_layers", layers}},
                     {}});
      reader.report("sliding_window", "unsupported", ConfigReader::see_key("layer_types"));
      return std::nullopt;
    }
    for (size_t i = 0; i < sliding.size(); ++i)
      sliding[i] = (*types)[i] == json("sliding_attention");
    reader.ignore_if_present(
        "max_window_layers",
        {text_id::kHfLayerTypesListWindows, "layer_types lists the windowed layers", {}, {}});
  } else if (qwen) {
    const int64_t full = reader.count("max_window_layers", limits::kMaxLayers, 0);
    for (int64_t i = 0; i < num_layers && i < full; ++i) sliding[static_cast<size_t>(i)] = false;
  }
  return sliding;
}

// Megatron-LM utils.py is_layer_window_attention: layer_number % N != 0 is windowed. The N whose
// pattern `sliding` is, or 0 where none is.
int64_t window_skip_freq(const std::vector<bool>& sliding) {
  const auto num_layers = static_cast<int64_t>(sliding.size());
  for (int64_t n = 2; n <= num_layers; ++n) {
    bool matches = true;
    for (int64_t i = 0; i < num_layers && matches; ++i) {
      matches = sliding[static_cast<size_t>(i)] == ((i + 1) % n != 0);
    }
    if (matches) return n;
  }
  return 0;
}

// Sliding-window attention -> window_size and window_attn_skip_freq. Hugging Face's
// sliding_window counts the query itself, Megatron-LM's left window does not: window_size is
// sliding_window - 1 (Megatron-Bridge gpt_oss_bridge.py: window_size = (sliding_window - 1, 0)).
// Megatron-LM expresses every layer, or all but every N-th (window_attn_skip_freq N); other
// patterns are reported.
void sliding_window(ConfigReader& reader, Family family, int64_t num_layers, json& model) {
  if (!reader.present("sliding_window")) {
    reader.ignore_if_present("sliding_window",
                             {text_id::kHfNoWindow, "null: full attention", {}, {}});
    reader.ignore_if_present("use_sliding_window",
                             {text_id::kHfNoWindow, "no sliding window", {}, {}});
    return;
  }
  // Qwen2/Qwen3 apply sliding_window only with use_sliding_window (configuration_qwen2.py).
  const bool qwen =
      family == Family::qwen2 || family == Family::qwen3 || family == Family::qwen3_moe;
  if (qwen && !reader.flag("use_sliding_window", false)) {
    reader.report("sliding_window", "ignored",
                  {text_id::kHfWindowOff, "use_sliding_window is false: full attention", {}, {}});
    reader.ignore_if_present("use_sliding_window",
                             {text_id::kHfWindowOff, "false: full attention", {}, {}});
    return;
  }
  reader.find("use_sliding_window");
  const int64_t window = reader.positive("sliding_window", limits::kMaxSeqLength);
  const std::optional<std::vector<bool>> sliding = windowed_layers(reader, qwen, num_layers);
  if (!sliding) return;
  const int64_t windowed = std::count(sliding->begin(), sliding->end(), true);
  if (windowed == 0) {
    reader.report(
        "sliding_window", "ignored",
        {text_id::kHfNoLayerWindowed, "no layer uses the window: full attention", {}, {}});
    return;
  }
  if (window < 2) {
    reader.report("sliding_window", "unsupported",
                  {text_id::kHfWindowOfQueryAlone,
                   "a window of the query alone has no Megatron-LM --window-size: full attention "
                   "counted",
                   {},
                   {}});
    return;
  }
  if (windowed == num_layers) {
    model["window_size"] = window - 1;
    return;
  }
  if (const int64_t skip_freq = window_skip_freq(*sliding); skip_freq != 0) {
    model["window_size"] = window - 1;
    model["window_attn_skip_freq"] = skip_freq;
    return;
  }
  const std::string windowed_layers_text = std::to_string(windowed);
  const std::string layers = std::to_string(num_layers);
  reader.report("sliding_window", "unsupported",
                {text_id::kHfWindowPattern,
                 "sliding-window attention over " + std::to_string(window) + " tokens in " +
                     windowed_layers_text + " of " + layers +
                     " layers in a pattern other than every layer or all but every N-th "
                     "(window_attn_skip_freq): Paraplan counts full causal attention in every "
                     "layer, so their attention time is overestimated for sequences longer than "
                     "the window",
                 {{"window", std::to_string(window)},
                  {"windowed_layers", windowed_layers_text},
                  {"num_layers", layers}},
                 {}});
  reader.ignore_if_present("layer_types", ConfigReader::see_key("sliding_window"));
  reader.ignore_if_present("max_window_layers", ConfigReader::see_key("sliding_window"));
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
    reader.report("layer_types", "ignored",
                  {text_id::kHfAllLayersFull, "every layer has full attention", {}, {}});
  } else {
    reader.report("layer_types", "unsupported",
                  {text_id::kHfOtherLayersUnwindowed,
                   "layers other than full attention without a sliding_window: Paraplan counts "
                   "full causal attention in every layer",
                   {},
                   {}});
  }
}

}  // namespace paraplan::detail
