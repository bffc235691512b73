// The cost cache builds the parts of a layer shape's costs by the keys each part reads
// (cost_cache.hpp): what it returns must be compute_model_costs' result exactly, for every
// framework and model kind, and the parts it shares must read none of the keys left out of them.
#include "model/cost_cache.hpp"

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "support.hpp"

using namespace paraplan;

namespace {

constexpr Framework kFrameworks[] = {Framework::megatron,      Framework::megatron_bridge,
                                     Framework::mindspeed_llm, Framework::deepspeed,
                                     Framework::colossalai,    Framework::torchtitan};

// A job of a dense, MoE (shared experts, biases and dropout), MLA + MTP (DeepSeek-V3) or
// windowed-attention MoE model (gpt-oss-20b), on 64 GPUs of a random type and precision.
Scenario random_job(std::mt19937& random) {
  const auto pick = [&](std::vector<std::string> values) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(random)];
  };
  const std::string moe = R"({"name": "moe", "num_layers": 8, "hidden_size": 1024,
      "ffn_hidden_size": 4096, "num_attention_heads": 16, "num_query_groups": 8,
      "vocab_size": 32000, "activation": "swiglu", "add_bias_linear": true,
      "hidden_dropout": 0.1, "moe": {"num_experts": 8, "top_k": 2,
      "moe_ffn_hidden_size": 1024, "num_shared_experts": 1}})";
  const std::string model =
      pick({"\"llama2-7b\"", "\"deepseek-v3\"", "\"gpt-oss-20b\"", "\"mixtral-8x7b\"", moe});
  const std::string json =
      R"({"model": )" + model + R"(, "training": {"global_batch_size": 64, "seq_length": )" +
      pick({"2048", "4096"}) + R"(, "precision": ")" + pick({"bf16", "fp16", "fp8"}) +
      R"("}, "cluster": {"gpus": [{"type": ")" + pick({"h100", "a100", "b200", "mi300x"}) +
      R"(", "count": 64}]}})";
  CAPTURE(json);
  return test::scenario(json);
}

// A random layer shape: every layer_cost key at a value the model can run.
Strategy random_shape(std::mt19937& random, const ModelSpec& model) {
  const auto pick = [&](std::vector<int64_t> values) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(random)];
  };
  Strategy s;
  s.tensor_model_parallel_size = pick({1, 2, 4});
  s.context_parallel_size = pick({1, 2});
  s.cp_comm_type = static_cast<CpCommType>(pick({0, 1, 2}));
  s.micro_batch_size = pick({1, 2});
  s.sequence_parallel = s.tensor_model_parallel_size > 1 && pick({0, 1}) != 0;
  s.use_flash_attn = pick({0, 1}) != 0;
  s.attention_backend = static_cast<AttentionBackend>(pick({0, 1, 2}));
  s.tp_comm_overlap = s.sequence_parallel && pick({0, 1}) != 0;
  s.fp8_recipe = static_cast<Fp8Recipe>(pick({0, 1, 2, 3}));
  s.cross_entropy_loss_fusion = pick({0, 1}) != 0;
  s.cross_entropy_fusion_impl = static_cast<CrossEntropyFusionImpl>(pick({0, 1}));
  if (!model.moe) return s;
  s.expert_model_parallel_size = pick({1, 2, 4, 8});
  s.expert_tensor_parallel_size = pick({0, 1, s.tensor_model_parallel_size});
  s.moe_token_dispatcher_type = static_cast<MoeDispatcher>(pick({0, 1, 2}));
  s.moe_flex_dispatcher_backend = static_cast<MoeFlexBackend>(pick({0, 1}));
  s.moe_grouped_gemm = pick({0, 1}) != 0;
  s.moe_permute_fusion = pick({0, 1}) != 0;
  s.moe_router_fusion = pick({0, 1}) != 0;
  s.moe_shared_expert_overlap = pick({0, 1}) != 0;
  s.overlap_moe_expert_parallel_comm = s.expert_model_parallel_size > 1 && pick({0, 1}) != 0;
  s.delay_wgrad_compute = pick({0, 1}) != 0;
  s.moe_router_force_load_balancing = pick({0, 1}) != 0;
  s.moe_expert_capacity_factor = static_cast<double>(pick({0, 0, 1, 2}));
  s.moe_pad_expert_input_to_capacity = s.moe_expert_capacity_factor > 0 && pick({0, 1}) != 0;
  return s;
}

}  // namespace

TEST_CASE("the cost cache's per-part costs equal compute_model_costs over random jobs") {
  std::mt19937 random(20261128);
  int moe_jobs = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const Scenario job = random_job(random);
    const Framework framework = kFrameworks[static_cast<size_t>(trial) % std::size(kFrameworks)];
    CAPTURE(static_cast<int>(framework));
    const GpuSpec& gpu = job.cluster.pools[0].gpu;
    detail::CostCache cache(job.model, job.training, job.cluster, framework);
    std::set<std::vector<int64_t>> kept;  // the shapes get has kept
    moe_jobs += job.model.moe ? 1 : 0;
    // Shapes that share their non-MoE keys (the cache builds those parts once) and shapes that
    // do not: each looked up twice, from a cache that has seen the others.
    for (int base = 0; base < 4; ++base) {
      const Strategy shape = random_shape(random, job.model);
      std::vector<Strategy> shapes = {shape};
      for (int variant = 0; variant < 4; ++variant) {
        Strategy moe_variant = random_shape(random, job.model);
        for (const StrategyKey& key : strategy_keys()) {
          if (key.layer_cost && !detail::kMoeLayerOnlyKeys.contains(key.id)) {
            key.set(moe_variant, 0, key.get(shape, 0));
          }
        }
        shapes.push_back(moe_variant);
      }
      for (int pass = 0; pass < 2; ++pass) {
        for (const Strategy& s : shapes) {
          const detail::ModelCosts expected = detail::compute_model_costs(
              job.model, job.training, gpu, gpu.nvlink_domain_gpus, s, framework);
          // get_unkept builds a shape not yet kept into the scratch, and keeps it not: the
          // same costs, and the kept ones once get has kept them.
          detail::ModelCosts scratch;
          const detail::ModelCosts& unkept = cache.get_unkept(0, s, scratch);
          CHECK(unkept == expected);
          CHECK((&unkept == &scratch) == kept.insert(detail::layer_shape(s, 0)).second);
          CHECK(cache.get(0, s) == expected);
          CHECK(&cache.get_unkept(0, s, scratch) == &cache.get(0, s));
        }
      }
    }
  }
  CHECK(moe_jobs > 0);
}

// The parts shared across the MoE-only keys read none of them: each changed alone (over every
// value the test's shapes take) leaves the dense layer, embedding, LM head and MTP depth as they
// were; a key that moves them fails here by name.
TEST_CASE("the dense layer and the edges read none of the MoE-only keys") {
  std::mt19937 random(20261129);
  const Scenario job =
      test::scenario(R"({"model": "deepseek-v3", "training": {"global_batch_size": 64,
      "seq_length": 4096, "precision": "fp8"}, "cluster": {"gpus": [{"type": "h100",
      "count": 64}]}})");
  const GpuSpec& gpu = job.cluster.pools[0].gpu;
  int moved = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const Framework framework = kFrameworks[static_cast<size_t>(trial) % std::size(kFrameworks)];
    const Strategy shape = random_shape(random, job.model);
    const detail::SharedCosts expected = detail::compute_shared_costs(
        job.model, job.training, gpu, gpu.nvlink_domain_gpus, shape, framework);
    const detail::LayerCost moe_expected =
        detail::compute_moe_layer_cost(job.model, job.training, gpu, gpu.nvlink_domain_gpus, shape,
                                       expected.moe_attention, framework);
    const Strategy other = random_shape(random, job.model);
    for (const StrategyKey& key : strategy_keys()) {
      if (!detail::kMoeLayerOnlyKeys.contains(key.id)) continue;
      CAPTURE(key.name);
      Strategy changed = shape;
      key.set(changed, 0, key.get(other, 0));
      CHECK(detail::compute_shared_costs(job.model, job.training, gpu, gpu.nvlink_domain_gpus,
                                         changed, framework) == expected);
      // The test can fail: the MoE layer itself does read these keys.
      moved +=
          detail::compute_moe_layer_cost(job.model, job.training, gpu, gpu.nvlink_domain_gpus,
                                         changed, expected.moe_attention, framework) == moe_expected
              ? 0
              : 1;
    }
  }
  CHECK(moved > 0);
}
