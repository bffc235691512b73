// PyTorch pipelining's per-micro-batch buffers, FSDP2's gradient shards cached on the
// reduce-scatter stream and the MoE dispatcher's transients (pipelining_memory.hpp,
// moe_memory.hpp).
#include <doctest/doctest.h>

#include "model/moe_memory.hpp"
#include "model/pipelining_memory.hpp"
#include "model/torchtitan_fsdp.hpp"
#include "paraplan/units.hpp"
#include "support.hpp"

using namespace paraplan;
using namespace paraplan::detail;
using units::kGiB;

TEST_CASE("PyTorch pipelining: receive buffers per chunk and micro-batch, the last keeps logits") {
  const double a = 1, logits = 10;
  // One stage: no pipelining.
  CHECK(torch_pipelining_bytes(0, 1, 1, 8, 1, a, logits) == 0);
  // 1F1B over 4 stages, 8 micro-batches: the first receives no input, sends no logits; the
  // input buffers of the micro-batches in flight are counted as saved activations already; each
  // micro-batch in flight keeps its output (fwd_cache) until its backward.
  CHECK(torch_pipelining_bytes(0, 4, 1, 8, 4, a, logits) == doctest::Approx(8 * a + 4 * a));
  CHECK(torch_pipelining_bytes(1, 4, 1, 8, 3, a, logits) == doctest::Approx(5 * a + 8 * a + 3 * a));
  CHECK(torch_pipelining_bytes(3, 4, 1, 8, 1, a, logits) == doctest::Approx(7 * a + 8 * logits));
  // Interleaved, two chunks a GPU: rank 0 holds chunks 0 and 4 of 8, both but the first
  // receiving, both sending gradients back, both keeping the outputs of the 4 x 2 chunk
  // micro-batches in flight.
  CHECK(torch_pipelining_bytes(0, 4, 2, 8, 4, a, logits) ==
        doctest::Approx((8 - 4) * 1 * a + 8 * 2 * a + 4 * 2 * a));
  // More virtual stages, more buffers.
  CHECK(torch_pipelining_bytes(1, 4, 4, 8, 4, a, logits) >
        torch_pipelining_bytes(1, 4, 2, 8, 4, a, logits));
}

TEST_CASE("torchtitan with pipelines holds more than without the pipelining buffers") {
  const std::string base = R"({"model": "llama3-8b", "framework": "torchtitan",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 8}]},
      "strategy": {"zero_stage": 3, "pipeline_model_parallel_size": 4, "micro_batch_size": 1,
                   "virtual_pipeline_model_parallel_size": )";
  const Report v1 = estimate(test::scenario(base + "1}}"));
  const Report v2 = estimate(test::scenario(base + "2}}"));
  REQUIRE(v1.stages.size() == 4);
  // The last stage keeps 32 micro-batches of 16-bit logits (4096 x 128256 x 2 bytes each).
  const double logits = 32.0 * 4096 * 128256 * 2;
  CHECK(v1.stages.back().memory.activations_bytes > logits);
  // FSDP2's fp32 shards are reserved on the reduce-scatter stream, not allocated.
  const StageMemory& m = v1.stages.front().memory;
  CHECK(m.peak_reserved_bytes() - m.peak_allocated_bytes() > 0.1 * kGiB);
  // Two chunks a GPU hold twice the gradient buffers.
  CHECK(v2.stages.front().memory.activations_bytes > v1.stages.front().memory.activations_bytes);
}

TEST_CASE("torchtitan's LM head saves its input gathered over the tensor-parallel ranks") {
  ModelSpec model;
  model.hidden_size = 8192;
  const Training training{512, 8192, Precision::fp8};
  Strategy s;
  s.micro_batch_size = 16;
  s.tensor_model_parallel_size = 8;
  s.sequence_parallel = true;
  // 16 x 8192 tokens x 8192 x 2 bytes (the output layer stays bf16 under Float8), of which the
  // rank's 1/8 sequence shard is already counted.
  CHECK(torchtitan_head_gathered_input_bytes(model, training, s) ==
        doctest::Approx(2.0 * 8192 * 16 * 8192 * 7 / 8));
  s.context_parallel_size = 2;
  CHECK(torchtitan_head_gathered_input_bytes(model, training, s) ==
        doctest::Approx(2.0 * 8192 * 8 * 8192 * 7 / 8));
  s.sequence_parallel = false;
  CHECK(torchtitan_head_gathered_input_bytes(model, training, s) == 0);
  s.sequence_parallel = true;
  s.tensor_model_parallel_size = 1;
  CHECK(torchtitan_head_gathered_input_bytes(model, training, s) == 0);
}

TEST_CASE("MoE: the dispatcher's rows on both sides of the larger all-to-all, and the logits") {
  MoeDispatch d;
  d.permuted_rows = 8000;
  d.expert_rows = 9000;
  d.unpermute_in_rows = 8000;
  const double h = 2048, e = 2, tokens = 1000, experts = 128;
  CHECK(moe_transient_bytes(d, h, tokens, experts, e) ==
        doctest::Approx(e * h * 17000 + e * tokens * experts));
  d.unpermute_in_rows = 12000;  // a combine that receives more than the dispatch sent
  CHECK(moe_transient_bytes(d, h, tokens, experts, e) ==
        doctest::Approx(e * h * 21000 + e * tokens * experts));
}

TEST_CASE("DeepEP's buffers: NVLink chunks per channel and peer, RDMA only across hosts") {
  const double h = 7168, hidden_bytes = 2 * h;
  const double per_token = hidden_bytes + 8 + 128 * 8 + 128 * 4 + 128 * 4;
  CHECK(deepep_buffer_bytes(1, h, false) == 0);
  // Eight ranks: 10 channels (20 SMs) x 8 peers x 256 tokens, and the channel headers.
  CHECK(deepep_buffer_bytes(8, h, false) ==
        doctest::Approx(10.0 * 8 * (2 + 3) * 4 + 10.0 * 8 * 256 * per_token));
  // 64 ranks over eight hosts: 288-token NVLink chunks and the RDMA send and receive halves.
  const double nvl = 10.0 * 8 * (2 * 8 + 3) * 4 + 10.0 * 8 * 288 * per_token;
  const double rdma = 10.0 * 8 * 18 * 2 * 4 + 2 * 10.0 * 8 * 128 * (per_token + 16);
  CHECK(deepep_buffer_bytes(64, h, true) == doctest::Approx(nvl + rdma));
  CHECK(deepep_buffer_bytes(64, h, false) == doctest::Approx(nvl));
  CHECK(deepep_buffer_bytes(64, h, true) / kGiB == doctest::Approx(0.66).epsilon(0.05));
}

TEST_CASE("Megatron-LM's schedule: deferred output-layer gradients and kept stage outputs") {
  // Llama 3 8B on 8 H100: TP 2 with sequence parallelism, PP 4, 64 micro-batches of 4096 tokens.
  const auto run = [](const std::string& keys) {
    return estimate(test::scenario(R"({"model": "llama3-8b",
        "training": {"global_batch_size": 64, "seq_length": 4096},
        "cluster": {"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 8}]},
        "strategy": {"tensor_model_parallel_size": 2, "sequence_parallel": true,
                     "pipeline_model_parallel_size": 4, "micro_batch_size": 1)" +
                                   keys + "}}"));
  };
  const Report base = run("");
  REQUIRE(base.stages.size() == 4);
  // Each deferred micro-batch: the 16-bit logits gradient [4096, 128256 / 2] and the output
  // layer's input [4096 / 2, 4096]; the drain's two all-gather buffers of the whole sequence.
  const double logits = 4096.0 * (128256 / 2) * 2, input = 2048.0 * 4096 * 2;
  const double gather = 2 * 2 * input;
  const auto added = [&](const Report& r, size_t stage) {
    return r.stages[stage].memory.activations_bytes - base.stages[stage].memory.activations_bytes;
  };
  const Report all = run(R"(, "defer_embedding_wgrad_compute": true)");
  CHECK(added(all, 3) == doctest::Approx(64 * (logits + input) + gather));
  CHECK(added(all, 0) == 0);
  const Report limited =
      run(R"(, "defer_embedding_wgrad_compute": true, "wgrad_deferral_limit": 22)");
  CHECK(added(limited, 3) == doctest::Approx(22 * (logits + input) + gather));
  // Kept stage outputs: each micro-batch in flight (4 on the first stage, 2 on the third) keeps
  // its output until its backward; the last stage sends none on.
  const Report kept = run(R"(, "deallocate_pipeline_outputs": false)");
  CHECK(added(kept, 0) == doctest::Approx(4 * input));
  CHECK(added(kept, 2) == doctest::Approx(2 * input));
  CHECK(added(kept, 3) == 0);
}
