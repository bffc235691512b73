// Counting the leaves of a pruned layer shape. A shape the bounds rule out is walked in counting
// mode so that `space` stays the exhaustive search's; that walk (every recompute option and ZeRO
// stage, their rules and framework fits) used to cost a third of a large MoE search. What it
// does (the leaves it counts, the rejections it tallies, the keys it leaves in `s_`) depends only
// on the keys it reads and does not write, so it runs once per distinct value of those keys and
// is replayed after (docs/search.md, section 3).
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "search/searcher.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;

// A key's value in `a` and `b` alike (the stage lists whole, a per-GPU key for every type).
bool same_key_value(const StrategyKey& key, const Strategy& a, const Strategy& b) {
  if (key.id == K::pipeline_stage_gpus) return a.pipeline_stage_gpus == b.pipeline_stage_gpus;
  if (key.id == K::pipeline_stage_layers) {
    return a.pipeline_stage_layers == b.pipeline_stage_layers;
  }
  const size_t pools = key.per_gpu ? a.recompute.size() : 1;
  for (size_t pool = 0; pool < pools; ++pool) {
    if (key.get(a, pool) != key.get(b, pool)) return false;
  }
  return true;
}

void copy_key_value(const StrategyKey& key, const Strategy& from, Strategy& to) {
  if (key.id == K::pipeline_stage_gpus) {
    to.pipeline_stage_gpus = from.pipeline_stage_gpus;
  } else if (key.id == K::pipeline_stage_layers) {
    to.pipeline_stage_layers = from.pipeline_stage_layers;
  } else {
    const size_t pools = key.per_gpu ? to.recompute.size() : 1;
    for (size_t pool = 0; pool < pools; ++pool) key.set(to, pool, key.get(from, pool));
  }
}

}  // namespace

// The keys the count walk (recompute_level in counting mode, zero_level, leaf) reads before it
// writes them: those of the rules it checks and of the framework fits it makes, and those it
// reads itself (data_parallel(): tensor, context, pipeline; recompute_options(): grouped GEMM;
// the GPU types the stages use). Everything else it reads is fixed for the search (model,
// training, cluster, pins).
void Searcher::init_shape_counts() {
  const auto recompute = static_cast<size_t>(Level::recompute);
  const auto zero = static_cast<size_t>(Level::zero);
  KeySet reads = {K::tensor_model_parallel_size, K::context_parallel_size,
                  K::pipeline_model_parallel_size, K::moe_grouped_gemm, K::pipeline_stage_gpus};
  for (const size_t level : {recompute, zero}) {
    for (const Rule* rule : rules_at_[level]) reads = reads | rule->reads;
    for (const FrameworkRule* rule : framework_rules_at_[level]) reads = reads | rule->reads;
  }
  // zero_level fits the overlaps to the framework and fp8 parameter gathers to the framework and
  // the rulebook (framework_rules.cpp: the rules that read the switch).
  const KeySet fitted = {K::overlap_grad_reduce, K::overlap_param_gather, K::fp8_param_gather};
  for (const FrameworkRule* rule : framework_rules_) {
    if (rule->reads.intersects(fitted)) reads = reads | rule->reads;
  }
  for (const Rule& rule : rules()) {
    if (rule.reads.contains(K::fp8_param_gather)) reads = reads | rule.reads;
  }
  // The shape loop in counting mode reads, besides what the count walk reads: the sizes its
  // candidates follow (tensor, expert parallel, dispatcher), the rules of the layer shape and
  // those of the framework fits it makes; it writes the layer shape's keys.
  const auto shape = static_cast<size_t>(Level::layer_shape);
  KeySet loop_reads = reads | KeySet{K::expert_model_parallel_size, K::moe_token_dispatcher_type};
  for (const Rule* rule : rules_at_[shape]) loop_reads = loop_reads | rule->reads;
  for (const FrameworkRule* rule : framework_rules_at_[shape]) {
    loop_reads = loop_reads | rule->reads;
  }
  for (const StrategyKeyId key : kFittedShapeSwitches) {
    for (const FrameworkRule* rule : framework_rules_reading_[static_cast<size_t>(key)]) {
      loop_reads = loop_reads | rule->reads;
    }
  }
  // Written before they are read: the recompute settings (a Recompute each, its layer count
  // included) and every key of the ZeRO level.
  const KeySet written = keys_decided_at(Level::recompute, leaf_splits_layers_) |
                         keys_decided_at(Level::zero, leaf_splits_layers_) |
                         KeySet{K::recompute_num_layers};
  const KeySet loop_written = written | keys_decided_at(Level::layer_shape, leaf_splits_layers_);
  const KeySet recompute_keys =
      keys_decided_at(Level::recompute, leaf_splits_layers_) | KeySet{K::recompute_num_layers};
  for (const StrategyKey& key : strategy_keys()) {
    if (loop_reads.contains(key.id) && !loop_written.contains(key.id)) {
      loop_reads_.push_back(key.id);
    }
    if (keys_decided_at(Level::layer_shape, leaf_splits_layers_).contains(key.id) ||
        keys_decided_at(Level::zero, leaf_splits_layers_).contains(key.id)) {
      loop_writes_.push_back(key.id);
    }
    if (reads.contains(key.id) && !written.contains(key.id)) count_reads_.push_back(key.id);
    // The ZeRO level's count walk starts below the recompute settings: it reads them too.
    if (reads.contains(key.id) && (!written.contains(key.id) || recompute_keys.contains(key.id))) {
      zero_count_reads_.push_back(key.id);
    }
    if (keys_decided_at(Level::zero, leaf_splits_layers_).contains(key.id)) {
      zero_keys_.push_back(key.id);
    }
  }
}

// The values in `s_` of the keys `reads` (the stage lists with their lengths) into `key`.
void Searcher::fill_key(const std::vector<StrategyKeyId>& reads, std::vector<int64_t>& key) const {
  key.clear();
  for (const K id : reads) {
    if (id == K::pipeline_stage_gpus) {
      key.push_back(static_cast<int64_t>(s_.pipeline_stage_gpus.size()));
      key.insert(key.end(), s_.pipeline_stage_gpus.begin(), s_.pipeline_stage_gpus.end());
    } else if (id == K::pipeline_stage_layers) {
      key.push_back(static_cast<int64_t>(s_.pipeline_stage_layers.size()));
      key.insert(key.end(), s_.pipeline_stage_layers.begin(), s_.pipeline_stage_layers.end());
    } else {
      const StrategyKey& row = key_row(id);
      const size_t pools = row.per_gpu ? s_.recompute.size() : 1;
      for (size_t pool = 0; pool < pools; ++pool) key.push_back(row.get(s_, pool));
    }
  }
}

// Counts the leaves of the current layer shape, as recompute_level(0, Walk::count, -1) does.
void Searcher::count_shape() {
  if (stopped_) {  // the walk stops at once: nothing to count, nothing to keep
    recompute_level(0, Walk::count, -1);
    return;
  }
  fill_count_key();
  replay_or_record(shape_counts_, Level::recompute);
}

// Counts the leaves of the current recompute settings, as zero_level(Walk::count, ...) does (the
// block-recompute pool only matters to estimated leaves): walked once per distinct value of the
// keys the shape's count walk reads and of the recompute settings, and replayed after.
void Searcher::count_zero_level() {
  if (stopped_) {
    zero_level(Walk::count, -1);
    return;
  }
  fill_key(zero_count_reads_, count_key_);
  if (replay_or_record(zero_counts_, Level::zero)) {
    split_works_.valid = false;  // as zero_level leaves it
  }
}

// Replays the count recorded under count_key_ in `counts`, or walks it from `level` and records
// it (with the strategy it was walked from, for the audit); true where it replayed.
bool Searcher::replay_or_record(KeyValuesMap<ShapeCount>& counts, Level level) {
  if (const ShapeCount* found = counts.find(count_key_)) {
    if (audit_ != nullptr) audit_replay(*found, level);
    replay(*found);
    return true;
  }
  std::unique_ptr<const Strategy> walked_from;
  if (audit_ != nullptr) walked_from = std::make_unique<const Strategy>(s_);
  ShapeCount walked = walk_count(level);
  ShapeCount& count = counts.emplace(count_key_, std::move(walked));
  count.walked_from = std::move(walked_from);
  return false;
}

// The walk itself from `level` (the recompute level's: a shape's; the ZeRO level's: a recompute
// setting's), recording what it does.
Searcher::ShapeCount Searcher::walk_count(Level level) {
  const int64_t before = stats_.pruned;
  std::vector<std::string_view> recorded;
  recorded_rejections_ = &recorded;
  if (level == Level::zero) {
    zero_level(Walk::count, -1);
  } else {
    recompute_level(0, Walk::count, -1);
  }
  recorded_rejections_ = nullptr;
  ShapeCount count;
  count.leaves = stats_.pruned - before;
  std::sort(recorded.begin(), recorded.end());
  for (size_t i = 0; i < recorded.size(); ++i) {
    if (i == 0 || recorded[i] != recorded[i - 1]) {
      count.rejections.emplace_back(&rejections_[recorded[i]], 0);
    }
    ++count.rejections.back().second;
  }
  if (level == Level::recompute) count.recompute = s_.recompute;  // the ZeRO level's: unchanged
  count.zero_keys.reserve(zero_keys_.size());                     // one allocation
  for (const K id : zero_keys_) count.zero_keys.push_back(key_row(id).get(s_, 0));
  return count;
}

// What the walk would do again: its leaves counted, its rejections tallied (each already has
// its example, from the walk that recorded it), its last keys left in `s_`.
void Searcher::replay(const ShapeCount& count) {
  stats_.pruned += count.leaves;
  for (const auto& [rejection, times] : count.rejections) rejection->count += times;
  if (!count.recompute.empty()) s_.recompute = count.recompute;
  for (size_t i = 0; i < zero_keys_.size(); ++i) {
    key_row(zero_keys_[i]).set(s_, 0, count.zero_keys[i]);
  }
}

// The audit (tests, search_audited): a replayed count must be what a walk from the current state
// does. Where it is not, the walk reads a key that its memo key (count_reads_, init_shape_counts)
// lacks, and keys_that_match names it.
void Searcher::audit_replay(const ShapeCount& count, Level level) {
  ++audit_->memo_checked;
  if (level == Level::zero) ++audit_->zero_memo_checked;
  const auto walks = [&] { return walks_as(count, level); };
  if (walks()) return;
  ++audit_->violations;
  audit_->example =
      "a replayed shape count differs from a walk with the same memo key: the count walk reads " +
      keys_that_match(*count.walked_from, walks) +
      ", missing from init_shape_counts (shape_count.cpp)";
}

// The keys whose value in `walked_from` (the state a memoised walk started from), put back alone
// into `s_`, make `walks` true again: each key whose value differs is tried, with what the
// levels above derive from the keys (pipeline_level, micro_batch_level) derived again, and `s_`
// restored after. "more than one key" where none alone does.
std::string Searcher::keys_that_match(const Strategy& walked_from,
                                      const std::function<bool()>& walks) {
  const Strategy now = s_;
  const int64_t data_parallel = data_parallel_, micro_batches = micro_batches_;
  std::string keys;
  for (const StrategyKey& key : strategy_keys()) {
    if (same_key_value(key, now, walked_from)) continue;
    copy_key_value(key, walked_from, s_);
    data_parallel_ = data_parallel_size(rule_context_, s_);
    micro_batches_ = num_micro_batches(rule_context_, s_);
    if (walks()) keys += (keys.empty() ? "" : ", ") + std::string(key.name);
    s_ = now;
    data_parallel_ = data_parallel;
    micro_batches_ = micro_batches;
  }
  return keys.empty() ? std::string("more than one key") : keys;
}

// Walks the current shape again and takes back what it counted: whether it does what `count`
// recorded (its leaves, rejections and the keys it leaves in `s_`).
bool Searcher::walks_as(const ShapeCount& count, Level level) {
  const Strategy before = s_;
  const ShapeCount again = walk_count(level);
  stats_.pruned -= again.leaves;
  for (const auto& [rejection, times] : again.rejections) rejection->count -= times;
  s_ = before;
  return again.leaves == count.leaves && again.rejections == count.rejections &&
         again.recompute == count.recompute && again.zero_keys == count.zero_keys;
}

}  // namespace paraplan::detail
