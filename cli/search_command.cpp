#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "input.hpp"
#include "model_config.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/megatron.hpp"
#include "paraplan/search.hpp"
#include "paraplan/trace.hpp"

namespace paraplan::cli {
namespace {

constexpr const char* kUsage = R"(usage: paraplan search SCENARIO.json|- [OPTIONS]
       paraplan search --model-name NAME --num-gpus N --gpu-infos TYPE[:MAX][,TYPE[:MAX]...]
                       --global-batch-size B --sequence-length S [OPTIONS]

Finds the fastest feasible strategies. Strategy keys given in SCENARIO.json are kept fixed.
A job flag left out takes AIAK's default: llama2-70b on 256 a800 GPUs, global batch 1024,
sequence length 4096, top 5.

job (AIAK-compatible):
  --model-name NAME          model preset (see paraplan presets; default llama2-70b)
  --model-config FILE        the model of a Hugging Face config.json instead of a preset
                             (see paraplan import-model); its unmapped keys go to stderr
  --num-gpus N               GPUs to use in all (default: the sum of the caps, or 256 where a
                             GPU type has no cap)
  --nproc-per-node K         GPUs per node (default: the GPU's NVLink domain)
  --gpu-infos LIST           GPU types with optional caps, e.g. a800:128,h800:160 (default a800)
  --global-batch-size B      sequences per iteration (default 1024)
  --sequence-length S        tokens per sequence (default 4096)
  --precision P              bf16 (default), fp16, fp8 or fp32
  --framework NAME           what launches it: megatron (default), megatron-bridge,
                             mindspeed-llm, deepspeed, colossalai or torchtitan
options:
  --top N                    strategies to return (default 5)
  --memory-margin M          memory kept free on every GPU: GiB, or N% of each GPU's memory
                             (default 4%); no strategy above capacity minus M is ranked
  --json                     print {"strategies": [...], "stats": {...}}
  --mode analytic            also write each strategy's simulated iteration as a Chrome trace
  --trace-dir DIR            where --mode analytic writes (default: paraplan-traces)
  --time-budget SECONDS      stop and return the best found after this long (default 30)
  --tp-across-nodes          allow tensor parallelism to span nodes
  --launch NAME              print how NAME (a --framework name) launches rank 1: its command
                             (environment, one torchrun line per GPU type) and files
  --launch-dir DIR           with --launch: also write the files and the command (launch.sh)
                             to DIR
)";

// AIAK's auto-parallel tool's defaults for flags left out (Baidu AI Cloud,
// "自适应并行策略搜索工具", https://cloud.baidu.com/doc/AIHC/s/Hlvyohuyf, parameter table).
const std::map<std::string, std::string>& aiak_defaults() {
  static const std::map<std::string, std::string> defaults = {{"--model-name", "llama2-70b"},
                                                              {"--num-gpus", "256"},
                                                              {"--gpu-infos", "a800"},
                                                              {"--global-batch-size", "1024"},
                                                              {"--sequence-length", "4096"}};
  return defaults;
}
constexpr int kAiakDefaultTop = 5;

struct Options {
  std::optional<std::string> scenario_path;
  std::map<std::string, std::string> job;  // AIAK flags
  int top = kAiakDefaultTop;
  bool json = false;
  bool analytic = false;
  std::string trace_dir = "paraplan-traces";
  double time_budget_s = limits::kDefaultTimeBudgetS;
  bool tp_across_nodes = false;
  MemoryMargin memory_margin;
  std::optional<std::string> launch;  // a framework name
  std::optional<std::string> launch_dir;
};

int64_t integer_flag(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < min || value > max) {
    throw InputError(flag, "expected an integer from " + std::to_string(min) + " to " +
                               std::to_string(max) + ", got \"" + text + "\"");
  }
  return value;
}

double number_flag(const std::string& flag, const std::string& text, double min, double max) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !(value >= min && value <= max)) {
    char expected[96];
    std::snprintf(expected, sizeof expected, "expected a number from %g to %g, got \"", min, max);
    throw InputError(flag, expected + text + "\"");
  }
  return value;
}

// Rank 1's launch on `framework`: to stdout (stderr after --json), and into `directory`.
void print_launch(const nlohmann::json& launch, const std::string& framework,
                  const std::optional<std::string>& directory, bool json) {
  FILE* out = json ? stderr : stdout;
  if (launch.contains("unsupported")) {
    std::fprintf(out, "\n%s cannot launch rank 1:\n", framework.c_str());
    for (const nlohmann::json& reason : launch["unsupported"]) {
      std::fprintf(out, "  %s\n", reason.get<std::string>().c_str());
    }
    return;
  }
  std::fprintf(out, "\n%s launch of rank 1:\n%s", framework.c_str(),
               launch["command"].get<std::string>().c_str());
  for (const auto& [name, text] : launch["files"].items()) {
    std::fprintf(out, "\n--- %s\n%s", name.c_str(), text.get<std::string>().c_str());
  }
  if (!directory) return;
  std::filesystem::create_directories(*directory);
  std::ofstream(*directory + "/launch.sh") << "#!/bin/bash\n"
                                           << launch["command"].get<std::string>();
  for (const auto& [name, text] : launch["files"].items()) {
    std::ofstream(*directory + "/" + name) << text.get<std::string>();
  }
  std::fprintf(out, "\nwritten to %s\n", directory->c_str());
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  const std::vector<std::string> job_flags = {
      "--model-name", "--num-gpus",          "--nproc-per-node",
      "--gpu-infos",  "--global-batch-size", "--sequence-length",
      "--precision",  "--framework",         "--model-config"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InputError(arg, "expects a value");
      return args[++i];
    };
    if (std::find(job_flags.begin(), job_flags.end(), arg) != job_flags.end()) {
      options.job[arg] = value();
    } else if (arg == "--top") {
      options.top = static_cast<int>(integer_flag(arg, value(), 1, limits::kMaxTop));
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--mode") {
      if (value() != "analytic") throw InputError("--mode", "expected \"analytic\"");
      options.analytic = true;
    } else if (arg == "--trace-dir") {
      options.trace_dir = value();
    } else if (arg == "--time-budget") {
      options.time_budget_s =
          number_flag(arg, value(), limits::kMinTimeBudgetS, limits::kMaxTimeBudgetS);
    } else if (arg == "--memory-margin") {
      options.memory_margin = parse_memory_margin(value(), arg);
    } else if (arg == "--tp-across-nodes") {
      options.tp_across_nodes = true;
    } else if (arg == "--launch") {
      const std::string& name = value();
      const auto names = framework_names();
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string expected = "expected one of";
        for (const std::string_view n : names) expected += " " + std::string(n);
        throw InputError(arg, expected + ", got \"" + name + "\"");
      }
      options.launch = name;
    } else if (arg == "--launch-dir") {
      options.launch_dir = value();
    } else if (!arg.empty() && (arg[0] != '-' || arg == "-") && !options.scenario_path) {
      options.scenario_path = arg;
    } else {
      throw InputError(arg, "unknown option for search (see paraplan search --help)");
    }
  }
  if (options.launch_dir && !options.launch) {
    throw InputError("--launch-dir", "needs --launch NAME");
  }
  if (options.scenario_path && !options.job.empty()) {
    throw InputError(options.job.begin()->first, "cannot be combined with a scenario file");
  }
  return options;
}

// The scenario the AIAK flags describe.
// Flags left out take AIAK's defaults.
nlohmann::json scenario_from_flags(std::map<std::string, std::string> job) {
  if (job.count("--model-name") && job.count("--model-config")) {
    throw InputError("--model-config", "cannot be combined with --model-name");
  }
  for (const auto& [flag, value] : aiak_defaults()) {
    if (flag == "--model-name" && job.count("--model-config")) continue;
    if (flag != "--num-gpus") job.emplace(flag, value);
  }
  std::optional<int64_t> num_gpus;
  if (job.count("--num-gpus"))
    num_gpus = integer_flag("--num-gpus", job.at("--num-gpus"), 1, limits::kMaxGpus);
  nlohmann::json gpus = nlohmann::json::array();
  int64_t capped_total = 0;
  std::string list = job.at("--gpu-infos");
  for (size_t start = 0; start <= list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, end - start);
    const size_t colon = item.find(':');
    const std::string type = item.substr(0, colon);
    if (type.empty()) {
      throw InputError("--gpu-infos", "expected TYPE[:MAX][,TYPE[:MAX]...], got \"" + list + "\"");
    }
    int64_t cap = 0;
    if (colon != std::string::npos) {
      cap = integer_flag("--gpu-infos", item.substr(colon + 1), 1, limits::kMaxGpus);
    } else {
      // A type without a cap may take every GPU: --num-gpus, or AIAK's default.
      if (!num_gpus) {
        num_gpus =
            integer_flag("--num-gpus", aiak_defaults().at("--num-gpus"), 1, limits::kMaxGpus);
      }
      cap = *num_gpus;
    }
    capped_total += cap;
    gpus.push_back({{"type", type}, {"count", cap}});
    start = end + 1;
  }
  nlohmann::json cluster = {{"gpus", gpus}};
  if (num_gpus) {
    if (*num_gpus > capped_total) {
      throw InputError("--num-gpus", std::to_string(*num_gpus) + " exceeds the " +
                                         std::to_string(capped_total) + " GPUs of --gpu-infos");
    }
    cluster["num_gpus"] = *num_gpus;
  }
  if (job.count("--nproc-per-node")) {
    cluster["gpus_per_node"] =
        integer_flag("--nproc-per-node", job.at("--nproc-per-node"), 1, limits::kMaxGpusPerNode);
  }
  nlohmann::json training = {
      {"global_batch_size", integer_flag("--global-batch-size", job.at("--global-batch-size"), 1,
                                         limits::kMaxGlobalBatchSize)},
      {"seq_length",
       integer_flag("--sequence-length", job.at("--sequence-length"), 1, limits::kMaxSeqLength)}};
  if (job.count("--precision")) training["precision"] = job.at("--precision");
  const nlohmann::json model =
      job.count("--model-config")
          ? model_from_config_file(job.at("--model-config"), "--model-config")
          : nlohmann::json(job.at("--model-name"));
  nlohmann::json scenario = {{"model", model}, {"training", training}, {"cluster", cluster}};
  if (job.count("--framework")) scenario["framework"] = job.at("--framework");
  return scenario;
}

// Errors about a scenario built from flags name the flag, not the JSON path.
Scenario parse_flag_scenario(const nlohmann::json& document) {
  try {
    return parse_scenario(document);
  } catch (const InputError& error) {
    static const std::vector<std::pair<std::string, std::string>> flags = {
        {"model", "--model-name"},
        {"cluster.gpus", "--gpu-infos"},
        {"cluster.num_gpus", "--num-gpus"},
        {"cluster.gpus_per_node", "--nproc-per-node"},
        {"training.precision", "--precision"},
        {"framework", "--framework"}};
    const bool imported = document.at("model").is_object();
    for (const auto& [path, flag] : flags) {
      if (error.path().rfind(path, 0) == 0) {
        throw InputError(path == "model" && imported ? "--model-config" : flag, error.message());
      }
    }
    throw;
  }
}

std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

void print_table(const nlohmann::json& output) {
  std::printf("%-4s %11s %9s %6s %-16s %8s %3s %3s %3s %3s %3s %4s %4s %3s %-22s %6s  %s\n", "rank",
              "tokens/s/GPU", "iter s", "MFU", "memory GiB", "free GiB", "TP", "PP", "VP", "CP",
              "EP", "DP", "mbs", "SP", "recompute", "ZeRO", "stages");
  for (const nlohmann::json& row : output["strategies"]) {
    const nlohmann::json& s = row["strategy"];
    const nlohmann::json& e = row["estimate"];
    // "a:1, b:2" lists, built with append (GCC 12 warns on some operator+ chains).
    const auto append = [](std::string& list, const std::string& item) {
      if (!list.empty()) list += ' ';
      list += item;
    };
    std::string memory, recompute, stages;
    for (const auto& [gpu, gib] : row["max-use-mem-size"].items()) {
      append(memory, gpu + ":" + fixed(gib.get<double>(), 1));
    }
    const bool per_gpu = row["recompute-granularity"].size() > 1;
    for (const auto& [gpu, g] : row["recompute-granularity"].items()) {
      std::string r = per_gpu ? gpu + ":" : std::string();
      r += g.get<std::string>();
      if (g == "full") {
        r += "/" + row["recompute-method"][gpu].get<std::string>() + "/" +
             std::to_string(row["recompute-num-layers"][gpu].get<int64_t>());
      }
      append(recompute, r);
    }
    // Activations of N layers offloaded to host memory, the search's other answer to memory.
    if (const int64_t offloaded = s["cpu_offloading_num_layers"].get<int64_t>(); offloaded > 0) {
      append(recompute, "+offload:" + std::to_string(offloaded));
    }
    const nlohmann::json& chips = row["pipeline-stage-chips"];
    const nlohmann::json& layers = row["pipeline-stage-layers"];
    for (size_t i = 0; i < chips.size(); ++i) {
      std::string stage = chips[i].get<std::string>();
      stage += "x" + std::to_string(layers[i].get<int64_t>());
      if (!stages.empty()) stages += ',';
      stages += stage;
    }
    // Headroom: the smallest free memory over the stages; "!" marks a tight strategy.
    std::string headroom = fixed(row["headroom_gib"].get<double>(), 1);
    if (row["tight"].get<bool>()) headroom += '!';
    // ZeRO stage, "+cpu" where the optimizer steps on the CPU.
    std::string zero = std::to_string(s["zero_stage"].get<int>());
    if (s["optimizer_cpu_offload"].get<bool>()) zero += "+cpu";
    std::printf("%-4d %11.1f %9.3f %6.3f %-16s %8s %3d %3d %3d %3d %3d %4d %4d %3s %-22s %6s  %s\n",
                row["rank"].get<int>(), e["tokens_per_s_per_gpu"].get<double>(),
                e["iteration_time_s"].get<double>(), e["mfu"].get<double>(), memory.c_str(),
                headroom.c_str(), s["tensor_model_parallel_size"].get<int>(),
                s["pipeline_model_parallel_size"].get<int>(),
                s["virtual_pipeline_model_parallel_size"].get<int>(),
                s["context_parallel_size"].get<int>(), s["expert_model_parallel_size"].get<int>(),
                e["data_parallel_size"].get<int>(), s["micro_batch_size"].get<int>(),
                s["sequence_parallel"].get<bool>() ? "yes" : "no", recompute.c_str(), zero.c_str(),
                stages.c_str());
  }
  if (!output["strategies"].empty()) {
    std::printf("\nMegatron-LM flags of rank 1:\n  %s\n",
                output["strategies"][0]["megatron_args"].get<std::string>().c_str());
  }
  for (const nlohmann::json& reason : output["diagnosis"]) {
    std::printf("\n%s\n", reason.get<std::string>().c_str());
  }
  const nlohmann::json& stats = output["stats"];
  std::string incomplete;
  if (!stats["complete"].get<bool>()) {
    incomplete = " (incomplete: ";
    incomplete += stats["stopped"].get<std::string>();
    incomplete += ")";
  }
  std::printf(
      "\nsearched %lld configurations (%lld evaluated, %lld pruned, %lld feasible) in %.2f s%s\n",
      stats["space"].get<long long>(), stats["evaluated"].get<long long>(),
      stats["pruned"].get<long long>(), stats["feasible"].get<long long>(),
      stats["seconds"].get<double>(), incomplete.c_str());
}

void write_traces(const SearchResult& result, const std::string& directory) {
  std::filesystem::create_directories(directory);
  for (size_t i = 0; i < result.strategies.size(); ++i) {
    const std::string path = directory + "/rank" + std::to_string(i + 1) + ".trace.json";
    std::ofstream(path)
        << schedule_trace(result.strategies[i].strategy, result.strategies[i].report).dump()
        << '\n';
    std::cerr << "wrote " << path << '\n';
  }
}

}  // namespace

int run_search(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kUsage;
    return 0;
  }
  const Options options = parse_options(args);
  const Scenario scenario = options.scenario_path
                                ? parse_scenario(read_json_document(*options.scenario_path))
                                : parse_flag_scenario(scenario_from_flags(options.job));
  SearchOptions search_options;
  search_options.top = options.top;
  search_options.time_budget_s = options.time_budget_s;
  search_options.allow_tensor_parallel_across_nodes = options.tp_across_nodes;
  search_options.memory_margin = options.memory_margin;
  const bool terminal = isatty(STDERR_FILENO);
  if (terminal) {
    search_options.on_progress = [](const SearchProgress& p) {
      std::fprintf(stderr, "\r%3.0f%%  %lld evaluated, %lld pruned, best %.3f s/iteration ",
                   100 * p.fraction_done, static_cast<long long>(p.evaluated),
                   static_cast<long long>(p.pruned), p.best_iteration_time_s);
      return true;
    };
  }
  const SearchResult result = search(scenario, search_options);
  if (terminal) std::fprintf(stderr, "\r%80s\r", "");
  const nlohmann::json output = to_json(result, scenario);
  if (options.json) {
    std::cout << output.dump(2) << '\n';
  } else {
    print_table(output);
  }
  if (options.analytic) write_traces(result, options.trace_dir);
  if (options.launch && !output["strategies"].empty()) {
    print_launch(output["strategies"][0]["launch"][*options.launch], *options.launch,
                 options.launch_dir, options.json);
  }
  return 0;
}

}  // namespace paraplan::cli
