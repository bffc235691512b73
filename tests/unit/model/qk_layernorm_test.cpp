// --qk-layernorm (Qwen3's q_norm and k_norm): SelfAttention's q_layernorm and k_layernorm, two
// TENorm modules over the query and the key after the QKV split (docs/model.md section 1).
#include <doctest/doctest.h>

#include "layer_jobs.hpp"
#include "model/host_time.hpp"
#include "paraplan/model.hpp"

using namespace paraplan;

namespace {

// h 2048, 32 heads of 128, 4 query groups (Qwen3-30B-A3B's attention), sequence 4096,
// micro-batch 1, on H100s whose kernels have no fixed overhead.
Scenario qk_job(const std::string& extra) {
  return test::no_overhead_h100_job(R"({"name": "m", "num_layers": 2, "hidden_size": 2048,
      "ffn_hidden_size": 6144, "num_attention_heads": 32, "num_query_groups": 4,
      "kv_channels": 128, "vocab_size": 32000, "activation": "swiglu")" +
                                    extra + "}");
}

}  // namespace

TEST_CASE("qk_layernorm adds a norm over Q and over K: 2 passes forward, 3 backward, each") {
  const Scenario plain_job = qk_job("");
  const Scenario normed_job = qk_job(R"(, "qk_layernorm": true)");
  REQUIRE(normed_job.model.qk_layernorm);
  const detail::LayerCost plain = test::flash_dense_layer(plain_job);
  const detail::LayerCost normed = test::flash_dense_layer(normed_job);
  const GpuSpec& gpu = plain_job.cluster.pools.front().gpu;
  const double q_bytes = 2.0 * 4096 * 32 * 128, k_bytes = 2.0 * 4096 * 4 * 128;
  const auto pass_s = [&](double bytes) { return detail::memory_bound_s(gpu, bytes); };
  // As ratios: doctest's Approx would take any few microseconds as equal.
  CHECK((normed.forward.compute_s - plain.forward.compute_s) /
            (pass_s(2 * q_bytes) + pass_s(2 * k_bytes)) ==
        doctest::Approx(1));
  CHECK((normed.backward.compute_s - plain.backward.compute_s) /
            (pass_s(3 * q_bytes) + pass_s(3 * k_bytes)) ==
        doctest::Approx(1));
  // Each norm adds a 128-wide weight.
  CHECK(normed.parameters - plain.parameters == doctest::Approx(2 * 128));
  CHECK(normed.forward_flops == plain.forward_flops);
}

TEST_CASE("qk_layernorm: two more Transformer Engine module calls, and counted parameters") {
  const Strategy strategy;
  const ModelSpec plain = qk_job("").model;
  const ModelSpec normed = qk_job(R"(, "qk_layernorm": true)").model;
  const auto te_modules = [&](const ModelSpec& m) {
    return detail::host_ops(detail::HostRegion::attention, m, strategy).te_modules;
  };
  CHECK(te_modules(normed) == te_modules(plain) + 2);
  CHECK(count_parameters(normed).total - count_parameters(plain).total == 2 * 2 * 128);
  // The norms' weights are no GEMM: the model FLOPs stay.
  CHECK(model_flops_per_token(normed, 4096) == model_flops_per_token(plain, 4096));
}

TEST_CASE("qk_layernorm is a boolean, and not with multi-latent attention") {
  const auto error = [](const std::string& fields) {
    return test::input_error(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "vocab_size": 32000,
      "activation": "swiglu")" +
                             fields + R"(},
      "training": {"global_batch_size": 8, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  };
  CHECK(error(R"(, "qk_layernorm": true)") == "");
  CHECK(error(R"(, "qk_layernorm": 1)").find("model.qk_layernorm: expected true or false") == 0);
  CHECK(error(R"(, "qk_layernorm": true, "kv_channels": 128, "multi_latent_attention":
      {"q_lora_rank": 768, "kv_lora_rank": 256, "qk_head_dim": 128, "qk_pos_emb_head_dim": 64,
      "v_head_dim": 128})")
            .find("model.qk_layernorm: multi_latent_attention already normalises") == 0);
}
