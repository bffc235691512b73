// docs/search.md's level table names every key where the search decides it (keys_decided_at):
// a key added to a level but not to the table fails here, by name. Its key reference is
// generated from the schema (`paraplan schema`): regenerate it with
// PARAPLAN_REGENERATE_DOCS=1 build/native/tests/unit_tests -tc='*key reference*'.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "paraplan/request.hpp"
#include "search/searcher.hpp"

using namespace paraplan;

namespace {

// The table's name of each level (docs/search.md section 1).
const std::map<detail::Level, std::string> kLevelRows = {
    {detail::Level::tensor, "tensor"},
    {detail::Level::context, "context"},
    {detail::Level::expert, "expert"},
    {detail::Level::pipeline, "pipeline"},
    {detail::Level::virtual_pipeline, "virtual"},
    {detail::Level::stage_gpus, "stage GPUs"},
    {detail::Level::micro_batch, "micro-batch"},
    {detail::Level::layer_shape, "layer shape"},
    {detail::Level::recompute, "recompute"},
    {detail::Level::zero, "ZeRO"},
    {detail::Level::leaf, "leaf"}};

// The "decides" cell of each row of the level table, by the row's level name.
std::map<std::string, std::string> decides_cells(const std::string& path) {
  std::ifstream file(path);
  REQUIRE(file.good());
  std::map<std::string, std::string> cells;
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    const size_t first = line.find(" | ", 2);
    if (first == std::string::npos) continue;
    const size_t second = line.find(" | ", first + 3);
    if (second == std::string::npos) continue;
    cells.emplace(line.substr(2, first - 2), line.substr(first + 3, second - first - 3));
  }
  return cells;
}

std::string docs_path() {
  // tests/unit/data is three folders below the repository's root.
  return std::string(PARAPLAN_UNIT_DATA_DIR) + "/../../../docs/search.md";
}

// The level that decides a key, by its row name in the level table.
std::string level_of(StrategyKeyId id) {
  for (const auto& [level, row] : kLevelRows) {
    if ((detail::keys_decided_at(level, true) | detail::keys_decided_at(level, false)).contains(id))
      return row;
  }
  return "";
}

std::string code(const nlohmann::json& value) {
  std::string quoted = "`";  // appended: GCC 12's -Wrestrict misfires on "`" + (bug 105329)
  quoted += value.is_string() ? value.get<std::string>() : value.dump();
  quoted += '`';
  return quoted;
}

// The values a key takes, from its schema entry.
std::string values_cell(const nlohmann::json& key) {
  if (key.contains("choices")) {
    std::string cell;
    for (const auto& choice : key["choices"]) cell += (cell.empty() ? "" : ", ") + code(choice);
    return key["type"] == "choice_set" ? "a list of " + cell : cell;
  }
  if (!key.contains("min")) return key["type"] == "gpu_list" ? "GPU types" : "";
  const std::string max = key.value("max_is_num_layers", false) ? "num_layers" : key["max"].dump();
  return key["min"].dump() + " .. " + max;
}

// The key reference: one row per key of the schema, in the key table's order.
std::string key_reference() {
  std::string table =
      "| key | type | values | default | level | what it is |\n|---|---|---|---|---|---|\n";
  const nlohmann::json schema_keys = input_schema()["strategy_keys"];
  for (size_t i = 0; i < strategy_keys().size(); ++i) {
    const nlohmann::json& key = schema_keys.at(i);
    const std::string name = key["name"];
    std::string type = key["type"];
    if (key["per_gpu"]) type += ", per GPU type";
    const std::string fallback = key.contains("default") ? code(key["default"]) : "";
    table += "| `" + name + "` | " + type + " | " + values_cell(key) + " | " + fallback + " | " +
             level_of(strategy_keys()[i].id) + " | " + key["description"].get<std::string>() +
             " |\n";
  }
  return table;
}

constexpr std::string_view kBegin = "<!-- key reference: generated, do not edit -->\n";
constexpr std::string_view kEnd = "<!-- end of key reference -->";

}  // namespace

TEST_CASE("docs/search.md's level table names every key at the level that decides it") {
  const auto cells = decides_cells(docs_path());
  for (const auto& [level, row] : kLevelRows) {
    CAPTURE(row);
    const auto cell = cells.find(row);
    REQUIRE(cell != cells.end());
    const KeySet keys =
        detail::keys_decided_at(level, true) | detail::keys_decided_at(level, false);
    for (const StrategyKey& key : strategy_keys()) {
      if (!keys.contains(key.id)) continue;
      CAPTURE(key.name);
      std::string quoted = "`";  // appended: GCC 12's -Wrestrict misfires on "`" + (bug 105329)
      quoted += key.name;
      quoted += '`';
      CHECK(cell->second.find(quoted) != std::string::npos);
    }
  }
}

TEST_CASE("docs/search.md's key reference is the schema's key table") {
  std::ifstream file(docs_path());
  REQUIRE(file.good());
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::string docs = buffer.str();
  const size_t begin = docs.find(kBegin);
  const size_t end = docs.find(kEnd);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  const size_t table_begin = begin + kBegin.size();
  const std::string committed = docs.substr(table_begin, end - table_begin);
  const std::string generated = key_reference();
  if (std::getenv("PARAPLAN_REGENERATE_DOCS") != nullptr) {
    docs.replace(table_begin, end - table_begin, generated);
    std::ofstream(docs_path()) << docs;
    return;
  }
  // Row by row, so a failure names the key whose row is missing or stale.
  std::istringstream rows(generated);
  std::string row;
  while (std::getline(rows, row)) {
    CAPTURE(row);
    CHECK(committed.find(row + "\n") != std::string::npos);
  }
  CHECK(committed == generated);
}
