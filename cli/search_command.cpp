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
#include "job.hpp"
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

)";

constexpr const char* kOptionsUsage = R"(options:
  --top N                    strategies to return (default 5)
  --json                     print {"strategies": [...], "stats": {...}}
  --mode analytic            also write each strategy's simulated iteration as a Chrome trace
  --trace-dir DIR            where --mode analytic writes (default: paraplan-traces)
  --launch NAME              print how NAME (a --framework name) launches rank 1: its command
                             (environment, one torchrun line per GPU type) and files
  --launch-dir DIR           with --launch: also write the files and the command (launch.sh)
                             to DIR
)";

// AIAK's auto-parallel tool lists 5 strategies by default (its parameter table).
constexpr int kAiakDefaultTop = 5;

struct Options {
  JobOptions job;
  int top = kAiakDefaultTop;
  bool json = false;
  bool analytic = false;
  std::string trace_dir = "paraplan-traces";
  std::optional<std::string> launch;  // a framework name
  std::optional<std::string> launch_dir;
};

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
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& { return flag_value(args, i); };
    if (take_job_flag(args, i, options.job)) {
      continue;
    } else if (arg == "--top") {
      options.top = static_cast<int>(integer_flag(arg, value(), 1, limits::kMaxTop));
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--mode") {
      if (value() != "analytic") throw InputError("--mode", "expected \"analytic\"");
      options.analytic = true;
    } else if (arg == "--trace-dir") {
      options.trace_dir = value();
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
    } else {
      throw InputError(arg, "unknown option for search (see paraplan search --help)");
    }
  }
  if (options.launch_dir && !options.launch) {
    throw InputError("--launch-dir", "needs --launch NAME");
  }
  check_job(options.job);
  return options;
}

std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// The table; for a Megatron-LM search also rank 1's flags (another framework's search prints
// rank 1's launch on that framework instead: run_search).
void print_table(const nlohmann::json& output, bool megatron) {
  std::printf(
      "%-4s %11s %-15s %9s %6s %-16s %8s %-7s %3s %3s %3s %3s %3s %4s %4s %3s %-22s %6s  %s\n",
      "rank", "tokens/s/GPU", "tokens/s band", "iter s", "MFU", "memory GiB", "free GiB", "verdict",
      "TP", "PP", "VP", "CP", "EP", "DP", "mbs", "SP", "recompute", "ZeRO", "stages");
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
    // The 80% band of measured throughput in this regime (docs/contract.md section 4), and "~"
    // after the rank where it overlaps the first row's: the model cannot tell them apart.
    const nlohmann::json& band = e["uncertainty"]["tokens_per_s_per_gpu"];
    const std::string band_text =
        fixed(band[0].get<double>(), 0) + "-" + fixed(band[1].get<double>(), 0);
    std::string rank = std::to_string(row["rank"].get<int>());
    if (row.value("tie_with_best", false) && rank != "1") rank += '~';
    // The memory verdict (fits, at_risk, oom: estimate.memory.verdict).
    const std::string verdict = e["memory"]["verdict"].get<std::string>();
    std::printf(
        "%-4s %11.1f %-15s %9.3f %6.3f %-16s %8s %-7s %3d %3d %3d %3d %3d %4d %4d %3s %-22s %6s  "
        "%s\n",
        rank.c_str(), e["tokens_per_s_per_gpu"].get<double>(), band_text.c_str(),
        e["iteration_time_s"].get<double>(), e["mfu"].get<double>(), memory.c_str(),
        headroom.c_str(), verdict.c_str(), s["tensor_model_parallel_size"].get<int>(),
        s["pipeline_model_parallel_size"].get<int>(),
        s["virtual_pipeline_model_parallel_size"].get<int>(), s["context_parallel_size"].get<int>(),
        s["expert_model_parallel_size"].get<int>(), e["data_parallel_size"].get<int>(),
        s["micro_batch_size"].get<int>(), s["sequence_parallel"].get<bool>() ? "yes" : "no",
        recompute.c_str(), zero.c_str(), stages.c_str());
  }
  if (megatron && !output["strategies"].empty()) {
    std::printf("\nMegatron-LM flags of rank 1:\n  %s\n",
                output["strategies"][0]["megatron_args"].get<std::string>().c_str());
  }
  // What the marks say: ties with the first row, and rows ranked above faster ones.
  bool tie = false;
  for (const nlohmann::json& row : output["strategies"]) {
    tie |= row.value("tie_with_best", false) && row["rank"].get<int>() > 1;
    if (row.contains("rank_note")) {
      std::printf("\nrank %d: %s", row["rank"].get<int>(),
                  row["rank_note"].get<std::string>().c_str());
    }
  }
  if (tie) {
    std::printf("\n~ a tie with rank 1: their 80%% bands of measured throughput overlap\n");
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
    std::cout << kUsage << kJobUsage << kOptionsUsage;
    return 0;
  }
  const Options options = parse_options(args);
  const Scenario scenario = parse_job_scenario(options.job, job_scenario(options.job));
  SearchOptions search_options = job_search_options(options.job);
  search_options.top = options.top;
  const bool terminal = isatty(STDERR_FILENO);
  if (terminal) {
    search_options.on_progress = [](const SearchProgress& p) {
      // "\033[K" clears the rest of the line (ECMA-48 EL), which a shorter line leaves behind.
      std::fprintf(stderr, "\r%3.0f%%  %lld evaluated, %lld pruned, best %.3f s/iteration %s\033[K",
                   100 * p.fraction_done, static_cast<long long>(p.evaluated),
                   static_cast<long long>(p.pruned), p.best_iteration_time_s,
                   p.best_layout.c_str());
      return true;
    };
  }
  const SearchResult result = search(scenario, search_options);
  if (terminal) std::fprintf(stderr, "\r\033[K");
  const nlohmann::json output = to_json(result, scenario);
  if (options.json) {
    std::cout << output.dump(2) << '\n';
  } else {
    print_table(output, scenario.framework == Framework::megatron);
  }
  if (options.analytic) write_traces(result, options.trace_dir);
  // The launch asked for, or in text the launch of the framework searched for.
  std::optional<std::string> launch = options.launch;
  if (!launch && !options.json && scenario.framework != Framework::megatron) {
    launch = std::string(to_string(scenario.framework));
  }
  if (launch && !output["strategies"].empty()) {
    print_launch(output["strategies"][0]["launch"][*launch], *launch, options.launch_dir,
                 options.json);
  }
  return 0;
}

}  // namespace paraplan::cli
