// The `paraplan` subcommands. Each returns the process exit code: 0 done, 2 bad input.
#pragma once

#include <string>
#include <vector>

namespace paraplan::cli {

int run_estimate(const std::vector<std::string>& args);
int run_import_model(const std::vector<std::string>& args);
int run_presets(const std::vector<std::string>& args);
int run_search(const std::vector<std::string>& args);
int run_scaling(const std::vector<std::string>& args);
int run_sweep(const std::vector<std::string>& args);
int run_schema(const std::vector<std::string>& args);

}  // namespace paraplan::cli
