#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "input.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/estimate.hpp"

namespace paraplan::cli {

int run_estimate(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0] == "--help") {
    std::cerr << "usage: paraplan estimate SCENARIO.json|-\n";
    return args.size() == 1 ? 0 : 2;
  }
  const Scenario scenario = parse_scenario(read_json_document(args[0]));
  std::cout << to_json(estimate(scenario)).dump(2) << '\n';
  return 0;
}

}  // namespace paraplan::cli
