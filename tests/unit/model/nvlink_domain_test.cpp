// GPUs per host (what launches) and the NVLink domain (where collectives run) are separate
// (docs/contract.md section 2): a GB200 NVL72 host launches 4 GPUs, its NVLink reaches 72.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "paraplan/search.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

std::string gb200_job(const std::string& cluster_extra, int tensor) {
  return R"({"model": "llama3-70b", "training": {"global_batch_size": 64, "seq_length": 8192},
             "cluster": {)" +
         cluster_extra + R"("gpus": [{"type": "gb200", "count": 64}]},
             "strategy": {"tensor_model_parallel_size": )" +
         std::to_string(tensor) + R"(, "pipeline_model_parallel_size": 2,
                          "sequence_parallel": true, "recompute_granularity": "selective",
                          "zero_stage": 1, "use_flash_attn": true}})";
}

}  // namespace

TEST_CASE("gpus_per_node defaults to the GPU type's host size, not its NVLink domain") {
  CHECK(test::scenario(gb200_job("", 8)).cluster.gpus_per_node == 4);
  CHECK(test::scenario(gb200_job("", 8)).cluster.pools[0].gpu.nvlink_domain_gpus == 72);
  const Scenario h100 = test::scenario(
      R"({"model": "llama2-7b", "training": {"global_batch_size": 8, "seq_length": 4096},
          "cluster": {"gpus": [{"type": "h100", "count": 16}]}})");
  CHECK(h100.cluster.gpus_per_node == 8);
}

TEST_CASE("GPUs per host never shrink the NVLink domain that collectives use") {
  // Tensor parallelism of 8 on GB200 stays on NVLink whether 4 or 72 GPUs launch per host.
  const Report four = estimate(test::scenario(gb200_job(R"("gpus_per_node": 4, )", 8)));
  const Report rack = estimate(test::scenario(gb200_job(R"("gpus_per_node": 72, )", 8)));
  REQUIRE(four.feasible);
  CHECK(four.iteration_time_s == rack.iteration_time_s);
  CHECK(four.time_breakdown.tp_comm_s == rack.time_breakdown.tp_comm_s);
  // The same job on a GB200 whose NVLink domain is cut to 4 pays for tensor parallelism over
  // the NICs.
  const std::string cut = R"({"base": "gb200", "id": "gb200-nvl4", "intra_node": {"gpus": 4}})";
  std::string job = gb200_job("", 8);
  job.replace(job.find("\"gb200\""), 7, cut);
  const Report small_domain = estimate(test::scenario(job));
  CHECK(small_domain.time_breakdown.tp_comm_s > 2 * four.time_breakdown.tp_comm_s);
}

TEST_CASE("the search tries tensor parallelism up to the NVLink domain, past one host") {
  SearchOptions options;
  options.top = 500;
  const Scenario s = test::scenario(
      R"({"model": "llama3-70b", "training": {"global_batch_size": 64, "seq_length": 8192},
          "cluster": {"gpus_per_node": 4, "gpus": [{"type": "gb200", "count": 64}]},
          "strategy": {"pipeline_model_parallel_size": 1, "zero_stage": 1,
                       "recompute_granularity": "full"}})");
  const SearchResult result = search(s, options);
  REQUIRE_FALSE(result.strategies.empty());
  int64_t largest = 0;
  for (const RankedStrategy& r : result.strategies) {
    largest = std::max(largest, r.strategy.tensor_model_parallel_size);
  }
  CHECK(largest > 4);
}
