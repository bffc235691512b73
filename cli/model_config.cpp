#include "model_config.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "input.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/hf_config.hpp"
#include "paraplan/model.hpp"

namespace paraplan::cli {
namespace {

constexpr const char* kUsage = R"(usage: paraplan import-model CONFIG.json|- [--json]

Maps a Hugging Face config.json (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM,
Qwen3ForCausalLM, Qwen3MoeForCausalLM, MixtralForCausalLM, DeepseekV2ForCausalLM,
DeepseekV3ForCausalLM, GptOssForCausalLM) to Paraplan's model object and prints it: the value of
a scenario's "model". The keys it did not map go to standard error, each with its reason:
ignored (no effect on what Paraplan counts), unsupported (changes the model; Paraplan leaves it
out) or unknown.

options:
  --json    print {"architecture", "model", "unmapped": [...], "parameters": {...}} instead
)";

// The model's name when the config has none: the folder of ".../Meta-Llama-3-8B/config.json",
// or the file's stem.
std::string name_from_path(const std::string& path) {
  if (path == "-") return "";
  const std::filesystem::path file(path);
  if (file.filename() == "config.json" && file.has_parent_path() &&
      !file.parent_path().filename().empty() && file.parent_path().filename() != ".") {
    return file.parent_path().filename().string();
  }
  return file.stem().string();
}

HfImport import_file(const std::string& path, const std::string& where) {
  const nlohmann::json document = read_json_document(path);
  try {
    return import_hf_config(document, name_from_path(path));
  } catch (const InputError& error) {
    throw InputError(where, error.what());
  }
}

std::string billions(double parameters) {
  char text[32];
  if (parameters >= 1e9) {
    std::snprintf(text, sizeof text, "%.2fB", parameters / 1e9);
  } else {
    std::snprintf(text, sizeof text, "%.2fM", parameters / 1e6);
  }
  return text;
}

// A key as typed, or as a JSON string when it holds control characters.
std::string shown_key(const std::string& key) {
  for (const char c : key) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  return key;
}

void print_note(const std::string& where, const HfImport& imported) {
  const ParameterCounts counts = count_parameters(parse_model(imported.model, "model"));
  std::string line = "note: " + where + ": " + imported.architecture + ", " +
                     billions(counts.total) + " parameters";
  if (counts.active != counts.total) line += " (" + billions(counts.active) + " active)";
  if (counts.mtp > 0) line += " + " + billions(counts.mtp) + " MTP";
  std::cerr << line << '\n';
  if (imported.unmapped.empty()) return;
  const size_t n = imported.unmapped.size();
  std::cerr << "note: " << where << ": " << n << (n == 1 ? " key" : " keys") << " not mapped:\n";
  for (const UnmappedKey& key : imported.unmapped) {
    std::cerr << "  " << shown_key(key.key) << " (" << key.status << "): " << key.reason << '\n';
  }
}

}  // namespace

nlohmann::json model_from_config_file(const std::string& path, const std::string& flag) {
  const HfImport imported = import_file(path, flag);
  print_note(flag, imported);
  return imported.model;
}

int run_import_model(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kUsage;
    return 0;
  }
  std::string path;
  bool json = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else if (path.empty() && !arg.empty() && (arg[0] != '-' || arg == "-")) {
      path = arg;
    } else {
      throw InputError(arg, "unknown option for import-model (see paraplan import-model --help)");
    }
  }
  if (path.empty()) throw InputError("import-model", "expects a config.json file (or - for stdin)");
  const std::string where = path == "-" ? "standard input" : path;
  const HfImport imported = import_file(path, where);
  print_note(where, imported);
  std::cout << (json ? to_json(imported) : imported.model).dump(2) << '\n';
  return 0;
}

}  // namespace paraplan::cli
