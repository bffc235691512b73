// Memory against published and measured numbers: Korthikanti et al.'s Figure 1 and Megatron-LM's
// CI golden values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "paraplan/estimate.hpp"
#include "paraplan/units.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;
using units::kGiB;

namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

TEST_CASE("published memory: Korthikanti et al. 2022 Figure 1, first pipeline stage") {
  std::printf("\n%-22s %10s %10s %8s %10s %10s %8s\n", "entry", "static", "predicted", "error",
              "activation", "predicted", "error");
  for (nlohmann::json entry : load("published-memory.json")) {
    // The Figure 1 models are GPT models with GeLU MLPs (Korthikanti et al. Table 3), and the
    // expected weight memory is exactly 18 bytes x 12Lh^2/t, the two-matrix MLP; the entries
    // label them "geglu", which would mean three matrices. Use the paper's GeLU.
    entry["model"]["activation"] = "gelu";
    // The source states fp32 gradients ("fp16 weights, fp32 gradients and Adam state (18
    // bytes/parameter)"): Megatron-LM's --accumulate-allreduce-grads-in-fp32 in fp16 training.
    entry["strategy"]["accumulate_allreduce_grads_in_fp32"] = true;
    const Report r = estimate(parse_scenario(scenario_of(entry)));
    REQUIRE(!r.stages.empty());
    // Figure 1's weight memory is 18 bytes x 12 L h^2 / (t p): the transformer layers only. A
    // middle stage holds layers only; the first also holds the embedding (with one stage, the
    // first stage it is). Activations are the first stage's, which holds the most in flight.
    const StageMemory& m = r.stages.front().memory;
    const StageMemory& layers_only = r.stages[r.stages.size() / 2].memory;
    const double statics =
        (layers_only.weights_bytes + layers_only.gradients_bytes + layers_only.optimizer_bytes) /
        kGiB;
    const double activations = m.activations_bytes / kGiB;
    const double expected_static = entry["expected_gib"]["weights_gradients_optimizer"];
    const double expected_activations = entry["expected_gib"]["activations"];
    std::printf("%-22s %10.2f %10.2f %+7.1f%% %10.2f %10.2f %+7.1f%%\n",
                entry["id"].get<std::string>().substr(8).c_str(), expected_static, statics,
                100 * (statics / expected_static - 1), expected_activations, activations,
                100 * (activations / expected_activations - 1));
    CHECK(statics == doctest::Approx(expected_static).epsilon(0.05));
    CHECK(activations == doctest::Approx(expected_activations).epsilon(0.05));
  }
}

TEST_CASE("measured memory: Megatron-LM CI golden values and Megatron-Bridge runs, max allocated") {
  std::printf("\n%-5s %-60s %10s %10s %8s\n", "id", "run", "measured", "predicted", "error");
  std::vector<double> errors;
  for (nlohmann::json entry : load("measured-memory.json")) {
    // The CI entries' assumptions: untied embeddings (--untie-embeddings-and-output-weights is
    // not set, but the CI model's output layer is separate: see the entry's assumptions). A
    // preset's model (M005's Qwen3 30B-A3B) states its own.
    if (entry["model"].is_object()) entry["model"]["untie_embeddings_and_output_weights"] = true;
    const Report r = estimate(parse_scenario(scenario_of(entry)));
    REQUIRE(r.stages.size() >= 1);
    const bool last = entry["measured"]["stage"].get<std::string>().find("last") == 0;
    const StageMemory& m = last ? r.stages.back().memory : r.stages.front().memory;
    const double allocated = m.peak_allocated_bytes() / kGiB;
    const double measured = entry["measured"]["peak_gib"];
    std::printf("%-5s %-60.60s %10.2f %10.2f %+7.1f%%  (peak %.2f, reserve %.2f)\n",
                entry["id"].get<std::string>().c_str(), entry["name"].get<std::string>().c_str(),
                measured, allocated, 100 * (allocated / measured - 1), m.peak_bytes() / kGiB,
                m.other_bytes() / kGiB);
    // A point the model is known to miss says so in `known_gap` (and must still miss: a fix
    // shows up here); the others are matched within 5%.
    if (entry.contains("known_gap")) {
      std::printf("      known gap: %s\n", entry["known_gap"].get<std::string>().c_str());
      CHECK(allocated != doctest::Approx(measured).epsilon(0.05));
    } else {
      CHECK(allocated == doctest::Approx(measured).epsilon(0.05));
    }
    errors.push_back(std::abs(allocated / measured - 1));
  }
  std::printf("median |error| of max allocated: %.1f%% over %zu points\n", 100 * median(errors),
              errors.size());
}

// Each stage's reserved peak, term by term (GiB): weights, gradients, optimizer, activations
// (with PyTorch pipelining's buffers), the micro-batches in flight, and the fragmentation (with
// what FSDP2's side streams keep cached).
static void print_reserved_terms(const Report& r) {
  for (size_t i = 0; i < r.stages.size(); ++i) {
    const StageMemory& m = r.stages[i].memory;
    std::printf(
        "         stage %zu: weights %.1f gradients %.1f optimizer %.1f activations %.1f "
        "(in flight %.1f) fragmentation %.1f reserved %.1f\n",
        i, m.weights_bytes / kGiB, m.gradients_bytes / kGiB, m.optimizer_bytes / kGiB,
        m.activations_bytes / kGiB, r.stages[i].in_flight_micro_batches,
        m.reserve.fragmentation_bytes / kGiB, m.peak_reserved_bytes() / kGiB);
  }
}

// torchtitan's published memory column is the caching allocator's reserved peak, the maximum over
// all GPUs (measured-reserved.json): the model's peak_reserved_gib (live tensors plus the
// allocator's fragmentation) of the stage that holds the most.
TEST_CASE("measured memory: torchtitan's max reserved") {
  const nlohmann::json data = load("measured-reserved.json");
  std::printf("\n%-6s %-100s %9s %9s %8s %9s\n", "id", "launch", "measured", "reserved", "error",
              "allocated");
  std::vector<double> errors;
  for (const nlohmann::json& point : data["points"]) {
    const std::string file = point["recipes"];
    const std::string name = point["recipe"];
    nlohmann::json scenario;
    const nlohmann::json recipes = load(file);
    for (const nlohmann::json& recipe : recipes["recipes"]) {
      if (recipe["name"] == name) scenario = recipe["scenario"];
    }
    REQUIRE(!scenario.is_null());
    const Report r = estimate(parse_scenario(scenario));
    REQUIRE(!r.stages.empty());
    double reserved = 0, allocated = 0;
    for (const StageReport& stage : r.stages) {
      reserved = std::max(reserved, stage.memory.peak_reserved_bytes() / kGiB);
      allocated = std::max(allocated, stage.memory.peak_allocated_bytes() / kGiB);
    }
    const double measured = point["measured"]["max_reserved_gib"];
    const double error = reserved / measured - 1;
    errors.push_back(std::abs(error));
    std::printf("%-6s %-100.100s %9.1f %9.1f %+7.1f%% %9.1f\n",
                point["id"].get<std::string>().c_str(), name.c_str(), measured, reserved,
                100 * error, allocated);
    print_reserved_terms(r);
  }
  const double median_error = median(errors);
  std::printf("median |error| of max reserved: %.1f%% over %zu points\n", 100 * median_error,
              errors.size());
  CHECK(errors.size() == 18);
}
