// paraplan scaling: the best strategy at every cluster size of a range, points searched on
// threads (one search per point, single-threaded), and the series' efficiency cliffs.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "commands.hpp"
#include "job.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/scaling.hpp"

namespace paraplan::cli {
namespace {

constexpr const char* kUsage =
    R"(usage: paraplan scaling SCENARIO.json|- --from N --to M [--step K] [OPTIONS]
       paraplan scaling --model-name NAME --gpu-infos TYPE[:MAX][,...] --global-batch-size B
                        --sequence-length S --from N --to M [--step K] [OPTIONS]

Searches the job at every cluster size from N to M GPUs in steps of K and prints the best
strategy at each. Each GPU type's cap scales with the size, so a mixed cluster keeps its mix.
"eff" is tokens/s per GPU against the smallest size with a strategy (a value above 100% is
starred and explained). A cliff is a drop in the best achievable efficiency: the size and every
later one more than 15% below the previous size with a strategy. A dip is a size more than 15%
below a larger one (an awkward factorisation, e.g. a batch that does not divide); sizes without
a strategy print why.

range:
  --from N                   first cluster size, GPUs
  --to M                     last cluster size, GPUs (at most 4096 sizes in all)
  --step K                   GPUs between sizes (default: N)
  --weak                     weak scaling: the global batch given is the batch at N GPUs and
                             grows in proportion (B x size / N, rounded); default: strong
output:
  --json                     print {"points": [{"num_gpus", "best": {...} or null, ...}],
                             "stats": {...}}
  --threads T                searches run at once (default: the machine's cores)

)";

struct Options {
  JobOptions job;
  std::optional<int64_t> from, to, step;
  bool weak = false;
  bool json = false;
  int threads = 0;
};

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& { return flag_value(args, i); };
    if (arg == "--from") {
      options.from = integer_flag(arg, value(), 1, limits::kMaxGpus);
    } else if (arg == "--to") {
      options.to = integer_flag(arg, value(), 1, limits::kMaxGpus);
    } else if (arg == "--step") {
      options.step = integer_flag(arg, value(), 1, limits::kMaxGpus);
    } else if (arg == "--weak") {
      options.weak = true;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(integer_flag(arg, value(), 1, 1024));
    } else if (!take_job_flag(args, i, options.job)) {
      throw InputError(arg, "unknown option for scaling (see paraplan scaling --help)");
    }
  }
  check_job(options.job);
  if (!options.from) throw InputError("--from", "is required: the first cluster size in GPUs");
  if (!options.to) throw InputError("--to", "is required: the last cluster size in GPUs");
  // A GPU type without a cap needs --num-gpus: the series starts from --from.
  auto& job = options.job.job;
  if (!job.count("--num-gpus") && job.count("--gpu-infos")) {
    const std::string& list = job.at("--gpu-infos");
    size_t items = 1 + static_cast<size_t>(std::count(list.begin(), list.end(), ','));
    if (static_cast<size_t>(std::count(list.begin(), list.end(), ':')) < items)
      job["--num-gpus"] = std::to_string(*options.from);
  }
  return options;
}

// "TP8 PP4 VP5 DP32 mbs1 selective ZeRO-1": the sizes that are not 1, and the rest.
std::string strategy_text(const nlohmann::json& best) {
  const nlohmann::json& s = best["strategy"];
  std::string text;
  const auto size = [&](const char* name, int64_t value, bool always) {
    if (value == 1 && !always) return;
    text += name + std::to_string(value) + " ";
  };
  size("TP", s["tensor_model_parallel_size"].get<int64_t>(), true);
  size("PP", s["pipeline_model_parallel_size"].get<int64_t>(), true);
  size("VP", s["virtual_pipeline_model_parallel_size"].get<int64_t>(), false);
  size("CP", s["context_parallel_size"].get<int64_t>(), false);
  size("EP", s["expert_model_parallel_size"].get<int64_t>(), false);
  size("DP", best["estimate"]["data_parallel_size"].get<int64_t>(), true);
  size("mbs", s["micro_batch_size"].get<int64_t>(), true);
  std::string recompute;
  for (const auto& [gpu, granularity] : best["recompute-granularity"].items()) {
    if (!recompute.empty()) recompute += ',';
    recompute += granularity.get<std::string>();
  }
  return text + recompute + " ZeRO-" + std::to_string(s["zero_stage"].get<int>());
}

void print_table(const nlohmann::json& output, bool weak) {
  std::printf("%7s %s%12s %14s %6s %6s %9s  %s\n", "GPUs", weak ? "    GBS " : "", "tokens/s/GPU",
              "tokens/s", "eff", "MFU", "iter s", "best strategy");
  std::string above_note;  // the first note on an efficiency above 100%
  for (const nlohmann::json& point : output["points"]) {
    const nlohmann::json& best = point["best"];
    const int64_t gpus = point["num_gpus"].get<int64_t>();
    if (weak) {
      std::printf("%7lld %7lld ", static_cast<long long>(gpus),
                  static_cast<long long>(point["global_batch_size"].get<int64_t>()));
    } else {
      std::printf("%7lld ", static_cast<long long>(gpus));
    }
    if (best.is_null()) {
      std::printf("%12s  (%s)\n", "none", point.value("reason", std::string()).c_str());
      continue;
    }
    const nlohmann::json& e = best["estimate"];
    const double per_gpu = e["tokens_per_s_per_gpu"].get<double>();
    const double efficiency = point["efficiency"].get<double>();
    const bool above = efficiency > 1 + kEfficiencyTolerance;
    if (above && above_note.empty()) {
      above_note = point["notes"][0].get<std::string>() + " (" + std::to_string(gpus) + " GPUs)";
    }
    std::printf("%12.1f %14.0f %4.0f%%%s %6.3f %9.3f  %s%s%s%s\n", per_gpu,
                per_gpu * static_cast<double>(gpus), 100 * efficiency, above ? "*" : " ",
                e["mfu"].get<double>(), e["iteration_time_s"].get<double>(),
                strategy_text(best).c_str(), point["cliff"].get<bool>() ? "  <- cliff" : "",
                point["dip"].get<bool>() ? "  <- dip" : "",
                point["stats"]["complete"].get<bool>() ? "" : " (search incomplete)");
  }
  const nlohmann::json& stats = output["stats"];
  if (!stats["reference_num_gpus"].is_null()) {
    std::printf("\neff: tokens/s per GPU against %lld GPUs.%s%s\n",
                static_cast<long long>(stats["reference_num_gpus"].get<int64_t>()),
                above_note.empty() ? "" : " *: ", above_note.c_str());
  }
  std::printf(
      "%lld sizes, %lld with a strategy, %zu cliffs (every later size more than %.0f%% below), "
      "%zu dips (more than %.0f%% below a larger size: --json's notes say why); %lld "
      "strategies evaluated in %.2f s on %d threads\n",
      stats["points"].get<long long>(), stats["feasible_points"].get<long long>(),
      stats["cliffs"].size(), 100 * kCliffDrop, stats["dips"].size(), 100 * kCliffDrop,
      stats["evaluated"].get<long long>(), stats["seconds"].get<double>(),
      stats["threads"].get<int>());
}

}  // namespace

int run_scaling(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kUsage << kJobUsage;
    return 0;
  }
  const Options options = parse_options(args);
  ScalingRange range{*options.from, *options.to, options.step.value_or(*options.from),
                     options.weak};
  const ScalingNames names{"--from", "--to", "--step", "--weak"};
  const std::vector<int64_t> sizes = scaling_sizes(range, names);
  const nlohmann::json base = job_scenario(options.job);
  parse_job_scenario(options.job, base);  // errors in the job itself come first
  // Every point's scenario, checked before any search.
  std::vector<nlohmann::json> scenarios;
  for (const int64_t n : sizes) scenarios.push_back(scaled_scenario(base, range, n, names));

  const SearchOptions search_options = job_search_options(options.job);
  const auto start = std::chrono::steady_clock::now();
  std::vector<nlohmann::json> points(sizes.size());
  std::atomic<size_t> done{0};
  std::mutex progress_mutex;
  const bool terminal = isatty(STDERR_FILENO);
  parallel_for(sizes.size(), options.threads, [&](size_t i) {
    const ScalingPoint point = search_point(
        scenarios[i], sizes[i], search_options,
        [&](const nlohmann::json& document) { return parse_job_scenario(options.job, document); });
    points[i] = to_json(point);
    const size_t finished = ++done;
    if (terminal) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      std::fprintf(stderr, "\r%zu/%zu sizes searched ", finished, sizes.size());
    }
  });
  if (terminal) std::fprintf(stderr, "\r%40s\r", "");
  nlohmann::json output = scaling_json(points);
  nlohmann::json& stats = output["stats"];
  stats["search_seconds"] = stats["seconds"];
  stats["seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats["threads"] = std::min<size_t>(
      sizes.size(), options.threads > 0 ? static_cast<size_t>(options.threads)
                                        : std::max(1u, std::thread::hardware_concurrency()));
  if (options.json) {
    std::cout << output.dump(2) << '\n';
  } else {
    print_table(output, options.weak);
  }
  return 0;
}

}  // namespace paraplan::cli
