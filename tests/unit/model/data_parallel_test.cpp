// Data-parallel synchronisation as Megatron-LM runs it: ZeRO-2 reduce-scatters with every
// micro-batch (model-review P1), each model chunk's gradients sync under the rest of the
// interleaved backward (P7), Megatron-FSDP sends gradients in the parameter dtype (P8).
#include "model/data_parallel.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support.hpp"

using namespace paraplan;
using namespace paraplan::detail;

namespace {

GpuSpec a100() { return parse_gpu(nlohmann::json("a100"), "gpu"); }

Report llama13b(int zero, int batch) {
  return estimate(test::scenario(
      R"({"model": "llama2-13b", "training": {"global_batch_size": )" + std::to_string(batch) +
      R"(, "seq_length": 4096}, "cluster": {"gpus": [{"type": "a100", "count": 64}]},
          "strategy": {"micro_batch_size": 1, "recompute_granularity": "full",
                       "use_flash_attn": true, "overlap_grad_reduce": true,
                       "overlap_param_gather": true, "zero_stage": )" +
      std::to_string(zero) + "}}"));
}

StageSync stage(const GpuSpec& gpu, const Strategy& s) {
  static const ParameterBytes bf16 = parameter_bytes(Precision::bf16, Strategy{});
  StageSync in;
  in.bytes = &bf16;
  in.gpu = &gpu;
  in.strategy = &s;
  in.data_parallel = 32;
  in.stages = 8;
  in.parameters = 2.7e9;  // a GPT-3 175B stage at TP8 PP8
  in.forward_s = 0.05;
  in.backward_s = 0.10;
  return in;
}

}  // namespace

TEST_CASE("ZeRO-2 reduce-scatters gradients with every micro-batch, ZeRO-1 once") {
  const Report one_zero1 = llama13b(1, 64);  // one micro-batch per rank
  const Report one_zero2 = llama13b(2, 64);
  const Report many_zero1 = llama13b(1, 512);  // eight
  const Report many_zero2 = llama13b(2, 512);
  REQUIRE(many_zero2.feasible);
  CHECK(many_zero2.num_micro_batches == 8);
  // ZeRO-1's data-parallel time does not depend on the micro-batches; ZeRO-2's grows with them.
  CHECK(many_zero1.time_breakdown.dp_comm_s == doctest::Approx(one_zero1.time_breakdown.dp_comm_s));
  CHECK(many_zero2.time_breakdown.dp_comm_s > 4 * one_zero2.time_breakdown.dp_comm_s);
  CHECK(many_zero2.iteration_time_s > many_zero1.iteration_time_s);
}

TEST_CASE("Megatron-FSDP sends gradients and parameters in the parameter dtype") {
  const GpuSpec gpu = a100();
  Strategy s;
  s.zero_stage = 3;
  const Group dp = data_parallel_group(gpu, s, 64);
  const double parameters = 1e9;
  const double forward_s = 0.01, backward_s = 0.02;
  const double gather = all_gather_s(gpu, dp, 2 * parameters);
  const double scatter = reduce_scatter_s(gpu, dp, 2 * parameters);  // bf16, not fp32
  const ParameterBytes bytes = parameter_bytes(Precision::bf16, s);
  CHECK(bytes.fsdp_gradient == 2);
  CHECK(bytes.gradient == 4);  // the DDP buffer's fp32 main_grad
  const auto unit_s = [&] {
    return fsdp_unit_comm_s(gpu, s, bytes.fsdp_gradient, bytes.layer_gather, 64, parameters, 0,
                            forward_s, backward_s);
  };
  CHECK(unit_s() == doctest::Approx(exposed_s(gpu, gather, forward_s) +
                                    exposed_s(gpu, gather + scatter, backward_s)));
  // Experts shard over expert-data parallelism (64 / EP 8 = 8 ranks, one per node here), after
  // the rest on the same streams.
  Strategy ep = s;
  ep.expert_model_parallel_size = 8;
  const Group edp = expert_data_parallel_group(gpu, ep, 64);
  CHECK(edp.size == 8);
  CHECK(fsdp_unit_comm_s(gpu, ep, 2, 2, 64, parameters, parameters, forward_s, backward_s) ==
        doctest::Approx(exposed_s(gpu, gather + all_gather_s(gpu, edp, 2 * parameters), forward_s) +
                        exposed_s(gpu,
                                  gather + all_gather_s(gpu, edp, 2 * parameters) + scatter +
                                      reduce_scatter_s(gpu, edp, 2 * parameters),
                                  backward_s)));
  s.zero_stage = 2;  // gradients only
  CHECK(unit_s() == doctest::Approx(exposed_s(gpu, scatter, backward_s)));
}

TEST_CASE("under interleaving only the first chunk's gradient sync is exposed") {
  const GpuSpec gpu = a100();
  Strategy s;
  s.zero_stage = 1;
  s.overlap_grad_reduce = true;
  s.overlap_param_gather = true;
  s.tensor_model_parallel_size = 8;
  s.pipeline_model_parallel_size = 8;
  const SyncTime flat = iteration_sync(stage(gpu, s));
  s.virtual_pipeline_model_parallel_size = 6;
  const SyncTime interleaved = iteration_sync(stage(gpu, s));
  CHECK(interleaved.grad_exposed_s < 0.5 * flat.grad_exposed_s);
  CHECK(interleaved.grad_exposed_s > 0);
  // Without overlap the whole reduce-scatter waits for the last backward, chunks or not.
  s.overlap_grad_reduce = false;
  s.overlap_param_gather = false;  // arguments.py: it needs overlap_grad_reduce
  const SyncTime blocking = iteration_sync(stage(gpu, s));
  CHECK(blocking.grad_exposed_s > flat.grad_exposed_s);
  // Without overlap_grad_reduce Megatron-LM makes no buckets (bucket_size None): every chunk,
  // the first stage's first one too, is one reduce-scatter, not 12 of max(40M, 1M x 32).
  const Group dp = data_parallel_group(gpu, s, 32);
  const double chunk_bytes = 4 * 2.7e9 / 6;
  CHECK(blocking.grad_exposed_s == doctest::Approx(6 * reduce_scatter_s(gpu, dp, chunk_bytes)));
  CHECK(blocking.grad_exposed_s < 12 * reduce_scatter_s(gpu, dp, chunk_bytes / 12) +
                                      5 * reduce_scatter_s(gpu, dp, chunk_bytes));
  // Its parameters are gathered in the same one bucket per chunk.
  CHECK(blocking.param_exposed_s == doctest::Approx(6 * all_gather_s(gpu, dp, 2 * 2.7e9 / 6)));
}

TEST_CASE("chunks whose sync cannot hide under the cool-down queue on one communicator") {
  const GpuSpec gpu = a100();
  Strategy s;
  s.zero_stage = 1;
  s.overlap_grad_reduce = true;
  s.tensor_model_parallel_size = 8;
  s.pipeline_model_parallel_size = 8;
  s.virtual_pipeline_model_parallel_size = 6;
  StageSync in = stage(gpu, s);
  const double comfortable = iteration_sync(in).grad_exposed_s;
  in.backward_s = 0.001;  // almost no compute left to hide the other chunks under
  const double tight = iteration_sync(in).grad_exposed_s;
  const double all_chunks =
      6 * reduce_scatter_s(gpu, data_parallel_group(gpu, s, 32), 4 * 2.7e9 / 6);
  CHECK(tight > 0.9 * all_chunks);
  CHECK(comfortable < 0.5 * tight);
}

TEST_CASE("the input embedding's bucket waits whole for the last backward and the first forward") {
  // Nemotron-4-15B at TP1 on 64 DGX B200 (8 nodes): 15.7 B parameters, 1.57 B of them the
  // 256,000 x 6,144 embedding, in buckets of max(40M, 1M x 64) parameters; Megatron-LM closes a
  // bucket only once it holds that many, so the embedding, the backward's last gradient and the
  // forward's first weight, is one bucket of its own size, not 1/246 of the chunk.
  const GpuSpec gpu = parse_gpu(nlohmann::json("b200"), "gpu");
  Strategy s;
  s.zero_stage = 1;
  s.overlap_grad_reduce = true;
  s.overlap_param_gather = true;
  StageSync in = stage(gpu, s);
  in.data_parallel = 64;
  in.stages = 1;
  in.parameters = 1.57e10;
  in.edge_parameters = 2 * 1.57e9;  // the embedding and the untied LM head
  in.forward_s = 0.3;               // long enough to hide every other bucket
  in.backward_s = 0.6;
  const SyncTime uniform = iteration_sync(in);
  in.embedding_parameters = 1.57e9;
  const SyncTime embedding = iteration_sync(in);

  const Group dp = data_parallel_group(gpu, s, 64);
  REQUIRE(dp.spans_nodes);
  const double buckets = std::ceil(1.57e10 / 64e6);
  const double grad_bytes = in.bytes->gradient;
  const double embedding_rs = reduce_scatter_s(gpu, dp, grad_bytes * 1.57e9);
  const double bucket_rs = reduce_scatter_s(gpu, dp, grad_bytes * 1.57e10 / buckets);
  // What the embedding's bucket adds is exposed, less what its hiding would have cost anyway.
  CHECK(embedding.grad_exposed_s - uniform.grad_exposed_s ==
        doctest::Approx((1 - gpu.overlap_slowdown) * (embedding_rs - bucket_rs)));
  const double embedding_ag = all_gather_s(gpu, dp, in.bytes->edge_gather * 1.57e9);
  CHECK(embedding.param_exposed_s >= embedding_ag);
  CHECK(embedding.param_exposed_s > uniform.param_exposed_s + 0.5 * embedding_ag);
}
