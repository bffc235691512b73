#include "paraplan/presets.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "input/presets_data.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"

namespace paraplan {
namespace {

// The embedded files, each parsed on its first use: a search reads one model and a GPU or two
// of some sixty files (parsing them all took 167 ms of a page's start in WebAssembly, issue 30
// item 8). A file's id is its file name (checked as it is parsed), so lookups by id and the
// list of ids need no parsing; only a lookup by alias parses them all.
struct Catalogue {
  struct File {
    std::string id;    // the file's name without ".json"
    const char* text;  // its JSON
    std::unique_ptr<const nlohmann::json> parsed;
  };
  std::vector<File> files[2];              // by PresetKind
  std::map<std::string, size_t> ids[2];    // normalized id -> index in files
  std::map<std::string, size_t> names[2];  // normalized id or alias -> index, once all_parsed
  bool all_parsed = false;
};

// Guards the catalogue's `parsed`, `names` and `all_parsed`.
std::mutex& catalogue_mutex() {
  static std::mutex mutex;
  return mutex;
}

Catalogue& catalogue() {
  static Catalogue instance = [] {
    Catalogue c;
    for (size_t i = 0; i < detail::kNumEmbeddedPresets; ++i) {
      const std::string path = detail::kEmbeddedPresets[i].path;
      const int kind = path.rfind("gpus/", 0) == 0 ? static_cast<int>(PresetKind::gpu)
                                                   : static_cast<int>(PresetKind::model);
      const size_t slash = path.rfind('/') + 1;
      std::string id = path.substr(slash, path.size() - slash - std::string_view(".json").size());
      c.ids[kind].emplace(normalize_name(id), c.files[kind].size());
      c.files[kind].push_back({std::move(id), detail::kEmbeddedPresets[i].text, nullptr});
    }
    return c;
  }();
  return instance;
}

// The file parsed (once); its id must be its file name. The caller holds the mutex.
const nlohmann::json& parsed(Catalogue::File& file) {
  if (!file.parsed) {
    auto document = std::make_unique<const nlohmann::json>(nlohmann::json::parse(file.text));
    if (document->at("id").get<std::string>() != file.id) {
      throw std::logic_error("preset " + file.id + ".json has the id " +
                             document->at("id").get<std::string>());
    }
    file.parsed = std::move(document);
  }
  return *file.parsed;
}

// Every file parsed, and the map of ids and aliases built. The caller holds the mutex.
void parse_all(Catalogue& c) {
  if (c.all_parsed) return;
  for (int kind = 0; kind < 2; ++kind) {
    for (size_t i = 0; i < c.files[kind].size(); ++i) {
      const nlohmann::json& file = parsed(c.files[kind][i]);
      const auto add = [&](const std::string& name) {
        if (!c.names[kind].emplace(normalize_name(name), i).second) {
          throw std::logic_error("duplicate preset name " + name);
        }
      };
      add(file.at("id").get<std::string>());
      for (const auto& alias : file.value("aliases", nlohmann::json::array())) {
        add(alias.get<std::string>());
      }
    }
  }
  c.all_parsed = true;
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
  Catalogue& c = catalogue();
  const int k = static_cast<int>(kind);
  const std::string key = normalize_name(name);
  const std::lock_guard<std::mutex> lock(catalogue_mutex());
  const auto by_id = c.ids[k].find(key);
  if (by_id != c.ids[k].end()) return &parsed(c.files[k][by_id->second]);
  parse_all(c);  // an alias, or no preset
  const auto by_name = c.names[k].find(key);
  return by_name == c.names[k].end() ? nullptr : &parsed(c.files[k][by_name->second]);
}

std::vector<std::string> preset_ids(PresetKind kind) {
  std::vector<std::string> ids;
  for (const Catalogue::File& file : catalogue().files[static_cast<int>(kind)]) {
    ids.push_back(file.id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

nlohmann::json presets_catalogue() {
  {
    Catalogue& c = catalogue();
    const std::lock_guard<std::mutex> lock(catalogue_mutex());
    parse_all(c);  // and the check that no two presets share a name
  }
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
