// CUDA graphs' memory (cuda_graph_memory.cpp): the static buffers each implementation holds beside
// the activations, per layer and micro-batch in flight for Transformer Engine's graphs.
#include <doctest/doctest.h>

#include <algorithm>

#include "paraplan/estimate.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Four layers of hidden 1024 at sequence 2048, micro-batch 1, on 4 H100: TP 2 with sequence
// parallelism, PP 2 (two layers a stage; 1F1B holds 2 micro-batches on the first stage, 1 on the
// last), 16 micro-batches.
Report with_graphs(const std::string& graphs) {
  const std::string strategy = R"({"tensor_model_parallel_size": 2,
      "pipeline_model_parallel_size": 2, "sequence_parallel": true, "use_flash_attn": true,
      "micro_batch_size": 1)" + graphs +
                               "}";
  return estimate(test::scenario(R"({"model": {"name": "m", "num_layers": 4, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "vocab_size": 32000,
      "activation": "swiglu"}, "training": {"global_batch_size": 16, "seq_length": 2048},
      "cluster": {"gpus_per_node": 4, "gpus": [{"type": "h100", "count": 4}]},
      "strategy": )" + strategy + "}"));
}

// What the graphs add to each stage's memory.
std::vector<double> added(const std::string& graphs) {
  const Report off = with_graphs("");
  const Report on = with_graphs(graphs);
  REQUIRE(off.stages.size() == on.stages.size());
  std::vector<double> bytes;
  for (size_t i = 0; i < on.stages.size(); ++i) {
    const StageMemory& a = off.stages[i].memory;
    const StageMemory& b = on.stages[i].memory;
    // Static buffers: allocated tensors, not the reserve (no fragmentation of their own).
    CHECK(b.reserve.total_bytes() == a.reserve.total_bytes());
    CHECK(b.peak_bytes() - a.peak_bytes() ==
          doctest::Approx(b.activations_bytes - a.activations_bytes));
    bytes.push_back(b.activations_bytes - a.activations_bytes);
  }
  // Graphs take host issue time away (host_time.hpp, host_time_test.cpp), never add time.
  CHECK(on.iteration_time_s <= off.iteration_time_s);
  return bytes;
}

}  // namespace

TEST_CASE(
    "Transformer Engine's whole-layer graphs: a mask and a chained hidden state per layer "
    "and micro-batch in flight") {
  // hidden [2048 / 2, 1, 1024] bf16: 2 MiB; mask [1, 1, 2048, 2048] bool: 4 MiB. The first stage
  // holds 2 layers x 2 micro-batches of both, the last 2 x 1; each one output-gradient buffer.
  const std::vector<double> bytes = added(R"(, "cuda_graph_impl": "transformer_engine")");
  CHECK(bytes[0] == 4 * (4 + 2) * kMiB + 2 * kMiB);
  CHECK(bytes[1] == 2 * (4 + 2) * kMiB + 2 * kMiB);
  // Per micro-batch in flight: the first stage's extra over the last's is one set per layer.
  CHECK(bytes[0] - bytes[1] == 2 * (4 + 2) * kMiB);
}

TEST_CASE("Transformer Engine's partial graphs: attention graphs take a mask, MLP graphs no copy") {
  const std::vector<double> attn =
      added(R"(, "cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["attn"])");
  CHECK(attn[0] == 4 * 4 * kMiB + 2 * kMiB);
  CHECK(attn[1] == 2 * 4 * kMiB + 2 * kMiB);
  const std::vector<double> mlp =
      added(R"(, "cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["mlp"])");
  CHECK(mlp[0] == 2 * kMiB);
  CHECK(mlp[1] == 2 * kMiB);
  CHECK(attn[0] > mlp[0]);
}

TEST_CASE("local graphs reuse each other's buffers; a full-iteration graph copies every batch") {
  for (const double bytes : added(R"(, "cuda_graph_impl": "local")")) CHECK(bytes == 0);
  for (const double bytes :
       added(R"(, "cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"])")) {
    // tokens, labels, position_ids (int64) and loss_mask (fp32) of 16 micro-batches of 2048.
    CHECK(bytes == 28.0 * 2048 * 16);
  }
}

TEST_CASE("the graphs' own saved tensors stay in their pool: reserved, left out of max allocated") {
  const Report off = with_graphs("");
  const auto pool_of = [&](const std::string& graphs) {
    const Report on = with_graphs(graphs);
    std::vector<double> pools;
    for (size_t i = 0; i < on.stages.size(); ++i) {
      const StageMemory& a = off.stages[i].memory;
      const StageMemory& b = on.stages[i].memory;
      // The pool moves bytes from allocated to reserved: what the GPU holds is unchanged.
      CHECK(b.peak_bytes() - a.peak_bytes() ==
            doctest::Approx(b.activations_bytes - a.activations_bytes + b.reserve.total_bytes() -
                            a.reserve.total_bytes()));
      CHECK(b.peak_reserved_bytes() ==
            doctest::Approx(b.step_allocated_bytes() + b.graph_pool_bytes +
                            b.reserve.fragmentation_bytes));
      CHECK(b.step_allocated_bytes() ==
            doctest::Approx(a.step_allocated_bytes() + b.activations_bytes - a.activations_bytes -
                            b.graph_pool_bytes));
      // max_memory_allocated() also sees the capture, when the pool's saved tensors are live
      // beside weights, gradients and optimizer state (and the eager activations are not).
      CHECK(b.capture_allocated_bytes() ==
            doctest::Approx(b.weights_bytes + b.gradients_bytes + b.optimizer_bytes +
                            b.graph_pool_bytes + b.reserve.workspaces_bytes));
      CHECK(b.peak_allocated_bytes() ==
            doctest::Approx(std::max(b.step_allocated_bytes(), b.capture_allocated_bytes())));
      CHECK(a.peak_allocated_bytes() == doctest::Approx(a.step_allocated_bytes()));
      pools.push_back(b.graph_pool_bytes);
    }
    return pools;
  };
  for (const StageReport& stage : off.stages) CHECK(stage.memory.graph_pool_bytes == 0);
  // MLP graphs: FC1's output (2 x 4096 / 2 columns, bf16) and the activation's output (4096 / 2,
  // bf16) of 2048 tokens, per dense layer and micro-batch in flight (2 x 2 on the first stage,
  // 2 x 1 on the last): 24 MiB each.
  const std::vector<double> mlp =
      pool_of(R"(, "cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["mlp"])");
  CHECK(mlp[0] == doctest::Approx(4 * 24 * kMiB));
  CHECK(mlp[1] == doctest::Approx(2 * 24 * kMiB));
  // Recomputing the MLP keeps only its input, the graph's sample argument: nothing in the pool.
  for (const double bytes : pool_of(
           R"(, "cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["mlp"],
           "recompute_granularity": "selective", "recompute_modules": ["mlp"])")) {
    CHECK(bytes == 0);
  }
  // Whole-layer graphs hold more than MLP graphs; a full-iteration graph holds every activation.
  const std::vector<double> whole = pool_of(R"(, "cuda_graph_impl": "transformer_engine")");
  CHECK(whole[0] > mlp[0]);
  const Report full =
      with_graphs(R"(, "cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"])");
  for (const StageReport& stage : full.stages) {
    CHECK(stage.memory.graph_pool_bytes == stage.memory.activations_bytes - 28.0 * 2048 * 16);
  }
}

TEST_CASE(
    "a full-iteration capture with the A2A overlap keeps every MoE row its nodes free on another "
    "stream; none with graph_capture_record_stream_reuse, as many with expandable segments alone") {
  // 8 MoE layers of 8 experts (top-2) at EP 8 on 8 H100, alltoall, micro-batch 1 of 4096
  // tokens, 8 micro-batches, balanced routing.
  const auto run = [](const std::string& extra, const std::string& precision = "bf16") {
    return estimate(test::scenario(R"({"model": {"name": "moe", "num_layers": 8,
        "hidden_size": 1024, "ffn_hidden_size": 4096, "num_attention_heads": 16,
        "num_query_groups": 8, "vocab_size": 32000, "activation": "swiglu",
        "moe": {"num_experts": 8, "top_k": 2, "moe_ffn_hidden_size": 1024}},
        "training": {"global_batch_size": 64, "seq_length": 4096, "precision": ")" +
                                   precision + R"("},
        "cluster": {"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 8}]},
        "strategy": {"expert_model_parallel_size": 8, "moe_token_dispatcher_type": "alltoall",
        "moe_router_force_load_balancing": true, "use_flash_attn": true,
        "cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"])" +
                                   extra + "}}"));
  };
  const std::string overlap = R"(, "overlap_moe_expert_parallel_comm": true)";
  const std::string reuse = R"(, "graph_capture_record_stream_reuse": true)";
  const std::string expandable = R"(, "expandable_segments": true)";
  const Report fixed = run(overlap);
  const Report reusing = run(overlap + reuse);
  const Report serial = run("");
  const Report serial_reusing = run(reuse);
  REQUIRE(fixed.feasible);
  REQUIRE(reusing.feasible);
  const StageMemory& m = fixed.stages[0].memory;
  const StageMemory& e = reusing.stages[0].memory;
  // Per layer and micro-batch: moe_combine's input (the experts' 8192 output rows) and
  // moe_dispatch's (the 8192 permuted rows; alltoall), of 1024 bf16; not mlp's input (one local
  // expert, alltoall, bf16: kept for the grouped GEMM's backward). 8 layers x 8 micro-batches.
  const double deferred = 2 * 8192.0 * 1024 * 2 * 8 * 8;
  CHECK(m.reserve.fragmentation_bytes - e.reserve.fragmentation_bytes == doctest::Approx(deferred));
  // Reserved, not allocated: max_memory_reserved() and what the GPU holds grow, not allocated.
  CHECK(m.peak_allocated_bytes() == doctest::Approx(e.peak_allocated_bytes()));
  CHECK(m.peak_reserved_bytes() - e.peak_reserved_bytes() == doctest::Approx(deferred));
  CHECK(m.peak_bytes() - e.peak_bytes() == doctest::Approx(deferred));
  // In fp8 the mlp node frees its input too (the grouped GEMM saves its fp8 cast): three sets of
  // rows, not two (should_free_input: free_mlp with fp8).
  const Report fp8 = run(overlap, "fp8");
  const Report fp8_reusing = run(overlap + reuse, "fp8");
  REQUIRE(fp8.feasible);
  CHECK(fp8.stages[0].memory.reserve.fragmentation_bytes -
            fp8_reusing.stages[0].memory.reserve.fragmentation_bytes ==
        doctest::Approx(1.5 * deferred));
  // expandable_segments alone does not lift the deferral (the H200's 1,122 MiB against 1,090 by
  // default and 130 with the setting: h200-capture-reuse-2026-11-28.json): the same rows stay.
  const Report expandable_only = run(overlap + expandable);
  const Report expandable_reusing = run(overlap + expandable + reuse);
  CHECK(expandable_only.stages[0].memory.reserve.fragmentation_bytes -
            expandable_reusing.stages[0].memory.reserve.fragmentation_bytes ==
        doctest::Approx(deferred));
  // Without the overlap no node records a tensor on another stream: nothing deferred.
  CHECK(serial.stages[0].memory.reserve.fragmentation_bytes ==
        doctest::Approx(serial_reusing.stages[0].memory.reserve.fragmentation_bytes));
}

TEST_CASE("CUDA graph keys: Megatron-LM's names, off by default, refused where unsupported") {
  const Report plain = with_graphs("");
  CHECK(plain.feasible);
  const Report te = with_graphs(R"(, "cuda_graph_impl": "transformer_engine")");
  CHECK(te.feasible);
  CHECK(te.peak_memory_bytes() > plain.peak_memory_bytes());
  const Report refused = with_graphs(R"(, "cuda_graph_scope": ["attn"])");
  CHECK_FALSE(refused.feasible);
}

namespace {

// What a lent H200 measured of graphed Llama-style layers (RMSNorm, QKV, causal SDPA, projection,
// SwiGLU MLP; bf16, no bias, micro-batch 1) captured with PyTorch's make_graphed_callables, 1-4
// graph sets in one pool (scripts/calibration/measure_graph_memory.py,
// scripts/calibration/measured/h200-graph-memory-2026-11-28.json, PyTorch 2.11): reserved above
// the weights, gradients and inputs held before the capture, and the weights' bytes.
struct GraphMemoryCase {
  int64_t hidden, ffn, heads, seq, layers, sets;
  double weights_gib, reserved_gib;
};
constexpr GraphMemoryCase kH200GraphMemory[] = {
    {4096, 14336, 32, 4096, 4, 1, 1.813, 3.584},  {4096, 14336, 32, 4096, 4, 2, 1.813, 6.18},
    {4096, 14336, 32, 4096, 4, 4, 1.813, 12.152}, {4096, 14336, 32, 8192, 4, 1, 1.813, 6.242},
    {4096, 14336, 32, 8192, 8, 1, 3.625, 12.121}, {8192, 28672, 64, 4096, 2, 1, 3.625, 6.006},
    {8192, 28672, 64, 4096, 2, 2, 3.625, 11.383},
};

// The model's captured activations of one graph set (Transformer Engine's whole-layer graphs, one
// micro-batch in flight on one H200), for a case's layers.
double priced_pool_bytes(const GraphMemoryCase& c) {
  const std::string model = R"({"name": "m", "num_layers": )" + std::to_string(c.layers) +
                            R"(, "hidden_size": )" + std::to_string(c.hidden) +
                            R"(, "ffn_hidden_size": )" + std::to_string(c.ffn) +
                            R"(, "num_attention_heads": )" + std::to_string(c.heads) +
                            R"(, "vocab_size": 32000, "activation": "swiglu"})";
  const Report r = estimate(test::scenario(
      R"({"model": )" + model + R"(, "training": {"global_batch_size": 1, "seq_length": )" +
      std::to_string(c.seq) +
      R"(}, "cluster": {"gpus_per_node": 1, "gpus": [{"type": "h200", "count": 1}]},
      "strategy": {"micro_batch_size": 1, "use_flash_attn": true,
      "cuda_graph_impl": "transformer_engine"}})"));
  REQUIRE(r.stages.size() == 1);
  return r.stages[0].memory.graph_pool_bytes;
}

}  // namespace

// PyTorch's make_graphed_callables (torch/cuda/graphs.py) returns each parameter's gradient from
// the backward graph in a static buffer of the weights' size per set, allocated in the pool during
// the backward capture. Each layer's gradients are allocated before that layer's saved tensors are
// freed, so the first layer captured backward (the last) finds no freed block; the others land in
// the blocks the later layers' activations freed, as far as those go (the caching allocator's best
// fit within the private pool, c10/cuda/CUDACachingAllocator.cpp). What a set adds beyond its
// activations: its gradients that find no freed block.
double unplaced_gradient_bytes(double gradients, double activations, double layers) {
  return gradients - std::min(gradients - gradients / layers, activations - activations / layers);
}

TEST_CASE(
    "graph pools against the H200: each graph set holds the set's captured activations as "
    "priced, plus (PyTorch's own capture only) its static weight gradients") {
  constexpr double kGiB = 1024.0 * kMiB;
  const GraphMemoryCase* previous = nullptr;
  for (const GraphMemoryCase& c : kH200GraphMemory) {
    const double sets = static_cast<double>(c.sets);
    // The model prices one set per micro-batch in flight (cuda_graph_pool_bytes), plus each
    // set's static inputs ([s, h] bf16 per layer, sample arguments allocated outside the pool).
    const double pool_gib = priced_pool_bytes(c) / kGiB;
    const double set_gib = pool_gib + static_cast<double>(c.layers * c.seq * c.hidden) * 2 / kGiB;
    // Megatron-LM captures through Transformer Engine, whose modules with fused weight-gradient
    // accumulation (Megatron's --gradient-accumulation-fusion, on unless
    // --no-gradient-accumulation-fusion) write main_grad and return a dummy (TE d0067d0 graph.py:
    // "the returned weight grad is only a dummy"; module/linear.py get_dummy_wgrad): the model
    // prices no static gradients. The measurement's PyTorch capture keeps them.
    const double pytorch_set_gib =
        set_gib + unplaced_gradient_bytes(c.weights_gib, pool_gib, static_cast<double>(c.layers));
    MESSAGE("hidden " << c.hidden << " seq " << c.seq << " layers " << c.layers << " sets "
                      << c.sets << ": measured " << c.reserved_gib << " GiB; priced per set "
                      << set_gib << " GiB, with PyTorch's static gradients " << pytorch_set_gib);
    // What Transformer Engine's capture holds, as priced, is within what PyTorch's held.
    CHECK(sets * set_gib <= c.reserved_gib);
    // Reserved grows by one priced set per set added (the first set's figure also holds the
    // backward's one-time transients): within 15% of the measured step.
    if (previous && previous->hidden == c.hidden && previous->seq == c.seq &&
        previous->layers == c.layers) {
      const double step_gib =
          (c.reserved_gib - previous->reserved_gib) / static_cast<double>(c.sets - previous->sets);
      CAPTURE(step_gib);
      CHECK(pytorch_set_gib == doctest::Approx(step_gib).epsilon(0.15));
    }
    previous = &c;
  }
}
