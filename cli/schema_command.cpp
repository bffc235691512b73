#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/request.hpp"

namespace paraplan::cli {

int run_schema(const std::vector<std::string>& args) {
  if (!args.empty()) throw InputError(args[0], "unknown option for schema (it takes none)");
  std::cout << input_schema().dump(2) << '\n';
  return 0;
}

}  // namespace paraplan::cli
