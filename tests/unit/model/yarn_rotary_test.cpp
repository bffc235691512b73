// YaRN rotary positions (yarn_rotary_scaling_factor, GPT-OSS 32): Megatron-Core's
// apply_rotary_pos_emb refuses Transformer Engine's fused RoPE when the concentration factor
// (mscale) is not 1 and runs the rotary embedding of Q and K eagerly (docs/model.md section 1b).
#include <doctest/doctest.h>

#include <cmath>

#include "layer_jobs.hpp"
#include "model/host_time.hpp"

using namespace paraplan;

namespace {

// h 1024, 8 heads of 128, 2 query groups, sequence 4096, micro-batch 1, on one H100 whose
// kernels have no fixed overhead (so a pass's time is its bytes at the HBM curve).
Scenario rotary_job(const std::string& yarn) {
  return test::no_overhead_h100_job(R"({"name": "m", "num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
      "vocab_size": 32000, "activation": "swiglu")" +
                                    yarn + "}");
}

// The error parsing a job of this model with `activation` and `fields` raises, or "".
std::string model_error(const char* activation, const std::string& fields) {
  return test::input_error(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "vocab_size": 32000,
      "activation": ")" + std::string(activation) +
                           "\"" + fields + R"(},
      "training": {"global_batch_size": 8, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
}

}  // namespace

TEST_CASE("YaRN's concentration factor is Megatron-Core's 0.1 ln s + 1, 1 without scaling") {
  CHECK(rotary_job("").model.yarn_concentration_factor() == 1.0);
  CHECK(rotary_job(R"(, "yarn_rotary_scaling_factor": 1)").model.yarn_concentration_factor() ==
        1.0);
  CHECK(rotary_job(R"(, "yarn_rotary_scaling_factor": 32)").model.yarn_concentration_factor() ==
        doctest::Approx(0.1 * std::log(32.0) + 1).epsilon(1e-12));
}

TEST_CASE(
    "YaRN runs the rotary embedding unfused: 12 element passes over Q and K forward and 10 "
    "backward in place of the fused kernel's 2 and 2") {
  const Scenario rope = rotary_job("");
  const Scenario yarn = rotary_job(R"(, "yarn_rotary_scaling_factor": 32)");
  const detail::LayerCost fused = test::flash_dense_layer(rope);
  const detail::LayerCost unfused = test::flash_dense_layer(yarn);
  const GpuSpec& gpu = rope.cluster.pools.front().gpu;
  // Q and K: 4096 tokens x (8 + 2) heads x 128, 2 bytes each.
  const double qk_bytes = 2.0 * 4096 * (8 + 2) * 128;
  const double pass_s = detail::memory_bound_s(gpu, qk_bytes);
  // The extra passes run as several kernels of one to three passes, each at its own size's
  // efficiency.
  const double extra_forward_s = unfused.forward.compute_s - fused.forward.compute_s;
  const double extra_backward_s = unfused.backward.compute_s - fused.backward.compute_s;
  // The cosine and sine tables, for Q and for K: torch.cos / torch.sin and * mscale over the
  // [4096, 128] fp32 frequencies (read and write 4 bytes) and .to(bf16) (read 4, write 2).
  const double table = 4096.0 * 128;
  const double tables_s =
      2 * 2 * (2 * detail::memory_bound_s(gpu, 8 * table) + detail::memory_bound_s(gpu, 6 * table));
  // In passes (dimensionless: doctest's Approx would take any few microseconds as equal).
  CHECK((extra_forward_s - tables_s) / pass_s == doctest::Approx(10).epsilon(0.15));
  CHECK(extra_backward_s / pass_s == doctest::Approx(8).epsilon(0.15));
  CHECK(extra_forward_s > extra_backward_s);
  // Nothing else in the layer changes: the same FLOPs and the same kept activations.
  CHECK(unfused.forward_flops == fused.forward_flops);
  CHECK(unfused.activation_bytes == fused.activation_bytes);
}

TEST_CASE("YaRN's unfused rotary embedding issues 22 more PyTorch ops in the attention") {
  const Strategy strategy;
  const double plain =
      detail::host_ops(detail::HostRegion::attention, rotary_job("").model, strategy).torch_ops;
  const double yarn =
      detail::host_ops(detail::HostRegion::attention,
                       rotary_job(R"(, "yarn_rotary_scaling_factor": 32)").model, strategy)
          .torch_ops;
  CHECK(yarn == plain + 2 * (12 - 1));
}

TEST_CASE("yarn_rotary_scaling_factor: at least 1, only with rotary positions and no MLA") {
  const auto error = [](const std::string& fields) { return model_error("gelu", fields); };
  CHECK(error(R"(, "position_embedding_type": "rope", "yarn_rotary_scaling_factor": 32)") == "");
  CHECK(error(R"(, "position_embedding_type": "rope", "yarn_rotary_scaling_factor": 0.5)")
            .find("model.yarn_rotary_scaling_factor: expected a number from 1") == 0);
  // gelu defaults to learned absolute positions.
  CHECK(error(R"(, "yarn_rotary_scaling_factor": 32)")
            .find("model.yarn_rotary_scaling_factor: needs rotary positions") == 0);
  CHECK(error(R"(, "position_embedding_type": "rope", "yarn_rotary_scaling_factor": 32,
      "kv_channels": 128, "multi_latent_attention": {"q_lora_rank": 768, "kv_lora_rank": 256,
      "qk_head_dim": 128, "qk_pos_emb_head_dim": 64, "v_head_dim": 128})")
            .find("model.yarn_rotary_scaling_factor: needs rotary positions") == 0);
}

TEST_CASE("YaRN's frequency correction: only with a YaRN factor, each bounded") {
  const auto error = [](const std::string& fields) { return model_error("swiglu", fields); };
  CHECK(error(R"(, "yarn_rotary_scaling_factor": 32, "yarn_original_max_position_embeddings": 4096,
      "yarn_beta_fast": 32, "yarn_beta_slow": 1, "yarn_correction_range_round_to_int": false)") ==
        "");
  CHECK(error(R"(, "yarn_beta_fast": 32)")
            .find("model.yarn_beta_fast: needs yarn_rotary_scaling_factor above 1") == 0);
  CHECK(error(R"(, "yarn_rotary_scaling_factor": 32, "yarn_original_max_position_embeddings": 0)")
            .find("model.yarn_original_max_position_embeddings: expected") == 0);
  CHECK(error(R"(, "yarn_rotary_scaling_factor": 32, "yarn_correction_range_round_to_int": 1)")
            .find("model.yarn_correction_range_round_to_int: expected") == 0);
  const ModelSpec oss = parse_model(nlohmann::json("gpt-oss-120b"), "model");
  CHECK(oss.yarn_original_max_position_embeddings == 4096);
  CHECK(oss.yarn_beta_fast == 32);
  CHECK(oss.yarn_beta_slow == 1);
  CHECK_FALSE(oss.yarn_correction_range_round_to_int);
}
