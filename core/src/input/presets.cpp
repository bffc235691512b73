#include "paraplan/presets.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "input/presets_data.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"

namespace paraplan {
namespace {

struct Catalogue {
  std::vector<nlohmann::json> files[2];                   // by PresetKind
  std::map<std::string, const nlohmann::json*> names[2];  // normalized id or alias -> file
};

const Catalogue& catalogue() {
  static const Catalogue instance = [] {
    Catalogue c;
    for (size_t i = 0; i < detail::kNumEmbeddedPresets; ++i) {
      const std::string path = detail::kEmbeddedPresets[i].path;
      const int kind = path.rfind("gpus/", 0) == 0 ? static_cast<int>(PresetKind::gpu)
                                                   : static_cast<int>(PresetKind::model);
      c.files[kind].push_back(nlohmann::json::parse(detail::kEmbeddedPresets[i].text));
    }
    for (int kind = 0; kind < 2; ++kind) {
      for (const nlohmann::json& file : c.files[kind]) {
        const auto add = [&](const std::string& name) {
          if (!c.names[kind].emplace(normalize_name(name), &file).second) {
            throw std::logic_error("duplicate preset name " + name);
          }
        };
        add(file.at("id").get<std::string>());
        for (const auto& alias : file.value("aliases", nlohmann::json::array())) {
          add(alias.get<std::string>());
        }
      }
    }
    return c;
  }();
  return instance;
}

}  // namespace

std::string normalize_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const nlohmann::json* find_preset(PresetKind kind, std::string_view name) {
  const auto& names = catalogue().names[static_cast<int>(kind)];
  const auto it = names.find(normalize_name(name));
  return it == names.end() ? nullptr : it->second;
}

std::vector<std::string> preset_ids(PresetKind kind) {
  std::vector<std::string> ids;
  for (const nlohmann::json& file : catalogue().files[static_cast<int>(kind)]) {
    ids.push_back(file.at("id").get<std::string>());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

nlohmann::json presets_catalogue() {
  nlohmann::json models = nlohmann::json::array();
  for (const std::string& id : preset_ids(PresetKind::model)) {
    const nlohmann::json& file = *find_preset(PresetKind::model, id);
    const ModelSpec model = parse_model(file.at("model"), "presets/models/" + id);
    nlohmann::json entry = file;
    entry["parameters"] = count_parameters(model).total;
    models.push_back(std::move(entry));
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const std::string& id : preset_ids(PresetKind::gpu)) {
    gpus.push_back(*find_preset(PresetKind::gpu, id));
  }
  return {{"models", models}, {"gpus", gpus}};
}

}  // namespace paraplan
