// The search's pre-filters (search/prefilters.hpp) drop only strategies that the rule each one
// names refuses: over dense and MoE jobs and a grid of the keys the filters read, every strategy a
// filter keeps out of the search breaks that rule (or, for the dispatchers, is no faster and no
// smaller than the allgather dispatcher's strategy the search tries). A rule relaxed later fails
// here, naming the filter that still drops what it now accepts.
#include "search/prefilters.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "model/rules.hpp"
#include "paraplan/estimate.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

std::string job(const std::string& model, int gpus) {
  return R"({"model": ")" + model +
         R"(", "training": {"global_batch_size": 64, "seq_length": 4096},
             "cluster": {"gpus": [{"type": "h100", "count": )" +
         std::to_string(gpus) + "}]}}";
}

// Dense, MoE without and with shared experts (their overlap reads the dispatcher).
const std::vector<std::string> kJobs = {job("llama2-13b", 16), job("mixtral-8x7b", 16),
                                        job("qwen3-30b-a3b", 16), job("deepseek-v3", 64)};

// Calls `visit(scenario, s)` for each job's default strategy with tensor, expert tensor, expert
// and pipeline parallel sizes, the dispatcher and the ZeRO stage set over a small grid.
void for_each_strategy(const std::function<void(const Scenario&, const Strategy&)>& visit) {
  for (const std::string& text : kJobs) {
    CAPTURE(text);
    const Scenario scenario = test::scenario(text);
    const Strategy base = complete_strategy(scenario);
    for (const int64_t tp : {1, 2}) {
      for (const int64_t etp : {0, 1}) {
        for (const int64_t ep : {1, 2, 8}) {
          for (const int64_t pp : {1, 2}) {
            for (const int64_t dispatcher : {0, 1, 2}) {
              for (const int64_t zero : {0, 1}) {
                Strategy s = base;
                s.tensor_model_parallel_size = tp;
                s.sequence_parallel = tp > 1;
                s.expert_tensor_parallel_size = etp;
                s.expert_model_parallel_size = ep;
                s.pipeline_model_parallel_size = pp;
                s.moe_token_dispatcher_type = static_cast<MoeDispatcher>(dispatcher);
                s.zero_stage = zero;
                visit(scenario, s);
              }
            }
          }
        }
      }
    }
  }
}

detail::RuleContext context_of(const Scenario& scenario) {
  int64_t gpus = 0;
  for (const GpuPool& pool : scenario.cluster.pools) gpus += pool.count;
  return {scenario.model, scenario.training, scenario.cluster, gpus};
}

// Whether `s` breaks the rule named `name`.
bool breaks(const Scenario& scenario, const Strategy& s, std::string_view name) {
  for (const detail::Rule& rule : detail::rules()) {
    if (rule.name == name) return !rule.holds(context_of(scenario), s);
  }
  FAIL("no rule named " << name);
  return false;
}

}  // namespace

TEST_CASE("activation offloading by layer is left untried only where its rule refuses it") {
  int64_t dropped = 0;
  for_each_strategy([&](const Scenario& scenario, Strategy s) {
    s.cpu_offloading_num_layers = 1;
    if (detail::layer_offload_allowed(s)) return;
    ++dropped;
    CHECK(breaks(scenario, s, "CPU offloading runs without pipeline parallelism"));
  });
  CHECK(dropped > 0);
}

TEST_CASE("the optimizer offload variant is left untried only where its rule refuses it") {
  int64_t dropped = 0;
  for_each_strategy([&](const Scenario& scenario, Strategy s) {
    s.optimizer_cpu_offload = true;
    s.use_precision_aware_optimizer = true;
    if (detail::optimizer_offload_allowed(s)) return;
    ++dropped;
    CHECK(breaks(scenario, s, "the precision-aware optimizer needs a sharded optimizer"));
  });
  CHECK(dropped > 0);
}

TEST_CASE("the expert-parallel overlap is left untried only where its rules refuse it") {
  int64_t dropped = 0;
  for_each_strategy([&](const Scenario& scenario, Strategy s) {
    s.overlap_moe_expert_parallel_comm = true;
    if (detail::expert_overlap_allowed(scenario.model.moe.has_value(), s)) return;
    ++dropped;
    CAPTURE(s.expert_model_parallel_size);
    CHECK((breaks(scenario, s, "expert-parallel overlap needs an all-to-all over experts") ||
           breaks(scenario, s, "expert parallel needs experts")));
  });
  CHECK(dropped > 0);
}

// Where tokens stay on the GPU, flex is refused, and alltoall moves no token either but keeps its
// own buffers: the allgather dispatcher's strategy fits wherever it does, and is as fast and
// peaks no higher.
TEST_CASE(
    "the dispatchers other than allgather are left untried only where allgather does as well") {
  int64_t flex_dropped = 0, alltoall_dropped = 0;
  for_each_strategy([&](const Scenario& scenario, const Strategy& s) {
    if (!scenario.model.moe || detail::dispatchers_differ(true, s)) return;
    if (s.moe_token_dispatcher_type == MoeDispatcher::flex) {
      ++flex_dropped;
      CHECK(breaks(scenario, s, "the flex dispatcher needs tokens to leave the GPU"));
    } else if (s.moe_token_dispatcher_type == MoeDispatcher::alltoall) {
      ++alltoall_dropped;
      Strategy allgather = s;
      allgather.moe_token_dispatcher_type = MoeDispatcher::allgather;
      Estimator estimator(scenario.model, scenario.training, scenario.cluster);
      const Report dropped = estimator.estimate(s), kept = estimator.estimate(allgather);
      CHECK((kept.feasible || !dropped.feasible));
      if (dropped.feasible && kept.feasible) {
        CHECK(kept.iteration_time_s <= dropped.iteration_time_s);
      }
      CHECK(kept.peak_memory_bytes() <= dropped.peak_memory_bytes());
    }
  });
  CHECK(flex_dropped > 0);
  CHECK(alltoall_dropped > 0);
}
