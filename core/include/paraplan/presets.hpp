// Built-in presets, compiled into the library from presets/ (one JSON file each).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan {

enum class PresetKind { model, gpu };

// A name as lookups compare it: case ignored, '_' read as '-' ("Ascend_910B" is
// "ascend-910b"). Preset ids and a cluster's GPU types are matched this way.
std::string normalize_name(std::string_view name);

// The preset file for `name` (an id or alias; case, '_' and '-' do not matter), or nullptr.
const nlohmann::json* find_preset(PresetKind kind, std::string_view name);

// Ids of all presets of a kind, sorted.
std::vector<std::string> preset_ids(PresetKind kind);

// The whole catalogue: {"models": [...], "gpus": [...]} with each preset's summary.
nlohmann::json presets_catalogue();

}  // namespace paraplan
