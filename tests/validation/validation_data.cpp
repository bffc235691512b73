#include "validation_data.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

namespace paraplan::validation {

nlohmann::json load(const std::string& name) {
  std::ifstream file(std::string(PARAPLAN_VALIDATION_DIR) + "/" + name);
  REQUIRE(file.good());
  return nlohmann::json::parse(file);
}

nlohmann::json scenario_of(const nlohmann::json& entry) {
  nlohmann::json scenario;
  for (const char* key : {"model", "training", "cluster", "strategy"}) scenario[key] = entry[key];
  for (const char* key : {"framework", "framework_version"}) {
    if (entry.contains(key)) scenario[key] = entry[key];
  }
  return scenario;
}

bool out_of_memory_only(const Report& report) {
  bool memory_only = !report.feasible;
  for (const std::string& reason : report.infeasible_reasons) {
    memory_only &= reason.find("GiB per GPU, more than") != std::string::npos;
  }
  return memory_only;
}

double smallest_capacity_bytes(const Report& report) {
  double capacity = report.stages.empty() ? 0 : report.stages.front().capacity_bytes;
  for (const StageReport& stage : report.stages) {
    capacity = std::min(capacity, stage.capacity_bytes);
  }
  return capacity;
}

}  // namespace paraplan::validation
