// fp8 dot-product attention (fp8_dot_product_attention): where Transformer Engine runs cuDNN's
// fp8 attention, its kernels at the cuDNN benchmark's speed over 16 bits, the casts around
// them and the fp8 tensors it keeps, against hand-computed values on GPUs with flat curves.
#include "model/fp8_attention.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "model/layer_cost.hpp"
#include "paraplan/estimate.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// A Llama-like layer (h 1024, 8 heads of 128, 2 query groups, `window` extra model keys) in fp8
// on a `base` GPU whose attention kernels run at half the bf16 peak at every size, with no
// kernel overhead.
Scenario fp8_job(const std::string& base, const std::string& window = "", int seq = 4096) {
  return test::scenario(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
      "vocab_size": 32000, "activation": "swiglu")" +
                        window + R"(},
      "training": {"global_batch_size": 8, "seq_length": )" +
                        std::to_string(seq) + R"(, "precision": "fp8"},
      "cluster": {"gpus": [{"type": {"base": ")" +
                        base + R"(", "id": "flat", "kernel_overhead_us": 0,
      "efficiency": {"attention_forward": [[1, 0.5]], "attention_backward": [[1, 0.5]]}},
      "count": 8}]}})");
}

Strategy fused(const Scenario& scenario, Fp8Recipe recipe, bool fp8_attention) {
  Strategy s = complete_strategy(scenario);
  s.use_flash_attn = true;
  s.fp8_recipe = recipe;
  s.fp8_dot_product_attention = fp8_attention;
  return s;
}

detail::LayerCost layer(const Scenario& s, const Strategy& strategy) {
  return detail::compute_model_costs(s.model, s.training, s.cluster.pools.front().gpu, 8, strategy)
      .dense;
}

const detail::PassTime& core_forward(const detail::LayerCost& l) {
  return l.unit(RecomputeModule::core_attn).forward;
}

std::string problem(const Scenario& scenario, const Strategy& s) {
  return detail::fp8_attention_problem(
      {scenario.model, scenario.training, scenario.cluster, 8, Framework::megatron}, s);
}

}  // namespace

TEST_CASE("fp8 attention runs where Transformer Engine gives it to cuDNN, and names why not") {
  const Scenario gb200 = fp8_job("gb200"), h100 = fp8_job("h100");
  CHECK(problem(h100, fused(h100, Fp8Recipe::delayed, true)).empty());
  for (const Fp8Recipe recipe : {Fp8Recipe::delayed, Fp8Recipe::tensorwise, Fp8Recipe::mxfp8}) {
    CHECK(problem(gb200, fused(gb200, recipe, true)).empty());
  }
  CHECK(problem(h100, fused(h100, Fp8Recipe::mxfp8, true)) ==
        "fp8_dot_product_attention with fp8_recipe mxfp8 needs compute capability 10.0 or later "
        "on flat (compute capability 9)");
  CHECK(problem(gb200, fused(gb200, Fp8Recipe::blockwise, true)) ==
        "fp8_dot_product_attention has no blockwise fp8_recipe");
  Strategy flash = fused(gb200, Fp8Recipe::mxfp8, true);
  flash.attention_backend = AttentionBackend::flash;
  CHECK(problem(gb200, flash).find("needs cuDNN's fused attention") != std::string::npos);
  // Head dims: Hopper trains 128 only; Blackwell up to 192 / 128 (multi-latent attention).
  Scenario wide = fp8_job("gb200", R"(, "kv_channels": 256)");
  CHECK(problem(wide, fused(wide, Fp8Recipe::mxfp8, true)) ==
        "fp8_dot_product_attention: cuDNN's fp8 attention does not train head dims 256 / 256 on "
        "flat (compute capability 10)");
  Scenario narrow = fp8_job("h100", R"(, "kv_channels": 64)");
  CHECK_FALSE(problem(narrow, fused(narrow, Fp8Recipe::delayed, true)).empty());
  narrow = fp8_job("gb200", R"(, "kv_channels": 64)");
  CHECK(problem(narrow, fused(narrow, Fp8Recipe::mxfp8, true)).empty());
  // Off, nothing to check.
  CHECK(problem(h100, fused(h100, Fp8Recipe::blockwise, false)).empty());
}

TEST_CASE("fp8 attention's kernels run at cuDNN's measured speed over bf16's") {
  const Scenario gb200_job = fp8_job("gb200"), h100_job = fp8_job("h100");
  const GpuSpec& gb200 = gb200_job.cluster.pools.front().gpu;
  const GpuSpec& h100 = h100_job.cluster.pools.front().gpu;
  const auto speedup = [](const GpuSpec& gpu, Fp8Recipe recipe, double tokens, bool backward) {
    return detail::fp8_attention_speedup(gpu, recipe, {128, 128, tokens, false, backward});
  };
  // NVIDIA's benchmark, Llama 3.1 on GB200 at 4,096 tokens: MXFP8 1.20 forward, 0.92 backward.
  CHECK(speedup(gb200, Fp8Recipe::mxfp8, 4096, false) == doctest::Approx(1.20));
  CHECK(speedup(gb200, Fp8Recipe::mxfp8, 4096, true) == doctest::Approx(0.92));
  CHECK(speedup(gb200, Fp8Recipe::delayed, 4096, true) == doctest::Approx(1.03));
  // Halfway (in log2) between 4,096 and 8,192; clamped past the measured lengths.
  CHECK(speedup(gb200, Fp8Recipe::tensorwise, 4096 * std::sqrt(2.0), true) ==
        doctest::Approx((1.03 + 1.09) / 2));
  CHECK(speedup(gb200, Fp8Recipe::mxfp8, 1 << 20, true) == doctest::Approx(1.16));
  // H200's causal fp8 backward falls behind bf16's at long sequences.
  CHECK(speedup(h100, Fp8Recipe::delayed, 16384, true) == doctest::Approx(0.65));
  // Multi-latent attention's 192 / 128 has its own row; a window's forward its own.
  CHECK(detail::fp8_attention_speedup(gb200, Fp8Recipe::mxfp8, {192, 128, 4096, false, true}) ==
        doctest::Approx(1.29));
  CHECK(detail::fp8_attention_speedup(gb200, Fp8Recipe::mxfp8, {64, 64, 4096, true, false}) ==
        doctest::Approx(1.00));
}

TEST_CASE("fp8 attention prices its kernels, its window backward and its casts as they run") {
  const Scenario job = fp8_job("gb200");
  const detail::LayerCost off = layer(job, fused(job, Fp8Recipe::mxfp8, false));
  const detail::LayerCost on = layer(job, fused(job, Fp8Recipe::mxfp8, true));
  // The core attention's forward at 1 / 1.20 of the bf16 kernel's time.
  REQUIRE(core_forward(on).compute_s > 0);
  CHECK(core_forward(off).compute_s / core_forward(on).compute_s == doctest::Approx(1.20));
  // A 128-token window: bf16's backward shrinks with the window, fp8's does not (it runs every
  // causal tile), so the windowed layer's fp8 backward is slower than its bf16 one.
  const Scenario windowed = fp8_job("gb200", R"(, "window_size": 127)");
  const double windowed_off =
      layer(windowed, fused(windowed, Fp8Recipe::mxfp8, false)).backward.compute_s;
  const double windowed_on =
      layer(windowed, fused(windowed, Fp8Recipe::mxfp8, true)).backward.compute_s;
  CHECK(windowed_on > windowed_off);
  // Its backward is the causal layer's fp8 backward: the same kernel over every causal tile.
  CHECK(windowed_on / on.backward.compute_s == doctest::Approx(1).epsilon(1e-9));
  // Delayed scaling on an H100: Q, K, V and O kept in fp8 (one byte, not two), and the casts cost
  // time in both passes.
  const Scenario h100 = fp8_job("h100");
  const detail::LayerCost kept16 = layer(h100, fused(h100, Fp8Recipe::delayed, false));
  const detail::LayerCost kept8 = layer(h100, fused(h100, Fp8Recipe::delayed, true));
  const double tokens = 4096, qkv = tokens * (8 + 2 * 2) * 128, out = tokens * 8 * 128;
  CHECK(kept16.activation_bytes - kept8.activation_bytes == doctest::Approx(qkv + out));
  CHECK(kept8.forward.compute_s - core_forward(kept8).compute_s >
        kept16.forward.compute_s - core_forward(kept16).compute_s);
}
