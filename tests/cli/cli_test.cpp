// The `paraplan` command as a user runs it: exit codes, output format, error lines.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

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

// Runs `paraplan ARGS`, feeding `input` on standard input.
Result run(const std::string& args, const std::string& input = "") {
  const std::string in = "cli_test_stdin.txt", out = "cli_test_stdout.txt",
                    err = "cli_test_stderr.txt";
  std::ofstream(in) << input;
  const std::string command = std::string(PARAPLAN_CLI) + " " + args + " <" + in + " >" + out +
                              " 2>" + err;
  const int status = std::system(command.c_str());
  Result result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out);
  result.err = slurp(err);
  return result;
}

std::string example(const char* name) { return std::string(PARAPLAN_EXAMPLES_DIR) + "/" + name; }

}  // namespace

TEST_CASE("estimate prints the contract's report") {
  const Result r = run("estimate " + example("llama2-70b-a800.json"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const nlohmann::json report = nlohmann::json::parse(r.out);
  for (const char* key : {"feasible", "infeasible_reasons", "iteration_time_s",
                          "tokens_per_s_per_gpu", "samples_per_s", "model_tflops_per_gpu", "mfu",
                          "hfu", "memory", "time_breakdown_s"}) {
    CHECK_MESSAGE(report.contains(key), key);
  }
  CHECK(report["feasible"] == true);
  CHECK(report["memory"]["per_stage"].size() == 4);
  double sum = 0;
  for (const auto& [part, seconds] : report["time_breakdown_s"].items()) sum += seconds.get<double>();
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
