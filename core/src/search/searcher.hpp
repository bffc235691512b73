// The search: a loop nest over the strategy keys, one level per group of keys, outermost first
// (docs/search.md explains the space, the order, the bounds and why pruning is exact).
//
//   level        decides                                         candidates (unless pinned)
//   tensor       tensor_model_parallel_size                      divisors of a node's GPUs
//   context      context_parallel_size                           divisors of GPUs / tensor
//   expert       expert_model_parallel_size, expert_tensor_      divisors of num_experts; ETP
//                parallel_size, moe_token_dispatcher_type        = TP and 1; the 3 dispatchers
//   pipeline     pipeline_model_parallel_size                    divisors of GPUs / (t x cp)
//   virtual      virtual_pipeline_model_parallel_size, and       1..layers/pipeline; the even
//                pipeline_stage_layers where they split evenly   split (else left to the leaf)
//   stage_gpus   pipeline_stage_gpus                             GPU-type compositions in caps
//   micro_batch  micro_batch_size                                divisors of batch / dp
//   layer_shape  sequence_parallel, use_flash_attn,              on/off; tp_comm_overlap off,
//                tp_comm_overlap, fp8_recipe,                    fp8_recipe delayed, the fused
//                cross_entropy_loss_fusion, _fusion_impl, the    loss on (native kernel); MoE:
//                MoE kernel and overlap flags                    grouped, fused, overlaps
//   recompute    recompute_granularity, _method (per GPU type)   none, selective, full, block
//   zero         zero_stage, overlap_grad_reduce,                0-3; overlaps on where they act;
//                overlap_param_gather, fp8_param_gather,         fp8_param_gather off; dtype keys
//                gradient and optimizer dtype keys               as pinned, else defaults
//   leaf         pipeline_stage_layers of mixed clusters and     balanced split; fewest layers
//                uneven splits, block recompute_num_layers       that fit
//
// Each level writes only its own keys into the working strategy `s_`, then checks the rules
// (model/rules.hpp) that its keys complete, so a candidate is dropped as soon as it breaks one.
// A subtree the bounds rule out is walked in counting mode, by the same code, so the counts of
// evaluated and pruned configurations add up to the same space as an exhaustive search.
#pragma once

#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/cost_cache.hpp"
#include "model/framework_rules.hpp"
#include "model/pipeline_model.hpp"
#include "model/rules.hpp"
#include "paraplan/search.hpp"
#include "search/top_strategies.hpp"

namespace paraplan::detail {

enum class Level {
  tensor,
  context,
  expert,
  pipeline,
  virtual_pipeline,
  stage_gpus,
  micro_batch,
  layer_shape,
  recompute,
  zero,
  leaf,
  count
};
inline constexpr size_t kNumLevels = static_cast<size_t>(Level::count);

// The keys each level decides; on a mixed cluster the leaf decides the stage layers unless
// they are pinned.
KeySet keys_decided_at(Level level, bool leaf_splits_layers);

// How a subtree is visited: every leaf estimated, or only counted (a bound ruled it out).
enum class Walk { evaluate, count };

// Recompute settings tried for one GPU type; `fit_block` asks the leaf for the fewest
// block-recomputed layers that fit.
struct RecomputeOption {
  Recompute recompute;
  bool fit_block = false;
};

// Why candidates were dropped: per rule (or search-space limit), how many and one example.
struct Rejection {
  int64_t count = 0;
  std::string example;
};

// The strategy closest to fitting in memory, for a search where nothing fits.
struct ClosestMiss {
  double overflow_bytes = std::numeric_limits<double>::infinity();
  Strategy strategy;
  std::vector<StageGroup> groups;
  std::vector<GroupResult> results;
};

class Searcher {
 public:
  Searcher(const Scenario& scenario, const SearchOptions& options);
  SearchResult run();

 private:
  // The levels, in call order (searcher.cpp).
  void tensor_level();
  void context_level();
  void expert_level();
  void pipeline_level();
  void virtual_level();
  void stage_gpus_level();
  void micro_batch_level();
  bool layer_shape_level(Walk walk);
  void count_shape();
  bool recompute_level(size_t pool, Walk walk, int fit_pool);
  bool zero_level(Walk walk, int fit_pool);
  bool leaf(Walk walk, int fit_pool);
  bool split_and_evaluate(int fit_pool);
  template <typename Change>
  bool offer_variant(Change change);
  bool offer(double time_s);
  bool zero_rules_hold() const;

  // The leaf's work (leaf.cpp).
  bool evaluate();
  double evaluate_time(bool& fits, bool time_unfit = false);
  void fit_block_layers(size_t pool);
  bool split_layers();
  double lower_bound_s(bool recompute = false) const;
  std::pair<double, double> one_type_split_bound_s(double dense_s, double moe_s, double embedding_s,
                                                   double head_s, int64_t stages) const;
  bool bound_prunes(bool recompute) const;
  bool activations_overflow(int fit_pool);
  bool static_memory_overflows();
  double mean_static_bytes(const PipelineInput& input) const;
  double group_activation_bytes(const PipelineInput& input, const StageGroup& group) const;

  int64_t data_parallel() const { return data_parallel_size(rule_context_, s_); }
  int64_t micro_batches() const { return num_micro_batches(rule_context_, s_); }

  // Candidates and rules.
  std::vector<RecomputeOption> recompute_options(size_t pool) const;
  bool rules_hold(Level level);
  // Turns off a switch the search turns on by default where it is not pinned and the scenario's
  // framework cannot express it on (model/framework_rules.cpp).
  void fit_switch_to_framework(StrategyKeyId key);
  void reject(std::string_view why, const std::string& example);
  Rejection& tally(std::string_view why);  // the count of `why`, noted while one is recorded
  void tick();
  void report_progress(double elapsed_s);
  // The listed strategies with the public estimate's reports, in the final order; `provisional`
  // (a progress report's rows): only the first `options_.progress_rows`, their reports kept
  // between reports, and no count of the rejected.
  std::vector<RankedStrategy> ranked_rows(bool provisional);

  std::vector<std::string> diagnosis() const;
  // The public estimate of a strategy on a cluster of just the GPUs it uses.
  Report estimate_on_used_gpus(const Strategy& strategy) const;

  const ModelSpec& model_;
  const Training& training_;
  const Framework framework_;  // whose mechanisms price the strategies
  const Cluster cluster_;      // with no GPUs of types that cannot run the precision
  const StrategyPins& pins_;
  const SearchOptions options_;
  const bool mixed_;
  const bool leaf_splits_layers_;  // stage layers not pinned: the leaf may split them
  const RuleContext rule_context_;
  std::vector<std::vector<const Rule*>> rules_at_;  // per level: the rules its keys complete
  // per level: the rules of the scenario's framework its keys complete
  std::vector<std::vector<const FrameworkRule*>> framework_rules_at_;
  std::vector<const FrameworkRule*> framework_rules_;  // all of them
  CostCache costs_;
  TopStrategies top_;
  SearchStats stats_;
  std::chrono::steady_clock::time_point start_;
  bool stopped_ = false;
  double fraction_done_ = 0;
  double progress_best_s_ = 0;              // the best time the last progress report labelled
  std::string progress_best_layout_;        // and its label
  double next_report_s_ = kFirstProgressS;  // when the clock asks for the next report
  // The ordering keys of the rows the last report carried.
  std::vector<std::vector<int64_t>> reported_rows_;
  // The reports of the rows progress reports carry, by ordering_key: each strategy is
  // estimated once however many reports list it.
  std::map<std::vector<int64_t>, Report> progress_reports_;
  int64_t work_ = 0;  // evaluations, shapes and block-recompute probes alike

  // The zero level's pins, read once: the stage, the overlaps, and the keys it sets as pinned or
  // to their defaults.
  struct ZeroPins {
    std::optional<int64_t> stage;
    std::optional<bool> overlap_grad_reduce, overlap_param_gather, fp8_param_gather;
    std::vector<std::pair<const StrategyKey*, int64_t>> fixed;
  } zero_pins_;

  // MindSpeed's parameter-copy reuse is tried where a strategy does not fit: not pinned, and
  // the scenario's framework launches it (MindSpeed-LLM).
  bool reuse_fp32_param_variant_ = false;

  // No rule is checked at the leaf: a subtree whose strategies cannot fit in memory has no leaf
  // that fails for another reason, so skipping it keeps the micro-batch walk's verdict exact.
  bool memory_bound_exact_ = false;

  Strategy s_;                  // the working strategy: each level writes its own keys
  bool split_at_leaf_ = false;  // the leaf balances the stage layers (set by virtual_level)
  // Some strategy of this micro-batch size fits, or a bound left it unknown (micro_batch_level).
  bool micro_batch_fits_ = false;
  Strategy variant_kept_;  // the strategy an offload variant restores (offer_variant)
  bool at_risk_ = false;   // the last estimate's memory verdict was at_risk (evaluate_time)
  // Scratch reused by every evaluation.
  std::vector<const ModelCosts*> pool_costs_;
  std::vector<StageGroup> groups_;
  std::vector<GroupResult> results_;

  std::map<std::string_view, Rejection> rejections_;
  // While a pruned shape is walked for its count: the rejections it makes, in order.
  std::vector<std::string_view>* recorded_rejections_ = nullptr;

  // The leaves of a pruned layer shape, what the walk rejected and the keys it left in `s_`:
  // all of it a function of the keys the walk reads and does not write (`count_reads_`), so a
  // walk over the same values is replayed, not repeated (shape_count.cpp).
  struct ShapeCount {
    int64_t leaves = 0;
    std::vector<std::pair<Rejection*, int64_t>> rejections;  // into rejections_ (stable nodes)
    std::vector<Recompute> recompute;
    std::vector<int64_t> zero_keys;  // keys_decided_at(Level::zero), in that order
  };
  std::vector<StrategyKeyId> count_reads_;
  std::vector<StrategyKeyId> zero_keys_;
  std::vector<int64_t> count_key_;  // scratch: the values of count_reads_ in s_
  std::unordered_map<std::vector<int64_t>, ShapeCount, KeyValuesHash> shape_counts_;
  void init_shape_counts();
  void fill_count_key();
  ShapeCount walk_shape_count();
  void replay(const ShapeCount& count);
  ClosestMiss closest_;

 public:
  struct Trace {
    int64_t shapes = 0, shape_pruned = 0, rec_pruned = 0, leaves = 0, fit = 0, unfit = 0, times = 0,
            timed_unfit = 0, splits = 0, variants = 0, pp1 = 0, unfit_pp1 = 0, shape_nofit = 0,
            leaves_nofit = 0, shape_slow = 0, leaves_slow = 0, shape_useful = 0, leaves_useful = 0;
    double ratio_slow = 0;
  } trace_;
  double trace_best_ = 0;
  TimeBreakdown trace_bd_, trace_sum_;
};

}  // namespace paraplan::detail
