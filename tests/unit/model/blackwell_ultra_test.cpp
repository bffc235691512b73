// Blackwell Ultra presets (gb300: GB300 NVL72, b300: HGX B300): their datasheet numbers, and
// what they change against the Blackwell part of the same system (gb200, b200). NVIDIA lists the
// same dense bf16/fp8 peaks for both generations, so the same strategy takes the same time inside
// one NVLink domain; the 288 GB of HBM3e fit a larger micro-batch, and the 800 Gb/s ConnectX-8
// (against 400 Gb/s ConnectX-7) shortens what crosses the network.
#include <doctest/doctest.h>

#include <string>

#include "paraplan/hardware.hpp"
#include "paraplan/units.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

using units::kGiB;
using units::kGiga;
using units::kTera;

GpuSpec gpu(const std::string& id) { return parse_gpu(nlohmann::json(id), "gpu"); }

// Llama 3 70B on `count` GPUs of `type`, launched 4 per host on an NVL72 tray (gb*), 8 on HGX.
Report llama3_70b(const std::string& type, int count, int tensor, int micro_batch) {
  const std::string per_node = type.rfind("gb", 0) == 0 ? "4" : "8";
  return estimate(test::scenario(
      R"({"model": "llama3-70b", "training": {"global_batch_size": 288, "seq_length": 8192},
          "cluster": {"gpus_per_node": )" +
      per_node + R"(, "gpus": [{"type": ")" + type + R"(", "count": )" + std::to_string(count) +
      R"(}]},
          "strategy": {"tensor_model_parallel_size": )" +
      std::to_string(tensor) + R"(, "pipeline_model_parallel_size": 1,
                       "micro_batch_size": )" +
      std::to_string(micro_batch) + R"(, "sequence_parallel": true,
                       "recompute_granularity": "selective", "zero_stage": 1,
                       "use_flash_attn": true}})"));
}

}  // namespace

TEST_CASE("gb300 and b300 carry their datasheet numbers") {
  const GpuSpec gb300 = gpu("gb300"), gb200 = gpu("gb200");
  CHECK(gb300.tensor_flops(Precision::bf16) == 2500 * kTera);
  CHECK(gb300.tensor_flops(Precision::fp8) == 5000 * kTera);
  CHECK(gb300.tensor_flops(Precision::bf16) == gb200.tensor_flops(Precision::bf16));
  CHECK(gb300.hbm_bytes == doctest::Approx(276.5 * kGiB));   // 288 GB, 276.50 GiB for CUDA
  CHECK(gb200.hbm_bytes == doctest::Approx(184.31 * kGiB));  // 186 GB, 184.31 GiB for CUDA
  CHECK(gb300.hbm_bytes_per_s == 8000 * kGiga);
  CHECK(gb300.nvlink_domain_gpus == 72);
  CHECK(gb300.gpus_per_host == 4);
  CHECK(gb300.intra_node.bandwidth_bytes_per_s == 900 * kGiga);
  CHECK(gb300.inter_node.bandwidth_bytes_per_s == 100 * kGiga);  // ConnectX-8, 800 Gb/s
  CHECK(gb300.inter_node.bandwidth_bytes_per_s == 2 * gb200.inter_node.bandwidth_bytes_per_s);

  const GpuSpec b300 = gpu("b300"), b200 = gpu("b200");
  CHECK(b300.tensor_flops(Precision::bf16) == 2250 * kTera);
  CHECK(b300.tensor_flops(Precision::fp8) == 4500 * kTera);
  CHECK(b300.tensor_flops(Precision::bf16) == b200.tensor_flops(Precision::bf16));
  CHECK(b300.hbm_bytes == doctest::Approx(268.6 * kGiB));  // 288 GB, 275040 MiB usable
  CHECK(b300.hbm_bytes_per_s == 8000 * kGiga);
  CHECK(b300.nvlink_domain_gpus == 8);
  CHECK(b300.gpus_per_host == 8);
  CHECK(b300.inter_node.bandwidth_bytes_per_s == 100 * kGiga);
  CHECK(b300.host.bandwidth_bytes_per_s == b200.host.bandwidth_bytes_per_s);  // x86, PCIe Gen5
}

TEST_CASE("Llama 3 70B on 64 GB300: feasible, as fast as GB200, a larger micro-batch fits") {
  const Report gb300 = llama3_70b("gb300", 64, 4, 1);
  REQUIRE(gb300.feasible);
  CHECK(gb300.tokens_per_s_per_gpu > 0);
  // No published GB300 run: the report says so, and claims no validation.
  CHECK_FALSE(gb300.validation.validated);
  REQUIRE_FALSE(gb300.validation.notes.empty());
  CHECK(gb300.validation.notes[0] == "GPU type gb300 was never validated against a published run");

  // The same peaks and curves, every group inside one 72-GPU NVLink domain, memory not binding:
  // the same time.
  const Report gb200 = llama3_70b("gb200", 64, 4, 1);
  REQUIRE(gb200.feasible);
  CHECK(gb300.iteration_time_s == doctest::Approx(gb200.iteration_time_s));

  // Micro-batch 2 needs about 200 GiB per GPU: more than GB200's 184.3, less than GB300's 276.5.
  const Report gb300_mbs2 = llama3_70b("gb300", 64, 4, 2);
  const Report gb200_mbs2 = llama3_70b("gb200", 64, 4, 2);
  CHECK(gb300_mbs2.feasible);
  CHECK_FALSE(gb200_mbs2.feasible);
  CHECK(gb300_mbs2.peak_memory_bytes() > gpu("gb200").hbm_bytes);
  CHECK(gb300_mbs2.iteration_time_s < gb300.iteration_time_s);  // fewer, larger kernels
}

TEST_CASE("across NVL72 racks and HGX nodes the 800 Gb/s NIC shortens data-parallel traffic") {
  // 144 GPUs are two racks: tensor 8 leaves 9 data-parallel ranks per rack, whose share of the
  // NICs (9 x 50 GB/s on GB200) is below NVLink's 900 GB/s.
  const Report gb300 = llama3_70b("gb300", 144, 8, 1);
  const Report gb200 = llama3_70b("gb200", 144, 8, 1);
  REQUIRE(gb300.feasible);
  REQUIRE(gb200.feasible);
  CHECK(gb300.time_breakdown.compute_s == doctest::Approx(gb200.time_breakdown.compute_s));
  CHECK(gb300.time_breakdown.dp_comm_s < gb200.time_breakdown.dp_comm_s);
  CHECK(gb300.iteration_time_s < gb200.iteration_time_s);

  // HGX: 16 GPUs are two 8-GPU nodes, and the data-parallel ring crosses the NICs.
  const Report b300 = llama3_70b("b300", 16, 8, 1);
  const Report b200 = llama3_70b("b200", 16, 8, 1);
  REQUIRE(b300.feasible);
  REQUIRE(b200.feasible);
  CHECK(b300.time_breakdown.dp_comm_s < b200.time_breakdown.dp_comm_s);
  CHECK(b300.iteration_time_s < b200.iteration_time_s);
}
