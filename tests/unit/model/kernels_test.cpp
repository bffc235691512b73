// Kernel timings: fp8 quantisation per recipe (Transformer Engine's quantizers) and fused
// attention under context parallelism, against hand-computed values on a GPU with flat curves.
#include "model/kernels.hpp"

#include <doctest/doctest.h>

#include "model/collectives.hpp"
#include "model/layer_cost.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// Llama-like layer (h 1024, 8 heads of 128, 2 query groups, SwiGLU 4096) on one GPU whose HBM
// moves 1e12 B/s at every size, with no kernel overhead.
Scenario flat_job(const std::string& precision, int seq = 2048) {
  return test::scenario(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
      "vocab_size": 32000, "activation": "swiglu"},
      "training": {"global_batch_size": 8, "seq_length": )" +
                        std::to_string(seq) + R"(, "precision": ")" + precision +
                        R"("}, "cluster": {"gpus": [{"type": {"base": "h100", "id": "flat",
      "hbm_gb_per_s": 1000, "kernel_overhead_us": 0,
      "efficiency": {"memory": [[1, 1.0]], "attention_forward": [[1, 0.25], [1000, 0.5]]}},
      "count": 8}]}})");
}

detail::LayerCost layer(const Scenario& s, const Strategy& strategy) {
  return detail::compute_model_costs(s.model, s.training, s.cluster.pools.front().gpu, 8, strategy)
      .dense;
}

// flat_job's layer with 8 heads of 64 on a `base` GPU whose forward attention curve is given.
Scenario head_dim_64_job(const std::string& base) {
  return test::scenario(R"({"model": {"name": "m", "num_layers": 2,
      "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 8,
      "num_query_groups": 2, "kv_channels": 64, "vocab_size": 32000, "activation": "swiglu"},
      "training": {"global_batch_size": 8, "seq_length": 2048},
      "cluster": {"gpus": [{"type": {"base": ")" +
                        base + R"(", "id": "flat", "kernel_overhead_us": 0,
      "efficiency": {"attention_forward": [[1, 0.25], [1000, 0.5]]}}, "count": 8}]}})");
}

// Its core attention's forward with flash attention (cuDNN's fused kernel).
double head_dim_64_core_attention_s(const Scenario& s) {
  Strategy strategy;
  strategy.use_flash_attn = true;
  return layer(s, strategy).unit(RecomputeModule::core_attn).forward.compute_s;
}

// The causal FLOPs it executes at the curve's efficiency times `head_dim_factor`.
double head_dim_64_expected_s(const Scenario& s, double head_dim_factor) {
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  const double executed = 0.5 * 4.0 * 8 * 2048 * 2048 * 64;
  return executed / (gpu.tensor_flops(Precision::bf16) *
                     gpu.attention_forward_efficiency.at(executed) * head_dim_factor);
}

}  // namespace

TEST_CASE(
    "fp8 quantisation: each GEMM input once per pass, bytes by Transformer Engine recipe; outside "
    "delayed scaling linear_proj's kept 16-bit input again for its weight gradient") {
  const Scenario s = flat_job("fp8");
  Strategy strategy;
  const auto with = [&](Fp8Recipe recipe) {
    strategy.fp8_recipe = recipe;
    return layer(s, strategy);
  };
  const detail::LayerCost delayed = with(Fp8Recipe::delayed);
  const detail::LayerCost tensorwise = with(Fp8Recipe::tensorwise);
  const detail::LayerCost mxfp8 = with(Fp8Recipe::mxfp8);
  const detail::LayerCost blockwise = with(Fp8Recipe::blockwise);
  // Forward: the inputs of QKV (h), the output projection (heads x d), FC1 (h) and FC2 (ffn),
  // 2048 tokens each. Backward: the output gradients of QKV ((8 + 2 x 2) x 128), the output
  // projection (h), FC1 (2 x ffn) and FC2 (h).
  const double tokens = 2048;
  const double forward = tokens * (1024 + 1024 + 1024 + 4096);
  const double backward = tokens * (12 * 128 + 1024 + 2 * 4096 + 1024);
  const double bandwidth = 1e12;
  // Outside delayed scaling the output projection keeps its 16-bit input (heads x d) and
  // quantises it row-wise forward, column-wise again for its weight gradient (Megatron-Core's
  // attention.py set_save_original_input, Megatron-LM 781e765818; Transformer Engine linear.py):
  // one more read of it, amax included.
  const double projection_input = tokens * 1024;
  // Current scaling reads each input once more for its amax (quantizer.cpp,
  // Float8CurrentScalingQuantizer::quantize_impl: nvte_compute_amax, then nvte_quantize_v2).
  CHECK(tensorwise.forward.compute_s - delayed.forward.compute_s ==
        doctest::Approx(2 * forward / bandwidth).epsilon(1e-9));
  CHECK(tensorwise.backward.compute_s - delayed.backward.compute_s ==
        doctest::Approx((2 * backward + 4 * projection_input) / bandwidth).epsilon(1e-9));
  // MXFP8 writes a scale byte per 32 elements in each of its two directions; blockwise an fp32
  // scale per 128.
  CHECK(mxfp8.forward.compute_s - delayed.forward.compute_s ==
        doctest::Approx(2.0 / 32 * forward / bandwidth).epsilon(1e-9));
  CHECK(blockwise.backward.compute_s - delayed.backward.compute_s ==
        doctest::Approx((8.0 / 128 * backward + 2 * projection_input) / bandwidth).epsilon(1e-9));
}

TEST_CASE(
    "fp8 outside delayed scaling: the output projection keeps the attention's 16-bit output, "
    "not an fp8 copy of it") {
  const Scenario s = flat_job("fp8");
  Strategy strategy;
  strategy.use_flash_attn = true;
  const auto with = [&](Fp8Recipe recipe) {
    strategy.fp8_recipe = recipe;
    return layer(s, strategy);
  };
  const detail::LayerCost delayed = with(Fp8Recipe::delayed);
  const detail::LayerCost tensorwise = with(Fp8Recipe::tensorwise);
  // Delayed scaling: the fused attention keeps its output O (16 bits) and the projection an fp8
  // copy of it. Otherwise the projection keeps O itself (Megatron-LM attention.py
  // set_save_original_input): one byte an element less in all, and O is the projection's, so
  // recomputing the core attention no longer frees it.
  const double output_elements = 2048.0 * 1024;
  CHECK(tensorwise.activation_bytes - delayed.activation_bytes ==
        doctest::Approx(-output_elements).epsilon(1e-9));
  CHECK(delayed.unit(RecomputeModule::core_attn).saved_bytes -
            tensorwise.unit(RecomputeModule::core_attn).saved_bytes ==
        doctest::Approx(2 * output_elements).epsilon(1e-9));
}

TEST_CASE(
    "in fp8 a sequence-parallel layer gathers its GEMM inputs quantised, and reduce-scatters its "
    "GEMM outputs in 16 bits") {
  // Transformer Engine linear.py / layernorm_linear.py: gather_along_first_dim(..., quantizer=...)
  // of the input quantised locally.
  const auto forward_comm_s = [](const std::string& precision, Fp8Recipe recipe) {
    const Scenario s = flat_job(precision);
    Strategy strategy;
    strategy.tensor_model_parallel_size = 8;
    strategy.sequence_parallel = true;
    strategy.fp8_recipe = recipe;
    return layer(s, strategy).forward.tp_comm_s;
  };
  const Scenario s = flat_job("bf16");
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  const detail::Group tp = detail::place_group(8, 1, 8);
  const double hidden = 2048.0 * 1024;  // tokens x h
  // Forward: the attention's and the MLP's input gathered, their outputs reduce-scattered.
  const auto expected = [&](double gathered_bytes) {
    return 2 * (detail::all_gather_s(gpu, tp, gathered_bytes * hidden) +
                detail::reduce_scatter_s(gpu, tp, 2 * hidden));
  };
  CHECK(forward_comm_s("bf16", Fp8Recipe::delayed) == doctest::Approx(expected(2)));
  CHECK(forward_comm_s("fp8", Fp8Recipe::delayed) == doctest::Approx(expected(1)));
  // MXFP8: a scale byte per 32 elements with the data.
  CHECK(forward_comm_s("fp8", Fp8Recipe::mxfp8) == doctest::Approx(expected(1 + 1.0 / 32)));
}

TEST_CASE(
    "fp8 current scaling with sequence parallelism reduces each gathered input's amax over the "
    "tensor-parallel group first") {
  // Transformer Engine linear.py / layernorm_linear.py: with_amax_reduction on a column-parallel
  // module's input quantizer and a row-parallel module's output-gradient quantizer under
  // sequence parallelism; quantizer.cpp: one fp32 all-reduce between the amax and the cast.
  const Scenario s = flat_job("fp8");
  Strategy strategy;
  strategy.tensor_model_parallel_size = 8;
  const auto comm_s = [&](Fp8Recipe recipe, bool sequence_parallel) {
    strategy.fp8_recipe = recipe;
    strategy.sequence_parallel = sequence_parallel;
    return layer(s, strategy);
  };
  const auto forward_comm_s = [&](Fp8Recipe recipe, bool sequence_parallel) {
    return comm_s(recipe, sequence_parallel).forward.tp_comm_s;
  };
  const double amax_s = detail::scalar_all_reduce_s(detail::place_group(8, 1, 8));
  // Forward: the inputs of QKV and FC1, the two column-parallel modules; backward: the output
  // gradients of the output projection and FC2, the two row-parallel ones (less the little the
  // recipes' different GEMM times change the other collectives' exposure).
  CHECK(forward_comm_s(Fp8Recipe::tensorwise, true) - forward_comm_s(Fp8Recipe::delayed, true) ==
        doctest::Approx(2 * amax_s).epsilon(1e-9));
  CHECK(comm_s(Fp8Recipe::tensorwise, true).backward.tp_comm_s -
            comm_s(Fp8Recipe::delayed, true).backward.tp_comm_s >
        1.5 * amax_s);
  // Without sequence parallelism the inputs are not gathered, nor their amax reduced.
  CHECK(forward_comm_s(Fp8Recipe::tensorwise, false) == forward_comm_s(Fp8Recipe::delayed, false));
}

TEST_CASE("fp8 current scaling launches four kernels per quantisation, delayed scaling one") {
  // TE 2.9 Float8CurrentScalingQuantizer::quantize_impl: zero_amax_kernel and amax_kernel
  // (nvte_compute_amax), nvte_compute_scale_from_amax, nvte_quantize_v2.
  const auto job = [](const std::string& overhead_us) {
    return test::scenario(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
        "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
        "vocab_size": 32000, "activation": "swiglu"},
        "training": {"global_batch_size": 8, "seq_length": 2048, "precision": "fp8"},
        "cluster": {"gpus": [{"type": {"base": "h100", "id": "flat", "hbm_gb_per_s": 1000,
        "kernel_overhead_us": )" +
                          overhead_us + R"(, "efficiency": {"memory": [[1, 1.0]]}},
        "count": 8}]}})");
  };
  Strategy strategy;
  const auto extra_s = [&](const Scenario& s, bool backward) {
    const auto pass_s = [&](Fp8Recipe recipe) {
      strategy.fp8_recipe = recipe;
      const detail::LayerCost cost = layer(s, strategy);
      return backward ? cost.backward.compute_s : cost.forward.compute_s;
    };
    return pass_s(Fp8Recipe::tensorwise) - pass_s(Fp8Recipe::delayed);
  };
  // Four GEMM inputs quantised in the forward (QKV, output projection, FC1, FC2), three more
  // kernels each.
  CHECK(extra_s(job("10"), false) - extra_s(job("0"), false) ==
        doctest::Approx(4 * 3 * 10e-6).epsilon(1e-6));
  // Backward: three more per quantised output gradient (QKV, the output projection, FC1, FC2),
  // and the output projection's kept 16-bit input quantised again for its weight gradient
  // (set_save_original_input): four.
  CHECK(extra_s(job("10"), true) - extra_s(job("0"), true) ==
        doctest::Approx((4 * 3 + 4) * 10e-6).epsilon(1e-6));
}

TEST_CASE(
    "bias gradients: fused where Transformer Engine adds the bias, summed where Megatron does") {
  const auto job = [](bool biases) {
    return test::scenario(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
        "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
        "vocab_size": 32000, "activation": "swiglu", "add_bias_linear": )" +
                          std::string(biases ? "true" : "false") + R"(},
        "training": {"global_batch_size": 8, "seq_length": 2048, "precision": "bf16"},
        "cluster": {"gpus": [{"type": {"base": "h100", "id": "flat", "hbm_gb_per_s": 1000,
        "kernel_overhead_us": 0, "efficiency": {"memory": [[1, 1.0]]}}, "count": 8}]}})");
  };
  const Strategy strategy;
  const double extra_s = layer(job(true), strategy).backward.compute_s -
                         layer(job(false), strategy).backward.compute_s;
  // linear_proj (h), linear_fc1 (2 x ffn, bias-SwiGLU) and linear_fc2 (h) leave their biases to
  // Megatron-LM (skip_bias_add): autograd reads their 16-bit output gradients once more. QKV's
  // bias gradient comes out of its weight-gradient GEMM.
  const double tokens = 2048;
  CHECK(extra_s == doctest::Approx(2 * tokens * (1024 + 2 * 4096 + 1024) / 1e12).epsilon(1e-9));
}

TEST_CASE("context parallel attention: one kernel per ring step, at that step's efficiency") {
  Strategy strategy;
  strategy.use_flash_attn = true;
  const Scenario s = flat_job("bf16", 8192);
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  for (const int64_t cp : {1, 2, 4, 8}) {
    CAPTURE(cp);
    strategy.context_parallel_size = cp;
    const detail::LayerCost l = layer(s, strategy);
    // Causal half of 4 b heads (s / cp) s d.
    const double executed = 0.5 * 4.0 * 8 * (8192.0 / cp) * 8192 * 128;
    const double kernels_s =
        executed / (gpu.tensor_flops(Precision::bf16) *
                    gpu.attention_forward_efficiency.at(executed / static_cast<double>(cp)));
    // Transformer Engine's ring merges each step's output into the running one: 4.5 bytes per
    // element of this GPU's output (8 heads of 128 over s / cp tokens) per ring step, at 1e12 B/s.
    const double output_elements = 8.0 * 128 * (8192.0 / cp);
    const double merges_s = cp > 1 ? cp * 4.5 * output_elements / 1e12 : 0;
    CHECK(l.unit(RecomputeModule::core_attn).forward.compute_s ==
          doctest::Approx(kernels_s + merges_s).epsilon(1e-12));
  }
  // The same work split into more, smaller launches runs at a lower efficiency: per FLOP,
  // cp = 8 is slower than cp = 1.
  strategy.context_parallel_size = 1;
  const double whole = layer(s, strategy).unit(RecomputeModule::core_attn).forward.compute_s;
  strategy.context_parallel_size = 8;
  CHECK(layer(s, strategy).unit(RecomputeModule::core_attn).forward.compute_s * 8 > whole * 1.2);
}

TEST_CASE("attention_backend flash: FlashAttention-2's curves where the preset has them") {
  Strategy strategy;
  strategy.use_flash_attn = true;
  const auto forward_s = [&](const Scenario& s, AttentionBackend backend) {
    strategy.attention_backend = backend;
    return layer(s, strategy).unit(RecomputeModule::core_attn).forward.compute_s;
  };
  // h100 (the flat GPU's base) has them: FlashAttention-2 measured on a lent H100, below cuDNN.
  const Scenario s = flat_job("bf16", 8192);
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  REQUIRE_FALSE(gpu.attention_forward_flash_efficiency.points().empty());
  const double executed = 0.5 * 4.0 * 8 * 8192.0 * 8192 * 128;
  // Keyed by the keys a query row attends: a causal call over 8192 tokens, 4096 on average.
  const double flash_efficiency = gpu.attention_forward_flash_efficiency.at(8192 / 2);
  CHECK(flash_efficiency < gpu.attention_forward_efficiency.at(executed));
  CHECK(forward_s(s, AttentionBackend::flash) ==
        doctest::Approx(executed / (gpu.tensor_flops(Precision::bf16) * flash_efficiency))
            .epsilon(1e-12));
  // auto and fused are cuDNN's kernels, priced alike.
  CHECK(forward_s(s, AttentionBackend::fused) == forward_s(s, AttentionBackend::automatic));
  CHECK(forward_s(s, AttentionBackend::flash) > forward_s(s, AttentionBackend::automatic));
  // Never faster than the fused curve: a fused curve below the flash one bounds it.
  const Scenario slow = test::scenario(R"({"model": {"name": "m", "num_layers": 2,
      "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 8,
      "num_query_groups": 2, "vocab_size": 32000, "activation": "swiglu"},
      "training": {"global_batch_size": 8, "seq_length": 8192, "precision": "bf16"},
      "cluster": {"gpus": [{"type": {"base": "h100", "id": "slow", "kernel_overhead_us": 0,
      "efficiency": {"attention_forward": [[1, 0.1]]}}, "count": 8}]}})");
  CHECK(forward_s(slow, AttentionBackend::flash) ==
        doctest::Approx(forward_s(slow, AttentionBackend::automatic)).epsilon(1e-12));
  // A preset without them (a100: its curve is FlashAttention-2's already) prices flash as fused.
  const Scenario a100 = test::scenario(R"({"model": {"name": "m", "num_layers": 2,
      "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 8,
      "num_query_groups": 2, "vocab_size": 32000, "activation": "swiglu"},
      "training": {"global_batch_size": 8, "seq_length": 8192, "precision": "bf16"},
      "cluster": {"gpus": [{"type": "a100", "count": 8}]}})");
  REQUIRE(a100.cluster.pools.front().gpu.attention_forward_flash_efficiency.points().empty());
  CHECK(forward_s(a100, AttentionBackend::flash) == forward_s(a100, AttentionBackend::automatic));
}

TEST_CASE("FlashAttention-2 priced by the keys its query rows attend, not by the call's FLOPs") {
  Strategy strategy;
  strategy.use_flash_attn = true;
  strategy.attention_backend = AttentionBackend::flash;
  const auto forward_s = [&](const Scenario& s) {
    return layer(s, strategy).unit(RecomputeModule::core_attn).forward.compute_s;
  };
  // A fused curve far above the flash one, so the flash curve alone sets the time.
  const auto job = [](int seq) {
    return test::scenario(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": 1024,
        "ffn_hidden_size": 4096, "num_attention_heads": 8, "num_query_groups": 2,
        "vocab_size": 32000, "activation": "swiglu"}, "training": {"global_batch_size": 64,
        "seq_length": )" + std::to_string(seq) +
                          R"(, "precision": "bf16"}, "cluster": {"gpus": [{"type": {"base":
        "h100", "id": "fast_fused", "hbm_gb_per_s": 1000, "kernel_overhead_us": 0,
        "efficiency": {"memory": [[1, 1.0]], "attention_forward": [[1, 1.0]],
        "attention_backward": [[1, 1.0]]}}, "count": 8}]}})");
  };
  // Equal FLOPs per call: micro-batch 4 at 2,048 tokens, micro-batch 1 at 4,096.
  const Scenario short_rows = job(2048), long_rows = job(4096);
  const GpuSpec& gpu = short_rows.cluster.pools.front().gpu;
  const double peak = gpu.tensor_flops(Precision::bf16);
  strategy.micro_batch_size = 4;
  const double short_s = forward_s(short_rows);
  strategy.micro_batch_size = 1;
  const double long_s = forward_s(long_rows);
  const double executed = 0.5 * 4.0 * 8 * 4096.0 * 4096 * 128;
  CHECK(short_s ==
        doctest::Approx(executed / (peak * gpu.attention_forward_flash_efficiency.at(1024)))
            .epsilon(1e-12));
  CHECK(long_s ==
        doctest::Approx(executed / (peak * gpu.attention_forward_flash_efficiency.at(2048)))
            .epsilon(1e-12));
  CHECK(long_s < short_s);

  // A ring of 4 (cp_comm_type p2p): this GPU's 1,024 tokens in two chunks of 512; the causal
  // diagonal step and the 3/2 steps under it attend 512 keys a row (5/8 of the work), the 3/2
  // above it 1,024 (3/8). Backward alike. Plus the ring's merges, 4.5 bytes per output element
  // (8 heads of 128 over 1,024 tokens) per step at 1e12 B/s.
  strategy.context_parallel_size = 4;
  strategy.cp_comm_type = CpCommType::p2p;
  const detail::LayerCost ring = layer(long_rows, strategy);
  const double ring_executed = executed / 4;
  const double merges_s = 4 * 4.5 * 8.0 * 128 * 1024 / 1e12;
  const double ring_kernels_s = ring.unit(RecomputeModule::core_attn).forward.compute_s - merges_s;
  CHECK(ring_kernels_s ==
        doctest::Approx(ring_executed / peak *
                        (5.0 / 8 / gpu.attention_forward_flash_efficiency.at(512) +
                         3.0 / 8 / gpu.attention_forward_flash_efficiency.at(1024)))
            .epsilon(1e-9));
  CHECK(ring_kernels_s < ring_executed / (peak * gpu.attention_forward_flash_efficiency.at(512)));
}

TEST_CASE(
    "attention_backend auto on Blackwell: FlashAttention-2 where cuDNN does not train the "
    "head dims") {
  // 8 heads over hidden 1024 (head dim 128) or 1536 (192, Nemotron-4's), on `gpu`.
  const auto job = [](const std::string& gpu, int hidden) {
    return test::scenario(R"({"model": {"name": "m", "num_layers": 2, "hidden_size": )" +
                          std::to_string(hidden) + R"(, "ffn_hidden_size": 4096,
        "num_attention_heads": 8, "num_query_groups": 2, "vocab_size": 32000,
        "activation": "swiglu"}, "training": {"global_batch_size": 8, "seq_length": 4096,
        "precision": "bf16"}, "cluster": {"gpus": [{"type": ")" +
                          gpu + R"(", "count": 8}]}})");
  };
  Strategy strategy;
  strategy.use_flash_attn = true;
  const auto core_s = [&](const Scenario& s, AttentionBackend backend) {
    strategy.attention_backend = backend;
    const detail::LayerCost l = layer(s, strategy);
    return l.unit(RecomputeModule::core_attn).forward.compute_s;
  };
  for (const char* gpu : {"b200", "gb200"}) {
    CAPTURE(gpu);
    const Scenario wide = job(gpu, 1536);
    REQUIRE_FALSE(
        wide.cluster.pools.front().gpu.attention_forward_flash_efficiency.points().empty());
    // Head dim 192 on sm_100: Transformer Engine's cuDNN backend refuses it for training, so auto
    // runs FlashAttention-2, priced as attention_backend flash and slower than cuDNN's (at about
    // H100's absolute speed, against cuDNN's sustained Blackwell rate: 1.8-1.9x at this shape).
    CHECK(core_s(wide, AttentionBackend::automatic) == core_s(wide, AttentionBackend::flash));
    CHECK(core_s(wide, AttentionBackend::automatic) > 1.5 * core_s(wide, AttentionBackend::fused));
    // Head dim 128: cuDNN's.
    const Scenario narrow = job(gpu, 1024);
    CHECK(core_s(narrow, AttentionBackend::automatic) == core_s(narrow, AttentionBackend::fused));
  }
  // Hopper's cuDNN trains head dim 192: auto stays fused on h100.
  const Scenario hopper = job("h100", 1536);
  CHECK(core_s(hopper, AttentionBackend::automatic) == core_s(hopper, AttentionBackend::fused));
  // The rule itself: multi-latent attention's 192 / 128 and 256 / 256 are cuDNN's on Blackwell.
  strategy.attention_backend = AttentionBackend::automatic;
  const Scenario blackwell = job("b200", 1024);
  const GpuSpec& b200 = blackwell.cluster.pools.front().gpu;
  CHECK_FALSE(detail::runs_flash_attention(strategy, b200, true, 192, 128));
  CHECK_FALSE(detail::runs_flash_attention(strategy, b200, true, 256, 256));
  CHECK(detail::runs_flash_attention(strategy, b200, true, 160, 160));
  // Without Transformer Engine (torchtitan's SDPA) the rule does not apply.
  CHECK_FALSE(detail::runs_flash_attention(strategy, b200, false, 192, 192));
}

TEST_CASE("fused attention at a head dim: the curve at 128 times the measured factor") {
  using detail::AttentionKernels;
  using detail::head_dim_efficiency;
  CHECK(head_dim_efficiency(128, 128, false) == 1.0);
  CHECK(head_dim_efficiency(128, 128, true) == 1.0);
  CHECK(head_dim_efficiency(64, 64, false) == doctest::Approx(0.85));
  CHECK(head_dim_efficiency(64, 64, true) == doctest::Approx(0.95));
  CHECK(head_dim_efficiency(96, 96, false) == doctest::Approx(0.925));   // between 64 and 128
  CHECK(head_dim_efficiency(32, 32, false) == doctest::Approx(0.85));    // clamped
  CHECK(head_dim_efficiency(512, 512, true) == doctest::Approx(0.79));   // clamped
  CHECK(head_dim_efficiency(192, 128, true) == doctest::Approx(0.865));  // multi-latent
  // FlashAttention-2 keeps its backward at head dim 192, where cuDNN's loses 29%.
  CHECK(head_dim_efficiency(192, 192, true, AttentionKernels::flash) == doctest::Approx(1.02));
  CHECK(head_dim_efficiency(192, 192, true) == doctest::Approx(0.71));
  CHECK(head_dim_efficiency(160, 160, false, AttentionKernels::flash) ==
        doctest::Approx(1.02));  // between
  CHECK(head_dim_efficiency(192, 128, true, AttentionKernels::flash) ==
        doctest::Approx(0.865));  // multi-latent

  // The layer's core attention: 8 heads of 64 instead of 128 execute half the FLOPs at 0.85 of
  // the curve's efficiency at that size.
  const Scenario s = head_dim_64_job("h100");
  CHECK(head_dim_64_core_attention_s(s) ==
        doctest::Approx(head_dim_64_expected_s(s, 0.85)).epsilon(1e-12));
}

TEST_CASE("fused attention at head dim 64 on Blackwell: cuDNN's own benchmark, 0.60 / 0.78") {
  using detail::AttentionKernels;
  using detail::head_dim_efficiency;
  CHECK(head_dim_efficiency(64, 64, false, AttentionKernels::cudnn_blackwell) ==
        doctest::Approx(0.60));
  CHECK(head_dim_efficiency(64, 64, true, AttentionKernels::cudnn_blackwell) ==
        doctest::Approx(0.78));
  CHECK(head_dim_efficiency(128, 128, true, AttentionKernels::cudnn_blackwell) == 1.0);
  CHECK(head_dim_efficiency(192, 192, true, AttentionKernels::cudnn_blackwell) ==
        doctest::Approx(0.71));  // Hopper's, not in the benchmark
  // A B200 runs cuDNN at head dim 64 (Transformer Engine's backend rule) at 0.60 of its curve.
  const Scenario s = head_dim_64_job("b200");
  CHECK(head_dim_64_core_attention_s(s) ==
        doctest::Approx(head_dim_64_expected_s(s, 0.60)).epsilon(1e-12));
}

TEST_CASE("rotary embedding: the fused kernel reads and writes Q and K each way") {
  // flat_job's SwiGLU model takes rotary embeddings by default; the same model without them
  // differs by Transformer Engine's fused RoPE on 8 query and 2 key heads of 128, 2048 tokens.
  Scenario rope = flat_job("bf16");
  Scenario none = rope;
  none.model.position_embedding_type = PositionEmbedding::none;
  const Strategy strategy;
  const double bytes = 2 * 2.0 * 2048 * (8 + 2) * 128;
  const double bandwidth = 1e12;
  CHECK(layer(rope, strategy).forward.compute_s - layer(none, strategy).forward.compute_s ==
        doctest::Approx(bytes / bandwidth).epsilon(1e-9));
  CHECK(layer(rope, strategy).backward.compute_s - layer(none, strategy).backward.compute_s ==
        doctest::Approx(bytes / bandwidth).epsilon(1e-9));
}

TEST_CASE("context parallel attention by cp_comm_type: kernels and exposed communication") {
  Strategy strategy;
  strategy.use_flash_attn = true;
  strategy.context_parallel_size = 2;
  const Scenario s = flat_job("bf16", 8192);
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  const auto attention = [&](CpCommType type) {
    strategy.cp_comm_type = type;
    return layer(s, strategy);
  };
  const double executed = 0.5 * 4.0 * 8 * (8192.0 / 2) * 8192 * 128;
  const auto kernel_s = [&](double calls) {
    return executed / (gpu.tensor_flops(Precision::bf16) *
                       gpu.attention_forward_efficiency.at(executed / calls));
  };
  // All-to-all: one kernel over the whole sequence and half the heads; all-gathered K and V: the
  // GPU's two load-balanced query chunks in two kernels (Transformer Engine context_parallel.py).
  const auto a2a = attention(CpCommType::a2a);
  const auto gathered = attention(CpCommType::allgather);
  const auto ring = attention(CpCommType::p2p);
  CHECK(a2a.unit(RecomputeModule::core_attn).forward.compute_s ==
        doctest::Approx(kernel_s(1)).epsilon(1e-12));
  CHECK(gathered.unit(RecomputeModule::core_attn).forward.compute_s ==
        doctest::Approx(kernel_s(2)).epsilon(1e-12));
  // Neither hides its collectives: the same all-to-alls run each way; backward gathers K and V
  // again and reduce-scatters their gradients.
  CHECK(a2a.forward.cp_comm_s > 0);
  CHECK(a2a.backward.cp_comm_s == doctest::Approx(a2a.forward.cp_comm_s));
  CHECK(gathered.backward.cp_comm_s > gathered.forward.cp_comm_s);
  // The ring's K and V chunks hide under this flat GPU's attention.
  CHECK(ring.forward.cp_comm_s < a2a.forward.cp_comm_s);
}

TEST_CASE("the fused cross-entropy moves 22 + 6 bytes per logit instead of 38 + 14") {
  const Scenario s = flat_job("bf16");
  Strategy strategy;
  const auto head = [&](bool fused) {
    strategy.cross_entropy_loss_fusion = fused;
    return detail::compute_model_costs(s.model, s.training, s.cluster.pools.front().gpu, 8,
                                       strategy)
        .head;
  };
  const detail::EdgeCost plain = head(false), fused = head(true);
  const double logits = 2048.0 * 32000;
  CHECK(plain.forward.compute_s - fused.forward.compute_s ==
        doctest::Approx((38 - 22) * logits / 1e12).epsilon(1e-9));
  CHECK(plain.backward.compute_s - fused.backward.compute_s ==
        doctest::Approx((14 - 6) * logits / 1e12).epsilon(1e-9));
}

TEST_CASE(
    "Transformer Engine's loss kernel reads the logits once and writes the gradient in place") {
  const Scenario s = flat_job("bf16");
  Strategy strategy;
  strategy.cross_entropy_loss_fusion = true;
  const auto head = [&](CrossEntropyFusionImpl impl) {
    strategy.cross_entropy_fusion_impl = impl;
    return detail::compute_model_costs(s.model, s.training, s.cluster.pools.front().gpu, 8,
                                       strategy)
        .head;
  };
  const detail::EdgeCost native = head(CrossEntropyFusionImpl::native);
  const detail::EdgeCost te = head(CrossEntropyFusionImpl::te);
  const double logits = 2048.0 * 32000;
  // 22 + 6 bytes per logit (native) against 2 + 4 (te).
  CHECK(native.forward.compute_s - te.forward.compute_s ==
        doctest::Approx((22 - 2) * logits / 1e12).epsilon(1e-9));
  CHECK(native.backward.compute_s - te.backward.compute_s ==
        doctest::Approx((6 - 4) * logits / 1e12).epsilon(1e-9));
  // Only the 16-bit logits stay alive: 2 bytes a logit, not 6.
  CHECK(native.transient_bytes == doctest::Approx(6 * logits));
  CHECK(te.transient_bytes == doctest::Approx(2 * logits));
}

TEST_CASE("grouped GEMM: Transformer Engine's waves of four experts, each at their summed size") {
  const Scenario s = test::scenario(R"({"model": "llama2-7b", "training": {"global_batch_size":
      8, "seq_length": 2048}, "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  const detail::Kernels kernels(gpu, Precision::bf16);
  const detail::Gemm expert{256, 1536, 2048};  // a small expert GEMM, well below the plateau
  // Up to four experts run at once: as efficient as one GEMM of their summed work.
  for (const double experts : {1.0, 2.0, 4.0}) {
    CAPTURE(experts);
    CHECK(kernels.grouped_gemm_s(expert, experts) ==
          doctest::Approx(kernels.gemm_s(expert, experts)));
  }
  // Sixteen experts are four waves of four, slower than one GEMM of all sixteen's work and
  // faster than sixteen GEMMs one after another.
  const double waves = kernels.grouped_gemm_s(expert, 16);
  CHECK(waves == doctest::Approx(4 * kernels.gemm_s(expert, 4)));
  CHECK(waves > kernels.gemm_s(expert, 16));
  CHECK(waves < 16 * kernels.gemm_s(expert));
}

TEST_CASE("fp8 grouped GEMM: Transformer Engine quantises each expert's input on its own") {
  // The flat GPU of flat_job, but with a kernel overhead and a memory curve that falls at small
  // sizes, so that sixteen small quantisations cost more than one of their summed size.
  const Scenario s = test::scenario(R"({"model": "llama2-7b", "training": {"global_batch_size":
      8, "seq_length": 2048, "precision": "fp8"}, "cluster": {"gpus": [{"type": {"base": "h100",
      "id": "flat", "kernel_overhead_us": 2, "efficiency": {"memory": [[1, 0.3], [100, 0.9]]}},
      "count": 8}]}})");
  const GpuSpec& gpu = s.cluster.pools.front().gpu;
  const detail::Gemm expert{256, 1536, 2048};
  const double experts = 16;
  using Q = detail::GroupedQuantisation;
  const auto extra = [&](Fp8Recipe recipe, Q quantisation) {
    const detail::Kernels kernels(gpu, Precision::fp8, recipe);
    return kernels.grouped_gemm_s(expert, experts, 2, detail::kGroupedGemmStreams, quantisation) -
           kernels.grouped_gemm_s(expert, experts, 2, detail::kGroupedGemmStreams, Q::none);
  };
  // Current scaling and MXFP8 (multi_tensor_quantize_impl: "Quantize kernels individually"):
  // sixteen quantisations of one expert's input each, not one of all sixteen.
  for (const Fp8Recipe recipe : {Fp8Recipe::tensorwise, Fp8Recipe::mxfp8}) {
    CAPTURE(static_cast<int>(recipe));
    const double one_expert =
        extra(recipe, Q::none) +
        detail::Kernels(gpu, Precision::fp8, recipe)
            .grouped_gemm_s(expert, 1, 2, 1, Q::all_at_once) -
        detail::Kernels(gpu, Precision::fp8, recipe).grouped_gemm_s(expert, 1, 2, 1, Q::none);
    CHECK(extra(recipe, Q::transformer_engine) == doctest::Approx(experts * one_expert));
    CHECK(extra(recipe, Q::transformer_engine) > extra(recipe, Q::all_at_once));
  }
  // Delayed scaling has the fused multi-tensor cast-transpose: one pass over all of them.
  CHECK(extra(Fp8Recipe::delayed, Q::transformer_engine) ==
        doctest::Approx(extra(Fp8Recipe::delayed, Q::all_at_once)));
  // The weight gradient quantises nothing: its operands are the other GEMMs' column-wise copies.
  CHECK(extra(Fp8Recipe::tensorwise, Q::none) == 0);
}

TEST_CASE("a scatter-add runs at the GPU preset's scatter_add_over_copy of a copy's rate") {
  const GpuSpec h200 = parse_gpu("h200", "gpu");
  const GpuSpec h100 = parse_gpu("h100", "gpu");
  const GpuSpec slow =
      parse_gpu(nlohmann::json::parse(R"({"id": "h200-slow-atomics", "base": "h200",
                                "scatter_add_over_copy": 0.12})"),
                "gpu");
  CHECK(h200.scatter_add_over_copy == 0.24);  // measured there, stated in h200.json
  CHECK(h100.scatter_add_over_copy == 0.24);  // the default: no other GPU measured
  const double bytes = 4e9;
  const detail::Kernels at_h200(h200, Precision::bf16);
  const detail::Kernels at_slow(slow, Precision::bf16);
  CHECK(at_h200.scatter_add_s(bytes) == doctest::Approx(at_h200.memory_s(bytes) / 0.24));
  CHECK(at_slow.scatter_add_s(bytes) == doctest::Approx(2 * at_h200.scatter_add_s(bytes)));
}
