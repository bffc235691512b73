// Importing a model from a Hugging Face `config.json` (transformers' PretrainedConfig): the
// families Llama, Mistral, Qwen2, Qwen3, Qwen3-MoE, Mixtral, DeepSeek-V2/V3 and gpt-oss are
// mapped to Paraplan's model document (the object a scenario's `model` takes, docs/contract.md).
// Every key of the config that is not mapped is reported with a reason.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "paraplan/report.hpp"

namespace paraplan {

// A key of config.json that did not become a model field.
struct UnmappedKey {
  std::string key;
  // "ignored": changes no weight shape, FLOP or byte Paraplan counts (token ids, RoPE base,
  //   storage dtype, ...);
  // "unsupported": changes the model, but Paraplan cannot express it (sliding-window attention,
  //   QKV-only biases, ...): the reason says what is left out;
  // "unknown": not a key Paraplan knows for this family.
  std::string status;
  std::string reason;
  CoreText reason_text;  // `reason` with its id and values (model/text_ids.hpp)
};

struct HfImport {
  std::string architecture;  // e.g. "LlamaForCausalLM"
  nlohmann::json model;      // a scenario's `model` object; parse_model accepts it
  std::vector<UnmappedKey> unmapped;
};

// Maps a parsed config.json. `name` becomes the model's name when the config has no
// `_name_or_path`. Bad input throws InputError whose path is the config's key (e.g.
// "hidden_size: expected a positive integer, got 0"); the caller prefixes where it came from.
HfImport import_hf_config(const nlohmann::json& config, std::string_view name = {});

// {"architecture", "model", "unmapped": [{"key", "status", "reason", "reason_text"}],
// "parameters": {...}}.
nlohmann::json to_json(const HfImport& imported);

// The architectures import_hf_config maps.
std::vector<std::string> hf_architectures();

}  // namespace paraplan
