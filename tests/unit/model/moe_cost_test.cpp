// Mixture-of-experts costs as Megatron-Core runs them: token dispatchers, expert tensor
// parallelism and folding, grouped GEMMs, load imbalance, shared-expert and all-to-all overlap,
// multi-token prediction and multi-latent attention (docs/model.md, "MoE").
#include <doctest/doctest.h>

#include <cmath>
#include <tuple>

#include "model/collectives.hpp"
#include "model/host_time.hpp"
#include "model/layer_cost.hpp"
#include "model/moe_dispatch.hpp"
#include "model/pipeline_model.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// 8 experts of 1024, top-2, no dropout, no biases: h 1024, 16 heads (8 groups).
std::string moe_model(int experts = 8, int top_k = 2, int shared = 0, int mtp = 0) {
  return R"({"name": "moe", "num_layers": 8, "hidden_size": 1024, "ffn_hidden_size": 4096,
      "num_attention_heads": 16, "num_query_groups": 8, "vocab_size": 32000,
      "activation": "swiglu", "mtp_num_layers": )" +
         std::to_string(mtp) + R"(, "moe": {"num_experts": )" + std::to_string(experts) +
         R"(, "top_k": )" + std::to_string(top_k) +
         R"(, "moe_ffn_hidden_size": 1024, "num_shared_experts": )" + std::to_string(shared) + "}}";
}

Scenario job(const std::string& model, int gpus = 64, const std::string& gpu = "h100") {
  return test::scenario(R"({"model": )" + model +
                        R"(, "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": ")" +
                        gpu + R"(", "count": )" + std::to_string(gpus) + "}]}}");
}

// Multi-latent attention: 4096 hidden, 32 heads, latent ranks 768 (Q) and 256 (KV).
const std::string kMla = R"({"name": "mla", "num_layers": 4, "hidden_size": 4096,
    "ffn_hidden_size": 8192, "num_attention_heads": 32, "vocab_size": 32000,
    "activation": "swiglu", "kv_channels": 128, "multi_latent_attention": {"q_lora_rank": 768,
    "kv_lora_rank": 256, "qk_head_dim": 128, "qk_pos_emb_head_dim": 64, "v_head_dim": 128}})";

Strategy base() {
  Strategy s;
  s.use_flash_attn = true;
  s.moe_router_force_load_balancing = true;
  return s;
}

detail::ModelCosts costs(const Scenario& sc, const Strategy& s, int64_t gpus_per_node = 8) {
  return detail::compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, gpus_per_node,
                                     s);
}

double comm_s(const detail::PassTime& p) { return p.tp_comm_s + p.ep_comm_s; }

}  // namespace

TEST_CASE("a token reaches the expected number of distinct ranks (picks without replacement)") {
  // DeepSeek-V3: 256 experts, top-8, over 64 ranks of 4 experts each.
  double miss = 1;
  for (int i = 0; i < 8; ++i) miss *= (252.0 - i) / (256.0 - i);
  CHECK(detail::distinct_destinations(256, 8, 64) == doctest::Approx(64 * (1 - miss)));
  CHECK(detail::distinct_destinations(256, 8, 1) == 1);
  CHECK(detail::distinct_destinations(8, 8, 8) == doctest::Approx(8));  // every rank
  CHECK(detail::distinct_destinations(8, 1, 8) == doctest::Approx(1));
}

TEST_CASE("load imbalance: none without expert parallelism or with forced balancing") {
  const Scenario sc = job(moe_model());
  Strategy s = base();
  s.moe_router_force_load_balancing = false;
  CHECK(detail::expert_load_imbalance(sc.model, s) == 1);
  s.expert_model_parallel_size = 8;  // one expert per rank: the per-expert MaxVio itself
  CHECK(detail::expert_load_imbalance(sc.model, s) == doctest::Approx(1.52));
  s.expert_model_parallel_size = 2;  // four experts per rank average out
  CHECK(detail::expert_load_imbalance(sc.model, s) ==
        doctest::Approx(1 + 0.52 * std::sqrt(std::log(2.0) / std::log(8.0)) / 2));
  s.moe_router_force_load_balancing = true;
  CHECK(detail::expert_load_imbalance(sc.model, s) == 1);
  // Loss-free balancing by expert bias (DeepSeek-V3): MaxVio 0.04.
  Scenario biased = sc;
  biased.model.moe->moe_router_enable_expert_bias = true;
  s.moe_router_force_load_balancing = false;
  s.expert_model_parallel_size = 8;
  CHECK(detail::expert_load_imbalance(biased.model, s) == doctest::Approx(1.04));
}

TEST_CASE(
    "token dropping caps the busiest rank at the capacity; padding fills every expert to it") {
  // Megatron-LM --moe-expert-capacity-factor (moe_utils.py get_capacity) and
  // --moe-pad-expert-input-to-capacity (token_dispatcher.py drop_and_pad).
  const Scenario sc = job(moe_model());
  Strategy s = base();
  s.moe_router_force_load_balancing = false;
  s.expert_model_parallel_size = 8;  // dropless: MaxVio 0.52 on one expert per rank
  s.moe_expert_capacity_factor = 1.0;
  CHECK(detail::expert_load_imbalance(sc.model, s) == doctest::Approx(1.0));
  s.moe_expert_capacity_factor = 2.0;  // above the dropless imbalance: nothing dropped
  CHECK(detail::expert_load_imbalance(sc.model, s) == doctest::Approx(1.52));
  s.moe_pad_expert_input_to_capacity = true;  // padded to the capacity, balanced or not
  CHECK(detail::expert_load_imbalance(sc.model, s) == doctest::Approx(2.0));
  s.moe_router_force_load_balancing = true;
  CHECK(detail::expert_load_imbalance(sc.model, s) == doctest::Approx(2.0));
  s.expert_model_parallel_size = 1;
  CHECK(detail::expert_load_imbalance(sc.model, s) == doctest::Approx(2.0));
  s.moe_pad_expert_input_to_capacity = false;
  CHECK(detail::expert_load_imbalance(sc.model, s) == 1);
}

TEST_CASE(
    "padded to capacity, the all-to-all dispatcher has no host sync and graphs take the experts") {
  const Scenario sc = job(moe_model());
  Strategy s = base();
  s.expert_model_parallel_size = 8;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  CHECK(costs(sc, s).moe.host.syncs);
  s.moe_expert_capacity_factor = 1.0;
  CHECK(costs(sc, s).moe.host.syncs);  // dropping without padding: the splits vary
  s.moe_pad_expert_input_to_capacity = true;
  CHECK_FALSE(costs(sc, s).moe.host.syncs);
  s.cuda_graph_impl = CudaGraphImpl::local;
  CHECK(detail::graph_captures(s, detail::HostRegion::moe_experts));
  s.moe_pad_expert_input_to_capacity = false;
  CHECK_FALSE(detail::graph_captures(s, detail::HostRegion::moe_experts));
  // The moe scope (drop-and-pad only) captures the whole MoE block.
  s.moe_pad_expert_input_to_capacity = true;
  s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
  s.cuda_graph_scope = 1u << static_cast<unsigned>(CudaGraphScope::moe);
  for (const auto region : {detail::HostRegion::moe_router, detail::HostRegion::moe_preprocess,
                            detail::HostRegion::moe_experts, detail::HostRegion::shared_experts}) {
    CHECK(detail::graph_captures(s, region));
  }
  CHECK_FALSE(detail::graph_captures(s, detail::HostRegion::attention));
}

TEST_CASE("the busiest rank's experts set the pace: compute grows with the imbalance") {
  const Scenario sc = job(moe_model());
  Strategy s = base();
  s.expert_model_parallel_size = 8;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const detail::LayerCost balanced = costs(sc, s).moe;
  s.moe_router_force_load_balancing = false;
  const detail::LayerCost skewed = costs(sc, s).moe;
  CHECK(skewed.backward.compute_s > balanced.backward.compute_s * 1.1);
  CHECK(skewed.activation_bytes > balanced.activation_bytes);
}

TEST_CASE("rows per GPU by dispatcher: gathered over ETP x EP, or top-k copies over EP") {
  const Scenario sc = job(moe_model());
  const GpuSpec& gpu = sc.cluster.pools[0].gpu;
  const double n = 1024;  // tokens this GPU holds
  Strategy s = base();
  s.tensor_model_parallel_size = 8;  // ETP = TP = 8, EP 1: every GPU runs all experts' slices
  detail::MoeDispatch d = detail::moe_dispatch(gpu, sc.model, s, 8, n, 2);
  CHECK(d.expert_rows == doctest::Approx(n * 2 * 8));
  CHECK(d.unpermute_out_rows == doctest::Approx(n * 8));
  // allgather: the group's un-duplicated tokens with their probs and routing map, then back.
  const detail::Group group = detail::place_group(8, 1, 8);
  CHECK(d.dispatch_s ==
        doctest::Approx(detail::all_gather_s(gpu, group, n * 8 * (2 * 1024 + 8 * (2 + 1)))));
  CHECK(d.combine_s == doctest::Approx(detail::reduce_scatter_s(gpu, group, n * 8 * 2 * 1024)));
  // alltoall with ETP 1 and EP 8: top-k copies over the experts' ranks, no gather.
  s.tensor_model_parallel_size = 1;
  s.expert_model_parallel_size = 8;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  d = detail::moe_dispatch(gpu, sc.model, s, 8, n, 2);
  CHECK(d.expert_rows == doctest::Approx(n * 2));
  CHECK(d.unpermute_in_rows == doctest::Approx(n * 2));
  CHECK(d.dispatch_s ==
        doctest::Approx(detail::all_to_all_s(gpu, detail::place_group(8, 1, 8), n * 2 * 2048)));
}

TEST_CASE("the alltoall dispatcher sorts back by source rank every row it sorted by expert") {
  // token_dispatcher.py: dispatch_postprocess sorts the received rows by local expert, and
  // combine_preprocess sorts the experts' output back ("Unpermutation 2") before the combine.
  const Scenario sc = job(moe_model(16, 2));
  const GpuSpec& gpu = sc.cluster.pools[0].gpu;
  const double n = 1024;
  Strategy s = base();
  s.expert_model_parallel_size = 8;  // two local experts
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  detail::MoeDispatch d = detail::moe_dispatch(gpu, sc.model, s, 8, n, 2);
  CHECK(d.unsorted_rows == doctest::Approx(d.expert_rows));
  CHECK(d.permuted_rows == doctest::Approx(d.unpermute_in_rows + d.unsorted_rows));
  // Priced as a copy of those rows each way: the block's compute carries it forward and backward.
  const detail::LayerCost with_sort = costs(sc, s).moe;
  s.expert_model_parallel_size = 16;  // one local expert: nothing to sort
  d = detail::moe_dispatch(gpu, sc.model, s, 8, n, 2);
  CHECK(d.unsorted_rows == 0);
  CHECK(d.permuted_rows == doctest::Approx(d.unpermute_in_rows));
  CHECK(with_sort.forward.compute_s > costs(sc, s).moe.forward.compute_s);
}

TEST_CASE("the allgather dispatcher moves un-duplicated tokens: cheaper than top-k copies") {
  const Scenario sc = job(moe_model(8, 4));
  Strategy s = base();
  s.tensor_model_parallel_size = 8;
  s.sequence_parallel = true;
  const detail::LayerCost allgather = costs(sc, s).moe;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;  // ETP 8: AG/RS of top-4 copies
  const detail::LayerCost alltoall = costs(sc, s).moe;
  CHECK(comm_s(allgather.forward) < comm_s(alltoall.forward));
}

TEST_CASE("MoE parallel folding: EP 8 with ETP 1 inside the node beats experts split by TP 8") {
  // A 64-expert top-2 MoE on one H100 node, attention at TP 8 in both.
  const Scenario sc = job(moe_model(64, 2), 8);
  Strategy s = base();
  s.tensor_model_parallel_size = 8;
  s.sequence_parallel = true;
  s.moe_grouped_gemm = true;
  s.expert_model_parallel_size = 1;  // experts split 8 ways, every GPU runs all 64
  const detail::LayerCost split = costs(sc, s).moe;
  s.expert_model_parallel_size = 8;
  s.expert_tensor_parallel_size = 1;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const detail::LayerCost folded = costs(sc, s).moe;
  CHECK(folded.forward.total_s() + folded.backward.total_s() <
        split.forward.total_s() + split.backward.total_s());
  // Same expert weights per GPU either way: 64 experts / 8.
  CHECK(folded.expert_parameters == doctest::Approx(split.expert_parameters));
}

TEST_CASE("a grouped GEMM over many small experts beats one GEMM per expert") {
  const Scenario sc = job(moe_model(64, 2));
  Strategy s = base();
  const detail::LayerCost sequential = costs(sc, s).moe;
  s.moe_grouped_gemm = true;
  const detail::LayerCost grouped = costs(sc, s).moe;
  CHECK(grouped.forward.compute_s < sequential.forward.compute_s);
  CHECK(grouped.backward.compute_s < sequential.backward.compute_s);
  CHECK(grouped.activation_bytes == doctest::Approx(sequential.activation_bytes));
}

TEST_CASE(
    "fp8 experts copy their rows to pad each expert's to the GEMMs' alignment, unless the "
    "dispatcher padded them or every expert's rows are aligned") {
  // Megatron-Core experts.py TEGroupedMLP: quantization_padding and quantization_unpadding
  // (Transformer Engine Fp8Padding, Fp8Unpadding: a copy unless every split is aligned).
  const Scenario sc = test::scenario(R"({"model": )" + moe_model() +
                                     R"(, "training": {"global_batch_size": 64,
      "seq_length": 4096, "precision": "fp8"},
      "cluster": {"gpus": [{"type": "h100", "count": 64}]}})");
  const GpuSpec& gpu = sc.cluster.pools[0].gpu;
  Strategy s = base();
  s.expert_model_parallel_size = 8;
  s.moe_grouped_gemm = true;
  s.fp8_recipe = Fp8Recipe::tensorwise;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const auto moe = [&](double capacity_factor) {
    s.moe_expert_capacity_factor = capacity_factor;
    s.moe_pad_expert_input_to_capacity = capacity_factor > 0;
    return costs(sc, s).moe;
  };
  // Balanced and dropless, or padded to a capacity of exactly the balanced share (1024 rows from
  // each of the 8 ranks: aligned): the same 4096 x 2 rows on each GPU's experts. Dropless, the
  // routed counts are not aligned: the input rows (h 1024, bf16) and their fp32 probs are
  // copied in, the output rows out, and their gradients back.
  const double rows = 4096 * 2;
  const double copies_s = 2 * detail::memory_bound_s(gpu, 2 * 2 * 1024 * rows) +
                          detail::memory_bound_s(gpu, 2 * 4 * rows);
  const detail::LayerCost dropless = moe(0);
  const detail::LayerCost padded = moe(1);
  CHECK(dropless.forward.compute_s - padded.forward.compute_s == doctest::Approx(copies_s));
  CHECK(dropless.backward.compute_s - padded.backward.compute_s == doctest::Approx(copies_s));
  // HybridEP pads its dispatch to the alignment (token_dispatcher.py pad_multiple).
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  s.moe_flex_dispatcher_backend = MoeFlexBackend::hybridep;
  CHECK(moe(0).forward.compute_s == doctest::Approx(moe(1).forward.compute_s));
}

TEST_CASE(
    "SequentialMLP's forward waits for the host to issue each expert; its layer's backward "
    "does not, its stage's backward does when the loops outlast it") {
  // 64 experts of 128 rows per micro-batch: a few us of GPU work each, far less than the
  // host's 187 us to issue one (the h100 preset takes hardware.hpp's default).
  const double kHostForwardS = HostIssueCost{}.sequential_mlp_expert_forward_s;
  const double kHostBackwardS = HostIssueCost{}.sequential_mlp_expert_backward_s;
  const Scenario sc = job(moe_model(64, 2));
  Strategy s = base();
  const detail::LayerCost sequential = costs(sc, s).moe;
  CHECK(sequential.forward.compute_s >= 64 * kHostForwardS);
  CHECK(sequential.backward.compute_s < 64 * kHostForwardS);
  // The stage's backward (8 layers, the LM head's included) takes at least the host's time to
  // issue the 8 loops' backward, which is longer than the GPU's work there.
  const Report report = Estimator(sc.model, sc.training, sc.cluster).estimate(s);
  REQUIRE(report.feasible);
  CHECK(report.stages[0].backward_s >= 8 * 64 * kHostBackwardS);
  CHECK(sequential.backward.compute_s < 64 * kHostBackwardS);
  // One expert per GPU runs without the loop (experts.py): as fast as a grouped GEMM of one.
  s.expert_model_parallel_size = 64;
  const double alone_s = costs(sc, s).moe.forward.compute_s;
  s.moe_grouped_gemm = true;
  CHECK(alone_s == doctest::Approx(costs(sc, s).moe.forward.compute_s));
}

TEST_CASE(
    "SequentialMLP's host time per expert is the GPU preset's "
    "host.sequential_mlp_expert_forward_us and _backward_us (default 187 and 320)") {
  const Scenario preset = job(moe_model(64, 2));
  const Scenario slow =
      test::scenario(R"({"model": )" + moe_model(64, 2) +
                     R"(, "training": {"global_batch_size": 64, "seq_length": 4096},
      "cluster": {"gpus": [{"type": {"id": "h100-slow-host", "base": "h100", "host":
          {"sequential_mlp_expert_forward_us": 374, "sequential_mlp_expert_backward_us": 640}},
          "count": 64}]}})");
  const HostIssueCost& issue = preset.cluster.pools[0].gpu.host_issue;
  CHECK(issue.sequential_mlp_expert_forward_s == 187e-6);
  CHECK(issue.sequential_mlp_expert_backward_s == 320e-6);
  const Strategy s = base();
  const detail::LayerCost at_preset = costs(preset, s).moe;
  const detail::LayerCost at_slow = costs(slow, s).moe;
  // 64 local experts; the forward waits for the host (its GPU work is far shorter), so twice
  // the host's time per expert adds 64 x 187 us to it; the backward's loop is the host's alone.
  CHECK(at_slow.forward.compute_s - at_preset.forward.compute_s ==
        doctest::Approx(64 * 187e-6).epsilon(1e-9));
  CHECK(at_preset.expert_loop_host_backward_s == doctest::Approx(64 * 320e-6).epsilon(1e-12));
  CHECK(at_slow.expert_loop_host_backward_s == doctest::Approx(64 * 640e-6).epsilon(1e-12));
}

TEST_CASE("MoE activations: the experts' rows and the router's scores, not the unpermute's") {
  // No tensor parallel: alltoall over EP 2, forced balance. Beyond a dense layer's MLP
  // (2 x 2 f + 2 f bytes per token for SwiGLU), a MoE layer keeps per token: k rows through
  // the experts' MLP, their fc1 input (2h each), and fp32 scores plus a routing map per expert
  // (5 bytes). The probs weight the activation, so the unpermute keeps no input.
  const Scenario sc = job(moe_model(8, 2));
  Strategy s = base();
  s.expert_model_parallel_size = 2;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const detail::ModelCosts c = costs(sc, s);
  const double tokens = 4096, h = 1024, f = 4096, fe = 1024, k = 2, experts = 8;
  const double expected =
      6 * tokens * k * fe + 2 * h * tokens * k + 5 * tokens * experts - 6 * tokens * f;
  CHECK(c.moe.activation_bytes - c.dense.activation_bytes ==
        doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("shared experts: their own collectives, hidden under the dispatch when overlapped") {
  const Scenario sc = job(moe_model(8, 2, 1));
  Strategy s = base();
  s.tensor_model_parallel_size = 2;
  s.sequence_parallel = true;
  s.expert_model_parallel_size = 4;
  s.expert_tensor_parallel_size = 1;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const detail::LayerCost serial = costs(sc, s).moe;
  s.moe_shared_expert_overlap = true;
  const detail::LayerCost overlapped = costs(sc, s).moe;
  CHECK(comm_s(overlapped.forward) < comm_s(serial.forward));
  CHECK(overlapped.forward.total_s() < serial.forward.total_s());
  // A shared expert adds its tensor-parallel all-gather and reduce-scatter.
  const detail::LayerCost without = costs(job(moe_model(8, 2, 0)), s).moe;
  s.moe_shared_expert_overlap = false;
  CHECK(serial.forward.tp_comm_s > without.forward.tp_comm_s);
}

TEST_CASE("expert-parallel overlap hides the all-to-all and holds one more layer at its peak") {
  // The two streams' schedule, not the host's: a host that issues in no time (its eager issue
  // of these small layers would hold the pair, host_time.hpp).
  Scenario sc = job(moe_model(8, 2), 16);
  sc.cluster.pools[0].gpu.host_issue = HostIssueCost{};
  Strategy s = base();
  s.expert_model_parallel_size = 16 / 2;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  s.pipeline_model_parallel_size = 2;
  s.virtual_pipeline_model_parallel_size = 2;
  const detail::LayerCost plain = costs(sc, s, 4).moe;  // EP 8 over two nodes of 4
  s.overlap_moe_expert_parallel_comm = true;
  const detail::LayerCost overlapped = costs(sc, s, 4).moe;
  const double comm = plain.forward.ep_comm_s + plain.backward.ep_comm_s;
  CHECK(overlapped.forward.ep_comm_s + overlapped.backward.ep_comm_s < comm);
  CHECK(overlapped.forward.compute_s == plain.forward.compute_s);
  const Report a = Estimator(sc.model, sc.training, sc.cluster).estimate([&] {
    Strategy t = s;
    t.overlap_moe_expert_parallel_comm = false;
    return t;
  }());
  const Report b = Estimator(sc.model, sc.training, sc.cluster).estimate(s);
  REQUIRE(a.feasible);
  REQUIRE(b.feasible);
  // The extra warm-up chunk is the one the steady state pairs with a backward, layer by layer
  // (model_chunk_schedule_plan.py): one more layer, not one more chunk, at the peak.
  const StageMemory& ma = a.stages[0].memory;
  const StageMemory& mb = b.stages[0].memory;
  const double layers = static_cast<double>(a.stages[0].layers);
  CHECK(mb.activations_bytes - ma.activations_bytes > 0);
  CHECK(mb.activations_bytes - ma.activations_bytes <
        ma.activations_bytes / (a.stages[0].in_flight_micro_batches * layers));
}

TEST_CASE("expert-parallel overlap without pipelining: one micro-batch and one layer in flight") {
  // combined_1f1b_schedule_for_no_pipelining: each forward is paired with the previous
  // micro-batch's backward, whose layers are released as the forward's are made.
  const Scenario sc = job(moe_model(8, 2), 8);
  Strategy s = base();
  s.expert_model_parallel_size = 8;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const Report a = Estimator(sc.model, sc.training, sc.cluster).estimate(s);
  s.overlap_moe_expert_parallel_comm = true;
  const Report b = Estimator(sc.model, sc.training, sc.cluster).estimate(s);
  REQUIRE(a.feasible);
  REQUIRE(b.feasible);
  const double extra = b.stages[0].memory.activations_bytes - a.stages[0].memory.activations_bytes;
  CHECK(extra > 0);
  // 8 layers: one layer is about an eighth of a micro-batch's activations, not all of them.
  CHECK(extra < 0.2 * a.stages[0].memory.activations_bytes);
}

TEST_CASE(
    "expert-parallel overlap: the combined 1F1B's three phases, each as long as its longer "
    "stream") {
  using detail::a2a_overlap_exposed_s;
  // Attention 1 forward and 2 backward, experts 3 and 6, dispatch and combine 4 each way, the
  // weight gradients delayed: max(1, 4) + max(max(4, 3) + 4, max(6, 4) + 3) + max(4, 2) = 17
  // against 12 of compute.
  CHECK(a2a_overlap_exposed_s(1, 2, 3, 6, 4, 4, true) == doctest::Approx(5));
  // Short messages hide entirely; long ones leave all but the compute exposed.
  CHECK(a2a_overlap_exposed_s(1, 2, 3, 6, 0.1, 0.1, true) == doctest::Approx(0));
  CHECK(a2a_overlap_exposed_s(1, 2, 3, 6, 10, 10, true) == doctest::Approx(28));
  // Each phase hides only its own comm: a long combine is exposed past a short attention
  // backward even with the experts' compute to spare.
  CHECK(a2a_overlap_exposed_s(0.5, 0.5, 10, 20, 0.1, 3, true) == doctest::Approx(2.5));
}

TEST_CASE(
    "expert-parallel overlap: without delay_wgrad_compute the dispatch's backward waits for the "
    "experts' weight gradients") {
  using detail::a2a_overlap_exposed_s;
  // The same pair: the dispatch's backward starts after the whole experts' backward (6, not 3):
  // max(1, 4) + max(max(4, 6) + 4, max(6, 4) + 3) + max(4, 2) = 18.
  CHECK(a2a_overlap_exposed_s(1, 2, 3, 6, 4, 4, false) == doctest::Approx(6));
  // Experts' forward short: the delayed weight gradients hide the dispatch's backward.
  CHECK(a2a_overlap_exposed_s(1, 2, 1, 6, 1, 4, true) == doctest::Approx(2));
  CHECK(a2a_overlap_exposed_s(1, 2, 1, 6, 1, 4, false) == doctest::Approx(5));
}

TEST_CASE(
    "expert-parallel overlap: the dispatcher's host sync holds the experts' forward to the "
    "host's issue after it") {
  using detail::A2aHostSync;
  // Attention 1 forward and 6 backward, experts 3 and 2, short messages, delayed weight
  // gradients: the streams alone take the 12 of compute. The host issues the experts' forward
  // in 6 (nothing else costs it): unblocked, it runs ahead and the GPU never waits.
  detail::A2aOverlapPair pair{.pre_dispatch_forward_s = 1,
                              .pre_dispatch_backward_s = 6,
                              .mlp_forward_s = 3,
                              .mlp_backward_s = 2,
                              .dispatch_s = 0.1,
                              .combine_s = 0.1,
                              .delay_wgrad_compute = true};
  pair.host_mlp_forward_s = 6;
  CHECK(detail::a2a_overlap_exposed_s(pair) == doctest::Approx(0));
  // Blocked until the attention's router has its counts (end of the forward's attention, 1),
  // the host issues the experts' forward until 7, where the GPU had it done at 1 + 2 + 3.
  pair.host_sync = A2aHostSync::compute_stream;
  CHECK(detail::a2a_overlap_exposed_s(pair) == doctest::Approx(1));
  // The copy precedes the permute: released half a unit earlier.
  pair.pre_dispatch_forward_after_copy_s = 0.5;
  CHECK(detail::a2a_overlap_exposed_s(pair) == doctest::Approx(0.5));
  // A flex dispatcher waits on the communication stream: behind a combine backward of 2.
  pair.pre_dispatch_forward_after_copy_s = 0;
  pair.dispatch_s = 2;
  pair.combine_s = 2;
  pair.host_sync = A2aHostSync::none;
  const double unblocked = detail::a2a_overlap_exposed_s(pair);
  pair.host_sync = A2aHostSync::communication_stream;
  CHECK(detail::a2a_overlap_exposed_s(pair) == doctest::Approx(unblocked + 1));
}

TEST_CASE(
    "expert-parallel overlap with interleaving: a step's pipeline sends wait for the next step") {
  // Two stages of two chunks over two nodes of 8: with the combined 1F1B each paired step sends
  // its gradients after its layers and the next step waits for them (the activations leave
  // beside the last attention backward); interleaved 1F1B hides both under the next chunk.
  const Scenario sc = job(moe_model(8, 2), 16);
  Strategy s = base();
  s.expert_model_parallel_size = 8;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  s.pipeline_model_parallel_size = 2;
  s.virtual_pipeline_model_parallel_size = 2;
  const Report a = Estimator(sc.model, sc.training, sc.cluster).estimate(s);
  s.overlap_moe_expert_parallel_comm = true;
  const Report b = Estimator(sc.model, sc.training, sc.cluster).estimate(s);
  REQUIRE(a.feasible);
  REQUIRE(b.feasible);
  CHECK(b.time_breakdown.pp_comm_s > 1.5 * a.time_breakdown.pp_comm_s);
}

TEST_CASE("flex deduplicates per node: cheaper than the all-to-all across nodes") {
  // 64 experts top-8 over EP 32 spanning four nodes of 8.
  const Scenario sc = job(moe_model(64, 8), 32);
  Strategy s = base();
  s.expert_model_parallel_size = 32;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const detail::LayerCost alltoall = costs(sc, s).moe;
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  const detail::LayerCost flex = costs(sc, s).moe;
  CHECK(flex.forward.ep_comm_s < alltoall.forward.ep_comm_s);
}

TEST_CASE("HybridEP gathers the routing map over the expert group before each forward dispatch") {
  // 64 experts top-8 over EP 32 spanning four nodes of 8; on H200, whose dispatch no DeepEP
  // table measured, both backends move their tokens alike.
  const Scenario sc = job(moe_model(64, 8), 32, "h200");
  Strategy s = base();
  s.expert_model_parallel_size = 32;
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  const detail::LayerCost deepep = costs(sc, s).moe;
  s.moe_flex_dispatcher_backend = MoeFlexBackend::hybridep;
  const detail::LayerCost hybridep = costs(sc, s).moe;
  // n tokens x 64 experts of one byte from each of the 32 members, forward only.
  const GpuSpec& gpu = sc.cluster.pools[0].gpu;
  const double tokens = 4096;  // micro-batch 1, no tensor or context parallelism
  const double gather_s =
      detail::all_gather_s(gpu, detail::place_group(32, 1, 8), tokens * 32 * 64);
  CHECK(gather_s > 0);
  CHECK(hybridep.forward.ep_comm_s == doctest::Approx(deepep.forward.ep_comm_s + gather_s));
  CHECK(hybridep.backward.ep_comm_s == doctest::Approx(deepep.backward.ep_comm_s));
}

namespace {

// DeepEP's benchmark shape (docs/README_Hybrid-EP.md): 4,096 tokens of hidden 7,168 per rank,
// top-8 of 8 local experts per rank.
// `overridden`: the GPU as a preset with fields overridden, which no published run measured.
detail::MoeDispatch benchmark_dispatch(const std::string& gpu, int ranks, MoeFlexBackend backend,
                                       bool overridden = false) {
  const std::string model = R"({"name": "bench", "num_layers": 2, "hidden_size": 7168,
      "ffn_hidden_size": 18432, "num_attention_heads": 56, "vocab_size": 32000,
      "activation": "swiglu", "moe": {"num_experts": )" +
                            std::to_string(8 * ranks) +
                            R"(, "top_k": 8, "moe_ffn_hidden_size": 2048}})";
  const Scenario sc = job(model, ranks, gpu);
  Strategy s = base();
  s.expert_model_parallel_size = ranks;
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  s.moe_flex_dispatcher_backend = backend;
  GpuSpec g = sc.cluster.pools[0].gpu;
  if (overridden) g.preset.clear();
  return detail::moe_dispatch(g, sc.model, s, g.nvlink_domain_gpus, 4096, 2);
}

}  // namespace

TEST_CASE("the flex dispatcher at DeepEP's benchmark shape takes its published Torch-API time") {
  const double token_bytes = 4096.0 * 7168 * 2;
  // B200, 8 ranks in one node, HybridEP at its 16 SMs: the received rows at 535.94 GB/s
  // (dispatch, BF16) and 530.86 GB/s (combine).
  const double received = token_bytes * detail::distinct_destinations(64, 8, 8);
  const detail::MoeDispatch b200 = benchmark_dispatch("b200", 8, MoeFlexBackend::hybridep);
  CHECK(b200.dispatch_s == doctest::Approx(received / 535.94e9));
  CHECK(b200.combine_s == doctest::Approx(received / 530.86e9));
  // DeepEP's normal kernels at their 20 SMs: between the 16- and 24-SM rows.
  const detail::MoeDispatch deepep = benchmark_dispatch("b200", 8, MoeFlexBackend::deepep);
  CHECK(deepep.dispatch_s == doctest::Approx(received / ((348 + 494) / 2.0 * 1e9)));
  // H100, 16 ranks over two nodes: the rows sent per node reached (the local one counted) at
  // 54.47 GB/s.
  const double sent = token_bytes * detail::distinct_destinations(128, 8, 2);
  const detail::MoeDispatch h100 = benchmark_dispatch("h100", 16, MoeFlexBackend::hybridep);
  CHECK(h100.dispatch_s == doctest::Approx(sent / 54.47e9));
  CHECK(h100.combine_s == doctest::Approx(sent / 53.35e9));
  // A preset with fields overridden keeps the network tiers' curve, the same both ways.
  for (const auto& [gpu, ranks, backend] :
       {std::tuple{std::string("b200"), 8, MoeFlexBackend::hybridep},
        std::tuple{std::string("b200"), 8, MoeFlexBackend::deepep},
        std::tuple{std::string("gb200"), 8, MoeFlexBackend::hybridep},
        std::tuple{std::string("gb200"), 32, MoeFlexBackend::hybridep},
        std::tuple{std::string("h100"), 16, MoeFlexBackend::hybridep}}) {
    const detail::MoeDispatch measured = benchmark_dispatch(gpu, ranks, backend);
    const detail::MoeDispatch curve = benchmark_dispatch(gpu, ranks, backend, true);
    CHECK(curve.combine_s == doctest::Approx(curve.dispatch_s));
    CHECK(measured.dispatch_s != doctest::Approx(curve.dispatch_s));
    MESSAGE(gpu << " " << ranks << " ranks: measured over the curve, dispatch "
                << measured.dispatch_s / curve.dispatch_s << ", combine "
                << measured.combine_s / curve.combine_s);
  }
  // No table measured H100 within one node: the network tiers' curve, the same both ways.
  const detail::MoeDispatch node = benchmark_dispatch("h100", 8, MoeFlexBackend::hybridep);
  CHECK(node.combine_s == doctest::Approx(node.dispatch_s));
}

TEST_CASE("padded to capacity, HybridEP knows its token budget and does not sync; DeepEP does") {
  const Scenario sc = job(moe_model());
  Strategy s = base();
  s.expert_model_parallel_size = 8;
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  s.moe_expert_capacity_factor = 1.0;
  s.moe_pad_expert_input_to_capacity = true;
  CHECK(costs(sc, s).moe.host.syncs);  // DeepEP waits for the received counts
  s.moe_flex_dispatcher_backend = MoeFlexBackend::hybridep;
  CHECK_FALSE(costs(sc, s).moe.host.syncs);
  s.moe_pad_expert_input_to_capacity = false;
  CHECK(costs(sc, s).moe.host.syncs);  // no num_permuted_tokens: it sizes its output by a sync
}

TEST_CASE("the flex dispatcher's SMs beside the overlapped compute: DeepEP 20, HybridEP 16") {
  Strategy s;
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  CHECK(detail::flex_dispatcher_sms(s) == 20);
  s.moe_flex_dispatcher_backend = MoeFlexBackend::hybridep;
  CHECK(detail::flex_dispatcher_sms(s) == 16);
}

TEST_CASE(
    "the overlapped all-to-all costs the compute beside it its SMs' share, and at least what a "
    "GEMM lost beside a copy kernel on that GPU") {
  Strategy s = base();
  s.moe_token_dispatcher_type = MoeDispatcher::flex;
  s.moe_flex_dispatcher_backend = MoeFlexBackend::hybridep;
  const detail::Group node = detail::place_group(8, 1, 8);
  // H100: HybridEP's 16 of 132 SMs are a share of 16 / 116 = 0.14, below the loss the preset
  // measured beside copy kernels of 4-48 blocks (overlap_slowdown 0.23).
  const GpuSpec h100 = job(moe_model(), 8, "h100").cluster.pools[0].gpu;
  REQUIRE(h100.overlap_slowdown > 16.0 / 116);
  CHECK(detail::a2a_overlap_slowdown(h100, s, node) == doctest::Approx(h100.overlap_slowdown));
  // GB200: NCCL's 32 channels inside the NVLink domain take 32 of 148 SMs, above the preset's.
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const GpuSpec gb200 = job(moe_model(), 8, "gb200").cluster.pools[0].gpu;
  REQUIRE(gb200.memory_reserve.nccl_channels_intra_node == 32);
  REQUIRE(gb200.overlap_slowdown < 32.0 / 116);
  CHECK(detail::a2a_overlap_slowdown(gb200, s, node) == doctest::Approx(32.0 / 116));
}

TEST_CASE("MTP depths run on the last stage: time, weights and model FLOPs grow with them") {
  const Scenario without = job(moe_model(8, 2, 0, 0), 8);
  const Scenario with = job(moe_model(8, 2, 0, 1), 8);
  Strategy s = base();
  s.pipeline_model_parallel_size = 2;
  s.expert_model_parallel_size = 4;
  s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
  const Report a = Estimator(without.model, without.training, without.cluster).estimate(s);
  const Report b = Estimator(with.model, with.training, with.cluster).estimate(s);
  REQUIRE(a.feasible);
  REQUIRE(b.feasible);
  CHECK(b.stages[1].forward_s > a.stages[1].forward_s);
  CHECK(b.stages[0].forward_s == doctest::Approx(a.stages[0].forward_s));
  CHECK(b.stages[1].memory.weights_bytes > a.stages[1].memory.weights_bytes);
  // Megatron-LM's count adds a layer like the last, eh_proj (2h^2) and the logits per depth.
  const ParameterCounts counts = count_parameters(with.model);
  const double h = 1024;
  CHECK(counts.mtp == doctest::Approx(counts.attention + counts.moe_mlp + 2 * h * h + 3 * h));
  CHECK(counts.total == doctest::Approx(count_parameters(without.model).total));
  CHECK(model_flops_per_token(with.model, 4096) > model_flops_per_token(without.model, 4096));
}

TEST_CASE("multi-latent attention gathers its latents, not the hidden state, over TP") {
  const Scenario sc = job(kMla, 8);
  const GpuSpec& gpu = sc.cluster.pools[0].gpu;
  Strategy s = base();
  s.tensor_model_parallel_size = 8;
  s.sequence_parallel = true;
  const detail::LayerCost layer = costs(sc, s).dense;
  const detail::Group tp = detail::place_group(8, 1, 8);
  const double tokens = 4096;
  const double attention_forward = detail::all_gather_s(gpu, tp, 2 * tokens * (768 + 256 + 64)) +
                                   detail::reduce_scatter_s(gpu, tp, 2 * tokens * 4096);
  const double mlp_forward = detail::all_gather_s(gpu, tp, 2 * tokens * 4096) +
                             detail::reduce_scatter_s(gpu, tp, 2 * tokens * 4096);
  CHECK(layer.forward.tp_comm_s == doctest::Approx(attention_forward + mlp_forward));
}

TEST_CASE("the all-to-all overlap's device connections expose TP collectives before Blackwell") {
  // With overlap_moe_expert_parallel_comm the run keeps more than one CUDA device connection
  // (device_connections.hpp): on Hopper the backward's input all-gather and input-gradient
  // reduce-scatter then wait for the GEMMs they were issued ahead of; on Blackwell they still
  // overlap them.
  for (const char* gpu_type : {"h100", "b200"}) {
    CAPTURE(gpu_type);
    const Scenario sc = job(moe_model(), 16, gpu_type);
    const GpuSpec& gpu = sc.cluster.pools[0].gpu;
    Strategy s = base();
    s.tensor_model_parallel_size = 2;
    s.sequence_parallel = true;
    s.expert_model_parallel_size = 8;
    const detail::LayerCost ordered = costs(sc, s).dense;
    s.overlap_moe_expert_parallel_comm = true;
    const detail::LayerCost overlapped = costs(sc, s).dense;
    CHECK(overlapped.forward.tp_comm_s == doctest::Approx(ordered.forward.tp_comm_s));
    if (gpu.compute_capability >= 10) {
      CHECK(overlapped.backward.tp_comm_s == doctest::Approx(ordered.backward.tp_comm_s));
      continue;
    }
    // Attention and MLP blocks each: the output-gradient all-gather, the input re-gather and
    // the input-gradient reduce-scatter, all exposed.
    const detail::Group tp = detail::place_group(2, 1, 8);
    const double hidden_bytes = 2.0 * 4096 * 1024;
    const double block = 2 * detail::all_gather_s(gpu, tp, hidden_bytes) +
                         detail::reduce_scatter_s(gpu, tp, hidden_bytes);
    CHECK(overlapped.backward.tp_comm_s == doctest::Approx(2 * block));
    CHECK(overlapped.backward.tp_comm_s > ordered.backward.tp_comm_s);
  }
}

TEST_CASE("fine-grained offloading: what each module's region saves in a MoE layer") {
  // 1024 hidden, 8 experts of 1024 (SwiGLU), top-2, one GPU: 4096 tokens, 8192 expert rows.
  const Scenario sc = job(moe_model(), 1);
  const detail::ModelCosts c = costs(sc, base());
  const double tokens = 4096, rows = 2 * tokens, h = 1024, expert_ffn = 1024;
  // The norm before the router stands alone; attention's is fused into the QKV projection.
  CHECK(c.moe.offload(OffloadModule::mlp_norm) == 2 * h * tokens);
  CHECK(c.dense.offload(OffloadModule::mlp_norm) == 0);
  CHECK(c.moe.offload(OffloadModule::attn_norm) == 0);
  CHECK(c.moe.offload(OffloadModule::qkv_linear) == (2 + 2) * h * tokens);
  CHECK(c.moe.offload(OffloadModule::expert_fc1) == 2 * h * rows);
  CHECK(c.moe.offload(OffloadModule::moe_act) == 2 * 2 * expert_ffn * rows);  // gated fc1 output
  // Q (16 heads), K and V (8 groups each) of 64, and the fp32 log-sum-exp per query row.
  CHECK(c.moe.offload(OffloadModule::core_attn) ==
        2 * tokens * (16 + 2 * 8) * 64 + 4 * 16 * tokens);
  CHECK(c.moe.offload(OffloadModule::attn_proj) == 2 * tokens * 16 * 64);
}

TEST_CASE("fine-grained offloading with multi-latent attention: the norm stands alone") {
  const Scenario sc = job(kMla, 1);
  const detail::LayerCost layer = costs(sc, base()).dense;
  const double tokens = 4096, h = 4096;
  CHECK(layer.offload(OffloadModule::attn_norm) == 2 * h * tokens);
  // The down-projections' input (the norm's output, which layernorm recompute drops) and the
  // latents before and after their norms.
  CHECK(layer.qkv_norm_output_bytes == 2 * h * tokens);
  CHECK(layer.offload(OffloadModule::qkv_linear) == 2 * h * tokens + 4 * (768 + 256) * tokens);
}

TEST_CASE("expert-parallel overlap pairs only the steady state: the warm-up runs unpaired") {
  using detail::unpaired_pass_share;
  // Without pipelining the first forward and the last backward of m micro-batches.
  CHECK(unpaired_pass_share(0, 1, 1, 4) == doctest::Approx(0.25));
  // Interleaved, 4 stages x 2 chunks, 8 micro-batches: (p - i - 1) x 2 + (v - 1) x p + 1 of 16.
  CHECK(unpaired_pass_share(0, 4, 2, 8) == doctest::Approx(11.0 / 16));
  CHECK(unpaired_pass_share(3, 4, 2, 8) == doctest::Approx(5.0 / 16));
  // Too few micro-batches: all of them.
  CHECK(unpaired_pass_share(0, 8, 4, 2) == doctest::Approx(1));
}

TEST_CASE(
    "a clamped activation (GPT-OSS) adds Megatron-Core's eager clamp, cat and sync to the "
    "routed experts, and nothing where a graph captures them") {
  // moe_model's experts with activation_func_clamp_value 7 (weighted_bias_quick_geglu_impl).
  std::string clamped = moe_model(64, 2);
  clamped.insert(clamped.size() - 1, R"(, "activation_func_clamp_value": 7.0)");
  const Scenario plain_sc = job(moe_model(64, 2));
  const Scenario clamped_sc = job(clamped);
  REQUIRE(clamped_sc.model.activation_func_clamp_value == 7.0);
  Strategy s = base();
  s.moe_grouped_gemm = true;
  s.expert_model_parallel_size = 8;
  const detail::LayerCost plain = costs(plain_sc, s).moe;
  const detail::LayerCost with_clamp = costs(clamped_sc, s).moe;
  // The h100 preset prices its host: the forward adds the sync's gap besides the passes.
  const double sync_gap_s = clamped_sc.cluster.pools[0].gpu.host_issue.sync_gap_s;
  REQUIRE(sync_gap_s > 0);
  CHECK(with_clamp.forward.compute_s > plain.forward.compute_s + sync_gap_s);
  CHECK(with_clamp.backward.compute_s > plain.backward.compute_s);
  // One more copy of the fc1 output kept, dropped with the activation's recompute.
  CHECK(with_clamp.activation_bytes > plain.activation_bytes);
  const auto act = RecomputeModule::moe_act;
  CHECK(with_clamp.unit(act).forward.compute_s > plain.unit(act).forward.compute_s);
  CHECK(with_clamp.unit(act).saved_bytes > plain.unit(act).saved_bytes);
  // A full-iteration graph cannot hold the sync: that launch runs another path, priced as plain.
  s.cuda_graph_impl = CudaGraphImpl::local;
  s.cuda_graph_scope = 1u << static_cast<unsigned>(CudaGraphScope::full_iteration);
  CHECK(costs(clamped_sc, s).moe.forward.compute_s ==
        doctest::Approx(costs(plain_sc, s).moe.forward.compute_s));
}

TEST_CASE(
    "biased grouped experts add Megatron-Core's eager weighted fc2 bias (TEGroupedMLP "
    "_apply_bias) expert by expert, and nothing where a graph captures them") {
  std::string biased = moe_model(64, 2);
  biased.insert(biased.size() - 1, R"(, "add_bias_linear": true)");
  const Scenario plain_sc = job(moe_model(64, 2));
  const Scenario biased_sc = job(biased);
  REQUIRE(biased_sc.model.add_bias_linear);
  Strategy s = base();
  s.moe_grouped_gemm = true;
  s.expert_model_parallel_size = 8;
  const detail::ModelCosts plain = costs(plain_sc, s);
  const detail::ModelCosts with_bias = costs(biased_sc, s);
  // 4096 tokens x top-2 over 8 ranks' 8 local experts each: 8192 rows of h 1024, 16-bit.
  const GpuSpec& gpu = biased_sc.cluster.pools[0].gpu;
  const double experts = 8, expert_elements = 8192.0 * 1024 / experts, e = 2;
  const auto pass = [&](double bytes) { return detail::memory_bound_s(gpu, bytes); };
  // Forward: per expert b * p (write) and t + bp (two reads, a write); the cat (read, write).
  const double forward_s = experts * (pass(e * expert_elements) + pass(3 * e * expert_elements)) +
                           pass(2 * e * experts * expert_elements);
  // Backward: per expert grad * p and grad * b (read, write) and their sums (read); the cat.
  const double backward_s =
      experts * 2 * (pass(2 * e * expert_elements) + pass(e * expert_elements)) +
      pass(2 * e * experts * expert_elements);
  CHECK(with_bias.moe.forward.compute_s - plain.moe.forward.compute_s ==
        doctest::Approx(forward_s).epsilon(1e-9));
  // The backward also sums linear_proj's bias gradient (outside the experts): at least the
  // experts' passes, which replace their plain bias-gradient sum.
  CHECK(with_bias.moe.backward.compute_s - plain.moe.backward.compute_s >= backward_s);
  // Host: 2 ops per local expert and 3 once forward, 4 per expert and 1 once backward, each a
  // PyTorch op of a training layer (host_time.cpp: 37.6 us per kernel of eager layers against
  // 6.83 us per bare torch.add on the measured host).
  const double op_s = gpu.host_issue.torch_op_s * 37.6 / 6.83;
  REQUIRE(op_s > 0);
  CHECK(with_bias.moe.host.expert_forward_s - plain.moe.host.expert_forward_s ==
        doctest::Approx((2 * experts + 3) * op_s));
  CHECK(with_bias.moe.host.expert_backward_s - plain.moe.host.expert_backward_s >=
        (4 * experts + 1) * op_s);
  // A full-iteration graph runs Transformer Engine's op fuser, its bias inside the GroupedLinear.
  s.cuda_graph_impl = CudaGraphImpl::local;
  s.cuda_graph_scope = 1u << static_cast<unsigned>(CudaGraphScope::full_iteration);
  CHECK(costs(biased_sc, s).moe.forward.compute_s ==
        doctest::Approx(costs(plain_sc, s).moe.forward.compute_s));
}
