// A model imported from a Hugging Face config.json: `--model-config FILE` and
// `paraplan import-model FILE`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace paraplan::cli {

// The scenario's model object mapped from the config.json in `path` ("-" for standard input).
// Prints the keys that were not mapped to standard error as a note. Errors name `flag` and the
// config's key: "--model-config: hidden_size: expected a positive integer, got 0".
nlohmann::json model_from_config_file(const std::string& path, const std::string& flag);

}  // namespace paraplan::cli
