// How each framework runs its layers (framework_kernels.cpp kFrameworkKernels): Transformer
// Engine's grouped GEMM in waves of four expert GEMMs for Megatron-LM and Megatron-Bridge, one
// grouped kernel over every local expert for torchtitan and MindSpeed-LLM.
#include <doctest/doctest.h>

#include <cmath>

#include "model/framework_rules.hpp"
#include "model/kernels.hpp"
#include "model/layer_cost.hpp"
#include "support.hpp"

using namespace paraplan;

TEST_CASE("the grouped GEMM's concurrency is the framework's") {
  using detail::framework_kernels;
  CHECK(framework_kernels(Framework::megatron).grouped_gemm_concurrency ==
        detail::kGroupedGemmStreams);
  CHECK(framework_kernels(Framework::megatron_bridge).grouped_gemm_concurrency ==
        detail::kGroupedGemmStreams);
  CHECK(std::isinf(framework_kernels(Framework::torchtitan).grouped_gemm_concurrency));
  CHECK(std::isinf(framework_kernels(Framework::mindspeed_llm).grouped_gemm_concurrency));
  CHECK(framework_kernels(Framework::megatron).transformer_engine);
  CHECK_FALSE(framework_kernels(Framework::torchtitan).transformer_engine);
}

TEST_CASE("one grouped kernel over 16 small experts beats TE's waves of four") {
  // 64 experts of 768 columns over EP 4: 16 local experts of small GEMMs on one H100.
  const Scenario sc = test::scenario(R"({"model": {"name": "m", "num_layers": 4,
      "hidden_size": 2048, "ffn_hidden_size": 6144, "num_attention_heads": 16,
      "vocab_size": 32000, "activation": "swiglu",
      "moe": {"num_experts": 64, "top_k": 8, "moe_ffn_hidden_size": 768}},
      "training": {"global_batch_size": 8, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 4}]}})");
  Strategy s;
  s.expert_model_parallel_size = 4;
  s.moe_grouped_gemm = true;
  s.use_flash_attn = true;
  const GpuSpec& gpu = sc.cluster.pools[0].gpu;
  const auto moe = [&](Framework framework) {
    return detail::compute_model_costs(sc.model, sc.training, gpu, 8, s, framework).moe;
  };
  const double te_s = moe(Framework::megatron).forward.compute_s;
  const double single_s = moe(Framework::torchtitan).forward.compute_s;
  CHECK(single_s < te_s);
  // Megatron-Bridge runs Megatron-Core's layers: the same costs as Megatron-LM.
  CHECK(moe(Framework::megatron_bridge).forward.compute_s == te_s);
}
