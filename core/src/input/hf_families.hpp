// The mapping of a Hugging Face config's family-specific parts: sliding-window attention
// (hf_sliding_window.cpp) and the family's attention notes, experts and latent attention
// (hf_family_layers.cpp). Key names and defaults follow transformers' configuration classes;
// the mapping follows Megatron-Bridge's model bridges.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "input/hf_config_reader.hpp"
#include "paraplan/limits.hpp"

namespace paraplan::detail {

enum class Family { llama, mistral, qwen2, qwen3, qwen3_moe, mixtral, deepseek, gpt_oss };

inline constexpr int64_t kMaxDimension = limits::kMaxModelDimension;

// The dense dimensions every family maps (transformers' names, Megatron-LM's fields).
struct HfDimensions {
  int64_t num_layers, hidden, heads, ffn, groups;
};

// Sliding-window attention -> window_size and window_attn_skip_freq into `model` (or reported).
void sliding_window(ConfigReader& reader, Family family, int64_t num_layers, nlohmann::json& model);

// layer_types naming only full attention (newer transformers write it for every model).
void full_layer_types(ConfigReader& reader);

// What a family's attention has that the model document cannot say, reported on architectures.
void hf_family_attention_notes(ConfigReader& reader, Family family, const HfDimensions& d,
                               int64_t head_dim);

// The family's experts (and DeepSeek's latent attention) into `model`.
void hf_family_layers(ConfigReader& reader, Family family, const HfDimensions& d,
                      nlohmann::json& model);

}  // namespace paraplan::detail
