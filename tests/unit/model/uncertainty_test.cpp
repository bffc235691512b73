// The uncertainty band on every estimate (model/uncertainty.hpp, docs/contract.md section 4):
// the regime's residuals, the fallback to a wider regime, and leave-one-source-out.
#include "model/uncertainty.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "support.hpp"

using namespace paraplan;

namespace {

const char* const kLlamaOnH100 = R"({"model": "llama3.1-8b", "training": {
    "global_batch_size": 64, "seq_length": 4096}, "cluster": {"gpus": [{"type": "h100",
    "count": 8}]}, "strategy": {"tensor_model_parallel_size": 8, "sequence_parallel": true,
    "use_flash_attn": true, "recompute_granularity": "selective"}})";

// Ten dense runs at each of three ratios from three lineages, and three MoE runs from a fourth.
std::vector<detail::Residual> synthetic() {
  std::vector<detail::Residual> out;
  const auto add = [&](const char* lineage, bool moe, double ratio, int runs) {
    for (int i = 0; i < runs; ++i)
      out.push_back({"X", lineage, "Hopper", moe, "Megatron-Core", ratio});
  };
  add("lineage A", false, 0.9, 10);
  add("lineage B", false, 0.6, 10);
  add("lineage C", false, 0.75, 10);
  add("lineage D", true, 0.3, 3);
  return out;
}

}  // namespace

TEST_CASE("every estimate carries the 80% band of its regime's published runs") {
  const Report report = estimate(test::scenario(kLlamaOnH100));
  REQUIRE(report.feasible);
  const Uncertainty& u = report.uncertainty;
  CHECK(u.level == 0.8);
  CHECK(u.regime == "Hopper, dense, Megatron-Core");
  CHECK(u.runs >= detail::kMinRegimeRuns);
  CHECK(u.low_tokens_per_s_per_gpu > 0);
  CHECK(u.low_tokens_per_s_per_gpu < u.high_tokens_per_s_per_gpu);
  CHECK(u.basis.find("published runs") != std::string::npos);
  const nlohmann::json json = to_json(report)["uncertainty"];
  REQUIRE(json["tokens_per_s_per_gpu"].size() == 2);
  CHECK(json["tokens_per_s_per_gpu"][0] == u.low_tokens_per_s_per_gpu);
  CHECK(json["tokens_per_s_per_gpu"][1] == u.high_tokens_per_s_per_gpu);
  for (const char* key : {"level", "regime", "runs", "basis"})
    CHECK_MESSAGE(json.contains(key), key);
}

TEST_CASE("the band scales with the estimate and is empty for an infeasible one") {
  const detail::RatioBand band =
      detail::ratio_band({"Hopper", false, "Megatron-Core"}, synthetic());
  const Uncertainty u = detail::uncertainty_of(band, 1000);
  CHECK(u.low_tokens_per_s_per_gpu == doctest::Approx(1000 * band.low));
  CHECK(u.high_tokens_per_s_per_gpu == doctest::Approx(1000 * band.high));
  const Uncertainty none = detail::uncertainty_of(band, 0);
  CHECK(none.low_tokens_per_s_per_gpu == 0);
  CHECK(none.high_tokens_per_s_per_gpu == 0);
}

TEST_CASE("a lineage's runs never inform its own band when left out") {
  const std::vector<detail::Residual> residuals = synthetic();
  const detail::RegimeKey dense{"Hopper", false, "Megatron-Core"};
  // 30 runs: the 3rd and 28th smallest (floor and ceil of 31 x 0.1 and 31 x 0.9).
  const detail::RatioBand all = detail::ratio_band(dense, residuals);
  CHECK(all.regime == "Hopper, dense, Megatron-Core");
  CHECK(all.runs == 30);
  CHECK(all.low == doctest::Approx(0.6));
  CHECK(all.high == doctest::Approx(0.9));
  // Without lineage A two publishers remain: too few, so every run but A's (23: the 2nd and 22nd).
  const detail::RatioBand without_a = detail::ratio_band(dense, residuals, "lineage A");
  CHECK(without_a.regime == "all published runs");
  CHECK(without_a.runs == 23);
  CHECK(without_a.low == doctest::Approx(0.3));
  CHECK(without_a.high == doctest::Approx(0.75));
  CHECK(without_a.basis.find("\"Hopper, dense, Megatron-Core\" has 20 published runs from 2 "
                             "publishers' tables") != std::string::npos);
}

TEST_CASE("a regime with few runs falls back to a wider one and says why") {
  const std::vector<detail::Residual> residuals = synthetic();
  const detail::RatioBand moe = detail::ratio_band({"Hopper", true, "Megatron-Core"}, residuals);
  CHECK(moe.regime == "all published runs");  // MoE's 3 runs are too few at every level
  CHECK(moe.runs == 33);
  CHECK(moe.basis.find("\"Hopper, MoE, Megatron-Core\" has 3 published runs") != std::string::npos);
  CHECK(moe.low == doctest::Approx(0.3));  // the 3rd smallest of 33
  CHECK(moe.high == doctest::Approx(0.9));
}

TEST_CASE("a GPU whose preset fields are overridden is its own, unmeasured family") {
  const Scenario preset = test::scenario(kLlamaOnH100);
  CHECK(detail::gpu_family(preset.cluster) == "Hopper");
  const Scenario custom = test::scenario(R"({"model": "llama3.1-8b", "training": {
      "global_batch_size": 64, "seq_length": 4096}, "cluster": {"gpus": [{"type": {"base": "h100",
      "id": "h100-fast", "hbm_gb_per_s": 6000}, "count": 8}]},
      "strategy": {"tensor_model_parallel_size": 8, "sequence_parallel": true,
      "use_flash_attn": true, "recompute_granularity": "selective"}})");
  CHECK(detail::gpu_family(custom.cluster) == "custom");
  const Report report = estimate(custom);
  CHECK(report.uncertainty.regime == "dense, any GPU and framework");
  CHECK(report.uncertainty.basis.find("\"custom, dense, Megatron-Core\" has 0 published runs") !=
        std::string::npos);
  // H800 and A800 share their families' compute: they are read with H100 and A100 runs.
  const Scenario h800 = test::scenario(R"({"model": "llama3.1-8b", "training": {
      "global_batch_size": 64, "seq_length": 4096}, "cluster": {"gpus": [{"type": "h800",
      "count": 8}]}})");
  CHECK(detail::gpu_family(h800.cluster) == "Hopper");
}
