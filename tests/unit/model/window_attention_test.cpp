// Sliding-window attention (Megatron-LM --window-size, --window-attn-skip-freq): which layers are
// windowed, the fraction of causal (query, key) pairs a window attends, and the fused attention
// kernel's time in windowed layers, against hand-computed values on a GPU with flat curves.
#include <doctest/doctest.h>

#include "model/layer_cost.hpp"
#include "paraplan/estimate.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// Pairs a causal window of `w` keys before each query (and the query) attends, over the causal
// triangle's, by counting.
double counted_fraction(int64_t w, int64_t s) {
  double pairs = 0;
  for (int64_t i = 0; i < s; ++i) pairs += static_cast<double>(std::min(i, w) + 1);
  return pairs / (static_cast<double>(s) * static_cast<double>(s + 1) / 2);
}

// A Llama-like model (h 1024, 8 heads of 128, 2 query groups) with `window` extra model keys, on a
// GPU whose attention kernels run at half the bf16 peak at every size, with no kernel overhead.
// `curves`: the GPU's attention efficiency curves (sizes in GFLOP).
Scenario windowed_job(const std::string& window, int seq = 8192, int layers = 2,
                      const std::string& curves = R"("attention_forward": [[1, 0.5]],
      "attention_backward": [[1, 0.5]])") {
  return test::scenario(R"({"model": {"name": "m", "num_layers": )" + std::to_string(layers) +
                        R"(, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
      "vocab_size": 32000, "activation": "swiglu")" +
                        window + R"(},
      "training": {"global_batch_size": 8, "seq_length": )" +
                        std::to_string(seq) + R"(, "precision": "bf16"},
      "cluster": {"gpus": [{"type": {"base": "h100", "id": "flat", "kernel_overhead_us": 0,
      "efficiency": {)" +
                        curves + R"(}}, "count": 8}]}})");
}

detail::LayerCost layer(const Scenario& s, const Strategy& strategy) {
  return detail::compute_model_costs(s.model, s.training, s.cluster.pools.front().gpu, 8, strategy)
      .dense;
}

const detail::PassTime& core_forward(const detail::LayerCost& l) {
  return l.unit(RecomputeModule::core_attn).forward;
}

}  // namespace

TEST_CASE("a window attends (w + 1)(2s - w) / (s (s + 1)) of the causal pairs") {
  // s = 4, w = 1: queries attend 1, 2, 2, 2 keys, 7 of the causal 10.
  CHECK(window_attention_fraction(1, 4) == doctest::Approx(0.7).epsilon(1e-15));
  // gpt-oss: window_size 127 (a 128-token window) over 4096 tokens.
  CHECK(window_attention_fraction(127, 4096) ==
        doctest::Approx(128.0 * 8065 / (4096.0 * 4097)).epsilon(1e-15));
  for (const int64_t w : {1, 7, 127, 1000, 4094}) {
    CAPTURE(w);
    CHECK(window_attention_fraction(w, 4096) ==
          doctest::Approx(counted_fraction(w, 4096)).epsilon(1e-12));
  }
  // A window as long as the sequence, or none, is full causal attention.
  CHECK(window_attention_fraction(4095, 4096) == 1.0);
  CHECK(window_attention_fraction(100000, 4096) == 1.0);
  CHECK(window_attention_fraction(0, 4096) == 1.0);
}

TEST_CASE("window_attn_skip_freq N: every N-th layer (1-based) keeps full attention") {
  ModelSpec m = windowed_job(R"(, "window_size": 127, "window_attn_skip_freq": 3)", 4096, 7).model;
  const bool expected[] = {true, true, false, true, true, false, true};
  for (int64_t i = 0; i < 7; ++i) {
    CAPTURE(i);
    CHECK(m.is_window_attention_layer(i) == expected[i]);
  }
  CHECK(window_attention_layer_share(m, false) == doctest::Approx(5.0 / 7));
  m.window_attn_skip_freq = 0;  // every layer
  CHECK(window_attention_layer_share(m, false) == 1.0);
  m.window_size = 0;  // no window
  CHECK(!m.is_window_attention_layer(0));
  CHECK(window_attention_layer_share(m, false) == 0.0);
}

TEST_CASE("windowed layers run the fused attention over the window's pairs only") {
  Strategy strategy;
  strategy.use_flash_attn = true;
  const int seq = 8192;
  const double fraction = window_attention_fraction(511, seq);
  const detail::LayerCost full = layer(windowed_job("", seq), strategy);
  const detail::LayerCost every = layer(windowed_job(R"(, "window_size": 511)", seq), strategy);
  const detail::LayerCost half =
      layer(windowed_job(R"(, "window_size": 511, "window_attn_skip_freq": 2)", seq), strategy);
  // Flat efficiency, no overhead: kernel time is proportional to the pairs attended.
  CHECK(core_forward(every).compute_s ==
        doctest::Approx(fraction * core_forward(full).compute_s).epsilon(1e-12));
  const double full_core_backward = full.backward.compute_s - every.backward.compute_s;
  CHECK(full_core_backward > 0);
  // Half the layers windowed: the layer cost is the mean of a full and a windowed layer.
  CHECK(core_forward(half).compute_s ==
        doctest::Approx((1 + fraction) / 2 * core_forward(full).compute_s).epsilon(1e-12));
  CHECK(full.forward.compute_s - half.forward.compute_s ==
        doctest::Approx((full.forward.compute_s - every.forward.compute_s) / 2).epsilon(1e-9));
  CHECK(full.backward.compute_s - half.backward.compute_s ==
        doctest::Approx(full_core_backward / 2).epsilon(1e-9));
  // Flash attention keeps no s x s matrix: memory and model FLOPs are those of full attention.
  CHECK(every.activation_bytes == full.activation_bytes);
  CHECK(every.forward_flops == full.forward_flops);
}

TEST_CASE("a window's kernel runs at the efficiency of the causal call its rows' keys make") {
  // Efficiency rising with size: 0.05 at 1 GFLOP to 0.5 at 10 TFLOP.
  const std::string sloped = R"("attention_forward": [[1, 0.05], [10000, 0.5]],
      "attention_backward": [[1, 0.05], [10000, 0.5]])";
  Strategy strategy;
  strategy.use_flash_attn = true;
  const int seq = 8192;
  const double s = seq;
  // The causal call's FLOPs, from its time at a flat 0.5 without overhead.
  const Scenario flat = windowed_job("", seq);
  const double peak_flops = flat.cluster.pools.front().gpu.tensor_flops(Precision::bf16);
  const double causal_flops = core_forward(layer(flat, strategy)).compute_s * peak_flops * 0.5;
  for (const int64_t w : {127, 1023}) {
    CAPTURE(w);
    const Scenario job = windowed_job(R"(, "window_size": )" + std::to_string(w), seq, 2, sloped);
    const EfficiencyCurve& curve = job.cluster.pools.front().gpu.attention_forward_efficiency;
    const double fraction = window_attention_fraction(w, seq);
    const double executed = fraction * causal_flops;
    // Its rows attend fraction (s + 1) / 2 keys on average, as a causal call over
    // fraction (s + 1) - 1 tokens, whose FLOPs are the window's times that length over s.
    const double tokens = fraction * (s + 1) - 1;
    const double expected_s = executed / (peak_flops * curve.at(executed * tokens / s));
    CHECK(core_forward(layer(job, strategy)).compute_s ==
          doctest::Approx(expected_s).epsilon(1e-12));
    // Slower than at the window's own FLOPs: its tiles' fixed costs are spread over fewer keys.
    CHECK(expected_s > executed / (peak_flops * curve.at(executed)));
  }
  // No window: the causal call at its own size.
  const Scenario full = windowed_job("", seq, 2, sloped);
  const EfficiencyCurve& curve = full.cluster.pools.front().gpu.attention_forward_efficiency;
  CHECK(core_forward(layer(full, strategy)).compute_s ==
        doctest::Approx(causal_flops / (peak_flops * curve.at(causal_flops))).epsilon(1e-12));
}

TEST_CASE("a window with context parallelism shrinks each chunk's kernel alike") {
  Strategy strategy;
  strategy.use_flash_attn = true;
  strategy.context_parallel_size = 2;
  const int seq = 8192;
  const double fraction = window_attention_fraction(511, seq);
  for (const CpCommType type : {CpCommType::a2a, CpCommType::allgather}) {
    strategy.cp_comm_type = type;
    const detail::LayerCost full = layer(windowed_job("", seq), strategy);
    const detail::LayerCost every = layer(windowed_job(R"(, "window_size": 511)", seq), strategy);
    CHECK(core_forward(every).compute_s ==
          doctest::Approx(fraction * core_forward(full).compute_s).epsilon(1e-12));
    // The collectives move K and V whatever the window.
    CHECK(every.forward.cp_comm_s == doctest::Approx(full.forward.cp_comm_s));
  }
}

TEST_CASE("ring context parallelism cannot run a sliding window (Transformer Engine)") {
  const std::string job = R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
      "vocab_size": 32000, "activation": "swiglu", "window_size": 127},
      "training": {"global_batch_size": 8, "seq_length": 8192},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]},
      "strategy": {"use_flash_attn": true, "context_parallel_size": 2, "cp_comm_type": ")";
  const Report ring = estimate(test::scenario(job + R"(p2p"}})"));
  CHECK(!ring.feasible);
  REQUIRE(!ring.infeasible_reasons.empty());
  CHECK(ring.infeasible_reasons.front() ==
        "sliding-window attention (window_size 127) with context_parallel_size 2 needs "
        "cp_comm_type a2a or allgather, not p2p");
  CHECK(estimate(test::scenario(job + R"(a2a"}})")).feasible);
}

TEST_CASE("model FLOPs count full attention in windowed layers, as Megatron-LM does") {
  // megatron/training/training.py num_floating_point_operations reads no window_size.
  const ModelSpec full = windowed_job("", 4096).model;
  const ModelSpec windowed = windowed_job(R"(, "window_size": 127)", 4096).model;
  CHECK(model_flops_per_token(windowed, 4096) == model_flops_per_token(full, 4096));
  CHECK(model_flops_per_token_causal(windowed, 4096) == model_flops_per_token_causal(full, 4096));
}
