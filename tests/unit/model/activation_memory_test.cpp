// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models":
// activation bytes per layer and micro-batch, with s sequence, b micro-batch, h hidden,
// a heads, t tensor parallel (16-bit activations, 1-byte dropout masks).
#include <doctest/doctest.h>

#include "model/attention_memory.hpp"
#include "model/layer_cost.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

struct Case {
  double s = 2048, b = 4, h = 6144, a = 64, t = 8;
  double sbh() const { return s * b * h; }
};

detail::ModelCosts costs(const Case& c, bool sequence_parallel, bool flash = false) {
  const Scenario sc = test::scenario(
      R"({"model": )" + test::gpt_model(48, static_cast<int>(c.h), static_cast<int>(c.a)) +
      R"(, "training": {"global_batch_size": 4, "seq_length": 2048},
          "cluster": {"gpus": [{"type": "a100", "count": 8}]}})");
  Strategy strategy;
  strategy.tensor_model_parallel_size = static_cast<int64_t>(c.t);
  strategy.micro_batch_size = static_cast<int64_t>(c.b);
  strategy.sequence_parallel = sequence_parallel;
  strategy.use_flash_attn = flash;
  return detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, strategy);
}

}  // namespace

TEST_CASE("tensor parallel without sequence parallel: sbh(10 + 24/t + 5as/(ht)), eq. 2") {
  const Case c;
  const double expected = c.sbh() * (10 + 24 / c.t + 5 * c.a * c.s / (c.h * c.t));
  CHECK(costs(c, false).dense.activation_bytes == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("sequence parallel: sbh(34/t + 5as/(ht)), eq. 4") {
  const Case c;
  const double expected = c.sbh() * (34 / c.t + 5 * c.a * c.s / (c.h * c.t));
  CHECK(costs(c, true).dense.activation_bytes == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("selective recompute drops exactly the 5as^2b/t attention term, eq. 6") {
  const Case c;
  const detail::LayerCost layer = costs(c, true).dense;
  CHECK(layer.unit(RecomputeModule::core_attn).saved_bytes ==
        doctest::Approx(5 * c.a * c.s * c.s * c.b / c.t));
  CHECK(layer.activation_bytes - layer.unit(RecomputeModule::core_attn).saved_bytes ==
        doctest::Approx(c.sbh() * 34 / c.t));
}

TEST_CASE("full recompute keeps the 2sbh layer input, sharded with sequence parallel") {
  const Case c;
  CHECK(costs(c, false).dense.checkpoint_bytes == doctest::Approx(2 * c.sbh()));
  CHECK(costs(c, true).dense.checkpoint_bytes == doctest::Approx(2 * c.sbh() / c.t));
}

TEST_CASE("flash attention keeps no s x s scores, only a log-sum-exp per row") {
  const Case c;
  const detail::LayerCost layer = costs(c, true, /*flash=*/true).dense;
  CHECK(layer.activation_bytes == doctest::Approx(c.sbh() * 34 / c.t + 4 * c.b * c.a / c.t * c.s));
}

TEST_CASE("parameters per GPU: 12h^2/t per GPT layer plus replicated norms") {
  const Case c;
  const detail::LayerCost layer = costs(c, false).dense;
  CHECK(layer.parameters == doctest::Approx(12 * c.h * c.h / c.t + 2 * c.h));
  CHECK(layer.forward_flops ==
        doctest::Approx(2 * c.s * c.b * 12 * c.h * c.h / c.t + 4 * c.b * c.s * c.s * c.h / c.t));
}

TEST_CASE("ring attention's buffers: received K+V chunks and partial outputs, or the backward's") {
  using detail::ring_attention_transient_bytes;
  // Without context parallelism there is no ring.
  CHECK(ring_attention_transient_bytes(1, 4, 1, 4) == 0);
  // CP 32: 31 received K+V chunks and 32 partial outputs outweigh dQ and four K+V buffers.
  CHECK(ring_attention_transient_bytes(32, 4, 1, 4) == doctest::Approx(31 * 1 + 32 * 4));
  // CP 2: one received chunk and two outputs (9) against dQ and four buffers (8 + 4).
  CHECK(ring_attention_transient_bytes(2, 8, 1, 4) == doctest::Approx(8 + 4 * 1));
}

TEST_CASE("ring attention's buffers join a layer's transients in Transformer Engine's p2p only") {
  const auto transient = [](CpCommType type) {
    const Scenario sc =
        test::scenario(R"({"model": )" + test::gpt_model(8, 4096, 32) +
                       R"(, "training": {"global_batch_size": 8, "seq_length": 65536},
            "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
    Strategy s;
    s.use_flash_attn = true;
    s.context_parallel_size = 8;
    s.cp_comm_type = type;
    return detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s)
        .dense.transient_bytes;
  };
  // 8192 tokens a rank, 32 heads of 128, bf16: 7 K+V chunks of 128 MiB and 8 outputs of 64 MiB.
  const double rows = 2.0 * 8192;
  CHECK(transient(CpCommType::p2p) == doctest::Approx(7 * rows * 32 * 256 + 8 * rows * 32 * 128));
  CHECK(transient(CpCommType::allgather) == 0);
}
