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

#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <memory>
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
#include "model/stage_split.hpp"
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

// The layer shape's switches, on by default, that the level fits to the scenario's framework.
inline constexpr std::array<StrategyKeyId, 5> kFittedShapeSwitches = {
    StrategyKeyId::cross_entropy_loss_fusion, StrategyKeyId::moe_grouped_gemm,
    StrategyKeyId::moe_permute_fusion, StrategyKeyId::moe_router_fusion,
    StrategyKeyId::moe_shared_expert_overlap};

// How a subtree is visited: every leaf estimated, or only counted (a bound ruled it out).
enum class Walk { evaluate, count };

// Recompute settings tried for one GPU type; `fit_block` asks the leaf for the fewest
// block-recomputed layers that fit.
struct RecomputeOption {
  Recompute recompute;
  bool fit_block = false;
};
// A GPU type's recompute options (Searcher::recompute_options: at most none, selective, lean
// selective, full uniform and full block), held in place: asked once per layer shape and type.
struct RecomputeOptions {
  std::array<RecomputeOption, 5> items;
  size_t size = 0;
  void push_back(const RecomputeOption& option) { items.at(size++) = option; }
  const RecomputeOption* begin() const { return items.data(); }
  const RecomputeOption* end() const { return items.data() + size; }
};

// Why candidates were dropped: per rule (or search-space limit), how many and one example.
struct Rejection {
  int64_t count = 0;
  std::string example;
};

// The bounds' audit (tests): every estimated leaf's groups compared with the memory floor the
// bound gave them (leaf_memory_overflows, split_memory_overflows: these then never prune), and
// its time with the time bound of its recompute settings (lower_bound_s).
struct MemoryBoundAudit {
  int64_t checked = 0;        // groups of estimated leaves compared
  int64_t split_checked = 0;  // estimated leaves whose layers the split floor said cannot fit
  int64_t time_checked = 0;   // estimated leaves timed against the recompute level's time bound
  int64_t memo_checked = 0;   // replayed shape counts walked again and compared (shape_count.cpp)
  int64_t zero_memo_checked = 0;    // of which the ZeRO level's below a recompute setting
  int64_t loop_memo_checked = 0;    // replayed shape loop counts walked again (layer_shape.cpp)
  int64_t split_reuse_checked = 0;  // reused layer-split works recomputed and compared (leaf.cpp)
  int64_t bounded_checked = 0;      // leaves counted on their memory verdict, timed (leaf.cpp)
  int64_t violations = 0;           // a floor above the estimated peak, or such a leaf that fits
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
  Searcher(const Scenario& scenario, const SearchOptions& options,
           MemoryBoundAudit* audit = nullptr);
  SearchResult run();

 private:
  // The constructor's parts, in call order (searcher.cpp).
  void place_rules();
  void init_zero_pins();
  void init_leaf_facts();
  // The levels, in call order (walk_layouts.cpp, layer_shape.cpp, walk_leaf.cpp).
  void tensor_level();
  void context_level();
  void expert_level();
  void pipeline_level();
  void virtual_level();
  void stage_gpus_level();
  void micro_batch_level();
  template <typename Visit>
  void for_each_layer_shape(Visit visit);
  bool layer_shape_level(Walk walk);
  void count_shape();
  bool recompute_level(size_t pool, Walk walk, int fit_pool);
  bool zero_level(Walk walk, int fit_pool);
  bool leaf(Walk walk, int fit_pool, bool bounded = false);
  bool split_and_evaluate(int fit_pool, bool bounded);
  int first_broken_leaf_rule() const;
  bool leaf_rules_refuse_every_block_count(size_t pool);
  template <typename Change>
  bool offer_variant(Change change);
  bool offer(double time_s);
  bool zero_rules_hold() const { return rules_hold_quietly(Level::zero); }
  bool rules_hold_quietly(Level level) const;
  // The ZeRO level's rules by whether they read a key that differs between the ZeRO stages of one
  // zero_level call (kZeroStageVaries): the others break alike at every stage, so a call checks
  // them once and, where they hold, each stage checks only the rest, in their order, as the
  // first broken rule of all (init_zero_rule_split).
  struct RuleSubset {
    std::vector<size_t> rules, framework_rules;  // into rules_at_ and framework_rules_at_
  };
  RuleSubset zero_stage_invariant_, zero_stage_varying_;
  void init_zero_rule_split();
  bool rules_hold_quietly(Level level, const RuleSubset& subset) const;
  bool rules_hold(Level level, const RuleSubset& subset);

  // The leaf's work (leaf.cpp).
  bool evaluate();
  bool evaluate_bounded();
  double evaluate_time(bool& fits, bool time_unfit = false, bool memory_only = false);
  void fit_block_layers(size_t pool);
  bool split_layers(bool reuse = false);
  void audit_split_reuse(const PipelineInput& input);
  double lower_bound_s(bool recompute = false) const;
  // Its parts (bounds.cpp): per stage, a layer, the embedding and LM head, block recompute; the
  // pace and work of a fixed split, of one still to choose on one GPU type and on mixed types.
  static double forward_backward_s(const PassTime& forward, const PassTime& backward);
  double bound_layer_s(size_t i, bool moe, bool recompute) const;
  double bound_edges_s(size_t i) const;
  double block_layers(size_t i, int64_t layers) const;
  double block_forward_s(size_t i, bool recompute) const;
  std::pair<double, double> fixed_split_bound_s(bool recompute) const;
  std::pair<double, double> one_type_leaf_split_bound_s(bool recompute) const;
  std::pair<double, double> mixed_split_bound_s(bool recompute) const;
  mutable std::vector<double> pool_layer_s_;  // scratch of mixed_split_bound_s
  std::pair<double, double> one_type_split_bound_s(double dense_s, double moe_s, double embedding_s,
                                                   double head_s, int64_t stages) const;
  bool bound_prunes(bool recompute) const;
  bool recompute_bound_prunes();
  // lower_bound_s(true) of the current recompute settings; NaN until asked.
  static constexpr double kUnknownTime = std::numeric_limits<double>::quiet_NaN();
  double recompute_bound_s_ = kUnknownTime;
  double micro_batch_bound_s();
  bool micro_batch_bound_prunes();
  void begin_size_floors();
  bool every_size_bounded(const std::vector<int64_t>& sizes);
  void count_micro_batch_sizes(const std::vector<int64_t>& sizes);
  double least_shape_work_s();
  bool activations_overflow(int fit_pool);
  bool floors_rule_out(int fit_pool);
  // Added to what a stage may use by the memory floors (activations_overflow, floors_overflow,
  // kind_room_short): the closest miss's overflow while nothing is ranked, else 0
  // (floors_rule_out, closest_miss_bound.cpp).
  double miss_slack_bytes_ = 0;
  bool group_activations_overflow(PipelineInput& input, int fit_pool, bool offloads_layers);
  bool split_activations_overflow(const PipelineInput& input, bool offloads_layers);
  bool set_split_floor(const PipelineInput& input, size_t pool, int64_t middle);
  bool static_memory_overflows(int fit_pool);
  double mean_static_bytes(const PipelineInput& input);
  double group_activation_bytes(const PipelineInput& input, const StageGroup& group,
                                const StageWork& work) const;
  PipelineInput margined_input(const Strategy& strategy) const;
  // In offload_variant_, valid until the next call; nullptr where there is none.
  const Strategy* optimizer_offload_variant() const;
  mutable Strategy offload_variant_;
  bool leaf_memory_overflows() const;
  bool floors_overflow(const Strategy& strategy) const;
  double group_floor_bytes(const PipelineInput& input, size_t group) const;
  void audit_floors(const Strategy& strategy, bool fits, double time_s);
  // Per GPU type, per layer kind (dense, MoE): the least weights, gradients and optimizer state
  // one more layer of that kind adds to a middle stage.
  using KindBytes = std::array<double, 2>;
  bool split_room_short(const PipelineInput& input,
                        const std::vector<KindBytes>* static_layer_bytes) const;
  bool kind_room_short(const PipelineInput& input, const std::vector<KindBytes>* static_layer_bytes,
                       int kind, int64_t layers) const;
  // `kept_layer_bytes`: the per-layer state of this layer shape, ZeRO stage and variant, computed
  // once (empty: not yet).
  bool split_static_short(const Strategy& strategy,
                          std::vector<KindBytes>* kept_layer_bytes = nullptr) const;
  bool split_memory_overflows() const;

  // Read at every level below the pipeline's (hot): set where their keys are decided.
  int64_t data_parallel() const { return data_parallel_; }
  int64_t micro_batches() const { return micro_batches_; }
  // strategy_key(id) without a call into strategy_keys.cpp (hot: the count caches' keys).
  const StrategyKey& key_row(StrategyKeyId id) const { return key_rows_[static_cast<size_t>(id)]; }
  const StrategyKey* key_rows_ = strategy_keys().data();

  // Candidates and rules.
  RecomputeOptions recompute_options(size_t pool) const;
  bool rules_hold(Level level);
  // Turns off a switch the search turns on by default where it is not pinned and the scenario's
  // framework cannot express it on (model/framework_rules.cpp).
  void fit_switch_to_framework(StrategyKeyId key);
  void reject(std::string_view why, const std::string& example);
  Rejection& tally(std::string_view why);  // the count of `why`, noted while one is recorded
  Rejection& tally(Rejection*& cached, std::string_view why);
  void tick();
  void report_progress(double elapsed_s);
  // Whether to report now because the search holds its first feasible strategy.
  bool first_best_due() const;
  // The listed strategies with the public estimate's reports, in the final order; `provisional`
  // (a progress report's rows): only the first `options_.progress_rows`, their reports kept
  // between reports, and no count of the rejected.
  std::vector<RankedStrategy> ranked_rows(bool provisional);

  // Why no strategy is feasible (search/diagnosis.cpp), each with its id and values.
  std::vector<CoreText> diagnosis() const;
  // The public estimate of a strategy on a cluster of just the GPUs it uses.
  Report estimate_on_used_gpus(const Strategy& strategy) const;

  // As the framework trains it (framework_rules.hpp trained_model), and what that dropped.
  const ModelSpec model_;
  const CoreText model_note_;
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
  // Per level and rule: its entry in rejections_, once it rejected something.
  std::vector<std::vector<Rejection*>> rule_rejections_at_, framework_rejections_at_;
  // Per key: the framework rules that read it, and whether it is pinned (fit_switch_to_framework).
  std::vector<std::vector<const FrameworkRule*>> framework_rules_reading_;
  std::vector<bool> switch_pinned_;
  CostCache costs_;
  TopStrategies top_;
  SearchStats stats_;
  std::chrono::steady_clock::time_point start_;
  bool stopped_ = false;
  double fraction_done_ = 0;
  double progress_best_s_ = 0;        // the best time the last progress report labelled
  std::string progress_best_layout_;  // and its label
  // When the clock asks for the next report.
  double next_report_s_ = options_.first_progress_s;
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
  // Otherwise the keys the leaf's rules read, and whether some of them is the ZeRO level's: where
  // they read none the leaf decides, their verdict is known above it (memory_bound_exact).
  KeySet leaf_rule_reads_;
  bool leaf_rules_read_zero_keys_ = false;
  bool memory_bound_exact(int fit_pool) const;
  // Whether the evaluation's offloading variants can run under the scenario's framework: the
  // activations of some layers (without pipelining) and the optimizer on the CPU, each unless a
  // framework rule reading that key alone refuses it (torchtitan: neither).
  bool layer_offload_variant_ = true;
  bool optimizer_offload_expressible_ = true;
  template <typename Set>
  bool expressible_alone(StrategyKeyId key, Set set) const;

  Strategy s_;                  // the working strategy: each level writes its own keys
  int64_t data_parallel_ = 0;   // of s_ (pipeline_level)
  int64_t micro_batches_ = 0;   // of s_ (micro_batch_level)
  bool split_at_leaf_ = false;  // the leaf balances the stage layers (set by virtual_level)
  // Some strategy of this micro-batch size fits, or a bound left it unknown (micro_batch_level).
  bool micro_batch_fits_ = false;
  Strategy variant_kept_;  // the strategy an offload variant restores (offer_variant)
  bool at_risk_ = false;   // the last estimate's memory verdict was at_risk (evaluate_time)
  // Scratch reused by every evaluation.
  std::vector<const ModelCosts*> pool_costs_;
  std::vector<StageGroup> groups_;
  std::vector<GroupResult> results_;

  // Each group's least activations over the leaf's block-recompute range and its work (the
  // parameters), under the recompute settings of the leaves below (activations_overflow, fixed
  // splits): with each leaf's weights, gradients and optimizer state, a floor of its peak.
  struct GroupFloor {
    StageGroup group;
    double activation_bytes = 0;
    StageWork work;
  };
  std::vector<GroupFloor> group_floors_;
  bool group_floors_valid_ = false;
  // Where the leaf splits the layers: per GPU type, the least activations a layer stores per
  // micro-batch and the works of a middle stage of one and two layers of each kind (dense, MoE),
  // with what one more layer of that kind stores.
  struct SplitFloor {
    double activation_bytes = 0;
    struct Kind {
      bool used = false;
      double activation_bytes = 0;
      StageGroup one_group, two_group;
      StageWork one, two;
    };
    std::array<Kind, 2> kinds;
  };
  std::vector<SplitFloor> split_floors_;
  StageWork all_layers_work_;  // every layer as one stage (mean_static_bytes)
  // mean_static_bytes of the current layer shape by ZeRO stage (0, 1) and variant (the strategy,
  // its optimizer offload); NaN until asked (static_memory_overflows).
  static constexpr double kUnknownBytes = std::numeric_limits<double>::quiet_NaN();
  std::array<std::array<double, 2>, 2> shape_static_bytes_{};
  // The split floor's per-layer state of the current layer shape by ZeRO stage (0-3) and variant
  // (split_memory_overflows); empty until asked.
  mutable std::array<std::array<std::vector<KindBytes>, 2>, 4> shape_split_static_bytes_;
  bool all_layers_work_valid_ = false;
  bool split_floors_valid_ = false;
  // The leaf's layer split's stage works before data parallelism (balanced_stage_layers), kept
  // across the leaves of one ZeRO level, which differ only in its keys (zero_level invalidates).
  SplitWorks split_works_;
  // The offload variants' splits (offer_variant): their works recomputed, the scratch kept.
  SplitWorks variant_split_works_;
  MemoryBoundAudit* audit_ = nullptr;
  double audit_time_floor_s_ = 0;         // the time bound of the leaves below (audit)
  double audit_micro_batch_floor_s_ = 0;  // and that of their micro-batch size

  std::map<std::string_view, Rejection> rejections_;
  // While a pruned shape is walked for its count: the rejections it makes, in order.
  std::vector<std::string_view>* recorded_rejections_ = nullptr;

  // The leaves of a pruned layer shape, what the walk rejected and the keys it left in `s_`:
  // all of it a function of the keys the walk reads and does not write (`count_reads_`), so a
  // walk over the same values is replayed, not repeated (shape_count.cpp).
  struct ShapeCount {
    int64_t leaves = 0;
    std::vector<std::pair<Rejection*, int64_t>> rejections;  // into rejections_ (stable nodes)
    std::vector<Recompute> recompute;  // none for the ZeRO level's walk (it writes none)
    std::vector<int64_t> zero_keys;    // keys_decided_at(Level::zero), in that order
    // The state it was walked from (audited searches; held apart, as the memos hold hundreds of
    // thousands of counts and the audit alone reads it).
    std::unique_ptr<const Strategy> walked_from;
  };
  std::vector<StrategyKeyId> count_reads_;
  std::vector<StrategyKeyId> zero_keys_;
  std::vector<int64_t> count_key_;  // scratch: the values of count_reads_ in s_
  KeyValuesMap<ShapeCount> shape_counts_;
  // The same for a micro-batch size's whole shape loop in counting mode (count_layer_shapes):
  // whether some shape kept the rules, its leaves, its rejections and the keys it left in `s_`.
  struct LoopCount {
    bool kept = false;
    int64_t leaves = 0;
    std::vector<std::pair<Rejection*, int64_t>> rejections;
    std::vector<int64_t> keys;  // loop_writes_, then the recompute settings' keys per GPU type
    std::unique_ptr<const Strategy> walked_from;  // as ShapeCount's
  };
  std::vector<StrategyKeyId> loop_reads_, loop_writes_;
  std::vector<int64_t> loop_key_;  // scratch: the values of loop_reads_ in s_
  KeyValuesMap<LoopCount> loop_counts_;
  std::vector<std::pair<Rejection*, int64_t>> rejection_counts_;  // scratch (count_layer_shapes)
  bool count_layer_shapes();
  LoopCount walk_layer_shapes();
  void audit_loop_replay(const LoopCount& count);
  bool loop_walks_as(const LoopCount& count);
  void restore_loop_keys(const LoopCount& count);
  void added_rejections(const std::vector<std::pair<Rejection*, int64_t>>& before,
                        std::vector<std::pair<Rejection*, int64_t>>& added);
  // A layout's micro-batch loop where every size is only counted (count_micro_batch_sizes): its
  // leaves, rejections, the last size and its micro-batches, and the shape loop whose keys it left
  // in `s_`, by the values of the keys it reads and does not write (`sizes_reads_`).
  struct SizesCount {
    int64_t leaves = 0;
    std::vector<std::pair<Rejection*, int64_t>> rejections;
    int64_t last_size = 0, last_micro_batches = 0;
    const LoopCount* shapes = nullptr;  // into loop_counts_ (values never move); none: no size kept
  };
  std::vector<StrategyKeyId> sizes_reads_;
  std::vector<int64_t> sizes_key_;                              // scratch
  std::vector<std::pair<Rejection*, int64_t>> sizes_snapshot_;  // scratch
  KeyValuesMap<SizesCount> sizes_counts_;
  bool walk_micro_batch_sizes(const std::vector<int64_t>& sizes, const LoopCount*& shapes);
  void init_shape_counts();
  void fill_count_key() { fill_key(count_reads_, count_key_); }
  void fill_key(const std::vector<StrategyKeyId>& reads, std::vector<int64_t>& key) const;

  // The least work per micro-batch of any layer shape (least_shape_work_s), by the values of the
  // keys it reads above the layer shape level (`shape_floor_reads_`): one GPU type, where the
  // shape level's framework fits read no other key (micro_batch_bound_prunes).
  bool shape_floor_usable_ = false;
  std::vector<StrategyKeyId> shape_floor_reads_;
  std::vector<const Rule*> shape_floor_rules_;
  std::vector<const FrameworkRule*> shape_floor_framework_rules_;
  std::vector<int64_t> shape_floor_key_;  // scratch
  KeyValuesMap<double> shape_work_floors_;
  // The costs of a shape least_shape_work_s prices and the cost cache does not keep (scratch).
  ModelCosts shape_floor_costs_;
  // The same floors by micro-batch size for one layout (begin_size_floors): the keys they read
  // other than the size (`size_floor_reads_`) are decided above the micro-batch level or fixed
  // for the search (size_floors_usable_), and stay while the sizes are walked.
  bool size_floors_usable_ = false;
  std::vector<StrategyKeyId> size_floor_reads_;
  std::vector<int64_t> size_floor_key_, size_floor_scratch_;
  std::vector<std::pair<int64_t, double>> size_floors_;  // micro_batch_size, least shape work
  // The shape loop's count (count_layer_shapes) reads no micro-batch key: every size of a layout
  // counts the same (count_micro_batch_sizes).
  bool size_count_shared_ = false;
  // The micro-batch sizes of the current pipeline size (pipeline_level), and whether the bound
  // rules out every one of them under every layout (every_size_bounded).
  std::vector<int64_t> micro_batch_sizes_;
  enum class Bounded { unknown, no, yes } sizes_bounded_ = Bounded::unknown;
  bool floor_reads_above_layouts_ = false;  // the floors read no key of the layouts (virtual on)
  void init_shape_floors();
  void init_sizes_reads();
  ShapeCount walk_count(Level level);
  void replay(const ShapeCount& count);
  void audit_replay(const ShapeCount& count, Level level);
  bool replay_or_record(KeyValuesMap<ShapeCount>& counts, Level level);
  bool walks_as(const ShapeCount& count, Level level);
  // The same for the ZeRO level's walk below one recompute setting the bounds rule out, by the
  // values of count_reads_ and the recompute settings (`zero_count_reads_`).
  std::vector<StrategyKeyId> zero_count_reads_;
  KeyValuesMap<ShapeCount> zero_counts_;
  void count_zero_level();
  std::string keys_that_match(const Strategy& walked_from, const std::function<bool()>& walks);
  ClosestMiss closest_;
};

// A search whose memory floor (leaf_memory_overflows) prunes nothing and is checked against
// every estimated leaf it covers instead (the bound's test).
SearchResult search_audited(const Scenario& scenario, const SearchOptions& options,
                            MemoryBoundAudit& audit);

}  // namespace paraplan::detail
