// Requests as the CLI and the WebAssembly module receive them: JSON text with limits, a search
// request (a scenario and the search options), and the description of every input the web
// page checks before it sends a request.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "paraplan/scenario.hpp"
#include "paraplan/search.hpp"

namespace paraplan {

// Parses JSON text, rejecting oversized or deeply nested text first. `what` names the text in
// errors ("input", a file name).
nlohmann::json parse_json_text(std::string_view text, const std::string& what);

struct SearchRequest {
  Scenario scenario;
  SearchOptions options;
};

// {"scenario": {...}, "options": {"top", "time_budget_s", "tp_across_nodes",
// "memory_margin", "all_variants"}}; options and each of their keys are optional.
SearchRequest parse_search_request(const nlohmann::json& request);

// The inputs as the core checks them: {"version", "limits", "precisions", "activations",
// "frameworks",
// "strategy_keys": [{"name", "type", "per_gpu", "layer_cost", "default", "min", "max",
// "max_is_num_layers", "choices", "description"}, ...]}.
nlohmann::json input_schema();

}  // namespace paraplan
