#include "job.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "input.hpp"
#include "model_config.hpp"
#include "paraplan/errors.hpp"

namespace paraplan::cli {

const char* const kJobUsage = R"(job (AIAK-compatible, with its defaults), or SCENARIO.json|-:
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
  --framework-version R      the Megatron-Core release that runs it, core_v0.5 to core_v0.19
                             or dev (default: none named; prices the host per release)
search options:
  --memory-margin M          memory kept free on every GPU: GiB, or N% of each GPU's memory;
                             no strategy above capacity minus M is ranked (default: none)
  --allow-at-risk            rank strategies inside the default memory margin (verdict
                             at_risk) by time with the rest; without it they rank below every
                             strategy that fits
  --time-budget SECONDS      stop a search and keep the best found after this long (default 30)
  --tp-across-nodes          allow tensor parallelism to span nodes
  --all-variants             rank every variant of a layout (virtual stages, micro-batch,
                             recompute, ...), not only the best of each layout
)";

namespace {

const std::vector<std::string> kJobFlags = {
    "--model-name",        "--num-gpus",        "--nproc-per-node", "--gpu-infos",
    "--global-batch-size", "--sequence-length", "--precision",      "--framework",
    "--framework-version", "--model-config"};

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

}  // namespace

const std::string& flag_value(const std::vector<std::string>& args, size_t& i) {
  if (i + 1 >= args.size()) throw InputError(args[i], "expects a value");
  return args[++i];
}

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

bool take_job_flag(const std::vector<std::string>& args, size_t& i, JobOptions& options) {
  const std::string& arg = args[i];
  const auto value = [&]() -> const std::string& { return flag_value(args, i); };
  if (std::find(kJobFlags.begin(), kJobFlags.end(), arg) != kJobFlags.end()) {
    options.job[arg] = value();
  } else if (arg == "--time-budget") {
    options.time_budget_s =
        number_flag(arg, value(), limits::kMinTimeBudgetS, limits::kMaxTimeBudgetS);
  } else if (arg == "--memory-margin") {
    options.memory_margin = parse_memory_margin(value(), arg);
  } else if (arg == "--tp-across-nodes") {
    options.tp_across_nodes = true;
  } else if (arg == "--all-variants") {
    options.all_variants = true;
  } else if (arg == "--allow-at-risk") {
    options.allow_at_risk = true;
  } else if (!arg.empty() && (arg[0] != '-' || arg == "-") && !options.scenario_path) {
    options.scenario_path = arg;
  } else {
    return false;
  }
  return true;
}

void check_job(const JobOptions& options) {
  if (options.scenario_path && !options.job.empty()) {
    throw InputError(options.job.begin()->first, "cannot be combined with a scenario file");
  }
}

namespace {

// The scenario the AIAK flags describe; flags left out take AIAK's defaults.
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
  if (job.count("--framework-version")) {
    scenario["framework_version"] = job.at("--framework-version");
  }
  return scenario;
}

}  // namespace

nlohmann::json job_scenario(const JobOptions& options) {
  return options.scenario_path ? read_json_document(*options.scenario_path)
                               : scenario_from_flags(options.job);
}

Scenario parse_job_scenario(const JobOptions& options, const nlohmann::json& document) {
  if (options.scenario_path) return parse_scenario(document);
  // Errors about a scenario built from flags name the flag, not the JSON path.
  try {
    return parse_scenario(document);
  } catch (const InputError& error) {
    static const std::vector<std::pair<std::string, std::string>> flags = {
        {"model", "--model-name"},
        {"cluster.gpus", "--gpu-infos"},
        {"cluster.num_gpus", "--num-gpus"},
        {"cluster.gpus_per_node", "--nproc-per-node"},
        {"training.global_batch_size", "--global-batch-size"},
        {"training.seq_length", "--sequence-length"},
        {"training.precision", "--precision"},
        {"framework_version", "--framework-version"},
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

SearchOptions job_search_options(const JobOptions& options) {
  SearchOptions search_options;
  search_options.time_budget_s = options.time_budget_s;
  search_options.allow_tensor_parallel_across_nodes = options.tp_across_nodes;
  search_options.distinct_layouts = !options.all_variants;
  search_options.memory_margin = options.memory_margin;
  search_options.allow_at_risk = options.allow_at_risk;
  return search_options;
}

void parallel_for(size_t count, int threads, const std::function<void(size_t)>& work) {
  const size_t workers = std::min<size_t>(
      count, threads > 0 ? static_cast<size_t>(threads)
                         : std::max<size_t>(1, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;  // stop handing out work
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(run);
  run();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace paraplan::cli
