// How each training framework launches a strategy (docs/contract.md section 5, "launch"): the
// command and files, or the strategy fields it cannot express. One writer per framework under
// core/src/output/launch/; what each cannot express is model/framework_rules.cpp.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "paraplan/framework.hpp"
#include "paraplan/report.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan {

struct Launch {
  std::string command;                       // shell text: environment and torchrun lines
  std::map<std::string, std::string> files;  // name -> text (configs, scripts)
  std::vector<std::string> unsupported;      // "field: why"; when set, no command or files
  std::vector<CoreText> unsupported_texts;   // one per `unsupported`, with its id and values
};

// `strategy` with its stage GPUs and layers spelled out; `data_parallel_size` as estimated.
Launch make_launch(Framework framework, const Strategy& strategy, const Scenario& scenario,
                   int64_t data_parallel_size);

// {"command": ..., "files": {...}} or {"unsupported": [...], "unsupported_texts": [...]}.
nlohmann::json to_json(const Launch& launch);

// Every framework's launch, keyed by its name.
nlohmann::json launches_json(const Strategy& strategy, const Scenario& scenario,
                             int64_t data_parallel_size);

// Megatron-LM's model flags (dimensions, attention, MoE, MLA, multi-token prediction).
std::vector<std::string> megatron_model_arguments(const ModelSpec& model, const Training& training);

}  // namespace paraplan
