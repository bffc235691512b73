// Tensor-parallel overlap as Transformer Engine's userbuffers run it by default
// (model/tp_comm_overlap.hpp): what each method leaves exposed and the SMs it takes.
#include "model/tp_comm_overlap.hpp"

#include <doctest/doctest.h>

#include "paraplan/hardware.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

GpuSpec gpu_of(const std::string& type) {
  return test::scenario(R"({"model": "llama2-7b", "training": {"global_batch_size": 8,
      "seq_length": 2048}, "cluster": {"gpus": [{"type": )" +
                        type + R"(, "count": 8}]}})")
      .cluster.pools.front()
      .gpu;
}

}  // namespace

TEST_CASE("userbuffers: pipelined and bulk overlaps keep 16 SMs from their GEMM") {
  const GpuSpec h100 = gpu_of("\"h100\"");
  const GpuSpec b200 = gpu_of("\"b200\"");
  // The GEMM runs on the SMs left (set_sm_margin): 132 - 16 on an H100, 148 - 16 on a B200.
  CHECK(detail::userbuffer_margin(h100) == doctest::Approx(16.0 / 116));
  CHECK(detail::userbuffer_margin(b200) == doctest::Approx(16.0 / 132));
  // A bulk collective shorter than its GEMM costs the GEMM's lost SMs, not its own length.
  CHECK(detail::bulk_exposed_s(h100, 1e-3, 10e-3) == doctest::Approx(10e-3 * 16 / 116));
  // Longer than the slowed GEMM, the rest of it is exposed as well.
  CHECK(detail::bulk_exposed_s(h100, 20e-3, 10e-3) ==
        doctest::Approx(20e-3 - 10e-3 * 132 / 116 + 10e-3 * 16 / 116));
  // The pipelined reduce-scatter's last of four chunks has no GEMM chunk left to hide under.
  CHECK(detail::pipelined_exposed_s(h100, 4e-3, 10e-3) == doctest::Approx(1e-3 + 10e-3 * 16 / 116));
}

TEST_CASE("userbuffers: ring exchange hides every chunk but what outlasts the GEMM's chunks") {
  const GpuSpec h100 = gpu_of("\"h100\"");
  // The local chunk needs no transfer, so t - 1 of the GEMM's t chunks hide the all-gather; the
  // copy engine takes no SMs (only the preset's overlap_slowdown for the HBM it shares).
  CHECK(detail::ring_exchange_exposed_s(h100, 1e-3, 8e-3, 8) ==
        doctest::Approx(h100.overlap_slowdown * 1e-3));
  CHECK(detail::ring_exchange_exposed_s(h100, 10e-3, 8e-3, 8) ==
        doctest::Approx(3e-3 + h100.overlap_slowdown * 7e-3));
}

TEST_CASE("userbuffers: a GPU of unknown SM count prices the overlap at its overlap_slowdown") {
  const GpuSpec custom = gpu_of(R"({"base": "h100", "id": "mine", "hbm_gb_per_s": 4000})");
  CHECK(detail::sm_count(custom) == 0);
  CHECK(detail::bulk_exposed_s(custom, 1e-3, 10e-3) ==
        doctest::Approx(custom.overlap_slowdown * 1e-3));
}
