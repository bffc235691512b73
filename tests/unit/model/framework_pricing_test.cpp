// Frameworks priced by their own mechanisms where they differ from Megatron-LM's: DeepSpeed's
// ZeRO-3 per-submodule gathers and bucketed reduce-scatters, its BF16_Optimizer's all-reduce,
// gather and per-micro-batch fp32 accumulation; torchtitan's FSDP2 fp32 reduce-scatters; the other
// frameworks priced as Megatron-LM.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "model/deepspeed_zero.hpp"
#include "model/layer_cost.hpp"
#include "model/torchtitan_fsdp.hpp"
#include "support.hpp"

using namespace paraplan;
using namespace paraplan::detail;

namespace {

GpuSpec a100() { return parse_gpu(nlohmann::json("a100"), "gpu"); }

// SC21 Table 2's GPT-3 175B without model parallelism (R019's shape), ZeRO-3.
Scenario gpt3_zero3(const std::string& framework, int gpus) {
  return test::scenario(R"({"model": "gpt3-175b", "framework": ")" + framework +
                        R"(", "training": {"global_batch_size": 1536, "seq_length": 2048},
      "cluster": {"gpus": [{"type": "a100", "count": )" +
                        std::to_string(gpus) + R"(}]},
      "strategy": {"micro_batch_size": 1, "recompute_granularity": "full", "zero_stage": 3}})");
}

// BLOOM-176B's layout (R079): TP 4, PP 12, DP 8, bf16, ZeRO-1.
Scenario bloom(const std::string& framework) {
  return test::scenario(R"({"model": {"name": "bloom", "num_layers": 70, "hidden_size": 14336,
      "ffn_hidden_size": 57344, "num_attention_heads": 112, "vocab_size": 250880,
      "activation": "gelu"}, "framework": ")" +
                        framework + R"(",
      "training": {"global_batch_size": 2048, "seq_length": 2048, "precision": "bf16"},
      "cluster": {"gpus": [{"type": "a100", "count": 384}]},
      "strategy": {"tensor_model_parallel_size": 4, "pipeline_model_parallel_size": 12,
                   "micro_batch_size": 2, "recompute_granularity": "full", "zero_stage": 1}})");
}

}  // namespace

TEST_CASE("DeepSpeed ZeRO-3 traffic of one unit: a gather per submodule, 5e8-element buckets") {
  const Zero3UnitTraffic t = zero3_unit_traffic(1.8e9, 4, 2, 174.6e9);
  CHECK(t.gathers == 4);
  CHECK(t.gather_bytes == doctest::Approx(9e8));  // 1.8e9 x 2 B / 4 submodules
  CHECK(t.reduce_scatters == doctest::Approx(3.6));
  CHECK(t.reduce_scatter_bytes == doctest::Approx(1e9));  // reduce_bucket_size x 2 B
  CHECK(zero3_unit_traffic(0, 4, 2, 1e9).gathers == 0);
  CHECK(zero3_unit_traffic(1e6, 0, 2, 1e9).gathers == 1);  // an edge unit: one fetch
  // A stage under one bucket: its units share the one partial bucket of the whole stage.
  const Zero3UnitTraffic small = zero3_unit_traffic(1e7, 4, 2, 1e8);
  CHECK(small.reduce_scatters == doctest::Approx(0.1));
  CHECK(small.reduce_scatter_bytes == doctest::Approx(2e8));

  ModelSpec dense;
  Strategy s;
  CHECK(zero3_fetches_per_layer(dense, s, false) == 4);
  ModelSpec moe;
  moe.moe = MoeSpec{};
  moe.moe->num_experts = 64;
  moe.moe->num_shared_experts = 1;
  s.expert_model_parallel_size = 8;
  // Attention's two, the router, two per local expert (8), the shared expert's two.
  CHECK(zero3_fetches_per_layer(moe, s, true) == 2 + 1 + 16 + 2);
  CHECK(zero3_fetches_per_layer(moe, s, false) == 4);
}

TEST_CASE("DeepSpeed ZeRO-3 with full recompute gathers again what lies past the reuse distance") {
  // GPT-3 175B's layer (h 12288): query_key_value 4.5e8, dense 1.5e8, dense_h_to_4h and
  // dense_4h_to_h 6.0e8 elements each. After the recomputed forward, dense_4h_to_h's backward
  // comes next (kept); dense_h_to_4h's lies 2 x 6.0e8 = 1.2e9 >= 1e9 elements on, and the two
  // before further: three gathered again.
  ModelSpec gpt3;
  gpt3.hidden_size = 12288;
  gpt3.ffn_hidden_size = 4 * 12288;
  gpt3.num_attention_heads = 96;
  gpt3.num_query_groups = 96;
  Strategy s;
  const double h2 = 12288.0 * 12288.0;
  const Zero3Regather big = zero3_recompute_regather(gpt3, s, false);
  CHECK(big.fetches == 3);
  CHECK(big.parameters == doctest::Approx((3 + 1 + 4) * h2));
  // Tensor parallelism 4 shrinks each rank's submodules: 2 x 1.5e8 = 3e8 from dense_h_to_4h's
  // backward keeps it; dense's (2 x 3e8) too; query_key_value's, 2 x 3.4e8 = 6.8e8, as well.
  s.tensor_model_parallel_size = 4;
  CHECK(zero3_recompute_regather(gpt3, s, false).fetches == 0);
  // A 4096-wide layer (about 2e8 elements) keeps everything.
  ModelSpec small = gpt3;
  small.hidden_size = 4096;
  small.ffn_hidden_size = 4 * 4096;
  small.num_attention_heads = 32;
  small.num_query_groups = 32;
  s.tensor_model_parallel_size = 1;
  CHECK(zero3_recompute_regather(small, s, false).fetches == 0);
  ModelSpec moe = gpt3;
  moe.moe = MoeSpec{};
  CHECK(zero3_recompute_regather(moe, s, true).fetches == 0);
}

TEST_CASE("DeepSpeed ZeRO-3 unit time: the gathers under each pass, the buckets under backward") {
  const GpuSpec gpu = a100();
  Strategy s;
  s.zero_stage = 3;
  const Group dp = data_parallel_group(gpu, s, 1536);
  const double forward_s = 0.04, backward_s = 0.08;
  const double gather = 4 * all_gather_s(gpu, dp, 9e8);
  const double scatter = 3.6 * reduce_scatter_s(gpu, dp, 1e9);
  const Zero3UnitPasses passes{forward_s, backward_s, 0, {}};
  CHECK(deepspeed_zero3_unit_comm_s(gpu, s, 2, 1536, 1.8e9, 4, 174.6e9, passes) ==
        doctest::Approx(exposed_s(gpu, gather, forward_s) +
                        exposed_s(gpu, gather + scatter, backward_s)));
  CHECK(deepspeed_zero3_unit_comm_s(gpu, s, 2, 1, 1.8e9, 4, 174.6e9, passes) == 0);
  // Recomputed: the backward pass is the forward again and the backward, gathering the layer
  // and, again, what was released after the recomputed forward.
  Zero3UnitPasses recomputed = passes;
  recomputed.recompute_s = forward_s;
  recomputed.regather = {3, 1.2e9};
  const double regather = 3 * all_gather_s(gpu, dp, 2 * 1.2e9 / 3);
  CHECK(deepspeed_zero3_unit_comm_s(gpu, s, 2, 1536, 1.8e9, 4, 174.6e9, recomputed) ==
        doctest::Approx(exposed_s(gpu, gather, forward_s) +
                        exposed_s(gpu, gather + regather + scatter, forward_s + backward_s)));
  // Four gathers of a quarter each pay four ring latencies: more than one of the whole layer.
  CHECK(gather > all_gather_s(gpu, dp, 3.6e9));
}

TEST_CASE("DeepSpeed BF16_Optimizer: all-reduce in 5e8 buckets, one gather of the flat group") {
  const GpuSpec gpu = a100();
  Strategy s;
  s.tensor_model_parallel_size = 4;
  s.zero_stage = 1;
  const ParameterBytes bytes = parameter_bytes(Precision::bf16, s);
  StageSync in;
  in.gpu = &gpu;
  in.strategy = &s;
  in.bytes = &bytes;
  in.data_parallel = 8;
  in.parameters = 3.7e9;
  const Group dp = data_parallel_group(gpu, s, 8);
  CHECK(dp.spans_nodes);
  const SyncTime t = deepspeed_iteration_sync(in, 2, false);
  CHECK(t.grad_exposed_s == doctest::Approx(8 * all_reduce_s(gpu, dp, 2 * 3.7e9 / 8)));
  CHECK(t.param_exposed_s == doctest::Approx(all_gather_s(gpu, dp, 2 * 3.7e9)));
  in.backward_before_s = 1e3;  // an earlier stage reduces under the later stages' drain
  CHECK(deepspeed_iteration_sync(in, 2, false).grad_exposed_s == 0);
  in.data_parallel = 1;
  CHECK(deepspeed_iteration_sync(in, 2, false).param_exposed_s == 0);
  CHECK(deepspeed_bf16_accumulate_s(gpu, 3.7e9) == doctest::Approx(memory_bound_s(gpu, 3.7e10)));
}

TEST_CASE("DeepSpeed ZeRO-1 and 2 all-reduce 5e8-element buckets; ZeRO-2 every micro-batch") {
  const GpuSpec gpu = a100();
  Strategy s;
  s.zero_stage = 2;
  const Group dp = data_parallel_group(gpu, s, 64);
  // 1.2e9 parameters: three buckets of 4e8 (a bucket closes once past 5e8).
  CHECK(deepspeed_bucketed_all_reduce_s(gpu, dp, 1.2e9, 2) ==
        doctest::Approx(3 * all_reduce_s(gpu, dp, 2 * 4e8)));
  CHECK(deepspeed_bucketed_all_reduce_s(gpu, dp, 1e6, 2) ==
        doctest::Approx(all_reduce_s(gpu, dp, 2e6)));
  CHECK(deepspeed_zero2_micro_batch_s(gpu, s, 64, 1.2e9, 0, 2) ==
        doctest::Approx(3 * all_reduce_s(gpu, dp, 2 * 4e8)));
  CHECK(deepspeed_zero2_micro_batch_s(gpu, s, 1, 1.2e9, 0, 2) == 0);
  // ZeRO-2's gradients went with the micro-batches: the iteration only gathers parameters.
  const ParameterBytes bytes = parameter_bytes(Precision::bf16, s);
  StageSync in;
  in.gpu = &gpu;
  in.strategy = &s;
  in.bytes = &bytes;
  in.data_parallel = 64;
  in.parameters = 1.2e9;
  const SyncTime t = deepspeed_iteration_sync(in, 2, true);
  CHECK(t.grad_exposed_s == 0);
  CHECK(t.param_exposed_s == doctest::Approx(all_gather_s(gpu, dp, 2 * 1.2e9)));
  CHECK(deepspeed_zero_optimizer(Framework::deepspeed, Precision::bf16, s));
  s.zero_stage = 1;
  CHECK(!deepspeed_zero_optimizer(Framework::deepspeed, Precision::bf16, s));  // BF16_Optimizer
  CHECK(deepspeed_zero_optimizer(Framework::deepspeed, Precision::fp16, s));
  CHECK(!deepspeed_zero_optimizer(Framework::megatron, Precision::fp16, s));

  // Whole model: an all-reduce of every micro-batch's gradients, not overlapped, against
  // Megatron-FSDP's reduce-scatters under the backward.
  const auto llama = [](const std::string& framework) {
    return estimate(test::scenario(R"({"model": "llama2-13b", "framework": ")" + framework +
                                   R"(", "training": {"global_batch_size": 512,
        "seq_length": 4096}, "cluster": {"gpus": [{"type": "a100", "count": 64}]},
        "strategy": {"micro_batch_size": 1, "recompute_granularity": "full",
                     "use_flash_attn": true, "overlap_grad_reduce": true,
                     "overlap_param_gather": true, "zero_stage": 2}})"));
  };
  const Report megatron = llama("megatron");
  const Report deepspeed = llama("deepspeed");
  REQUIRE(deepspeed.feasible);
  CHECK(deepspeed.time_breakdown.dp_comm_s > 2 * megatron.time_breakdown.dp_comm_s);
  CHECK(deepspeed.time_breakdown.total_s() ==
        doctest::Approx(deepspeed.iteration_time_s).epsilon(1e-9));
  const double shard = 13e9 / 64;
  CHECK(deepspeed.stages.front().memory.gradients_bytes ==
        doctest::Approx(2 * (shard + 5e8)).epsilon(0.02));
}

TEST_CASE("DeepSpeed ZeRO-3 is slower than Megatron-FSDP where per-submodule gathers add up") {
  const Report megatron = estimate(gpt3_zero3("megatron", 1536));
  const Report deepspeed = estimate(gpt3_zero3("deepspeed", 1536));
  REQUIRE(megatron.feasible);
  REQUIRE(deepspeed.feasible);
  CHECK(deepspeed.iteration_time_s > 1.1 * megatron.iteration_time_s);
  CHECK(deepspeed.time_breakdown.dp_comm_s > megatron.time_breakdown.dp_comm_s);
  // Memory: a 16-bit gradient shard plus the 1 GB contiguous reduce bucket, against
  // Megatron-FSDP's shard plus one whole layer's gradients.
  const StageMemory& ds = deepspeed.stages.front().memory;
  const StageMemory& mf = megatron.stages.front().memory;
  const double shard = 2 * 174.6e9 / 1536;
  CHECK(ds.gradients_bytes == doctest::Approx(shard + 2 * 5e8).epsilon(0.01));
  CHECK(ds.gradients_bytes < mf.gradients_bytes);
  // Gathered: the submodule in use and the one prefetched, two quarters of a layer (12 h^2 + 13 h
  // parameters), 0.9e9 together: under stage3_max_live_parameters (1e9).
  const double h = 12288;
  const double layer = 12 * h * h + 13 * h;
  CHECK(ds.weights_bytes == doctest::Approx(shard + 2 * (2 * layer / 4)).epsilon(0.001));
}

TEST_CASE("Megatron-DeepSpeed's bf16 ZeRO-1 reduces after the pipeline and keeps two gradients") {
  const Report megatron = estimate(bloom("megatron"));
  const Report deepspeed = estimate(bloom("deepspeed"));
  REQUIRE(megatron.feasible);
  REQUIRE(deepspeed.feasible);
  CHECK(deepspeed.iteration_time_s > megatron.iteration_time_s);
  const StageMemory& ds = deepspeed.stages.front().memory;
  const StageMemory& mf = megatron.stages.front().memory;
  CHECK(ds.gradients_bytes == doctest::Approx(1.5 * mf.gradients_bytes));  // fp32 + bf16
  CHECK(ds.optimizer_bytes == doctest::Approx(mf.optimizer_bytes));
  // The per-micro-batch accumulation is in the breakdown, which still sums to the iteration.
  CHECK(deepspeed.time_breakdown.optimizer_s > 2 * megatron.time_breakdown.optimizer_s);
  for (const Report* r : {&megatron, &deepspeed}) {
    CHECK(r->time_breakdown.total_s() == doctest::Approx(r->iteration_time_s).epsilon(1e-9));
  }
}

TEST_CASE("frameworks without their own mechanisms here price as Megatron-LM") {
  const double megatron_s = estimate(gpt3_zero3("megatron", 1536)).iteration_time_s;
  CHECK(estimate(gpt3_zero3("megatron-bridge", 1536)).iteration_time_s == megatron_s);
  // Without Transformer Engine's modules GPT-3's QKV bias gradient is a pass of its own
  // (layer_cost.cpp bias_gradient_fused), a little slower.
  for (const char* framework : {"mindspeed-llm", "colossalai"}) {
    CAPTURE(framework);
    const double time_s = estimate(gpt3_zero3(framework, 1536)).iteration_time_s;
    CHECK(time_s > megatron_s);
    CHECK(time_s < 1.01 * megatron_s);
  }
  // DeepSpeed with ZeRO 0 keeps Megatron-LM's pricing (not modelled apart).
  for (int zero : {0}) {
    CAPTURE(zero);
    const auto with = [&](const std::string& framework) {
      return estimate(test::scenario(R"({"model": "llama2-7b", "framework": ")" + framework +
                                     R"(", "training": {"global_batch_size": 256,
          "seq_length": 4096}, "cluster": {"gpus": [{"type": "a100", "count": 32}]},
          "strategy": {"micro_batch_size": 1, "recompute_granularity": "full",
                       "zero_stage": )" +
                                     std::to_string(zero) + "}}"))
          .iteration_time_s;
    };
    CHECK(with("deepspeed") == with("megatron"));
  }
}

TEST_CASE("torchtitan's FSDP2 reduce-scatters in fp32 and, with pipelines, gathers once") {
  const GpuSpec gpu = a100();
  Strategy s;
  s.zero_stage = 3;
  const Group dp = data_parallel_group(gpu, s, 64);
  const double forward_s = 0.01, backward_s = 0.02;
  const double gather = all_gather_s(gpu, dp, 2 * 1e9);
  const double scatter = reduce_scatter_s(gpu, dp, 4 * 1e9);  // fp32, not bf16
  CHECK(fsdp2_unit_comm_s(gpu, s, 64, {1e9, 0, 2, true}, forward_s, backward_s) ==
        doctest::Approx(exposed_s(gpu, gather, forward_s) +
                        exposed_s(gpu, gather + scatter, backward_s)));
  CHECK(fsdp2_unit_comm_s(gpu, s, 64, {1e9, 0, 2, false}, forward_s, backward_s) ==
        doctest::Approx(exposed_s(gpu, gather, forward_s) + exposed_s(gpu, scatter, backward_s)));
  // Routed experts are a unit of their own over expert-data parallelism (64 / EP 8 = 8 ranks),
  // its collectives after the block's on the same streams; with EP 64 nothing is left to shard.
  Strategy ep = s;
  ep.expert_model_parallel_size = 8;
  const Group edp = expert_data_parallel_group(gpu, ep, 64);
  CHECK(edp.size == 8);
  const double expert_gather = all_gather_s(gpu, edp, 2 * 1e9);
  const double expert_scatter = reduce_scatter_s(gpu, edp, 4 * 1e9);
  CHECK(fsdp2_unit_comm_s(gpu, ep, 64, {1e9, 1e9, 2, false}, forward_s, backward_s) ==
        doctest::Approx(exposed_s(gpu, gather + expert_gather, forward_s) +
                        exposed_s(gpu, scatter + expert_scatter, backward_s)));
  ep.expert_model_parallel_size = 64;
  CHECK(fsdp2_unit_comm_s(gpu, ep, 64, {1e9, 1e9, 2, false}, forward_s, backward_s) ==
        doctest::Approx(fsdp2_unit_comm_s(gpu, ep, 64, {1e9, 0, 2, false}, forward_s, backward_s)));
  CHECK(fsdp2_unit_copy_s(gpu, ep, 64, {0, 1e9, 2, false}) == 0);
  CHECK(!fsdp2_keeps_unsharded(1));
  CHECK(fsdp2_keeps_unsharded(2));
  CHECK(torchtitan_fsdp2(Framework::torchtitan, s));
  CHECK(!torchtitan_fsdp2(Framework::megatron, s));

  // Whole models: the fp32 gradients cost time where the traffic is exposed, and the fp32
  // gradient shard memory.
  const Report megatron = estimate(gpt3_zero3("megatron", 1536));
  const Report titan = estimate(gpt3_zero3("torchtitan", 1536));
  REQUIRE(titan.feasible);
  CHECK(titan.iteration_time_s > megatron.iteration_time_s);
  CHECK(titan.time_breakdown.total_s() == doctest::Approx(titan.iteration_time_s).epsilon(1e-9));
  const double shard = 174.6e9 / 1536;
  CHECK(titan.stages.front().memory.gradients_bytes >
        megatron.stages.front().memory.gradients_bytes + 1.9 * shard);
}

TEST_CASE("FSDP2's copy-out after each gather and fp32 copy-in before each reduce-scatter") {
  const GpuSpec gpu = a100();
  const double parameters = 1e9;
  // 16-bit gathers: the copy-out reads and writes 2 bytes a parameter; the copy-in reads the
  // 16-bit gradient and writes it in fp32.
  const double copy_out = memory_bound_s(gpu, 2 * 2 * parameters);
  const double copy_in = memory_bound_s(gpu, (2 + 4) * parameters);
  const Strategy s;
  CHECK(fsdp2_unit_copy_s(gpu, s, 64, {parameters, 0, 2, true}) ==
        doctest::Approx(2 * copy_out + copy_in));
  CHECK(fsdp2_unit_copy_s(gpu, s, 64, {parameters, 0, 2, false}) ==
        doctest::Approx(copy_out + copy_in));
  CHECK(fsdp2_unit_copy_s(gpu, s, 64, {parameters, 0, 1, false}) < copy_out + copy_in);  // fp8
  CHECK(fsdp2_unit_copy_s(gpu, s, 1, {parameters, 0, 2, true}) == 0);  // nothing sharded
}

TEST_CASE("torchtitan's context parallelism is PyTorch's ring attention, priced on top") {
  // Llama 3.1 8B at 131072 tokens over CP 4 on one H100 node (torchtitan's December 2024 Table 2
  // shape).
  const auto costs_with = [](int cp, CpCommType type) {
    Scenario sc = test::scenario(R"({"model": "llama3.1-8b", "framework": "torchtitan",
        "training": {"global_batch_size": 8, "seq_length": 131072},
        "cluster": {"gpus": [{"type": "h100", "count": 8}]},
        "strategy": {"micro_batch_size": 1, "zero_stage": 3}})");
    Strategy s;
    s.zero_stage = 3;
    s.use_flash_attn = true;
    s.context_parallel_size = cp;
    s.cp_comm_type = type;
    return compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, s);
  };
  const LayerCost none = costs_with(1, CpCommType::p2p).dense;
  CHECK(none.torch_ring_forward.total_s() == 0);
  CHECK(none.torch_ring_backward.total_s() == 0);
  // The merges between steps and the fp32 dK and dV cost time beyond the ring Megatron-LM runs;
  // the all-gather rotation waits for K and V at the second step, the per-step one hides them.
  const LayerCost ring = costs_with(4, CpCommType::p2p).dense;
  CHECK(ring.torch_ring_forward.compute_s > 0);
  CHECK(ring.torch_ring_backward.compute_s > 0);
  CHECK(ring.torch_ring_backward.total_s() > 0);
  const LayerCost gathered = costs_with(4, CpCommType::allgather).dense;
  CHECK(gathered.forward.cp_comm_s + gathered.torch_ring_forward.cp_comm_s >= 0);
  CHECK(gathered.torch_ring_forward.compute_s > 0);  // cp kernels where Megatron-LM runs two

  // Whole model (65536 tokens, to fit): the torchtitan ring is slower than the same layout priced
  // as Megatron-LM's context parallelism.
  const auto report = [](const std::string& framework) {
    return estimate(test::scenario(R"({"model": "llama3.1-8b", "framework": ")" + framework +
                                   R"(", "training": {"global_batch_size": 8, "seq_length": 65536},
        "cluster": {"gpus": [{"type": "h100", "count": 8}]},
        "strategy": {"micro_batch_size": 1, "zero_stage": 3, "context_parallel_size": 4,
                     "recompute_granularity": "full", "use_flash_attn": true}})"));
  };
  const Report titan = report("torchtitan");
  const Report megatron = report("megatron");
  REQUIRE(titan.feasible);
  CHECK(titan.time_breakdown.cp_comm_s >= 0);
  CHECK(titan.time_breakdown.total_s() == doctest::Approx(titan.iteration_time_s).epsilon(1e-9));
  CHECK(titan.iteration_time_s > megatron.iteration_time_s);
}

TEST_CASE(
    "torchtitan's FSDP2 under pipelines: whole units, fp32 gradients until the last backward") {
  // torchtitan's 3D layout for Llama 3.1 405B (benchmarks/llama3_h100_202412_torchtitan.md,
  // Table 5: FSDP 8, TP 8, PP 8, local batch 32, full activation checkpointing).
  const auto layout_of = [](const std::string& framework, int micro_batches) {
    return R"({"model": "llama3.1-405b", "framework": ")" + framework +
           R"(", "training": {"global_batch_size": )" + std::to_string(8 * micro_batches) +
           R"(, "seq_length": 8192},
        "cluster": {"gpus": [{"type": "h100", "count": 512}]},
        "strategy": {"tensor_model_parallel_size": 8, "sequence_parallel": true,
                     "pipeline_model_parallel_size": 8, "micro_batch_size": 1,
                     "recompute_granularity": "full", "zero_stage": 3}})";
  };
  const auto layout = [&](const std::string& framework, int micro_batches) {
    return test::scenario(layout_of(framework, micro_batches));
  };
  const std::string layout_json = layout_of("torchtitan", 32);
  // Megatron-FSDP refuses pipelines; torchtitan composes FSDP2 with its schedules.
  const Report megatron = estimate(layout("megatron", 32));
  CHECK_FALSE(megatron.feasible);
  REQUIRE(megatron.infeasible_reasons.size() == 1);
  CHECK(megatron.infeasible_reasons[0].find("Megatron-FSDP") != std::string::npos);
  const Report titan = estimate(layout("torchtitan", 32));
  REQUIRE(titan.infeasible_reasons.empty());

  // Every unit of a stage stays whole in 16 bits, and its gradients in fp32, plus one block's
  // 16-bit gradients before the upcast; the last step's fp32 shards were freed before the
  // forward (zero_grad) and the last backward's reduce-scatters make the new ones as they free
  // the whole gradients.
  const StageMemory& middle = titan.stages[3].memory;
  const double stage_parameters = middle.weights_bytes / 2;
  CHECK(stage_parameters == doctest::Approx(405.9e9 / 64).epsilon(0.03));
  CHECK(middle.gradients_bytes > 4 * stage_parameters);
  CHECK(middle.gradients_bytes < 4 * stage_parameters + 2 * stage_parameters / 15);

  // ZeRO-2 (fsdp_reshard_after_forward "never") holds the same under pipelines.
  nlohmann::json zero2 = nlohmann::json::parse(R"({"model": "llama3.1-405b",
      "framework": "torchtitan", "training": {"global_batch_size": 256, "seq_length": 8192},
      "cluster": {"gpus": [{"type": "h100", "count": 512}]},
      "strategy": {"tensor_model_parallel_size": 8, "sequence_parallel": true,
                   "pipeline_model_parallel_size": 8, "micro_batch_size": 1,
                   "recompute_granularity": "full", "zero_stage": 2}})");
  const Report two = estimate(parse_scenario(zero2));
  REQUIRE(two.infeasible_reasons.empty());
  CHECK(two.stages[3].memory.weights_bytes == doctest::Approx(middle.weights_bytes));
  CHECK(two.stages[3].memory.gradients_bytes == doctest::Approx(middle.gradients_bytes));
  // Without pipelines ZeRO-2 still holds every block whole from its forward to its backward;
  // ZeRO-3 only the block in use and the one prefetched.
  nlohmann::json flat = nlohmann::json::parse(R"({"model": "llama3.1-8b",
      "framework": "torchtitan", "training": {"global_batch_size": 16, "seq_length": 8192},
      "cluster": {"gpus": [{"type": "h100", "count": 8}]},
      "strategy": {"micro_batch_size": 2, "recompute_granularity": "full", "zero_stage": 2}})");
  const Report flat2 = estimate(parse_scenario(flat));
  flat["strategy"]["zero_stage"] = 3;
  const Report flat3 = estimate(parse_scenario(flat));
  REQUIRE(flat2.infeasible_reasons.empty());
  REQUIRE(flat3.infeasible_reasons.empty());
  CHECK(flat2.stages[0].memory.weights_bytes / 2 == doctest::Approx(8.03e9).epsilon(0.02));
  CHECK(flat3.stages[0].memory.weights_bytes < flat2.stages[0].memory.weights_bytes / 8);
  CHECK(flat2.stages[0].memory.gradients_bytes ==
        doctest::Approx(flat3.stages[0].memory.gradients_bytes));

  // Float8 with enable_fsdp_float8_all_gather (fp8_param_gather) gathers the blocks in fp8
  // and keeps them whole in fp8: a byte a layer parameter less; the middle stages hold no
  // embedding, LM head or final norm.
  nlohmann::json float8 = nlohmann::json::parse(layout_json);
  float8["training"]["precision"] = "fp8";
  float8["strategy"]["fp8_recipe"] = "tensorwise";
  float8["strategy"]["fp8_param_gather"] = false;
  const Report gathered16 = estimate(parse_scenario(float8));
  float8["strategy"]["fp8_param_gather"] = true;
  const Report gathered8 = estimate(parse_scenario(float8));
  REQUIRE(gathered16.infeasible_reasons.empty());
  REQUIRE(gathered8.infeasible_reasons.empty());
  CHECK(gathered16.stages[3].memory.weights_bytes ==
        doctest::Approx(middle.weights_bytes).epsilon(1e-12));
  CHECK(gathered8.stages[3].memory.weights_bytes ==
        doctest::Approx(middle.weights_bytes / 2).epsilon(1e-12));

  // One gather and one reduce-scatter per unit and iteration: the data-parallel traffic does
  // not grow with the micro-batches.
  const Report twice = estimate(layout("torchtitan", 64));
  REQUIRE(twice.infeasible_reasons.empty());
  CHECK(twice.time_breakdown.dp_comm_s ==
        doctest::Approx(titan.time_breakdown.dp_comm_s).epsilon(0.02));
}

TEST_CASE(
    "torchtitan's per-op selective checkpointing keeps every op's output but every second mm") {
  // Llama 3.1 8B (h 4096, 32 heads, 8 KV groups of 128, SwiGLU 14336), micro-batch 2 x 8192.
  const auto scenario = [](int tp, const char* recompute) {
    return test::scenario(R"({"model": "llama3.1-8b", "framework": "torchtitan",
        "training": {"global_batch_size": 16, "seq_length": 8192},
        "cluster": {"gpus": [{"type": "h100", "count": 8}]},
        "strategy": {"tensor_model_parallel_size": )" +
                          std::to_string(tp) + R"(, "sequence_parallel": true,
                     "micro_batch_size": 2, "use_flash_attn": true, "zero_stage": 3,
                     "recompute_granularity": ")" +
                          recompute + R"("}})");
  };
  const Scenario sc = scenario(1, "selective");
  const ModelCosts c =
      compute_model_costs(sc.model, sc.training, sc.cluster.pools[0].gpu, 8, complete_strategy(sc));
  const double tokens = 2 * 8192, h = 4096, kv = 1024, ffn = 14336;
  // Kept: the block input; wq, wv, w1 and w2 (the 1st, 3rd, 5th and 7th mm of wq, wk, wv, wo,
  // w1, w3, w2); the attention output and its fp32 log-sum-exp per head.
  const double kept = tokens * (2 * (h + h + kv + h + ffn + h) + 4 * 32);
  const RecomputeUnit& sac = c.dense.per_op_checkpoint;
  CHECK(c.dense.activation_bytes - sac.saved_bytes == doctest::Approx(kept).epsilon(1e-9));
  // Run again: wk, wo and w3, and the norms, rotary embedding, SiLU, product and adds.
  CHECK(sac.forward_flops == doctest::Approx(2 * tokens * h * (kv + h + ffn)).epsilon(1e-9));
  CHECK(sac.forward.total_s() > 0);
  CHECK(sac.forward.total_s() < 0.5 * c.dense.forward.total_s());

  // Whole runs: it keeps far less than no recompute (where Megatron-LM's selective, the core
  // attention alone, keeps about as much with flash attention) and runs between none and full.
  const Report none = estimate(scenario(1, "none"));
  const Report selective = estimate(scenario(1, "selective"));
  const Report full = estimate(scenario(1, "full"));
  CHECK(selective.stages[0].memory.activations_bytes <
        0.6 * none.stages[0].memory.activations_bytes);
  CHECK(selective.iteration_time_s > none.iteration_time_s);
  CHECK(selective.iteration_time_s < full.iteration_time_s);
  // With tensor parallelism the reduce-scatters' outputs are kept too.
  const Scenario tp = scenario(2, "selective");
  const ModelCosts c2 =
      compute_model_costs(tp.model, tp.training, tp.cluster.pools[0].gpu, 8, complete_strategy(tp));
  const double kept2 = tokens * (2 * (h / 2 + h / 2 + kv / 2 + h / 2 + ffn / 2 + h) + 4 * 16) +
                       2 * 2 * h * tokens / 2;
  CHECK(c2.dense.activation_bytes - c2.dense.per_op_checkpoint.saved_bytes ==
        doctest::Approx(kept2).epsilon(1e-9));
}

TEST_CASE(
    "torchtitan's loss holds fp32 log-softmax, its gradient and the input's: 12 B a logit, 16 B "
    "vocabulary parallel") {
  const auto run = [](const char* framework, bool overlap, int tp = 2) {
    return estimate(test::scenario(
        std::string(R"({"model": "llama3.1-8b", "framework": ")") + framework + R"(",
        "training": {"global_batch_size": 16, "seq_length": 8192},
        "cluster": {"gpus": [{"type": "h100", "count": 8}]},
        "strategy": {"tensor_model_parallel_size": )" +
        std::to_string(tp) + R"(, "sequence_parallel": )" + (tp > 1 ? "true" : "false") + R"(,
                     "tp_comm_overlap": )" +
        (overlap ? "true" : "false") + R"(, "micro_batch_size": 2,
                     "use_flash_attn": true, "zero_stage": 3,
                     "recompute_granularity": "full"}})"));
  };
  const Report megatron = run("megatron", false), titan = run("torchtitan", false);
  REQUIRE(titan.feasible);
  const double logits = 2 * 8192 * 128256 / 2.0;  // this GPU's vocabulary half
  // Megatron-LM's fused loss: the 16-bit logits and their fp32 copy, 6 bytes. torchtitan's
  // vocabulary-parallel loss (tensor parallelism): the saved log-softmax, the scattered zeros,
  // their exp and the sum, 16 bytes (PyTorch loss.py _nll_loss_and_log_softmax_backward); and
  // the LM head's input gathered over the two ranks, of which Megatron-LM saves only its half
  // (torchtitan_head_gathered_input_bytes).
  const double gathered_half = 2.0 * 4096 * 2 * 8192 / 2;
  CHECK(titan.stages[0].memory.activations_bytes - megatron.stages[0].memory.activations_bytes ==
        doctest::Approx((16 - 6) * logits + gathered_half).epsilon(1e-6));
  // Without tensor parallelism PyTorch's cross_entropy: log-softmax, its gradient and the
  // input's, 12 bytes.
  const Report megatron1 = run("megatron", false, 1), titan1 = run("torchtitan", false, 1);
  CHECK(titan1.stages[0].memory.activations_bytes - megatron1.stages[0].memory.activations_bytes ==
        doctest::Approx((12 - 6) * 2 * logits).epsilon(1e-6));
  // Async tensor parallelism keeps no Transformer Engine userbuffers.
  CHECK(run("torchtitan", true).stages[0].memory.reserve.userbuffers_bytes == 0);
  CHECK(run("megatron", true).stages[0].memory.reserve.userbuffers_bytes > 0);
}

TEST_CASE(
    "torchtitan's compiled loss keeps the 16-bit logits and their gradient: 2 elements a logit") {
  Strategy s;
  // Compiled (cross_entropy_loss_fusion, compile.components "loss"): the saved logits and the
  // input gradient in their own dtype, 4 bytes from 16-bit logits, 8 from fp32 ones.
  s.cross_entropy_loss_fusion = true;
  CHECK(torchtitan_loss_bytes_per_logit(s, 2) == 4);
  CHECK(torchtitan_loss_bytes_per_logit(s, 4) == 8);
  // Eager: the fp32 log-softmax, its gradient and the input's.
  s.cross_entropy_loss_fusion = false;
  CHECK(torchtitan_loss_bytes_per_logit(s, 2) == 12);
  // Vocabulary parallel (tensor parallelism): the eager four fp32 tensors, compiled or not.
  s.tensor_model_parallel_size = 2;
  CHECK(torchtitan_loss_bytes_per_logit(s, 2) == 16);
  s.cross_entropy_loss_fusion = true;
  CHECK(torchtitan_loss_bytes_per_logit(s, 2) == 16);
  // Llama 3.1 8B at local batch 2 of 8192 tokens (the H200 runs' shape, selective checkpointing):
  // the loss is the peak's transient, and compiling it frees 8 bytes of each of the micro-batch's
  // 2 x 8192 x 128256 logits.
  const auto run = [](bool fusion) {
    return estimate(
        test::scenario(std::string(R"({"model": "llama3.1-8b", "framework": "torchtitan",
        "training": {"global_batch_size": 64, "seq_length": 8192},
        "cluster": {"gpus": [{"type": "h200", "count": 32}]},
        "strategy": {"micro_batch_size": 2, "use_flash_attn": true, "zero_stage": 3,
                     "recompute_granularity": "selective", "cross_entropy_loss_fusion": )") +
                       (fusion ? "true" : "false") + "}}"));
  };
  const Report eager = run(false), compiled = run(true);
  REQUIRE(compiled.feasible);
  CHECK(eager.stages[0].memory.activations_bytes - compiled.stages[0].memory.activations_bytes ==
        doctest::Approx((12 - 4) * 2 * 8192 * 128256.0).epsilon(1e-6));
}

TEST_CASE("torchtitan FSDP2 + EP: DeepSeek-V3 without MTP, experts sharded over efsdp") {
  // torchtitan v0.2.2 parallel_dims.py: experts over ep ranks of dp_shard x cp x tp, each
  // expert's parameters sharded over efsdp = dp_shard x cp x tp / (etp x ep); the dense
  // parameters over dp_shard x cp. Per GPU, the experts' share is then the same at every EP.
  const auto run = [](int ep) {
    return estimate(test::scenario(R"({"model": "deepseek-v3", "framework": "torchtitan",
        "training": {"global_batch_size": 1024, "seq_length": 4096},
        "cluster": {"gpus": [{"type": "h100", "count": 256}]},
        "strategy": {"micro_batch_size": 1, "recompute_granularity": "full", "zero_stage": 3,
                     "expert_model_parallel_size": )" +
                                   std::to_string(ep) + "}}"));
  };
  const Report ep8 = run(8), ep32 = run(32);
  CAPTURE(ep32.infeasible_reasons);
  REQUIRE(ep32.infeasible_reasons.empty());
  REQUIRE(ep8.infeasible_reasons.empty());
  // Adam's fp32 master copy and two moments: 12 bytes a parameter over all 256 GPUs (671B, the
  // MTP depth dropped: torchtitan's deepseek_v3 builds none).
  const double optimizer = ep32.stages[0].memory.optimizer_bytes;
  CHECK(optimizer == doctest::Approx(ep8.stages[0].memory.optimizer_bytes).epsilon(0.01));
  CHECK(optimizer == doctest::Approx(12 * 671e9 / 256).epsilon(0.02));
  bool noted = false;
  for (const std::string& note : ep32.validation.notes) {
    noted |= note.find("no multi-token prediction") != std::string::npos;
  }
  CHECK(noted);
}
