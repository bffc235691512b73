#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/presets.hpp"

namespace paraplan::cli {

int run_presets(const std::vector<std::string>& args) {
  const nlohmann::json catalogue = presets_catalogue();
  if (args.size() == 1 && args[0] == "--json") {
    std::cout << catalogue.dump(2) << '\n';
    return 0;
  }
  if (!args.empty()) throw InputError(args[0], "unknown option for presets (use --json)");
  std::printf("Models\n  %-18s %10s %7s %7s %7s %6s  %s\n", "id", "params", "layers", "hidden",
              "heads", "groups", "name");
  for (const nlohmann::json& preset : catalogue["models"]) {
    const nlohmann::json& m = preset["model"];
    std::printf("  %-18s %9.1fB %7d %7d %7d %6d  %s\n", preset["id"].get<std::string>().c_str(),
                preset["parameters"].get<double>() / 1e9, m["num_layers"].get<int>(),
                m["hidden_size"].get<int>(), m["num_attention_heads"].get<int>(),
                m.value("num_query_groups", m["num_attention_heads"].get<int>()),
                m["name"].get<std::string>().c_str());
  }
  std::printf("\nGPUs\n  %-12s %10s %8s %10s %12s %12s  %s\n", "id", "bf16 TF/s", "HBM GiB",
              "HBM GB/s", "node GB/s", "NIC GB/s", "name");
  for (const nlohmann::json& gpu : catalogue["gpus"]) {
    std::printf(
        "  %-12s %10.0f %8.0f %10.0f %12.0f %12.1f  %s\n", gpu["id"].get<std::string>().c_str(),
        gpu["tensor_tflops"].value("bf16", gpu["tensor_tflops"].value("fp16", 0.0)),
        gpu["hbm_gib"].get<double>(), gpu["hbm_gb_per_s"].get<double>(),
        gpu["intra_node"]["gb_per_s"].get<double>(), gpu["inter_node"]["gb_per_s"].get<double>(),
        gpu["name"].get<std::string>().c_str());
  }
  return 0;
}

}  // namespace paraplan::cli
