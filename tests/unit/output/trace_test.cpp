// The simulated schedule (a Chrome trace) runs Megatron-LM's 1F1B order from the estimate's
// stage times: it ends where the estimate's iteration ends, one track per stage.
#include "paraplan/trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "support.hpp"

using namespace paraplan;

namespace {

void check_trace(const std::string& strategy) {
  CAPTURE(strategy);
  const Scenario scenario = test::scenario(R"({"model": "llama2-7b",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 32}]}, "strategy": )" +
                                           strategy + "}");
  const Report report = estimate(scenario);
  REQUIRE(report.feasible);
  const nlohmann::json trace = schedule_trace(complete_strategy(scenario), report);
  double end_s = 0;
  std::set<int64_t> stages;
  std::set<std::string> names;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const double start = event["ts"].get<double>() / 1e6,
                 duration = event["dur"].get<double>() / 1e6;
    CHECK(start >= 0);
    CHECK(duration >= 0);
    end_s = std::max(end_s, start + duration);
    stages.insert(event["pid"].get<int64_t>());
    names.insert(event["name"].get<std::string>().substr(0, 7));
  }
  CHECK(static_cast<size_t>(stages.size()) == report.stages.size());
  CHECK(end_s == doctest::Approx(report.iteration_time_s).epsilon(0.01));
  CHECK(names.count("forward") == 1);
  CHECK(names.count("backwar") == 1);
}

}  // namespace

TEST_CASE("the simulated schedule ends with the estimated iteration") {
  check_trace(R"({"zero_stage": 1, "use_flash_attn": true, "recompute_granularity": "full"})");
  check_trace(R"({"pipeline_model_parallel_size": 4, "tensor_model_parallel_size": 2})");
  check_trace(R"({"pipeline_model_parallel_size": 4, "virtual_pipeline_model_parallel_size": 2,
                  "recompute_granularity": "selective", "zero_stage": 1,
                  "overlap_grad_reduce": true, "overlap_param_gather": true})");
}

TEST_CASE("a long iteration is simulated whole; its steady state is left out of the drawing") {
  // 1,024 micro-batches on four stages of two chunks: 65,536 passes, above the 10,000 drawn.
  const Scenario scenario = test::scenario(R"({"model": "llama2-7b",
      "training": {"global_batch_size": 4096, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 32}]},
      "strategy": {"pipeline_model_parallel_size": 4, "tensor_model_parallel_size": 2,
                   "virtual_pipeline_model_parallel_size": 2, "micro_batch_size": 1}})");
  const Report report = estimate(scenario);
  REQUIRE(report.feasible);
  REQUIRE(report.num_micro_batches == 1024);
  const nlohmann::json trace = schedule_trace(complete_strategy(scenario), report);
  const nlohmann::json& other = trace["otherData"];
  CHECK(other["simulated_micro_batches"] == 1024);
  REQUIRE(other["elided"].is_object());
  const double from_s = other["elided"]["from_s"].get<double>();
  const double to_s = other["elided"]["to_s"].get<double>();
  CHECK(from_s < to_s);
  // Each stage keeps 1,250 of its 4,096 passes at either end: about 400 micro-batches left out.
  CHECK(other["elided"]["micro_batches"].get<int64_t>() > 300);
  CHECK(other["elided"]["micro_batches"].get<int64_t>() < 500);
  double end_s = 0;
  size_t drawn = 0, elided = 0;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const double start = event["ts"].get<double>() / 1e6;
    const double end = start + event["dur"].get<double>() / 1e6;
    end_s = std::max(end_s, end);
    ++drawn;
    if (event["args"].value("elided", false)) {
      ++elided;
      CHECK(start == doctest::Approx(from_s));
      CHECK(event["args"]["passes"].get<int64_t>() > 0);
    } else {
      // Nothing else is drawn inside the left-out part.
      CHECK((end <= from_s + 1e-9 || start >= to_s - 1e-9));
    }
  }
  CHECK(elided == report.stages.size());
  CHECK(drawn < 40'000);
  CHECK(end_s == doctest::Approx(report.iteration_time_s).epsilon(0.01));
}
