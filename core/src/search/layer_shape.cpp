// The layer shape level: its candidate shapes, the time bound above it (the least work of a
// micro-batch size's shapes) and the count of a whole shape loop, walked once per value of what
// it reads (docs/search.md, section 3).
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "search/prefilters.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;

}  // namespace

// Sets each candidate layer shape in `s_` (the switches fitted to the framework) and visits it.
template <typename Visit>
void Searcher::for_each_layer_shape(Visit visit) {
  // Candidates as spans over constants and the pinned values (this level runs once per
  // micro-batch size of every layout: no allocation).
  static constexpr int64_t kOnOff[] = {1, 0};
  static constexpr int64_t kOff[] = {0};
  const std::span<const int64_t> on_off(kOnOff), off(kOff);
  const std::optional<int64_t> sp_pin = pins_.get(K::sequence_parallel);
  const std::optional<int64_t> flash_pin = pins_.get(K::use_flash_attn);
  const std::optional<int64_t> overlap_pin = pins_.get(K::overlap_moe_expert_parallel_comm);
  const auto pinned_or_span = [](const std::optional<int64_t>& pinned,
                                 std::span<const int64_t> all) {
    return pinned ? std::span<const int64_t>(&*pinned, 1) : all;
  };
  const bool splits = s_.tensor_model_parallel_size > 1;
  const bool moe = model_.moe.has_value();
  const bool all_to_all = s_.moe_token_dispatcher_type != MoeDispatcher::allgather;
  const bool shared_experts = moe && model_.moe->num_shared_experts > 0;
  const std::span<const int64_t> a2a_overlap = expert_overlap_allowed(moe, s_) ? on_off : off;
  // The switches this level sets as pinned or by default, read once per call.
  const bool tp_comm_overlap = pins_.flag(K::tp_comm_overlap).value_or(false);
  // The attention kernels as pinned, else Transformer Engine's own choice.
  const auto attention_backend =
      static_cast<AttentionBackend>(pins_.get(K::attention_backend).value_or(0));
  const auto fp8_recipe = static_cast<Fp8Recipe>(pins_.get(K::fp8_recipe).value_or(0));
  // fp8 attention changes the numerics: only as pinned.
  const bool fp8_attention = pins_.flag(K::fp8_dot_product_attention).value_or(false);
  // The fused loss only saves time and memory traffic: on unless pinned off.
  const bool loss_fusion = pins_.flag(K::cross_entropy_loss_fusion).value_or(true);
  // Transformer Engine's loss kernel only when pinned: Megatron-LM refuses it.
  const auto loss_fusion_impl =
      static_cast<CrossEntropyFusionImpl>(pins_.get(K::cross_entropy_fusion_impl).value_or(0));
  const bool grouped_gemm = pins_.flag(K::moe_grouped_gemm).value_or(moe);
  const bool permute_fusion = pins_.flag(K::moe_permute_fusion).value_or(moe);
  // The fused router only saves kernels (Megatron-LM router.py: the same top-k and aux loss).
  const bool router_fusion = pins_.flag(K::moe_router_fusion).value_or(moe);
  const std::optional<bool> shared_expert_overlap = pins_.flag(K::moe_shared_expert_overlap);
  // The flex dispatcher's kernels as pinned, else Megatron-LM's default (DeepEP).
  const auto flex_backend =
      static_cast<MoeFlexBackend>(pins_.get(K::moe_flex_dispatcher_backend).value_or(0));
  // Delayed weight gradients only let the dispatch's backward start earlier in the overlap's
  // schedule (model_chunk_schedule_plan.py): with the overlap unless pinned.
  const std::optional<bool> delay_wgrad = pins_.flag(K::delay_wgrad_compute);
  const bool force_balancing = pins_.flag(K::moe_router_force_load_balancing).value_or(false);
  // Token dropping changes what is trained: only as pinned.
  const int64_t capacity_factor = pins_.get(K::moe_expert_capacity_factor).value_or(0);
  const bool pad_to_capacity = pins_.flag(K::moe_pad_expert_input_to_capacity).value_or(false);
  for (const int64_t sp : pinned_or_span(sp_pin, splits ? on_off : off)) {
    for (const int64_t flash : pinned_or_span(flash_pin, on_off)) {
      for (const int64_t overlap : pinned_or_span(overlap_pin, a2a_overlap)) {
        if (stopped_) return;
        s_.sequence_parallel = sp != 0;
        s_.use_flash_attn = flash != 0;
        s_.attention_backend = attention_backend;
        s_.tp_comm_overlap = tp_comm_overlap;
        s_.fp8_recipe = fp8_recipe;
        s_.fp8_dot_product_attention = fp8_attention;
        s_.cross_entropy_loss_fusion = loss_fusion;
        s_.cross_entropy_fusion_impl = loss_fusion_impl;
        s_.moe_grouped_gemm = grouped_gemm;
        s_.moe_permute_fusion = permute_fusion;
        s_.moe_router_fusion = router_fusion;
        s_.moe_flex_dispatcher_backend = flex_backend;
        s_.overlap_moe_expert_parallel_comm = overlap != 0;
        s_.delay_wgrad_compute = delay_wgrad.value_or(overlap != 0);
        s_.moe_shared_expert_overlap =
            shared_expert_overlap.value_or(shared_experts && all_to_all && overlap == 0);
        s_.moe_router_force_load_balancing = force_balancing;
        strategy_key(K::moe_expert_capacity_factor).set(s_, 0, capacity_factor);
        s_.moe_pad_expert_input_to_capacity = pad_to_capacity;
        for (const K key : kFittedShapeSwitches) fit_switch_to_framework(key);
        visit();
      }
    }
  }
}

// The least work per micro-batch of the layer shapes of this micro-batch size that those rules
// keep: every layer's passes at its kind (each at least the host's time to issue it), the
// embedding and the LM head, which lower_bound_s's pipeline runs on some stage whatever the
// split (infinite where the rules keep none).
double Searcher::least_shape_work_s() {
  const int64_t layers = model_.num_layers;
  const auto moe_layers = static_cast<double>(moe_layers_in(model_, 0, layers));
  const auto dense_layers = static_cast<double>(layers) - moe_layers;
  double least_s = std::numeric_limits<double>::infinity();
  for_each_layer_shape([&] {
    const auto holds = [&](const Rule* rule) { return rule->holds(rule_context_, s_); };
    const auto expressible = [&](const FrameworkRule* rule) {
      return rule->expressible(rule_context_, s_);
    };
    if (!std::all_of(shape_floor_rules_.begin(), shape_floor_rules_.end(), holds) ||
        !std::all_of(shape_floor_framework_rules_.begin(), shape_floor_framework_rules_.end(),
                     expressible)) {
      return;
    }
    const ModelCosts& c = costs_.get_unkept(0, s_, shape_floor_costs_);
    const double work_s = dense_layers * layer_passes_s(c, false, s_) +
                          moe_layers * layer_passes_s(c, true, s_) + c.embedding.forward.total_s() +
                          c.embedding.backward.total_s() + c.head.forward.total_s() +
                          c.head.backward.total_s();
    least_s = std::min(least_s, work_s);
  });
  return least_s;
}

// Sequence parallelism (only where tensor parallelism splits), fused attention, and
// tensor-parallel overlap as pinned (off by default). MoE models take grouped GEMMs and fused
// permutation (never slower), try the expert-parallel all-to-all overlap where it may act, and
// overlap the shared experts otherwise. Here the per-layer costs are known, so a shape whose
// lower bound cannot beat the N-th best is only counted. Returns whether some strategy fits or
// was left unknown by a bound; counting, whether some shape kept the rules.
bool Searcher::layer_shape_level(Walk walk) {
  if (walk == Walk::count && !stopped_) return count_layer_shapes();
  bool any_fit_or_unknown = false;
  for_each_layer_shape([&] {
    if (!rules_hold(Level::layer_shape)) return;
    if (walk == Walk::count) {
      count_shape();
      any_fit_or_unknown = true;
      return;
    }
    pool_costs_.clear();
    for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
      pool_costs_.push_back(&costs_.get(static_cast<int>(pool), s_));
    }
    tick();
    for (auto& by_zero : shape_static_bytes_) by_zero.fill(kUnknownBytes);
    for (auto& by_zero : shape_split_static_bytes_) {
      for (std::vector<KindBytes>& bytes : by_zero) bytes.clear();
    }
    if (bound_prunes(false)) {
      count_shape();
      any_fit_or_unknown = micro_batch_fits_ = true;
      return;
    }
    any_fit_or_unknown |= recompute_level(0, walk, -1);
  });
  return any_fit_or_unknown;
}

// The current micro-batch size's shapes counted, as the loop of layer_shape_level(Walk::count)
// does; returns whether some shape kept the rules. The loop is walked once per distinct value
// of the keys it reads and does not write (loop_reads_), and replayed after: its leaves, the
// rejections it tallied (each already has its example) and the keys it left in `s_`.
bool Searcher::count_layer_shapes() {
  fill_key(loop_reads_, loop_key_);
  const LoopCount* found = loop_counts_.find(loop_key_);
  if (found == nullptr) {
    std::unique_ptr<const Strategy> walked_from;
    if (audit_ != nullptr) walked_from = std::make_unique<const Strategy>(s_);
    LoopCount count = walk_layer_shapes();
    if (stopped_) return count.kept;  // cut short: nothing to keep
    count.walked_from = std::move(walked_from);
    const bool kept = count.kept;
    loop_counts_.emplace(loop_key_, std::move(count));
    return kept;
  }
  const LoopCount& count = *found;
  if (audit_ != nullptr) audit_loop_replay(count);
  stats_.pruned += count.leaves;
  for (const auto& [rejection, times] : count.rejections) rejection->count += times;
  restore_loop_keys(count);
  return count.kept;
}

// The shape loop in counting mode, recording what it does (unless cut short).
Searcher::LoopCount Searcher::walk_layer_shapes() {
  // The tallies before the walk, in the map's order (kept capacity: no allocation per walk).
  rejection_counts_.clear();
  for (auto& [why, rejection] : rejections_)
    rejection_counts_.emplace_back(&rejection, rejection.count);
  const int64_t pruned = stats_.pruned;
  LoopCount count;
  count.kept = false;
  for_each_layer_shape([&] {
    if (!rules_hold(Level::layer_shape)) return;
    count_shape();
    count.kept = true;
  });
  if (stopped_) return count;
  count.leaves = stats_.pruned - pruned;
  added_rejections(rejection_counts_, count.rejections);
  count.keys.reserve(loop_writes_.size() + 4 * s_.recompute.size());  // one allocation
  for (const K id : loop_writes_) count.keys.push_back(key_row(id).get(s_, 0));
  for (const Recompute& recompute : s_.recompute) {
    count.keys.insert(
        count.keys.end(),
        {static_cast<int64_t>(recompute.granularity), static_cast<int64_t>(recompute.method),
         recompute.num_layers, static_cast<int64_t>(recompute.modules)});
  }
  return count;
}

// The audit (tests, search_audited): a replayed shape loop must be what a walk from the current
// state does. Where it is not, the loop reads a key its memo key (loop_reads_, init_shape_counts)
// lacks, named as audit_replay names the count walk's.
void Searcher::audit_loop_replay(const LoopCount& count) {
  ++audit_->loop_memo_checked;
  const auto walks = [&] { return loop_walks_as(count); };
  if (walks()) return;
  ++audit_->violations;
  audit_->example =
      "a replayed shape loop count differs from a walk with the same memo key: the loop reads " +
      keys_that_match(*count.walked_from, walks) +
      ", missing from loop_reads_ (init_shape_counts, shape_count.cpp)";
}

// Walks the current shape loop again and takes back what it counted: whether it does what
// `count` recorded (whether a shape kept the rules, its leaves, rejections and the keys it
// leaves in `s_`).
bool Searcher::loop_walks_as(const LoopCount& count) {
  const Strategy before = s_;
  const int64_t pruned = stats_.pruned;
  const LoopCount again = walk_layer_shapes();
  stats_.pruned = pruned;
  for (const auto& [rejection, times] : again.rejections) rejection->count -= times;
  s_ = before;
  return again.kept == count.kept && again.leaves == count.leaves &&
         again.rejections == count.rejections && again.keys == count.keys;
}

// The rejections tallied since `before` (the counts of rejections_, in the map's order), into
// `added`: nodes inserted since interleave with the old ones, in the same order (a merge).
void Searcher::added_rejections(const std::vector<std::pair<Rejection*, int64_t>>& before,
                                std::vector<std::pair<Rejection*, int64_t>>& added) {
  size_t old = 0;
  for (auto& [why, rejection] : rejections_) {
    int64_t times = rejection.count;
    if (old < before.size() && before[old].first == &rejection) times -= before[old++].second;
    if (times > 0) added.emplace_back(&rejection, times);
  }
}

// The keys a counted shape loop left in `s_`, as it left them.
void Searcher::restore_loop_keys(const LoopCount& count) {
  size_t at = 0;
  for (const K id : loop_writes_) key_row(id).set(s_, 0, count.keys[at++]);
  for (Recompute& recompute : s_.recompute) {
    recompute.granularity = static_cast<RecomputeGranularity>(count.keys[at++]);
    recompute.method = static_cast<RecomputeMethod>(count.keys[at++]);
    recompute.num_layers = count.keys[at++];
    recompute.modules = static_cast<uint32_t>(count.keys[at++]);
  }
}

}  // namespace paraplan::detail
