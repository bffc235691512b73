// paraplan: parallel-strategy calculator for training large language models.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "paraplan/errors.hpp"

namespace {

constexpr const char* kUsage = R"(usage: paraplan COMMAND [ARGS]

commands:
  estimate SCENARIO.json|-   predict one training iteration of the scenario's strategy (JSON)
  search [FLAGS]             find the fastest strategies (see paraplan search --help)
  import-model CONFIG.json   map a Hugging Face config.json to a scenario's model object
  scaling [FLAGS]            the best strategy at every cluster size of a range (--help)
  sweep [FLAGS]              the best strategy as GPU parameters vary, JSON lines (--help)
  presets [--json]           list the model and GPU presets
  schema                     the inputs as the core checks them: limits, strategy keys (JSON)
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "estimate") return paraplan::cli::run_estimate(args);
    if (command == "presets") return paraplan::cli::run_presets(args);
    if (command == "search") return paraplan::cli::run_search(args);
    if (command == "scaling") return paraplan::cli::run_scaling(args);
    if (command == "sweep") return paraplan::cli::run_sweep(args);
    if (command == "schema") return paraplan::cli::run_schema(args);
    if (command == "import-model") return paraplan::cli::run_import_model(args);

    std::cerr << "paraplan: unknown command \"" << command << "\"\n" << kUsage;
    return 2;
  } catch (const paraplan::InputError& error) {
    std::cerr << "paraplan: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "paraplan: internal error: " << error.what() << '\n';
    return 1;
  }
}
