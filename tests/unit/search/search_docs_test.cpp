// docs/search.md's level table names every key where the search decides it (keys_decided_at):
// a key added to a level but not to the table fails here, by name.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

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

}  // namespace

TEST_CASE("docs/search.md's level table names every key at the level that decides it") {
  // tests/unit/data is three folders below the repository's root.
  const auto cells =
      decides_cells(std::string(PARAPLAN_UNIT_DATA_DIR) + "/../../../docs/search.md");
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
