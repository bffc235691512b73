// paraplan sweep: the job searched at every point of a grid of one or two GPU parameters, set on
// every GPU type of the cluster; one JSON line per point, in grid order. --shard I/N searches
// every N-th point from the I-th, so that N machines (a Slurm array, GNU parallel) split a
// sweep and the union of their lines is the whole sweep.
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "job.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/sweep.hpp"

namespace paraplan::cli {
namespace {

constexpr const char* kUsage =
    R"(usage: paraplan sweep SCENARIO.json|- --sweep NAME=VALUES [--sweep NAME=VALUES] [OPTIONS]
       paraplan sweep --model-name NAME --num-gpus N --gpu-infos TYPE[:MAX][,...]
                      --global-batch-size B --sequence-length S --sweep NAME=VALUES [OPTIONS]

Searches the job with one or two GPU parameters set to each of their values, on every GPU
type of the cluster, and prints one JSON line per point (in grid order, the first parameter
outermost): {"point": I, "parameters": {NAME: VALUE, ...}, "best": {...} or null, "stats": {...}}.
"best" has the shape of one entry of search --json's strategies.

sweep:
  --sweep NAME=A:B:STEP      values A, A+STEP, ... up to B; or NAME=V1,V2,... (at most two
                             --sweep flags, 4096 points in all). NAME is a GPU preset key:
                               hbm_gib               HBM capacity per GPU, GiB
                               hbm_gb_per_s          HBM bandwidth per GPU, GB/s
                               intra_node.gpus       NVLink domain size, GPUs
                               intra_node.gb_per_s   NVLink bandwidth per GPU per direction, GB/s
                               inter_node.gb_per_s   NIC bandwidth per GPU per direction, GB/s
                               tensor_tflops         dense peak TFLOP/s at the job's precision
                                                     (the other precisions scale alike)
  --shard I/N                only points I-1, I-1+N, I-1+2N, ... (1 <= I <= N): run the N
                             shards anywhere and concatenate their lines
  --threads T                searches run at once (default: the machine's cores)

)";

struct Options {
  JobOptions job;
  std::vector<SweepParameter> parameters;
  int64_t shard_index = 1, shard_count = 1;
  int threads = 0;
};

void parse_shard(const std::string& text, Options& options) {
  const size_t slash = text.find('/');
  const auto bad = [&] {
    return InputError("--shard", "expected I/N with 1 <= I <= N (e.g. 3/8), got \"" + text + "\"");
  };
  if (slash == std::string::npos) throw bad();
  try {
    options.shard_count =
        integer_flag("--shard", text.substr(slash + 1), 1, limits::kMaxSweepPoints);
    options.shard_index =
        integer_flag("--shard", text.substr(0, slash), 1, limits::kMaxSweepPoints);
  } catch (const InputError&) {
    throw bad();
  }
  if (options.shard_index > options.shard_count) throw bad();
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& { return flag_value(args, i); };
    if (arg == "--sweep") {
      options.parameters.push_back(parse_sweep_parameter(value(), arg));
    } else if (arg == "--shard") {
      parse_shard(value(), options);
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(integer_flag(arg, value(), 1, 1024));
    } else if (!take_job_flag(args, i, options.job)) {
      throw InputError(arg, "unknown option for sweep (see paraplan sweep --help)");
    }
  }
  check_job(options.job);
  return options;
}

}  // namespace

int run_sweep(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kUsage << kJobUsage;
    return 0;
  }
  const Options options = parse_options(args);
  const std::vector<std::vector<double>> grid = sweep_grid(options.parameters, "--sweep");
  const nlohmann::json base = job_scenario(options.job);
  parse_job_scenario(options.job, base);  // errors in the job itself come first
  const std::vector<size_t> mine =
      shard_points(grid.size(), options.shard_index, options.shard_count);
  // Every point's scenario, checked before any search; a value the GPU parser refuses names
  // the --sweep flag.
  std::vector<Scenario> scenarios;
  for (const size_t point : mine) {
    try {
      scenarios.push_back(
          parse_job_scenario(options.job, swept_scenario(base, options.parameters, grid[point])));
    } catch (const InputError& error) {
      throw InputError("--sweep", "at point " + std::to_string(point) + ": " + error.what());
    }
  }
  SearchOptions search_options = job_search_options(options.job);
  search_options.top = 1;
  // Lines go out in grid order as soon as every earlier point of the shard is done.
  std::vector<std::string> lines(mine.size());
  std::vector<bool> ready(mine.size(), false);
  size_t printed = 0;
  std::mutex output_mutex;
  parallel_for(mine.size(), options.threads, [&](size_t i) {
    const SearchResult result = search(scenarios[i], search_options);
    nlohmann::json parameters = nlohmann::json::object();
    for (size_t p = 0; p < options.parameters.size(); ++p) {
      parameters[options.parameters[p].name] = grid[mine[i]][p];
    }
    const nlohmann::json stats = {{"evaluated", result.stats.evaluated},
                                  {"feasible", result.stats.feasible},
                                  {"seconds", result.stats.seconds},
                                  {"complete", result.stats.complete}};
    // Keys in reading order: the point first, then its result.
    std::string line =
        "{\"point\":" + std::to_string(mine[i]) + ",\"parameters\":" + parameters.dump() +
        ",\"best\":" +
        (result.strategies.empty() ? std::string("null")
                                   : to_json(result.strategies.front(), 1, scenarios[i]).dump()) +
        ",\"stats\":" + stats.dump() + "}";
    const std::lock_guard<std::mutex> lock(output_mutex);
    lines[i] = std::move(line);
    ready[i] = true;
    while (printed < mine.size() && ready[printed]) {
      std::cout << lines[printed] << '\n' << std::flush;
      lines[printed].clear();
      ++printed;
    }
  });
  return 0;
}

}  // namespace paraplan::cli
