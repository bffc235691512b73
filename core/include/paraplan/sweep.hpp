// Hardware codesign sweeps (docs/search.md, "Hardware sweeps"): one or two GPU parameters set
// to each value of a list on every GPU type of the cluster, and the job searched at each point.
// Parameters are named as the GPU preset keys they set.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan {

struct HardwareParameter {
  std::string_view name;  // the GPU preset key it sets ("intra_node.gb_per_s")
  std::string_view description;
  bool integer = false;
  double min = 0, max = 0;
};

// Every parameter a sweep may vary.
std::span<const HardwareParameter> hardware_parameters();

struct SweepParameter {
  std::string name;
  std::vector<double> values;
};

// Parses "NAME=A:B:STEP" (A, A+STEP, ... up to B) or "NAME=V1,V2,..."; InputError naming
// `path` for an unknown name, a bad number, an empty range or a step of 0.
SweepParameter parse_sweep_parameter(const std::string& text, const std::string& path);

// Every combination of the parameters' values, the first parameter outermost; InputError
// naming `path` for none, more than limits::kMaxSweepParameters, a parameter twice, or more
// than limits::kMaxSweepPoints points.
std::vector<std::vector<double>> sweep_grid(const std::vector<SweepParameter>& parameters,
                                            const std::string& path);

// The scenario document with each parameter set on every GPU type of the cluster (each type
// becomes its full preset with the values in place; ids are kept). tensor_tflops sets the dense
// peak at the job's precision and scales the other precisions alike.
nlohmann::json swept_scenario(const nlohmann::json& scenario,
                              const std::vector<SweepParameter>& parameters,
                              const std::vector<double>& values);

// The page's request: {"scenario", "options", "sweep": ["NAME=VALUES", ...]} (as --sweep).
struct SweepRequest {
  nlohmann::json scenario;
  nlohmann::json options;  // as in a search request; null when absent
  std::vector<SweepParameter> parameters;
  std::vector<std::vector<double>> grid;
};
SweepRequest parse_sweep_request(const nlohmann::json& request);

// Point `index` of the grid, searched (top 1): {"point", "parameters": {NAME: VALUE},
// "best": one entry of search --json's strategies or null, "stats"}.
nlohmann::json search_sweep_point(const SweepRequest& request, int64_t index);

// The points of shard `index` of `count` (1-based): every count-th point from index - 1.
std::vector<size_t> shard_points(size_t points, int64_t index, int64_t count);

}  // namespace paraplan
