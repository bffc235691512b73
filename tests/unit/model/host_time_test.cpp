// The host's issue time (host_time.hpp): a layer's pass takes at least the time its host needs to
// issue what no CUDA graph captured; graphs take their regions' host time away.
#include "model/host_time.hpp"

#include <doctest/doctest.h>

#include "model/a2a_pair_schedule.hpp"
#include "model/layer_cost.hpp"
#include "paraplan/estimate.hpp"
#include "support.hpp"

using namespace paraplan;
using paraplan::detail::graph_captures;
using paraplan::detail::host_ops;
using paraplan::detail::HostRegion;

namespace {

// Four small layers (hidden 1024, sequence 1024) on one GPU of `gpu`: a few hundred
// microseconds of GPU work a layer, less than an eager host needs to issue it.
// `job` adds top-level scenario keys (", \"framework_version\": ...").
Report small_layers(const std::string& gpu, const std::string& graphs,
                    const std::string& job = "") {
  return estimate(test::scenario(R"({"model": {"name": "m", "num_layers": 4, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "vocab_size": 32000,
      "activation": "swiglu"}, "training": {"global_batch_size": 8, "seq_length": 1024},
      "cluster": {"gpus_per_node": 1, "gpus": [{"type": )" +
                                 gpu + R"(, "count": 1}]},
      "strategy": {"micro_batch_size": 1, "use_flash_attn": true)" +
                                 graphs + "}" + job + "}"));
}

// The H100 preset with no host issue cost: the GPU is never held back.
const std::string kNoHost =
    R"({"id": "h100-host-free", "base": "h100", "host": {"torch_op_us": 0, "torch_linear_us": 0, "te_module_us": 0}})";
const std::string kWholeLayers = R"(, "cuda_graph_impl": "transformer_engine")";

}  // namespace

TEST_CASE("an eager host holds small layers back; whole-layer graphs release them") {
  const Report eager = small_layers(R"("h100")", "");
  const Report graphed = small_layers(R"("h100")", kWholeLayers);
  const Report no_host = small_layers(kNoHost, "");
  REQUIRE(eager.feasible);
  REQUIRE(graphed.feasible);
  REQUIRE(no_host.feasible);
  // DGX H100's Xeon: 3 TE modules and 3 ops of attention, 2 and 2 of the MLP a layer forward
  // (5 x 36.23 + 5 x 13.48 = 249 us), more than the GPU's time for these layers.
  CHECK(eager.iteration_time_s > no_host.iteration_time_s * 1.05);
  // Whole-layer graphs capture every region of a dense layer: the host no longer binds.
  CHECK(graphed.iteration_time_s == doctest::Approx(no_host.iteration_time_s));
}

TEST_CASE("a layer longer than its host's issue time is not held back") {
  const auto big = [](const std::string& gpu) {
    return estimate(test::scenario(R"({"model": {"name": "m", "num_layers": 4,
        "hidden_size": 8192, "ffn_hidden_size": 28672, "num_attention_heads": 64,
        "vocab_size": 32000, "activation": "swiglu"},
        "training": {"global_batch_size": 8, "seq_length": 4096},
        "cluster": {"gpus_per_node": 8, "gpus": [{"type": )" +
                                   gpu + R"(, "count": 8}]},
        "strategy": {"micro_batch_size": 1, "tensor_model_parallel_size": 8,
        "sequence_parallel": true, "use_flash_attn": true}})"));
  };
  CHECK(big(R"("h100")").iteration_time_s == big(kNoHost).iteration_time_s);
}

TEST_CASE("CUDA graph scopes capture their regions") {
  Strategy s;
  CHECK_FALSE(graph_captures(s, HostRegion::attention));
  s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
  // Whole layers: everything but a dropless MoE layer's routed experts.
  CHECK(graph_captures(s, HostRegion::attention));
  CHECK(graph_captures(s, HostRegion::mlp));
  CHECK_FALSE(graph_captures(s, HostRegion::moe_experts));
  s.cuda_graph_scope = (1u << static_cast<unsigned>(CudaGraphScope::attn)) |
                       (1u << static_cast<unsigned>(CudaGraphScope::moe_router));
  CHECK(graph_captures(s, HostRegion::attention));
  CHECK(graph_captures(s, HostRegion::moe_router));
  CHECK_FALSE(graph_captures(s, HostRegion::moe_preprocess));
  // The router's graph runs the shared experts unless they overlap the dispatch.
  CHECK(graph_captures(s, HostRegion::shared_experts));
  s.moe_shared_expert_overlap = true;
  CHECK_FALSE(graph_captures(s, HostRegion::shared_experts));
  s.cuda_graph_impl = CudaGraphImpl::local;
  s.cuda_graph_scope = 1u << static_cast<unsigned>(CudaGraphScope::full_iteration);
  CHECK(graph_captures(s, HostRegion::moe_experts));
}

TEST_CASE("the fused router issues 31 kernels a forward, the unfused one 72") {
  // Megatron-LM docs/discussions/deepseek-v3-gb200-optimization (402bc50b1c) section 2.1.4.
  const Scenario moe = test::scenario(R"({"model": "mixtral-8x7b",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  Strategy s;
  CHECK(host_ops(HostRegion::moe_router, moe.model, s).torch_ops == 72);
  s.moe_router_fusion = true;
  CHECK(host_ops(HostRegion::moe_router, moe.model, s).torch_ops == 31);
  CHECK(host_ops(HostRegion::moe_router, moe.model, s).te_modules == 1);
}

TEST_CASE("with the flex dispatcher the fused router and the preprocess issue 17 kernels") {
  // The same guide, section 2.2.1: DeepEP's fused preprocess kernel.
  const Scenario moe = test::scenario(R"({"model": "mixtral-8x7b",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  Strategy s;
  s.moe_router_fusion = true;
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  CHECK(host_ops(HostRegion::moe_router, moe.model, s).torch_ops +
            host_ops(HostRegion::moe_preprocess, moe.model, s).torch_ops ==
        17);
  s.moe_router_fusion = false;
  CHECK(host_ops(HostRegion::moe_router, moe.model, s).torch_ops == 72);
}

TEST_CASE(
    "a PyTorch op of a training layer costs its host 5.5 bare ops, a GroupedLinear GEMM one") {
  // scripts/calibration/measured/host-h200-2026-11-26-run1.json and -run2.json: 37.6 us per
  // kernel of eager layers against 6.83 us per bare torch.add (h200-2026-11-26.json).
  using paraplan::detail::layer_host_time;
  const Scenario moe = test::scenario(R"({"model": "mixtral-8x7b",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  Strategy s;
  s.moe_grouped_gemm = true;
  const GpuSpec& gpu = moe.cluster.pools.front().gpu;
  const double op_s = gpu.host_issue.torch_op_s;
  REQUIRE(op_s > 0);
  const auto host = layer_host_time(moe.model, s, gpu, true);
  // The router: the pre-MLP norm (a TE module) and 72 PyTorch ops.
  CHECK(host[HostRegion::moe_router] ==
        doctest::Approx(gpu.host_issue.te_module_s + 72 * op_s * 37.6 / 6.83));
  // Mixtral's 8 experts on one GPU: one GEMM per expert and GroupedLinear forward, at the bare
  // op's price (Transformer Engine's C++ loop).
  CHECK(host.expert_forward_s == doctest::Approx(2 * 8 * op_s));
}

TEST_CASE("GroupedLinear's per-expert ops: GEMMs, and in fp8 each expert's quantised copies") {
  using paraplan::detail::grouped_linear_ops_per_expert;
  Strategy s;
  // 16-bit: one GEMM forward, two backward; a bias gradient allocation per expert with biases.
  CHECK(grouped_linear_ops_per_expert(s, false, false).forward == 1);
  CHECK(grouped_linear_ops_per_expert(s, false, false).backward == 2);
  CHECK(grouped_linear_ops_per_expert(s, false, true).backward == 3);
  // Delayed scaling: two allocations per expert, one quantize kernel over all experts (none per
  // expert) unless the backward's bgrad_quantize runs per expert.
  CHECK(grouped_linear_ops_per_expert(s, true, false).forward == 3);
  CHECK(grouped_linear_ops_per_expert(s, true, false).backward == 4);
  CHECK(grouped_linear_ops_per_expert(s, true, true).backward == 5);
  // Current scaling and block scaling quantise each expert's input on its own.
  s.fp8_recipe = Fp8Recipe::tensorwise;
  CHECK(grouped_linear_ops_per_expert(s, true, false).forward == 4);
  CHECK(grouped_linear_ops_per_expert(s, true, false).backward == 5);
}

TEST_CASE("Megatron-Core DDP hooks each local expert's weight and bias: ops per expert") {
  using paraplan::detail::ddp_ops_per_expert;
  Strategy s;
  // The weight's gradient-accumulator hook and Transformer Engine's dummy gradient for it;
  // with biases the bias's hook and its main_grad.add_.
  CHECK(ddp_ops_per_expert(s, false).backward == 2);
  CHECK(ddp_ops_per_expert(s, true).backward == 4);
  // Forward pre-hooks only with the distributed optimizer's overlapped parameter gather.
  CHECK(ddp_ops_per_expert(s, true).forward == 0);
  s.zero_stage = 1;
  CHECK(ddp_ops_per_expert(s, true).forward == 0);
  s.overlap_param_gather = true;
  CHECK(ddp_ops_per_expert(s, false).forward == 1);
  CHECK(ddp_ops_per_expert(s, true).forward == 2);
  // Megatron-FSDP's own hooks are not counted.
  s.zero_stage = 3;
  CHECK(ddp_ops_per_expert(s, true).backward == 0);
  CHECK(ddp_ops_per_expert(s, true).forward == 0);
}

TEST_CASE("the routed experts' host time grows with the local experts: GEMMs and DDP's hooks") {
  using paraplan::detail::layer_host_time;
  const Scenario moe = test::scenario(R"({"model": "mixtral-8x7b",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  const GpuSpec& gpu = moe.cluster.pools.front().gpu;
  const double op_s = gpu.host_issue.torch_op_s;
  REQUIRE(op_s > 0);
  Strategy s;
  s.moe_grouped_gemm = true;
  s.zero_stage = 1;
  s.overlap_param_gather = true;
  for (const int64_t ep : {1, 2, 8}) {
    CAPTURE(ep);
    s.expert_model_parallel_size = ep;
    const double local_experts = 8.0 / static_cast<double>(ep);
    const auto host = layer_host_time(moe.model, s, gpu, true);
    // Per local expert and GroupedLinear (fc1, fc2): forward the GEMM and the weight's
    // finish_param_sync; backward two GEMMs, the weight's hook and its dummy gradient.
    CHECK(host.expert_forward_s == doctest::Approx((1 + 1) * 2 * local_experts * op_s));
    CHECK(host.expert_backward_s == doctest::Approx((2 + 2) * 2 * local_experts * op_s));
  }
}

TEST_CASE("the all-to-all dispatcher sorts rows by local expert when it has more than one") {
  // token_dispatcher.py dispatch_postprocess and combine_preprocess: sort_chunks_by_idxs.
  const Scenario moe = test::scenario(R"({"model": "mixtral-8x7b",
      "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  Strategy s;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  s.moe_permute_fusion = true;
  s.expert_model_parallel_size = 8;
  const double one_local_expert = host_ops(HostRegion::moe_experts, moe.model, s).torch_ops;
  s.expert_model_parallel_size = 4;
  // Fused: one sort each way.
  CHECK(host_ops(HostRegion::moe_experts, moe.model, s).torch_ops == one_local_expert + 2);
  // Unfused: a split and a cat of the tokens, their probs and the output (and the unfused
  // unpermute's 2 more ops).
  s.moe_permute_fusion = false;
  CHECK(host_ops(HostRegion::moe_experts, moe.model, s).torch_ops == one_local_expert + 2 + 6);
  // Padded to capacity: a transpose copy of each of the three.
  s.moe_expert_capacity_factor = 1;
  s.moe_pad_expert_input_to_capacity = true;
  CHECK(host_ops(HostRegion::moe_experts, moe.model, s).torch_ops == one_local_expert + 2 + 3);
  s.moe_pad_expert_input_to_capacity = false;
  // The allgather dispatcher does not sort.
  s.moe_token_dispatcher_type = MoeDispatcher::allgather;
  CHECK(host_ops(HostRegion::moe_experts, moe.model, s).torch_ops == one_local_expert + 2);
}

TEST_CASE("many small local experts: the host issues each expert's GEMMs and binds the pass") {
  // 64 experts of width 256 on one H100 (no expert parallelism), 1,024 tokens a micro-batch:
  // GroupedLinear issues 2 x 64 GEMMs a forward and 4 x 64 a backward, 384 ops x 6.74 us =
  // 2.6 ms a layer, far more than the GPU's experts (about 0.1 ms) and more than the layer's
  // other ops (about 1.3 ms forward and backward), so the host-free preset is at least 2 ms a
  // layer and micro-batch faster.
  const auto run = [](const std::string& gpu) {
    return estimate(test::scenario(R"({"model": {"name": "m", "num_layers": 4,
        "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 16,
        "vocab_size": 32000, "activation": "swiglu", "add_bias_linear": false,
        "moe": {"num_experts": 64, "top_k": 2, "moe_ffn_hidden_size": 256}},
        "training": {"global_batch_size": 8, "seq_length": 1024},
        "cluster": {"gpus_per_node": 1, "gpus": [{"type": )" +
                                   gpu + R"(, "count": 1}]},
        "strategy": {"micro_batch_size": 1, "use_flash_attn": true,
        "moe_grouped_gemm": true}})"));
  };
  const Report eager = run(R"("h100")");
  const Report no_host = run(kNoHost);
  REQUIRE(eager.feasible);
  REQUIRE(no_host.feasible);
  const double layer_microbatches = 4 * 8;
  CHECK(eager.iteration_time_s - no_host.iteration_time_s > 2e-3 * layer_microbatches);
}

TEST_CASE("the router's kernels cost the GPU their gaps: 72 unfused, 31 with the fusion") {
  // On a host-free H100 only the GPU's time differs: 41 fewer kernels a MoE layer forward, each
  // the preset's kernel_overhead_us (2 us), over 4 layers and 8 micro-batches.
  const auto run = [](bool fusion) {
    return estimate(test::scenario(R"({"model": {"name": "m", "num_layers": 4,
        "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 16,
        "vocab_size": 32000, "activation": "swiglu",
        "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 1024}},
        "training": {"global_batch_size": 8, "seq_length": 1024},
        "cluster": {"gpus_per_node": 1, "gpus": [{"type": )" +
                                   kNoHost + R"(, "count": 1}]},
        "strategy": {"micro_batch_size": 1, "use_flash_attn": true, "moe_grouped_gemm": true,
        "moe_router_fusion": )" + std::string(fusion ? "true" : "false") +
                                   "}}"));
  };
  const Report unfused = run(false);
  const Report fused = run(true);
  REQUIRE(unfused.feasible);
  REQUIRE(fused.feasible);
  CHECK(unfused.iteration_time_s - fused.iteration_time_s ==
        doctest::Approx(41 * 2e-6 * 4 * 8).epsilon(0.01));
}

TEST_CASE(
    "a syncing MoE layer idles the GPU at its sync (host.sync_gap_us); a graph of its experts "
    "removes it") {
  // Large layers on one H100, so the GPU's time exceeds the host's everywhere: the eager host
  // differs from the host-free preset only by the sync's gap, once per MoE layer forward (4
  // layers, 8 micro-batches). The allgather dispatcher syncs too (token_dispatcher.py:
  // tokens_per_expert .cpu()).
  const auto run = [](const std::string& gpu, const std::string& graphs) {
    return estimate(test::scenario(R"({"model": {"name": "m", "num_layers": 4,
        "hidden_size": 4096, "ffn_hidden_size": 14336, "num_attention_heads": 32,
        "vocab_size": 32000, "activation": "swiglu",
        "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 4096}},
        "training": {"global_batch_size": 8, "seq_length": 4096},
        "cluster": {"gpus_per_node": 1, "gpus": [{"type": )" +
                                   gpu + R"(, "count": 1}]},
        "strategy": {"micro_batch_size": 1, "use_flash_attn": true, "moe_grouped_gemm": true,
        "moe_router_fusion": true)" +
                                   graphs + "}}"));
  };
  const Report eager = run(R"("h100")", "");
  const Report no_host = run(kNoHost, "");
  REQUIRE(eager.feasible);
  REQUIRE(no_host.feasible);
  CHECK(eager.iteration_time_s - no_host.iteration_time_s ==
        doctest::Approx(57.07e-6 * 4 * 8).epsilon(0.01));
  // The gap is the GPU preset's host.sync_gap_us: twice it, twice the idle time.
  const Report slow_sync =
      run(R"({"id": "h100-slow-sync", "base": "h100", "host": {"sync_gap_us": 114.14}})", "");
  REQUIRE(slow_sync.feasible);
  CHECK(slow_sync.iteration_time_s - no_host.iteration_time_s ==
        doctest::Approx(2 * 57.07e-6 * 4 * 8).epsilon(0.01));
  // A whole-iteration graph has no sync to wait at.
  const std::string full =
      R"(, "cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"])";
  const Report graphed = run(R"("h100")", full);
  const Report graphed_no_host = run(kNoHost, full);
  REQUIRE(graphed.feasible);
  CHECK(graphed.iteration_time_s == doctest::Approx(graphed_no_host.iteration_time_s));
}

// A layer's passes without CUDA graphs read the layer alone: kept with its costs once they are
// built (set_ungraphed_passes) and read for every strategy without graphs; a strategy with graphs
// is priced on its own.
TEST_CASE("the passes of a layer without graphs are kept with its costs; graphs price their own") {
  const Scenario job = test::scenario(R"({"model": {"name": "m", "num_layers": 4,
      "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 16,
      "vocab_size": 32000, "activation": "swiglu"},
      "training": {"global_batch_size": 8, "seq_length": 1024},
      "cluster": {"gpus_per_node": 1, "gpus": [{"type": "h100", "count": 1}]}})");
  const GpuSpec& gpu = job.cluster.pools[0].gpu;
  Strategy eager;
  eager.use_flash_attn = true;
  const detail::ModelCosts costs =
      detail::compute_model_costs(job.model, job.training, gpu, gpu.nvlink_domain_gpus, eager);
  REQUIRE(costs.ungraphed_passes.has_value());
  CHECK(detail::layer_passes(costs, false, eager) == detail::host_bound(costs.dense, eager));
  CHECK(detail::layer_passes(costs, true, eager) == detail::host_bound(costs.moe, eager));
  Strategy graphed = eager;
  graphed.cuda_graph_impl = CudaGraphImpl::transformer_engine;
  const detail::LayerPasses whole_layers = detail::layer_passes(costs, false, graphed);
  CHECK(whole_layers == detail::host_bound(costs.dense, graphed));
  // The eager host binds these small layers (above); whole-layer graphs release them.
  CHECK(whole_layers.forward.total_s() <
        detail::layer_passes(costs, false, eager).forward.total_s());
}

// A job's Megatron-Core release prices its Grace host per op (gb200.json host.by_release): the
// preset's own figures (Transformer Engine issue #2053, mid-2025 software) up to core_v0.15 and
// without a release, Megatron-LM CI's GB200 over DGX H100 ratio at that release's tag from
// core_v0.16 on (1.539, 1.528, 1.270, 1.222 times the Xeon's), "dev" as the newest.
TEST_CASE("a job's Megatron-Core release prices the Grace host's issue cost per op") {
  const auto host_at = [](const std::string& gpu, const std::string& job) {
    return test::scenario(R"({"model": "llama2-7b", "training": {"global_batch_size": 8,
        "seq_length": 1024}, "cluster": {"gpus": [{"type": ")" +
                          gpu + R"(", "count": 8}]})" + job + "}")
        .cluster.pools[0]
        .gpu.host_issue;
  };
  const auto release = [](const std::string& name) {
    return R"(, "framework_version": ")" + name + R"(")";
  };
  CHECK(host_at("gb200", "").torch_op_s == doctest::Approx(18.54e-6));
  CHECK(host_at("gb200", release("core_v0.15")).torch_op_s == doctest::Approx(18.54e-6));
  CHECK(host_at("gb200", release("core_v0.12")).te_module_s == doctest::Approx(99.66e-6));
  const HostIssueCost v16 = host_at("gb200", release("core_v0.16"));
  CHECK(v16.torch_op_s == doctest::Approx(10.37e-6));
  CHECK(v16.torch_linear_s == doctest::Approx(20.75e-6));
  CHECK(v16.te_module_s == doctest::Approx(55.76e-6));
  CHECK(host_at("gb200", release("core_v0.17")).torch_op_s == doctest::Approx(10.30e-6));
  CHECK(host_at("gb200", release("core_v0.18")).torch_op_s == doctest::Approx(8.56e-6));
  CHECK(host_at("gb200", release("core_v0.19")).te_module_s == doctest::Approx(44.27e-6));
  CHECK(host_at("gb200", release("dev")).torch_linear_s == doctest::Approx(16.47e-6));
  // The same Grace CPU on GH200; the release keeps what it does not price (the sync gap) and
  // moves no host without a table (DGX H100's Xeon).
  CHECK(host_at("gh200", release("dev")).torch_op_s == doctest::Approx(8.24e-6));
  CHECK(host_at("gh200", "").torch_op_s == doctest::Approx(16.58e-6));
  CHECK(host_at("gb200", release("dev")).sync_gap_s == host_at("gb200", "").sync_gap_s);
  CHECK(host_at("h100", release("dev")).torch_op_s == host_at("h100", "").torch_op_s);
}

TEST_CASE("a release prices only the eager host: a job naming none is priced as before") {
  const auto release = [](const std::string& name) {
    return R"(, "framework_version": ")" + name + R"(")";
  };
  const Report unnamed = small_layers(R"("gb200")", "");
  const Report v15 = small_layers(R"("gb200")", "", release("core_v0.15"));
  const Report v17 = small_layers(R"("gb200")", "", release("core_v0.17"));
  REQUIRE(unnamed.feasible);
  REQUIRE(v17.feasible);
  CHECK(v15.iteration_time_s == unnamed.iteration_time_s);
  // Small eager layers wait on the host: a host at 0.56 of the price issues them faster.
  CHECK(v17.iteration_time_s < unnamed.iteration_time_s * 0.9);
  // Whole-layer graphs leave the host nothing to issue per layer: the release changes nothing.
  const Report graphed15 = small_layers(R"("gb200")", kWholeLayers, release("core_v0.15"));
  const Report graphed17 = small_layers(R"("gb200")", kWholeLayers, release("core_v0.17"));
  CHECK(graphed17.iteration_time_s == doctest::Approx(graphed15.iteration_time_s));
}

TEST_CASE(
    "a MoE layer paired by the all-to-all overlap is held to its host inside the pair, not again "
    "pass by pass") {
  detail::LayerCost layer;
  layer.forward.compute_s = 1e-3;
  layer.backward.compute_s = 2e-3;
  layer.host[HostRegion::attention] = 4e-3;  // the eager host needs longer than the GPU
  const Strategy eager;
  const detail::LayerPasses alone = detail::host_bound(layer, eager);
  REQUIRE(alone.forward.compute_s > layer.forward.compute_s);
  layer.a2a_paired = true;
  const detail::LayerPasses paired = detail::host_bound(layer, eager);
  CHECK(paired.forward == layer.forward);
  CHECK(paired.backward == layer.backward);
}

TEST_CASE("the paired schedule holds both passes to the host's issue time and its sync's gap") {
  // GPU 6 ms a pair; the host issues 14 ms of nodes: the host sets the pace.
  detail::A2aOverlapPair pair{.pre_dispatch_forward_s = 1e-3,
                              .pre_dispatch_backward_s = 2e-3,
                              .mlp_forward_s = 1e-3,
                              .mlp_backward_s = 2e-3,
                              .dispatch_s = 0.5e-3,
                              .combine_s = 0.5e-3};
  pair.host_pre_dispatch_forward_s = 4e-3;
  pair.host_mlp_forward_s = 2e-3;
  pair.host_pre_dispatch_backward_s = 5e-3;
  pair.host_mlp_backward_s = 3e-3;
  CHECK(detail::a2a_pair_period_s(pair) == doctest::Approx(14e-3));
  // The dispatcher's sync: the GPU idles its gap after it, as in an unpaired forward.
  pair.host_sync = detail::A2aHostSync::communication_stream;
  const double without_gap_s = detail::a2a_pair_period_s(pair);
  pair.sync_gap_s = 0.1e-3;
  CHECK(detail::a2a_pair_period_s(pair) == doctest::Approx(without_gap_s + 0.1e-3));
}
