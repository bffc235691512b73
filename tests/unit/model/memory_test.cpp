// Memory per GPU beyond the activations: bytes per parameter by the dtype keys, the reserve
// (CUDA context, workspaces, NCCL buffers per communicator, tensor-parallel overlap buffers,
// fragmentation), the two peaks, and the memory mechanisms of the stage edges.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/layer_cost.hpp"
#include "model/memory_reserve.hpp"
#include "model/parameter_bytes.hpp"
#include "paraplan/units.hpp"
#include "support.hpp"

using namespace paraplan;
using units::kGiB;
using units::kMiB;

namespace {

Report run(const std::string& model, const std::string& training, const std::string& cluster,
           const std::string& strategy) {
  return estimate(test::scenario(R"({"model": )" + model + R"(, "training": )" + training +
                                 R"(, "cluster": )" + cluster + R"(, "strategy": )" + strategy +
                                 "}"));
}

const std::string kLlama8b = R"("llama3-8b")";  // 32 layers, h 4096, 8 groups, vocab 128256
const std::string kTraining = R"({"global_batch_size": 64, "seq_length": 4096})";
const std::string kNode = R"({"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 8}]})";

// NCCL's default per-connection buffers: LL 512 KiB, LL128 4.6875 MiB, Simple 4 MiB.
constexpr double kChannel = 8.0 * 512 * 8 * 16 + 120.0 * 640 * 8 * 8 + 4.0 * kMiB;

}  // namespace

TEST_CASE("bytes per parameter follow Megatron-LM's dtype arguments") {
  using detail::parameter_bytes;
  Strategy s;
  // bf16: fp32 main grads (forced), fp32 master and moments; the step moves 38 bytes.
  detail::ParameterBytes b = parameter_bytes(Precision::bf16, s);
  CHECK(b.layer_weight == 2);
  CHECK(b.gradient == 4);
  CHECK(b.optimizer == 12);
  CHECK(b.layer_gather == 2);
  CHECK(b.optimizer_step == 38);
  s.grad_reduce_in_bf16 = true;
  b = parameter_bytes(Precision::bf16, s);
  CHECK(b.gradient == 2);
  CHECK(b.optimizer_step == 2 + (8 + 16 + 2) + 6);
  s = Strategy{};
  s.main_grads_dtype = MainGradsDtype::bf16;
  CHECK(parameter_bytes(Precision::bf16, s).gradient == 2);
  // fp16 keeps 2-byte main grads unless told to accumulate in fp32.
  s = Strategy{};
  CHECK(parameter_bytes(Precision::fp16, s).gradient == 2);
  s.accumulate_allreduce_grads_in_fp32 = true;
  CHECK(parameter_bytes(Precision::fp16, s).gradient == 4);
  // fp32 weights are their own masters.
  s = Strategy{};
  b = parameter_bytes(Precision::fp32, s);
  CHECK(b.layer_weight == 4);
  CHECK(b.gradient == 4);
  CHECK(b.optimizer == 8);
}

TEST_CASE("the precision-aware optimizer stores masters as remainders and moments as asked") {
  using detail::parameter_bytes;
  Strategy s;
  s.use_precision_aware_optimizer = true;
  CHECK(parameter_bytes(Precision::bf16, s).optimizer == 2 + 4 + 4);
  s.exp_avg_dtype = MomentDtype::bf16;
  s.exp_avg_sq_dtype = MomentDtype::fp8;
  CHECK(parameter_bytes(Precision::bf16, s).optimizer == 2 + 2 + 1);
  s.main_params_dtype = MainParamsDtype::fp16;
  CHECK(parameter_bytes(Precision::bf16, s).optimizer == 2 + 2 + 1);
  // fp16 weights cannot hold a bf16 remainder: fp32 masters.
  s = Strategy{};
  s.use_precision_aware_optimizer = true;
  CHECK(parameter_bytes(Precision::fp16, s).optimizer == 12);
  // Current scaling: Megatron-LM keeps the fp32 masters itself (no remainders).
  s.fp8_recipe = Fp8Recipe::tensorwise;
  CHECK(parameter_bytes(Precision::fp8, s).optimizer == 12);
  s.fp8_recipe = Fp8Recipe::delayed;
  CHECK(parameter_bytes(Precision::fp8, s).optimizer == 10);
}

TEST_CASE("fp8 weights keep row- and column-wise copies; fp8_param_gather drops the bf16 one") {
  using detail::parameter_bytes;
  Strategy s;
  detail::ParameterBytes b = parameter_bytes(Precision::fp8, s);
  CHECK(b.layer_weight == 2 + 2);
  CHECK(b.edge_weight == 2);  // embedding and LM head stay 16-bit
  CHECK(b.layer_gather == 2);
  s.fp8_param_gather = true;
  b = parameter_bytes(Precision::fp8, s);
  CHECK(b.layer_weight == 2);
  CHECK(b.layer_gather == 1);
  CHECK(b.edge_gather == 2);
  s.fp8_recipe = Fp8Recipe::mxfp8;
  b = parameter_bytes(Precision::fp8, s);
  CHECK(b.layer_weight == doctest::Approx(2 * (1 + 1.0 / 32)));
  CHECK(b.layer_gather == doctest::Approx(1 + 1.0 / 32));
  s.fp8_param_gather = false;
  CHECK(parameter_bytes(Precision::fp8, s).layer_weight == doctest::Approx(2 + 2 * (1 + 1.0 / 32)));
}

TEST_CASE("fp8 weights on Blackwell: one tensor-scaled copy serves both GEMMs, MXFP8 keeps two") {
  using detail::parameter_bytes;
  GpuSpec hopper, blackwell, blackwell_ultra, rubin_cpx;
  hopper.compute_capability = 9.0;
  blackwell.compute_capability = 10.0;
  blackwell_ultra.compute_capability = 10.3;
  rubin_cpx.compute_capability = 12.0;  // nvte_is_non_tn_fp8_gemm_supported leaves 12.x out
  CHECK(!detail::fp8_gemm_any_layout(hopper));
  CHECK(detail::fp8_gemm_any_layout(blackwell));
  CHECK(detail::fp8_gemm_any_layout(blackwell_ultra));
  CHECK(!detail::fp8_gemm_any_layout(rubin_cpx));
  Strategy s;
  s.fp8_param_gather = true;
  for (const Fp8Recipe recipe : {Fp8Recipe::delayed, Fp8Recipe::tensorwise}) {
    s.fp8_recipe = recipe;
    CHECK(parameter_bytes(Precision::fp8, s, hopper).layer_weight == 2);
    CHECK(parameter_bytes(Precision::fp8, s, blackwell).layer_weight == 1);
    CHECK(parameter_bytes(Precision::fp8, s, blackwell).layer_gather == 1);
  }
  s.fp8_recipe = Fp8Recipe::mxfp8;
  CHECK(parameter_bytes(Precision::fp8, s, blackwell).layer_weight ==
        doctest::Approx(2 * (1 + 1.0 / 32)));
  s.fp8_recipe = Fp8Recipe::blockwise;
  CHECK(parameter_bytes(Precision::fp8, s, blackwell).layer_weight == 2);
  // Without fp8 parameters the 16-bit weight stays beside its one fp8 copy.
  s.fp8_recipe = Fp8Recipe::tensorwise;
  s.fp8_param_gather = false;
  CHECK(parameter_bytes(Precision::fp8, s, blackwell).layer_weight == 2 + 1);
}

TEST_CASE("NCCL buffers: a channel holds one connection's LL, LL128 and Simple buffers") {
  const MemoryReserveSpec h100;  // 24 channels inside a node, 16 across, 16 NVLS, 32 per peer
  CHECK(detail::nccl_ring_bytes(h100, false) == doctest::Approx(24 * kChannel));
  CHECK(detail::nccl_ring_bytes(h100, true) == doctest::Approx(16 * kChannel));
  // NVLink SHARP: 16 channels x 2 x (128 KiB x 8 steps) per head, one head per local member.
  CHECK(detail::nccl_nvls_bytes(h100, 8) == doctest::Approx(16 * 2 * 1 * kMiB * 8));
  CHECK(detail::nccl_nvls_bytes(h100, 1) == 0);
  // Send/receive: per NVLink peer 32 channels of 4 MiB each way; per network peer 2 of 1 MiB.
  CHECK(detail::nccl_p2p_bytes(h100, 1, 0) == doctest::Approx(32 * 2 * 4 * kMiB));
  CHECK(detail::nccl_p2p_bytes(h100, 0, 1) == doctest::Approx(2 * 2 * 1 * kMiB));
}

TEST_CASE("the reserve of one H100 node, term by term") {
  // Llama 3 8B, TP2 with sequence parallelism, DP4, distributed optimizer, one node.
  const Report r = run(kLlama8b, kTraining, kNode,
                       R"({"tensor_model_parallel_size": 2, "sequence_parallel": true,
                           "zero_stage": 1, "use_flash_attn": true})");
  REQUIRE(r.feasible);
  const StageMemory& m = r.stages.front().memory;
  CHECK(m.reserve.cuda_context_bytes == doctest::Approx(0.5 * kGiB));
  CHECK(m.reserve.workspaces_bytes == doctest::Approx(64 * kMiB));
  // TP2: ring and NVLS (2 heads); DP4 (stride 2, one node): ring and NVLS (4 heads);
  // model-parallel group (TP2) and the world (8): one ring each (small all-reduces).
  const double nvls_head = 16 * 2 * kMiB;
  CHECK(m.reserve.nccl_buffers_bytes == doctest::Approx(4 * 24 * kChannel + nvls_head * (2 + 4)));
  CHECK(m.reserve.userbuffers_bytes == 0);
  CHECK(m.reserve.fragmentation_bytes == doctest::Approx(0.05 * m.activations_bytes));
  // Allocated: tensors and the PyTorch-allocated workspaces; peak adds the rest.
  CHECK(m.peak_allocated_bytes() ==
        doctest::Approx(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes +
                        m.activations_bytes + m.reserve.workspaces_bytes));
  CHECK(m.peak_bytes() - m.peak_allocated_bytes() ==
        doctest::Approx(m.reserve.cuda_context_bytes + m.reserve.nccl_buffers_bytes +
                        m.reserve.fragmentation_bytes));
}

TEST_CASE("tensor-parallel overlap holds ten userbuffers of the gathered sequence") {
  const std::string strategy = R"({"tensor_model_parallel_size": 2, "sequence_parallel": true,
      "zero_stage": 1, "use_flash_attn": true, "tp_comm_overlap": true})";
  const double tokens = 4096.0;  // seq 4096 x micro-batch 1
  const StageMemory bf16 = run(kLlama8b, kTraining, kNode, strategy).stages.front().memory;
  CHECK(bf16.reserve.userbuffers_bytes == doctest::Approx(tokens * 4096 * (6 * 2 + 4 * 2)));
  // fp8: the six all-gather buffers hold fp8.
  const std::string fp8 = R"({"global_batch_size": 64, "seq_length": 4096, "precision": "fp8"})";
  const StageMemory f = run(kLlama8b, fp8, kNode, strategy).stages.front().memory;
  CHECK(f.reserve.userbuffers_bytes == doctest::Approx(tokens * 4096 * (6 * 1 + 4 * 2)));
}

TEST_CASE("NCCL buffers grow with the communicators a strategy makes") {
  const std::string base = R"({"zero_stage": 1, "use_flash_attn": true)";
  const auto nccl = [&](const std::string& extra, const std::string& cluster) {
    return run(kLlama8b, kTraining, cluster, base + extra + "}")
        .stages.front()
        .memory.reserve.nccl_buffers_bytes;
  };
  const std::string two_nodes = R"({"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 16}]})";
  // Pipeline parallelism adds send/receive buffers to the previous and next stage, over NVLink.
  CHECK(nccl(R"(, "pipeline_model_parallel_size": 2)", kNode) >
        nccl(R"(, "pipeline_model_parallel_size": 1)", kNode));
  // An all-reduce across nodes (no sharded optimizer) connects a tree beside the ring.
  const auto unsharded = [&](const std::string& cluster) {
    return run(kLlama8b, kTraining, cluster, R"({"zero_stage": 0, "use_flash_attn": true})")
        .stages.front()
        .memory.reserve.nccl_buffers_bytes;
  };
  CHECK(unsharded(two_nodes) - nccl("", two_nodes) == doctest::Approx(16 * kChannel));
  CHECK(unsharded(kNode) == doctest::Approx(nccl("", kNode)));
  // A GPU without NVLink SHARP holds no NVLS buffers.
  const std::string no_nvls = R"({"gpus_per_node": 8, "gpus": [{"type": {"base": "h100",
      "id": "h100-no-nvls", "memory_reserve": {"nvls_channels": 0}}, "count": 8}]})";
  CHECK(nccl("", no_nvls) == doctest::Approx(nccl("", kNode) - 16 * 2 * kMiB * 8));
}

TEST_CASE("a strategy's NCCL buffers do not depend on the strategy priced before it") {
  // Each variant changes one input of the NCCL buffers (the GPU's channels included); priced after
  // any other, it holds its own bytes.
  const std::string two_nodes = R"({"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 16}]})";
  const std::string no_nvls = R"({"gpus_per_node": 8, "gpus": [{"type": {"base": "h100",
      "id": "h100-no-nvls", "memory_reserve": {"nvls_channels": 0}}, "count": 8}]})";
  const std::vector<std::pair<std::string, std::string>> variants = {
      {R"("zero_stage": 1)", kNode},
      {R"("zero_stage": 1)", two_nodes},
      {R"("zero_stage": 0)", two_nodes},
      {R"("zero_stage": 1)", no_nvls},
      {R"("zero_stage": 1, "tensor_model_parallel_size": 2)", kNode},
      {R"("zero_stage": 1, "context_parallel_size": 2)", kNode},
      {R"("zero_stage": 1, "pipeline_model_parallel_size": 2)", kNode},
      {R"("zero_stage": 1, "pipeline_model_parallel_size": 4)", kNode}};
  const auto nccl = [&](size_t i) {
    const Report r = run(kLlama8b, kTraining, variants[i].second,
                         R"({"use_flash_attn": true, )" + variants[i].first + "}");
    REQUIRE(!r.stages.empty());
    return r.stages.front().memory.reserve.nccl_buffers_bytes;
  };
  std::vector<double> alone;
  for (size_t i = 0; i < variants.size(); ++i) alone.push_back(nccl(i));
  // Each differs from the one before it (the checks below can tell a stale value).
  for (size_t i = 1; i < variants.size(); ++i) CHECK_MESSAGE(alone[i] != alone[i - 1], i);
  for (size_t before = 0; before < variants.size(); ++before) {
    for (size_t i = 0; i < variants.size(); ++i) {
      nccl(before);
      CHECK(nccl(i) == alone[i]);
    }
  }
}

TEST_CASE("tied embeddings are one table with one pipeline stage") {
  const std::string strategy = R"({"zero_stage": 1, "use_flash_attn": true})";
  const auto weights = [&](bool untie) {
    const std::string model = R"({"name": "m", "num_layers": 4, "hidden_size": 4096,
        "ffn_hidden_size": 11008, "num_attention_heads": 32, "vocab_size": 32000,
        "activation": "swiglu", "untie_embeddings_and_output_weights": )" +
                              std::string(untie ? "true" : "false") + "}";
    return run(model, kTraining, kNode, strategy).stages.front().memory.weights_bytes;
  };
  // The untied model holds a second 32000 x 4096 table (a multiple of 128: no padding), bf16.
  CHECK(weights(true) - weights(false) == doctest::Approx(2.0 * 32000 * 4096));
}

TEST_CASE("the vocabulary is padded to a multiple of 128 x tensor parallel") {
  const Scenario sc = test::scenario(R"({"model": "llama3-8b", "training": )" + kTraining +
                                     R"(, "cluster": )" + kNode + "}");
  Strategy s;
  s.tensor_model_parallel_size = 8;
  const detail::ModelCosts c =
      detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s);
  // 128256 -> 129024 (126 x 1024) rows, 1/8 each; Llama has no position table (rope).
  CHECK(c.embedding.parameters == doctest::Approx(4096.0 * 129024 / 8));
  CHECK(c.head.parameters == doctest::Approx(4096.0 * 129024 / 8 + 4096));
}

TEST_CASE("learned absolute position embeddings add a seq x hidden table on every TP rank") {
  const Scenario sc =
      test::scenario(R"({"model": )" + test::gpt_model(4, 1024, 16) + R"(, "training": )" +
                     kTraining + R"(, "cluster": )" + kNode + "}");
  Strategy s;
  s.tensor_model_parallel_size = 2;
  const detail::ModelCosts c =
      detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s);
  CHECK(c.embedding.parameters == doctest::Approx(1024.0 * 51200 / 2 + 1024.0 * 4096));
}

TEST_CASE("the cross-entropy holds 16-bit logits beside their fp32 copy: 6 bytes a logit") {
  const Scenario sc = test::scenario(R"({"model": "llama3-8b", "training": )" + kTraining +
                                     R"(, "cluster": )" + kNode + "}");
  Strategy s;
  s.tensor_model_parallel_size = 2;
  s.micro_batch_size = 2;
  const detail::ModelCosts c =
      detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s);
  CHECK(c.head.transient_bytes == doctest::Approx(6.0 * 2 * 4096 * 128256 / 2));
}

TEST_CASE("the loss's transient and a recomputed layer's working set are never held together") {
  // Full recompute: the last stage holds its checkpoints plus the larger of the loss's logits
  // (backward from the loss ends before the first layer is made again) and one layer made again.
  const auto activations = [](int64_t vocab) {
    const Report r = estimate(test::scenario(
        R"({"model": {"name": "t", "num_layers": 8, "hidden_size": 4096, "ffn_hidden_size": 14336,
            "num_attention_heads": 32, "num_query_groups": 8, "activation": "swiglu",
            "vocab_size": )" +
        std::to_string(vocab) + R"(}, "training": {"global_batch_size": 8, "seq_length": 4096},
            "cluster": {"gpus": [{"type": "h100", "count": 8}]},
            "strategy": {"micro_batch_size": 1, "recompute_granularity": "full",
                         "use_flash_attn": true}})"));
    REQUIRE(r.feasible);
    return r.stages[0].memory.activations_bytes;
  };
  // Small vocabularies: the recomputed layer is the larger; the logits add nothing.
  CHECK(activations(8192) == doctest::Approx(activations(4096)).epsilon(1e-12));
  // Large ones: the logits are; each logit adds its 6 bytes (16-bit logits and the fp32 copy).
  CHECK(activations(131072) - activations(65536) ==
        doctest::Approx(6.0 * 4096 * (131072 - 65536)).epsilon(1e-9));
}

TEST_CASE("fp8 keeps the attention output in 16 bits for the fused kernel's backward") {
  const auto layer = [](const std::string& precision) {
    const Scenario sc =
        test::scenario(R"({"model": "llama3-8b", "training": {"global_batch_size": 64,
            "seq_length": 4096, "precision": ")" +
                       precision + R"("}, "cluster": )" + kNode + "}");
    Strategy s;
    s.use_flash_attn = true;
    return detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s).dense;
  };
  const detail::LayerCost fp8 = layer("fp8"), bf16 = layer("bf16");
  // The output projection's input: 2 bytes in bf16, 1 in fp8, plus the kernel's 2-byte O.
  const double out = 4096.0 * 32 * 128;  // tokens x heads x head dim
  CHECK(fp8.unit(RecomputeModule::core_attn).saved_bytes -
            bf16.unit(RecomputeModule::core_attn).saved_bytes ==
        doctest::Approx(2 * out));
}

TEST_CASE("bf16 gradients and fp8 weights free memory and shorten the data-parallel sync") {
  const std::string cluster = R"({"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 16}]})";
  const std::string fp8 = R"({"global_batch_size": 64, "seq_length": 4096, "precision": "fp8"})";
  const std::string base = R"({"zero_stage": 1, "use_flash_attn": true)";
  const std::string bf16_weights = base + R"(, "fp8_param_gather": false)";
  const Report fp32_grads = run(kLlama8b, fp8, cluster, bf16_weights + "}");
  const Report bf16_grads =
      run(kLlama8b, fp8, cluster, bf16_weights + R"(, "grad_reduce_in_bf16": true})");
  const Report fp8_weights = run(kLlama8b, fp8, cluster, base + "}");  // fp8's default
  const StageMemory& a = fp32_grads.stages.front().memory;
  CHECK(bf16_grads.stages.front().memory.gradients_bytes == doctest::Approx(a.gradients_bytes / 2));
  CHECK(bf16_grads.time_breakdown.dp_comm_s < fp32_grads.time_breakdown.dp_comm_s);
  CHECK(fp8_weights.stages.front().memory.weights_bytes < a.weights_bytes);
  CHECK(fp8_weights.time_breakdown.dp_comm_s < fp32_grads.time_breakdown.dp_comm_s);
}

TEST_CASE("feasible compares the reserved peak with capacity; a thin margin warns") {
  // Llama 3 8B on one H100 node, TP1, no recompute: at sequence 4352 the live tensors fit in
  // the 79.18 GiB but the reserve does not; at 4224 it fits with 0.2 GiB to spare, inside the
  // default margin: tight, with a warning; with bf16 gradients it is comfortable.
  const auto at = [&](int seq, const std::string& extra) {
    return run(kLlama8b, R"({"global_batch_size": 48, "seq_length": )" + std::to_string(seq) + "}",
               kNode, R"({"zero_stage": 1, "use_flash_attn": true)" + extra + "}");
  };
  const Report over = at(4352, "");
  const StageMemory& m = over.stages.front().memory;
  CHECK(m.peak_allocated_bytes() < over.stages.front().capacity_bytes);
  CHECK(m.peak_bytes() > over.stages.front().capacity_bytes);
  CHECK_FALSE(over.feasible);
  CHECK_FALSE(over.memory_tight);
  const Report tight = at(4224, "");
  CHECK(tight.feasible);
  CHECK(tight.memory_tight);
  REQUIRE(tight.memory_warnings.size() == 1);
  CHECK(tight.memory_warnings.front().find("memory margin") != std::string::npos);
  const Report roomy = at(4224, R"(, "grad_reduce_in_bf16": true)");
  CHECK(roomy.feasible);
  CHECK_FALSE(roomy.memory_tight);
  CHECK(roomy.memory_warnings.empty());
}

TEST_CASE("activation offloading moves N layers' activations to host memory over the host link") {
  const std::string model = R"("llama2-7b")";  // 32 layers
  const std::string training = R"({"global_batch_size": 8, "seq_length": 4096})";
  const auto with = [&](int layers) {
    return run(model, training, kNode,
               R"({"tensor_model_parallel_size": 8, "use_flash_attn": true,
                   "cpu_offloading_num_layers": )" +
                   std::to_string(layers) + "}");
  };
  const Report none = with(0), sixteen = with(16);
  REQUIRE(none.feasible);
  REQUIRE(sixteen.feasible);
  const StageMemory& a = none.stages.front().memory;
  const StageMemory& b = sixteen.stages.front().memory;
  CHECK(a.host_bytes == 0);
  CHECK(none.time_breakdown.offload_s == 0);
  // Half the layers' activations leave the GPU, all of them at the peak (Transformer Engine
  // 2.10+: "(num_layers - num_offloaded_layers) * T").
  CHECK(b.host_bytes > 0);
  CHECK(a.activations_bytes - b.activations_bytes == doctest::Approx(b.host_bytes).epsilon(1e-6));
  CHECK(sixteen.iteration_time_s >= none.iteration_time_s);
  CHECK(sixteen.time_breakdown.offload_s ==
        doctest::Approx(sixteen.iteration_time_s - none.iteration_time_s).epsilon(1e-6));

  // A host too small for what is offloaded makes the strategy infeasible, with the reason.
  const Report small = run(model, training,
                           R"({"gpus": [{"type": {"base": "h100", "id": "h100-small-host",
                               "host": {"memory_gb_per_gpu": 0.001, "gb_per_s": 55}},
                               "count": 8}]})",
                           R"({"tensor_model_parallel_size": 8, "use_flash_attn": true,
                               "cpu_offloading_num_layers": 16})");
  CHECK_FALSE(small.feasible);
  REQUIRE_FALSE(small.infeasible_reasons.empty());
  CHECK(small.infeasible_reasons.back().find("of host memory per GPU") != std::string::npos);
  REQUIRE(small.infeasible_reason_ids.size() == small.infeasible_reasons.size());
  CHECK(small.infeasible_reason_ids.back() == kHostMemoryReason);
}

TEST_CASE("fine-grained offloading moves the chosen modules' saved tensors to host memory") {
  // llama2-7b: 32 layers, h 4096, 32 heads of 128 (no GQA); TP 8 without sequence parallelism:
  // each GPU holds 4096 tokens of the hidden state and 4 heads.
  const std::string model = R"("llama2-7b")";
  const std::string training = R"({"global_batch_size": 8, "seq_length": 4096})";
  const auto with = [&](const std::string& keys) {
    return run(model, training, kNode,
               R"({"tensor_model_parallel_size": 8, "use_flash_attn": true)" + keys + "}");
  };
  const double hidden = 2.0 * 4096 * 4096;  // one bf16 copy of the hidden state
  const double layers = 32;
  const auto check_moved = [&](const Report& kept, const Report& offloaded, double per_layer) {
    REQUIRE(kept.feasible);
    REQUIRE(offloaded.feasible);
    const StageMemory& a = kept.stages.front().memory;
    const StageMemory& b = offloaded.stages.front().memory;
    // Every layer's share goes to the host; one layer's stays on the GPU (the offload margin).
    CHECK(b.host_bytes == doctest::Approx(layers * per_layer).epsilon(1e-9));
    CHECK(a.activations_bytes - b.activations_bytes ==
          doctest::Approx((layers - 1) * per_layer).epsilon(1e-9));
    CHECK(offloaded.iteration_time_s >= kept.iteration_time_s);
    CHECK(offloaded.stages.front().host_copy_bytes > 0);
  };
  // qkv_linear: the fused norm-linear's input and its normed copy.
  check_moved(with(""), with(R"(, "offload_modules": ["qkv_linear"])"), 2 * hidden);
  // core_attn under core_attn recompute: Q, K and V only (the kernel's own is not kept anyway).
  const double qkv = 2.0 * 4096 * (4 + 2 * 4) * 128;
  const std::string selective =
      R"(, "recompute_granularity": "selective", "recompute_modules": ["core_attn"])";
  check_moved(with(selective), with(selective + R"(, "offload_modules": ["core_attn"])"), qkv);
  // Full recompute keeps only the layer inputs: nothing to offload.
  const std::string full = R"(, "recompute_granularity": "full")";
  const Report all = with(full + R"(, "offload_modules": ["qkv_linear", "core_attn"])");
  REQUIRE(all.feasible);
  CHECK(all.stages.front().memory.host_bytes == 0);
  CHECK(all.stages.front().memory.activations_bytes ==
        with(full).stages.front().memory.activations_bytes);
}

TEST_CASE("optimizer CPU offload: a share of the optimizer in host memory, stepped on the CPU") {
  const std::string model = R"("llama2-7b")";
  const std::string training = R"({"global_batch_size": 8, "seq_length": 4096})";
  const std::string base = R"({"tensor_model_parallel_size": 2, "use_flash_attn": true,
      "zero_stage": 1, "use_precision_aware_optimizer": true)";
  const auto with = [&](const std::string& keys) {
    return run(model, training, kNode, base + keys + "}");
  };
  const Report none = with("");
  const Report all =
      with(R"(, "optimizer_cpu_offload": true, "overlap_cpu_optimizer_d2h_h2d": true)");
  const Report half = with(R"(, "optimizer_cpu_offload": true, "optimizer_offload_fraction": 0.5,
      "overlap_cpu_optimizer_d2h_h2d": true)");
  const Report serial = with(R"(, "optimizer_cpu_offload": true)");
  REQUIRE(none.feasible);
  REQUIRE(all.feasible);
  const StageReport& a = none.stages.front();
  Strategy strategy;
  strategy.use_precision_aware_optimizer = true;
  const detail::ParameterBytes bytes = detail::parameter_bytes(Precision::bf16, strategy);
  const double shard = a.memory.optimizer_bytes / bytes.optimizer;  // this GPU's parameters
  CHECK(all.stages.front().memory.optimizer_bytes == 0);
  CHECK(half.stages.front().memory.optimizer_bytes ==
        doctest::Approx(a.memory.optimizer_bytes / 2).epsilon(1e-9));
  // fp32 parameter, gradient and two moments on the host.
  CHECK(all.stages.front().memory.host_bytes == doctest::Approx(16 * shard).epsilon(1e-9));
  CHECK(half.stages.front().memory.host_bytes == doctest::Approx(8 * shard).epsilon(1e-9));
  // fp32 gradients out, fp32 parameters back.
  CHECK(a.host_copy_bytes == 0);
  CHECK(all.stages.front().host_copy_bytes == doctest::Approx(8 * shard).epsilon(1e-9));
  // The CPU's AdamW streams 28 bytes a parameter at 80% of the host's 76.8 GB/s; with the copies
  // overlapped it replaces the GPU's step.
  const GpuSpec gpu = test::scenario(R"({"model": "llama2-7b", "training": )" + training +
                                     R"(, "cluster": )" + kNode + "}")
                          .cluster.pools.front()
                          .gpu;
  const double cpu_s = 28 * shard / (0.8 * 76.8e9);
  const double gpu_step_s = detail::memory_bound_s(gpu, bytes.optimizer_step * shard);
  CHECK(all.stages.front().optimizer_s - a.optimizer_s ==
        doctest::Approx(cpu_s - gpu_step_s).epsilon(1e-6));
  // Without the overlap the copies come before and after the CPU step, over 55 GB/s.
  CHECK(serial.stages.front().optimizer_s - all.stages.front().optimizer_s ==
        doctest::Approx(8 * shard / 55e9).epsilon(1e-6));
  CHECK(all.time_breakdown.optimizer_s > none.time_breakdown.optimizer_s);
}

TEST_CASE("the CPU optimizer streams at the preset's host.cpu_stream_efficiency (default 0.8)") {
  const std::string training = R"({"global_batch_size": 8, "seq_length": 4096})";
  const std::string strategy = R"({"tensor_model_parallel_size": 2, "use_flash_attn": true,
      "zero_stage": 1, "use_precision_aware_optimizer": true, "optimizer_cpu_offload": true,
      "overlap_cpu_optimizer_d2h_h2d": true})";
  const auto on = [&](const std::string& gpu) {
    return run(R"("llama2-7b")", training,
               R"({"gpus_per_node": 8, "gpus": [{"type": )" + gpu + R"(, "count": 8}]})", strategy);
  };
  const Report preset = on(R"("h100")");
  const Report slow = on(R"({"id": "h100-slow-stream", "base": "h100",
      "host": {"cpu_stream_efficiency": 0.4}})");
  REQUIRE(preset.feasible);
  REQUIRE(slow.feasible);
  // Every parameter of the GPU's shard on the host: 16 bytes of it there (fp32 parameter,
  // gradient, two moments); the CPU step streams 28 bytes of each over 76.8 GB/s.
  const double shard = preset.stages.front().memory.host_bytes / 16;
  const double cpu_s_at_default = 28 * shard / (0.8 * 76.8e9);
  // Half the efficiency, twice the CPU step, which the overlapped copies hide under.
  CHECK(slow.stages.front().optimizer_s - preset.stages.front().optimizer_s ==
        doctest::Approx(cpu_s_at_default).epsilon(1e-6));
}

TEST_CASE("recompute modules: MLA's Q, K, V and the experts' activation output made again") {
  // A small MLA MoE model (DeepSeek-V3's shapes, fewer layers and experts), TP 1.
  const Scenario sc = test::scenario(R"({"model": {"name": "mla-moe", "num_layers": 4,
      "hidden_size": 7168, "ffn_hidden_size": 18432, "num_attention_heads": 128,
      "num_query_groups": 128, "vocab_size": 129280, "activation": "swiglu", "kv_channels": 128,
      "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 2048},
      "multi_latent_attention": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_head_dim": 128,
                                 "qk_pos_emb_head_dim": 64, "v_head_dim": 128}},
      "training": {"global_batch_size": 8, "seq_length": 4096},
      "cluster": {"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 8}]}})");
  Strategy s = complete_strategy(sc);
  s.use_flash_attn = true;
  s.moe_grouped_gemm = true;
  s.expert_model_parallel_size = 8;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const detail::LayerCost layer =
      detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s).moe;
  // Q and K of 128 + 64 and V of 128 per head, bf16, over 4096 tokens.
  CHECK(layer.unit(RecomputeModule::mla_up_proj).saved_bytes ==
        doctest::Approx(2.0 * 4096 * 128 * (192 + 192 + 128)));
  CHECK(layer.unit(RecomputeModule::mla_up_proj).forward.compute_s > 0);
  CHECK(layer.unit(RecomputeModule::moe_act).saved_bytes > 0);
  CHECK(layer.unit(RecomputeModule::mlp).saved_bytes == 0);  // no dense MLP in a MoE layer

  Estimator estimator(sc.model, sc.training, sc.cluster);
  s.recompute[0].granularity = RecomputeGranularity::selective;
  const Report core = estimator.estimate(s);
  const auto bit = [](RecomputeModule m) { return 1u << static_cast<unsigned>(m); };
  s.recompute[0].modules = bit(RecomputeModule::core_attn) | bit(RecomputeModule::mla_up_proj) |
                           bit(RecomputeModule::moe_act);
  const Report lean = estimator.estimate(s);
  REQUIRE(core.feasible);
  REQUIRE(lean.feasible);
  const double saved = 4 * (layer.unit(RecomputeModule::mla_up_proj).saved_bytes +
                            layer.unit(RecomputeModule::moe_act).saved_bytes);
  const double in_flight = core.stages[0].in_flight_micro_batches;
  CHECK(core.stages[0].memory.activations_bytes - lean.stages[0].memory.activations_bytes ==
        doctest::Approx(in_flight * saved));
  CHECK(lean.stages[0].recompute_s > core.stages[0].recompute_s);
  // The whole MoE layer recomputed keeps less still, and includes the experts' activation.
  s.recompute[0].modules = bit(RecomputeModule::moe) | bit(RecomputeModule::moe_act);
  const Report whole = estimator.estimate(s);
  s.recompute[0].modules = bit(RecomputeModule::moe);
  CHECK(estimator.estimate(s).stages[0].memory.activations_bytes ==
        doctest::Approx(whole.stages[0].memory.activations_bytes));
  CHECK(whole.stages[0].memory.activations_bytes < core.stages[0].memory.activations_bytes);
}

TEST_CASE("recompute modules: layernorm drops the outputs of the norms outside a fused linear") {
  // Transformer Engine fuses the norm before attention and before a dense MLP into the next
  // linear (IdentityOp norms); MLA's input norm and the pre-MLP norm before a router stand alone.
  const std::string cluster = R"({"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 8}]})";
  const auto layers = [&](const std::string& model, const std::string& precision) {
    const Scenario sc = test::scenario(R"({"model": )" + model +
                                       R"(, "training": {"global_batch_size": 8, "seq_length": 4096,
        "precision": ")" + precision + R"("}, "cluster": )" +
                                       cluster + "}");
    Strategy s = complete_strategy(sc);
    s.use_flash_attn = true;
    return detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s);
  };
  const auto saved = [](const detail::LayerCost& l) {
    return l.unit(RecomputeModule::layernorm).saved_bytes;
  };
  const double norm_output = 4096.0 * 2880;  // elements of one norm's output, TP 1
  const detail::ModelCosts oss = layers(R"("gpt-oss-120b")", "bf16");
  CHECK(saved(oss.dense) == 0);
  CHECK(saved(oss.moe) == doctest::Approx(2 * norm_output));
  CHECK(oss.moe.unit(RecomputeModule::layernorm).forward.compute_s > 0);
  // In fp8 the next GEMM keeps its input in fp8: one byte an element.
  CHECK(saved(layers(R"("gpt-oss-120b")", "fp8").moe) == doctest::Approx(norm_output));
  const detail::ModelCosts v3 = layers(R"("deepseek-v3")", "bf16");
  CHECK(saved(v3.dense) == doctest::Approx(2.0 * 4096 * 7168));    // MLA's input norm
  CHECK(saved(v3.moe) == doctest::Approx(2 * 2.0 * 4096 * 7168));  // and the pre-MLP norm
  CHECK(saved(layers(R"("llama3-8b")", "bf16").dense) == 0);

  // Megatron-Bridge v0.2.0's GPT-OSS 120B recipe on 64 H100 (scripts/performance/configs/
  // gpt_oss: PP 4, EP 8, ETP 1, micro-batch 1, recompute_modules ["layernorm", "moe_act"],
  // distributed optimizer, forced balancing) is accepted and fits.
  const std::string recipe = R"({"model": "gpt-oss-120b", "training": {"global_batch_size": 512,
      "seq_length": 4096}, "cluster": {"gpus_per_node": 8, "gpus": [{"type": "h100",
      "count": 64}]}, "strategy": {"pipeline_model_parallel_size": 4,
      "expert_model_parallel_size": 8, "expert_tensor_parallel_size": 1, "micro_batch_size": 1,
      "use_flash_attn": true, "moe_grouped_gemm": true, "moe_permute_fusion": true,
      "moe_token_dispatcher_type": "alltoall", "zero_stage": 1,
      "moe_router_force_load_balancing": true, "recompute_granularity": "selective",
      "recompute_modules": )";
  const Report lean = estimate(test::scenario(recipe + R"(["layernorm", "moe_act"]}})"));
  const Report act = estimate(test::scenario(recipe + R"(["moe_act"]}})"));
  REQUIRE(lean.feasible);
  const StageReport& stage = lean.stages[0];
  CHECK(act.stages[0].memory.activations_bytes - stage.memory.activations_bytes ==
        doctest::Approx(stage.in_flight_micro_batches * 9 * 2 * norm_output).epsilon(1e-6));
  CHECK(stage.recompute_s > act.stages[0].recompute_s);
}

TEST_CASE("MindSpeed's parameter-copy reuse saves 2 bytes a parameter of the optimizer's shard") {
  // docs/features/reuse-fp32-param.md: sizeof(bfloat16) x parameters without the distributed
  // optimizer, x parameters / DP with it; the experts' shard is over expert-data parallelism.
  // A MoE model on 16 GPUs at expert parallel 4: data parallel 16, expert-data parallel 4.
  const std::string model = R"({"name": "moe", "num_layers": 4, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "num_query_groups": 4,
      "vocab_size": 32000, "activation": "swiglu",
      "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 1024}})";
  const std::string training = R"({"global_batch_size": 64, "seq_length": 2048})";
  const std::string cluster = R"({"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 16}]})";
  const auto with = [&](int zero, bool reuse) {
    const std::string strategy = R"({"expert_model_parallel_size": 4, "use_flash_attn": true,
        "zero_stage": )" + std::to_string(zero) +
                                 R"(, "reuse_fp32_param": )" + (reuse ? "true" : "false") + "}";
    return estimate(test::scenario(R"({"model": )" + model + R"(, "training": )" + training +
                                   R"(, "cluster": )" + cluster + R"(, "strategy": )" + strategy +
                                   R"(, "framework": "mindspeed-llm"})"));
  };
  // This GPU's parameters: the 16-bit weights, 2 bytes each; the routed experts' share.
  const Scenario sc =
      test::scenario(R"({"model": )" + model + R"(, "training": )" + training + R"(, "cluster": )" +
                     cluster + R"(, "strategy": {"expert_model_parallel_size": 4}})");
  const double experts =
      4 * detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8,
                                      complete_strategy(sc))
              .moe.expert_parameters;
  REQUIRE(experts > 0);
  for (const int zero : {0, 1}) {
    CAPTURE(zero);
    const Report off = with(zero, false);
    const Report on = with(zero, true);
    REQUIRE(off.feasible);
    REQUIRE(on.feasible);
    const StageMemory& a = off.stages.front().memory;
    const StageMemory& b = on.stages.front().memory;
    const double parameters = a.weights_bytes / 2;
    REQUIRE(parameters > experts);
    const double saved =
        zero == 0 ? 2 * parameters : 2 * ((parameters - experts) / 16 + experts / 4);
    CHECK(a.optimizer_bytes - b.optimizer_bytes == doctest::Approx(saved).epsilon(1e-12));
    CHECK(b.optimizer_bytes == doctest::Approx(a.optimizer_bytes * 10 / 12).epsilon(1e-12));
    CHECK(b.weights_bytes == a.weights_bytes);
    CHECK(b.gradients_bytes == a.gradients_bytes);
    CHECK(b.activations_bytes == a.activations_bytes);
    CHECK(b.peak_allocated_bytes() == doctest::Approx(a.peak_allocated_bytes() - saved));
    // The conversions around the step replace the master-to-weight copy: 64 bytes of HBM
    // traffic a parameter of the shard instead of 6.
    const double shard = a.optimizer_bytes / 12;
    Strategy plain, reusing;
    reusing.reuse_fp32_param = true;
    const double step_off = detail::parameter_bytes(Precision::bf16, plain).optimizer_step;
    const double step_on = detail::parameter_bytes(Precision::bf16, reusing).optimizer_step;
    CHECK(step_on - step_off == 64 - 6);
    const GpuSpec& gpu = sc.cluster.pools.front().gpu;
    CHECK(on.stages.front().optimizer_s - off.stages.front().optimizer_s ==
          doctest::Approx(detail::memory_bound_s(gpu, step_on * shard) -
                          detail::memory_bound_s(gpu, step_off * shard))
              .epsilon(1e-9));
  }
}

TEST_CASE("parameter-copy reuse: the fp32 master is the bf16 weight and a 16-bit residual") {
  using detail::parameter_bytes;
  Strategy s;
  s.reuse_fp32_param = true;
  detail::ParameterBytes b = parameter_bytes(Precision::bf16, s);
  CHECK(b.optimizer == 2 + 8);
  CHECK(b.layer_weight == 2);
  // Adam reads and writes the whole fp32 value and the moments; the conversions before and after
  // the step (64 bytes) replace the master-to-weight copy (6).
  CHECK(b.optimizer_step == 4 + (8 + 16 + 4) + 64);
  // fp8 training keeps bf16 weights unless they are fp8 themselves.
  CHECK(parameter_bytes(Precision::fp8, s).optimizer == 10);
  s.fp8_param_gather = true;
  CHECK(parameter_bytes(Precision::fp8, s).optimizer == 12);
  // No bf16 weights in fp16 training, and no fp32 copy of Megatron-LM's with the precision-aware
  // optimizer (the rulebook rules both out): nothing changes.
  s = Strategy{};
  s.reuse_fp32_param = true;
  CHECK(parameter_bytes(Precision::fp16, s).optimizer == 12);
  s.use_precision_aware_optimizer = true;
  Strategy aware;
  aware.use_precision_aware_optimizer = true;
  CHECK(parameter_bytes(Precision::bf16, s).optimizer ==
        parameter_bytes(Precision::bf16, aware).optimizer);
}
