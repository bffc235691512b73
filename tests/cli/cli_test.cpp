// The `paraplan` command as a user runs it: exit codes, output format, error lines.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

struct Result {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A scratch folder of this test process, away from the source tree; removed at exit.
struct ScratchDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("paraplan_cli_test_" + std::to_string(::getpid()));
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

std::string scratch(const std::string& name) {
  static const ScratchDir dir;
  return (dir.path / name).string();
}

// Runs `paraplan ARGS`, feeding `input` on standard input.
Result run(const std::string& args, const std::string& input = "") {
  const std::string in = scratch("stdin.txt"), out = scratch("stdout.txt"),
                    err = scratch("stderr.txt");
  std::ofstream(in) << input;
  const std::string command =
      std::string(PARAPLAN_CLI) + " " + args + " <" + in + " >" + out + " 2>" + err;
  const int status = std::system(command.c_str());
  Result result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out);
  result.err = slurp(err);
  return result;
}

std::string example(const char* name) { return std::string(PARAPLAN_EXAMPLES_DIR) + "/" + name; }

std::string hf_config(const char* name) {
  return std::string(PARAPLAN_UNIT_DATA_DIR) + "/hf/" + name;
}

}  // namespace

TEST_CASE("estimate prints the contract's report") {
  const Result r = run("estimate " + example("llama2-70b-a800.json"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const nlohmann::json report = nlohmann::json::parse(r.out);
  for (const char* key :
       {"feasible", "infeasible_reasons", "iteration_time_s", "tokens_per_s_per_gpu",
        "samples_per_s", "model_tflops_per_gpu", "mfu", "hfu", "memory", "time_breakdown_s"}) {
    CHECK_MESSAGE(report.contains(key), key);
  }
  CHECK(report["feasible"] == true);
  CHECK(report["memory"]["per_stage"].size() == 4);
  double sum = 0;
  for (const auto& [part, seconds] : report["time_breakdown_s"].items())
    sum += seconds.get<double>();
  CHECK(sum == doctest::Approx(report["iteration_time_s"].get<double>()).epsilon(0.01));
}

TEST_CASE("estimate reads standard input with -") {
  const Result r = run("estimate -", slurp(example("llama2-70b-mixed-a800-h800.json")));
  REQUIRE(r.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  CHECK(report["memory"]["per_stage"][0]["gpu"] == "a800");
  CHECK(report["memory"]["per_stage"][3]["gpu"] == "h800");
}

TEST_CASE("bad input: exit 2 and one line naming the JSON path") {
  Result r = run("estimate -", R"({"model": "llama2-70b", "training": {"global_batch_size": -4,
      "seq_length": 4096}, "cluster": {"gpus": [{"type": "a800", "count": 8}]}})");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "paraplan: training.global_batch_size: expected an integer from 1 to 1073741824, got "
        "-4\n");

  r = run("estimate -", "{not json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: standard input: is not valid JSON: parse error") == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);

  r = run("estimate /nonexistent/scenario.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: /nonexistent/scenario.json: cannot be read") == 0);
}

TEST_CASE("an infeasible strategy is a report, not an error") {
  const Result r = run("estimate -", R"({"model": "llama2-70b",
      "training": {"global_batch_size": 8, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "a800", "count": 8}]},
      "strategy": {"tensor_model_parallel_size": 8}})");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  CHECK(report["feasible"] == false);
  CHECK(report["infeasible_reasons"].size() == 1);
}

TEST_CASE("presets lists models and GPUs") {
  Result r = run("presets");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("llama2-70b") != std::string::npos);
  CHECK(r.out.find("h800") != std::string::npos);
  r = run("presets --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json catalogue = nlohmann::json::parse(r.out);
  CHECK(catalogue["models"].size() >= 15);
  CHECK(catalogue["gpus"].size() >= 6);
}

TEST_CASE("usage errors exit 2") {
  CHECK(run("frobnicate").exit_code == 2);
  CHECK(run("").exit_code == 2);
  CHECK(run("--help").exit_code == 0);
}

TEST_CASE("search with AIAK flags prints a ranked table; --json the contract's keys") {
  const std::string job =
      "search --model-name llama2-70b --num-gpus 256 --gpu-infos a800:128,h800:160 "
      "--global-batch-size 512 --sequence-length 4096 --top 3";
  Result r = run(job);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("rank tokens/s/GPU") == 0);
  CHECK(r.out.find("Megatron-LM flags of rank 1:") != std::string::npos);
  CHECK(r.out.find("searched ") != std::string::npos);

  r = run(job + " --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json output = nlohmann::json::parse(r.out);
  REQUIRE(output["strategies"].size() == 3);
  for (const char* key : {"evaluated", "feasible", "seconds"}) CHECK(output["stats"].contains(key));
  const nlohmann::json& best = output["strategies"][0];
  for (const char* key :
       {"strategy", "estimate", "sim_throughput", "sim_total_time_s", "max-use-mem-size",
        "pipeline-stage-chips", "pipeline-stage-layers", "recompute-granularity",
        "recompute-method", "recompute-num-layers", "megatron_args"}) {
    CHECK_MESSAGE(best.contains(key), key);
  }
  CHECK(best["estimate"]["feasible"] == true);
}

TEST_CASE("a search for another framework prints rank 1's launch on it, not Megatron-LM flags") {
  const Result r = run(
      "search --model-name llama3.1-405b --num-gpus 512 --gpu-infos h100 --global-batch-size 256 "
      "--sequence-length 8192 --framework torchtitan --top 1");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Megatron-LM flags of rank 1:") == std::string::npos);
  CHECK(r.out.find("torchtitan launch of rank 1:") != std::string::npos);
  CHECK(r.out.find("--- job.toml") != std::string::npos);
}

TEST_CASE("search --framework-version names the job's Megatron-Core release, or fails naming it") {
  const std::string job =
      "search --model-name llama2-7b --gpu-infos gb200:8 --global-batch-size 64 "
      "--sequence-length 4096 --top 1 --json --framework-version ";
  Result r = run(job + "core_v0.17");
  REQUIRE(r.exit_code == 0);
  CHECK(!nlohmann::json::parse(r.out)["strategies"].empty());
  r = run(job + "25.11");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: --framework-version: expected one of \"core_v0.5\"") == 0);
  r = run(job + "core_v0.17 --framework torchtitan");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: --framework-version: names a Megatron-Core release") == 0);
}

TEST_CASE("search --memory-margin keeps memory free; each strategy shows its headroom") {
  const std::string job =
      "search --model-name llama2-13b --gpu-infos a800:16 --global-batch-size 64 "
      "--sequence-length 4096 --top 5";
  Result r = run(job + " --memory-margin 20%");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("free GiB") != std::string::npos);
  r = run(job + " --memory-margin 20% --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json output = nlohmann::json::parse(r.out);
  REQUIRE(!output["strategies"].empty());
  for (const nlohmann::json& row : output["strategies"]) {
    const nlohmann::json& stage = row["estimate"]["memory"]["per_stage"][0];
    CHECK(row["headroom_gib"].get<double>() >= 0.2 * stage["capacity_gib"].get<double>() - 1e-9);
    CHECK(row["tight"].is_boolean());
    for (const char* key : {"peak_gib", "peak_allocated_gib", "headroom_gib", "reserve_gib"}) {
      CHECK_MESSAGE(stage.contains(key), key);
    }
    CHECK(stage["peak_allocated_gib"].get<double>() < stage["peak_gib"].get<double>());
  }
  r = run(job + " --memory-margin lots");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: --memory-margin: expected GiB") == 0);
}

TEST_CASE("search SCENARIO.json keeps the strategy keys it gives") {
  const Result r = run("search - --top 2 --json", R"({"model": "llama2-70b",
      "training": {"global_batch_size": 512, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "a800", "count": 256}]},
      "strategy": {"tensor_model_parallel_size": 8}})");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json output = nlohmann::json::parse(r.out);
  REQUIRE(output["strategies"].size() == 2);
  for (const nlohmann::json& row : output["strategies"]) {
    CHECK(row["strategy"]["tensor_model_parallel_size"] == 8);
    CHECK(row["megatron_args"].get<std::string>().find("--tensor-model-parallel-size 8") == 0);
  }
}

TEST_CASE("search --mode analytic writes a Chrome trace per strategy") {
  const std::string dir = scratch("traces");
  const Result r =
      run("search --model-name llama2-7b --gpu-infos h100:16 --global-batch-size 64 "
          "--sequence-length 4096 --top 2 --mode analytic --trace-dir " +
          dir);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json trace = nlohmann::json::parse(slurp(dir + "/rank1.trace.json"));
  REQUIRE(trace["traceEvents"].is_array());
  bool forward = false, backward = false, optimizer = false;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    const std::string name = event["name"];
    forward |= name.rfind("forward", 0) == 0;
    backward |= name.rfind("backward", 0) == 0;
    optimizer |= name == "optimizer";
    if (event["ph"] == "X") CHECK(event["dur"].get<double>() >= 0);
  }
  CHECK((forward && backward && optimizer));
}

TEST_CASE("search flag errors name the flag") {
  Result r =
      run("search --model-name llama2-70b --gpu-infos a800:x --global-batch-size 512 "
          "--sequence-length 4096");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "paraplan: --gpu-infos: expected an integer from 1 to 16777216, got \"x\"\n");
  r = run(
      "search --model-name llama9 --gpu-infos a800:8 --global-batch-size 8 --sequence-length 4096");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: --model-name: unknown model preset") == 0);
  r =
      run("search --model-name llama2-7b --gpu-infos v100:8 --global-batch-size 8 "
          "--sequence-length 4096");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: --gpu-infos: unknown GPU preset") == 0);
}

TEST_CASE("deeply nested or huge JSON is rejected cleanly") {
  Result r = run("estimate -", std::string(100000, '[') + std::string(100000, ']'));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "paraplan: standard input: nests deeper than 32 levels\n");

  std::string huge = R"({"model": "llama2-7b", "pad": ")";
  huge.append(50u << 20, 'x');
  huge += "\"}";
  r = run("estimate -", huge);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: standard input: is ") == 0);
  CHECK(r.err.find("bytes; at most 8388608 are accepted") != std::string::npos);
}

TEST_CASE("binary garbage and empty input are errors, not crashes") {
  Result r = run("estimate -", std::string("\xff\xfe\x00\x01garbage", 11));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("paraplan: standard input: is not valid JSON") == 0);
  r = run("estimate -", "");
  CHECK(r.exit_code == 2);
  r = run("search -", "[]");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "paraplan: $: expected an object, got an array\n");
}

TEST_CASE(
    "search without flags takes AIAK's defaults: llama2-70b, 256 a800, GBS 1024, seq 4096, top 5") {
  const Result defaults = run("search --json");
  REQUIRE(defaults.exit_code == 0);
  const nlohmann::json output = nlohmann::json::parse(defaults.out);
  REQUIRE(output["strategies"].size() == 5);
  const nlohmann::json& best = output["strategies"][0];
  CHECK(best["max-use-mem-size"].contains("a800"));
  CHECK(best["estimate"]["num_gpus"] == 256);
  const std::string args = best["megatron_args"];
  CHECK(args.find("--global-batch-size 1024 --seq-length 4096") != std::string::npos);
  // The same as the flags spelled out.
  const Result spelled =
      run("search --json --model-name llama2-70b --num-gpus 256 --gpu-infos a800 "
          "--global-batch-size 1024 --sequence-length 4096 --top 5");
  REQUIRE(spelled.exit_code == 0);
  CHECK(nlohmann::json::parse(spelled.out)["strategies"] == output["strategies"]);
  // A GPU type without a cap takes the default 256 GPUs.
  const Result uncapped = run("search --json --gpu-infos h800 --top 1");
  REQUIRE(uncapped.exit_code == 0);
  CHECK(nlohmann::json::parse(uncapped.out)["strategies"][0]["estimate"]["num_gpus"] == 256);
}

TEST_CASE("search --model-config: the model of a Hugging Face config.json, unmapped keys noted") {
  Result r = run("search --model-config " + hf_config("Qwen3-30B-A3B.json") +
                 " --gpu-infos h100:64 --global-batch-size 256 --top 2 --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json output = nlohmann::json::parse(r.out);
  REQUIRE(output["strategies"].size() == 2);
  // Qwen3-30B-A3B: 30.5B parameters (arXiv:2505.09388).
  CHECK(output["strategies"][0]["estimate"]["model_parameters"].get<double>() ==
        doctest::Approx(30.5e9).epsilon(0.002));
  CHECK(r.err.find("note: --model-config: Qwen3MoeForCausalLM, 30.") == 0);
  CHECK(r.err.find("  router_aux_loss_coef (ignored): ") != std::string::npos);
  // Qwen3's query/key norms are mapped (qk_layernorm), no longer an unsupported architecture.
  CHECK(r.err.find("architectures (unsupported)") == std::string::npos);

  std::ofstream(scratch("bad-config.json"))
      << R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "hidden_size": -1})";
  r = run("search --model-config " + scratch("bad-config.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "paraplan: --model-config: hidden_size: expected a positive integer, got -1\n");
  r = run("search --model-config " + hf_config("Qwen3-32B.json") + " --model-name llama2-7b");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "paraplan: --model-config: cannot be combined with --model-name\n");
}

TEST_CASE("import-model prints the model object; --json adds the unmapped keys and counts") {
  Result r = run("import-model " + hf_config("DeepSeek-V3.json"));
  REQUIRE(r.exit_code == 0);
  const nlohmann::json model = nlohmann::json::parse(r.out);
  CHECK(model["name"] == "DeepSeek-V3");
  CHECK(model["multi_latent_attention"]["kv_lora_rank"] == 512);
  CHECK(r.err.find("n_group (unsupported): group-limited routing") != std::string::npos);
  // The printed model is a scenario's model as it stands.
  const std::string scenario = R"({"model": )" + r.out +
                               R"(, "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h800", "count": 256}]}, "strategy":
      {"tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 16,
       "expert_model_parallel_size": 16, "recompute_granularity": "full"}})";
  r = run("estimate -", scenario);
  CHECK(r.exit_code == 0);

  r = run("import-model - --json", slurp(hf_config("gpt-oss-20b.json")));
  REQUIRE(r.exit_code == 0);
  const nlohmann::json output = nlohmann::json::parse(r.out);
  CHECK(output["architecture"] == "GptOssForCausalLM");
  CHECK(output["parameters"]["total"].get<double>() > 20.8e9);
  // The 128-token window on every other layer maps (Megatron-LM --window-size 127,0
  // --window-attn-skip-freq 2); the attention sinks stay unmapped.
  CHECK(output["model"]["window_size"] == 127);
  CHECK(output["model"]["window_attn_skip_freq"] == 2);
  bool sliding = false;
  bool sinks = false;
  for (const nlohmann::json& key : output["unmapped"]) {
    sliding |= key["key"] == "sliding_window";
    sinks |= key["key"] == "architectures" && key["status"] == "unsupported";
  }
  CHECK(!sliding);
  CHECK(sinks);

  r = run("import-model -", "[1, 2]");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "paraplan: standard input: expected a JSON object (a Hugging Face config.json), got an "
        "array\n");
  CHECK(run("import-model").exit_code == 2);
}

TEST_CASE("scaling prints the best strategy at every size; --json the contract's points") {
  const std::string job =
      "--model-name llama2-7b --gpu-infos a800 --global-batch-size 64 --sequence-length 4096 ";
  Result r = run("scaling " + job + "--from 8 --to 32 --step 8 --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json output = nlohmann::json::parse(r.out);
  REQUIRE(output["points"].size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    const nlohmann::json& point = output["points"][i];
    CHECK(point["num_gpus"] == 8 * (i + 1));
    CHECK(point["global_batch_size"] == 64);  // strong scaling
    REQUIRE(point["best"].is_object());
    CHECK(point["best"]["estimate"]["num_gpus"] == point["num_gpus"]);
    for (const char* key : {"strategy", "estimate", "sim_throughput", "max-use-mem-size",
                            "pipeline-stage-chips", "recompute-granularity"}) {
      CHECK_MESSAGE(point["best"].contains(key), key);
    }
  }
  for (const char* key : {"points", "feasible_points", "cliffs", "evaluated", "seconds"}) {
    CHECK_MESSAGE(output["stats"].contains(key), key);
  }
  // The best at a size is search's rank 1 there.
  const Result single = run("search " + job + "--num-gpus 24 --top 1 --json");
  REQUIRE(single.exit_code == 0);
  CHECK(nlohmann::json::parse(single.out)["strategies"][0]["strategy"] ==
        output["points"][2]["best"]["strategy"]);
  // Weak scaling grows the batch; the table names every size.
  r = run("scaling " + job + "--from 8 --to 16 --step 8 --weak --json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["points"][1]["global_batch_size"] == 128);
  r = run("scaling " + job + "--from 8 --to 16 --step 8");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("tokens/s/GPU") != std::string::npos);
  CHECK(r.out.find("\n     16 ") != std::string::npos);
}

TEST_CASE("scaling and sweep errors name the flag") {
  const std::string job =
      "--model-name llama2-7b --gpu-infos a800 --global-batch-size 64 --sequence-length 4096 ";
  const auto error = [&](const std::string& args) {
    const Result r = run(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    return r.err;
  };
  CHECK(error("scaling " + job + "--from 64 --to 8") ==
        "paraplan: --to: the range is empty: 8 is below the start 64\n");
  CHECK(error("scaling " + job + "--from 8 --to 64 --step 0") ==
        "paraplan: --step: expected an integer from 1 to 16777216, got \"0\"\n");
  CHECK(error("scaling " + job + "--from 1 --to 100000 --step 1") ==
        "paraplan: --step: the range from 1 to 100000 in steps of 1 has 100000 points; at most "
        "4096 are searched (raise the step)\n");
  CHECK(error("scaling " + job + "--to 64") ==
        "paraplan: --from: is required: the first cluster size in GPUs\n");
  CHECK(error("scaling " + job + "--from 8 --to 16 --top 3") ==
        "paraplan: --top: unknown option for scaling (see paraplan scaling --help)\n");
  const std::string sweep_job = job + "--num-gpus 8 ";
  CHECK(error("sweep " + sweep_job + "--sweep hbm=40")
            .find("paraplan: --sweep: unknown hardware parameter \"hbm\" (known: hbm_gib,") == 0);
  CHECK(error("sweep " + sweep_job + "--sweep hbm_gib=40:80:0") ==
        "paraplan: --sweep: hbm_gib: the step must be a positive number, got \"0\"\n");
  CHECK(error("sweep " + sweep_job + "--sweep hbm_gib=80:40:8") ==
        "paraplan: --sweep: hbm_gib: the range is empty (its end 40 is below its start 80)\n");
  CHECK(error("sweep " + sweep_job + "--sweep hbm_gib=1:10000:1") ==
        "paraplan: --sweep: hbm_gib: 10000 values; at most 4096 (raise the step)\n");
  CHECK(error("sweep " + sweep_job + "--sweep hbm_gib=40 --shard 4/3") ==
        "paraplan: --shard: expected I/N with 1 <= I <= N (e.g. 3/8), got \"4/3\"\n");
  CHECK(error("sweep " + sweep_job + "--sweep hbm_gib=40 --shard 0/3") ==
        "paraplan: --shard: expected I/N with 1 <= I <= N (e.g. 3/8), got \"0/3\"\n");
  CHECK(error("sweep " + sweep_job).find("paraplan: --sweep: is required") == 0);
}

TEST_CASE("sweep prints one JSON line per point with its parameters and best strategy") {
  const Result r =
      run("sweep --model-name llama2-7b --gpu-infos a800 --num-gpus 8 --global-batch-size 64 "
          "--sequence-length 4096 --sweep hbm_gib=16,80 --sweep inter_node.gb_per_s=25,50");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::vector<nlohmann::json> points;
  for (std::string line; std::getline(lines, line);) points.push_back(nlohmann::json::parse(line));
  REQUIRE(points.size() == 4);
  CHECK(points[0]["point"] == 0);
  CHECK(points[0]["parameters"] == nlohmann::json{{"hbm_gib", 16}, {"inter_node.gb_per_s", 25}});
  CHECK(points[3]["parameters"] == nlohmann::json{{"hbm_gib", 80}, {"inter_node.gb_per_s", 50}});
  REQUIRE(points[3]["best"].is_object());
  CHECK(points[3]["best"]["estimate"]["memory"]["per_stage"][0]["capacity_gib"] == 80.0);
  // 16 GiB is less than llama2-7b's training state on 8 GPUs without sharding; more HBM never
  // makes the best slower.
  if (points[0]["best"].is_object()) {
    CHECK(points[0]["best"]["sim_throughput"].get<double>() <=
          points[2]["best"]["sim_throughput"].get<double>());
  }
}
