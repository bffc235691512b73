// The search's pre-filters: where it does not try a variant or a candidate at all, because a rule
// of the rulebook (model/rules.hpp) refuses it there, or, for the dispatchers, because they would
// not differ. They only save time: the rules alone would drop the same strategies. Each filter
// names the rule it mirrors, and tests/unit/search/prefilters_test.cpp checks that it drops only
// strategies that rule refuses: a rule relaxed later fails that test until its filter follows.
#pragma once

#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// Activation offloading by layer (the ZeRO level's variant, Searcher::evaluate; the memory
// bounds, activations_overflow, allow for it alike) is tried only without pipeline parallelism:
// "CPU offloading runs without pipeline parallelism".
inline bool layer_offload_allowed(const Strategy& s) { return s.pipeline_model_parallel_size == 1; }

// The optimizer offloaded to the CPU (the variant turns the precision-aware optimizer on,
// Searcher::optimizer_offload_variant) is tried only with ZeRO: "the precision-aware optimizer
// needs a sharded optimizer".
inline bool optimizer_offload_allowed(const Strategy& s) { return s.zero_stage != 0; }

// The expert-parallel overlap is tried on only for a MoE model (without one, expert parallelism is
// 1: "expert parallel needs experts") with an all-to-all dispatcher over expert parallel > 1:
// "expert-parallel overlap needs an all-to-all over experts".
inline bool expert_overlap_allowed(bool moe, const Strategy& s) {
  return moe && s.moe_token_dispatcher_type != MoeDispatcher::allgather &&
         s.expert_model_parallel_size > 1;
}

// The dispatchers other than allgather are tried only where tokens leave the GPU (expert tensor x
// expert parallel > 1). flex elsewhere: "the flex dispatcher needs tokens to leave the GPU";
// alltoall elsewhere moves no token either but keeps its own buffers: no faster than allgather
// and a little larger (not a rule: the test compares their estimates).
inline bool dispatchers_differ(bool moe, const Strategy& s) {
  return moe && s.expert_tensor_parallel() * s.expert_model_parallel_size > 1;
}

}  // namespace paraplan::detail
