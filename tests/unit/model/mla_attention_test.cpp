// Multi-latent attention's own kernels (attention_cost.cpp): the fused rotary embedding after
// the up-projections, which --recompute-modules mla_up_proj runs again, and cuDNN's
// multi-latent kernels on Blackwell (kernels.hpp kBlackwellLatentHeadDims).
#include <doctest/doctest.h>

#include "model/kernels.hpp"
#include "model/layer_cost.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// 1024 hidden, 8 heads: query/key 128 + 64 rotary, value 128; latent ranks 384 (Q), 256 (KV);
// sequence 2048, micro-batch 1, one GPU whose HBM moves 1000 GB/s at every size and whose kernels
// have no fixed overhead (`base` otherwise).
Scenario mla_job(const std::string& base) {
  return test::scenario(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "vocab_size": 32000,
      "activation": "swiglu", "kv_channels": 128, "multi_latent_attention": {"q_lora_rank": 384,
      "kv_lora_rank": 256, "qk_head_dim": 128, "qk_pos_emb_head_dim": 64, "v_head_dim": 128}},
      "training": {"global_batch_size": 8, "seq_length": 2048, "precision": "bf16"},
      "cluster": {"gpus": [{"type": {"base": ")" +
                        base + R"(", "id": "flat", "hbm_gb_per_s": 1000, "kernel_overhead_us": 0,
      "efficiency": {"memory": [[1, 1.0]]}}, "count": 8}]}})");
}

detail::LayerCost mla_layer(const Scenario& s) {
  Strategy strategy;
  strategy.use_flash_attn = true;
  return detail::compute_model_costs(s.model, s.training, s.cluster.pools.front().gpu, 8, strategy)
      .dense;
}

}  // namespace

TEST_CASE(
    "mla_up_proj recomputes the up-projections and Megatron-Core's fused MLA rotary kernels: the "
    "query's positional part in place, the key and value split out of the key-value output") {
  const Scenario s = mla_job("h100");
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  const detail::LayerCost layer = mla_layer(s);
  const detail::Kernels kernels(gpu, Precision::bf16);
  const double tokens = 2048, heads = 8;
  const double up_projections_s = kernels.gemm_s({tokens, heads * (128 + 64), 384}) +
                                  kernels.gemm_s({tokens, heads * (128 + 128), 256});
  // Per token and head, 16-bit: the query's 64 rotary values read and written; the key and value
  // parts read (128 + 128), the key (128 + 64) and the value (128) written; and the shared
  // rotary key (64 per token) read.
  const double rotary_bytes = 2 * tokens * (heads * (2 * 64 + 256 + 320) + 64);
  const double bandwidth = 1e12;
  const detail::RecomputeUnit& unit = layer.unit(RecomputeModule::mla_up_proj);
  CHECK(unit.forward.compute_s - up_projections_s ==
        doctest::Approx(rotary_bytes / bandwidth).epsilon(1e-9));
  // Q, K and V are what it does not keep.
  CHECK(unit.saved_bytes == 2 * tokens * heads * (192 + 192 + 128));
}

TEST_CASE(
    "cuDNN's multi-latent attention on Blackwell: NVIDIA's DeepSeek-V3 benchmark, 0.90 / 0.83") {
  using detail::AttentionKernels;
  using detail::head_dim_efficiency;
  CHECK(head_dim_efficiency(192, 128, false, AttentionKernels::cudnn_blackwell) ==
        doctest::Approx(0.90));
  CHECK(head_dim_efficiency(192, 128, true, AttentionKernels::cudnn_blackwell) ==
        doctest::Approx(0.83));
  // Hopper keeps the lent H100's measurement.
  CHECK(head_dim_efficiency(192, 128, false) == 1.0);
  CHECK(head_dim_efficiency(192, 128, true) == doctest::Approx(0.865));
  // A B200 runs the layer's causal core attention (8 heads, 2048 tokens, 192 + 128) at 0.90 of
  // its forward curve.
  const Scenario s = mla_job("b200");
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  const double executed = 0.5 * 2 * 8 * 2048.0 * 2048 * (192 + 128);
  const double expected_s = executed / (gpu.tensor_flops(Precision::bf16) *
                                        gpu.attention_forward_efficiency.at(executed) * 0.90);
  CHECK(mla_layer(s).unit(RecomputeModule::core_attn).forward.compute_s ==
        doctest::Approx(expected_s).epsilon(1e-12));
}
