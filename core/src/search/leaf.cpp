// The search's leaf: estimating one strategy and its offloading variants, and the choices only
// memory settles (a mixed cluster's layer split, block recompute depth). The bounds that skip
// leaves are in bounds.cpp and memory_bounds.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "model/stage_split.hpp"
#include "search/prefilters.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {

namespace {

// Whether two lists of works hold the same bits (StageWork is doubles only: no padding).
bool same_bits(const std::vector<StageWork>& a, const std::vector<StageWork>& b) {
  static_assert(std::is_trivially_copyable_v<StageWork>);
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(StageWork)) == 0);
}

}  // namespace

// The strategy's iteration time, and whether it fits; a strategy that does not fit is timed only
// where `time_unfit` asks, and none where `memory_only` does (else its time is infinite).
double Searcher::evaluate_time(bool& fits, bool time_unfit, bool memory_only) {
  group_stages(s_.pipeline_stage_gpus, s_.pipeline_stage_layers, model_, groups_);
  PipelineInput input = margined_input(s_);
  input.groups = groups_;
  input.time_unfit = time_unfit;
  input.memory_only = memory_only;
  const PipelineResult result = evaluate_pipeline(input, results_);
  audit_floors(s_, result.fits, result.iteration_time_s);
  tick();
  fits = result.fits;
  at_risk_ = result.at_risk;
  if (!fits && result.overflow_bytes < closest_.overflow_bytes) {
    closest_ = {result.overflow_bytes, s_, groups_, results_};
  }
  return result.iteration_time_s;
}

bool Searcher::evaluate() {
  ++stats_.evaluated;
  // Activation offloading by layer (below) reads this strategy's time even where it does not fit.
  const bool offloads_layers =
      !pins_.given(StrategyKeyId::cpu_offloading_num_layers) && layer_offload_allowed(s_);
  bool fits = false;
  const double time_s = evaluate_time(fits, offloads_layers);
  // A strategy inside the default margin ranks below those that fit (unless the user allows
  // it): its offloading variants below may fit.
  const bool tiered = fits && at_risk_ && !options_.allow_at_risk;
  if (fits) offer(time_s);
  if (fits && !tiered) return true;
  // Where GPU memory binds, the same strategy with Megatron-LM's offloading to host memory,
  // unless its keys are pinned: the optimizer stepped on the CPU (HybridDeviceOptimizer, all of
  // it, copies overlapped), and the fewest layers' activations offloaded that fit.
  bool any = false;
  // MindSpeed's parameter-copy reuse, where the framework launches it and the rulebook allows it
  // (bf16 weights, ZeRO 0-1): 2 bytes a parameter of the optimizer's shard for a slower step.
  if (reuse_fp32_param_variant_) {
    any |= offer_variant([&] { s_.reuse_fp32_param = true; });
  }
  if (const Strategy* offloaded = optimizer_offload_variant()) {
    any |= offer_variant([&] { s_ = *offloaded; });
  }
  if (offloads_layers) {
    any |= offer_variant([&] {
      s_.cpu_offloading_num_layers = 1;
      if (!zero_rules_hold()) return;                 // recompute, or a model of one layer
      int64_t low = 1, high = model_.num_layers - 1;  // memory falls as more layers go
      // Offloading only adds time: where this strategy already misses the ranked N, only
      // whether any offload fits matters (the micro-batch walk), and the most offload says.
      if (!options_.exhaustive && top_.full() && !(time_s < top_.worst_s() * (1 + 1e-9))) {
        s_.cpu_offloading_num_layers = high;
        return;
      }
      while (low < high) {
        s_.cpu_offloading_num_layers = (low + high) / 2;
        bool fit = false;
        evaluate_time(fit);
        if (fit && !(tiered && at_risk_)) {  // tiered: the fewest that leave the margin free
          high = s_.cpu_offloading_num_layers;
        } else {
          low = s_.cpu_offloading_num_layers + 1;
        }
      }
      s_.cpu_offloading_num_layers = low;
    });
  }
  return any || fits;
}

// A leaf the recompute settings' time bound rules out (zero_level) while its micro-batch size is
// not known to fit: neither it nor its offload variants can enter the top N, and only whether it
// fits decides the micro-batch walk. A strategy that fits is counted on its memory verdict alone;
// one that does not is evaluated, since an offload variant may fit. The audit times it too
// (audit_floors compares the time with the bound).
bool Searcher::evaluate_bounded() {
  bool fits = false;
  evaluate_time(fits, false, audit_ == nullptr);
  if (!fits) return evaluate();
  if (audit_ != nullptr) ++audit_->bounded_checked;
  ++stats_.pruned;
  return true;
}

// The strategy changed by `change` (keys decided at the ZeRO level), ranked if its rules hold and
// it fits; the strategy is restored after.
template <typename Change>
bool Searcher::offer_variant(Change change) {
  variant_kept_ = s_;  // into kept capacity: no allocation per variant
  change();
  bool fits = false;
  if (zero_rules_hold() && (!split_at_leaf_ || split_layers())) {  // the estimate's split
    const double time_s = evaluate_time(fits);
    if (fits) offer(time_s);
  }
  s_ = variant_kept_;
  return fits;
}

// The rules of the keys decided at `level` (Megatron-LM's and the scenario's framework's),
// checked without counting a rejection.
bool Searcher::rules_hold_quietly(Level level) const {
  const auto at = static_cast<size_t>(level);
  const auto& rules = rules_at_[at];
  const auto& framework_rules = framework_rules_at_[at];
  return std::all_of(rules.begin(), rules.end(),
                     [&](const Rule* rule) { return rule->holds(rule_context_, s_); }) &&
         std::all_of(
             framework_rules.begin(), framework_rules.end(),
             [&](const FrameworkRule* rule) { return rule->expressible(rule_context_, s_); });
}

// rules_hold_quietly over `subset` of the level's rules.
bool Searcher::rules_hold_quietly(Level level, const RuleSubset& subset) const {
  const auto at = static_cast<size_t>(level);
  const auto& rules = rules_at_[at];
  const auto& framework_rules = framework_rules_at_[at];
  return std::all_of(subset.rules.begin(), subset.rules.end(),
                     [&](size_t i) { return rules[i]->holds(rule_context_, s_); }) &&
         std::all_of(subset.framework_rules.begin(), subset.framework_rules.end(),
                     [&](size_t i) { return framework_rules[i]->expressible(rule_context_, s_); });
}

// A strategy that fits: counted, and ranked where its time is a number; one inside the default
// margin (the last estimate's `at_risk_`) ranks below every other unless the user allows it.
bool Searcher::offer(double time_s) {
  if (std::isfinite(time_s)) {
    ++stats_.feasible;
    top_.offer(s_, time_s, at_risk_ && !options_.allow_at_risk ? 1 : 0);
  }
  return true;
}

// Layers per stage where the leaf decides them (a mixed cluster, or layers that do not split
// evenly): balance the stages' times under their memory. With `reuse`, the split's stage works
// before data parallelism are those of the last leaf of this ZeRO level (split_works_); the audit
// recomputes them and counts a violation where they differ.
bool Searcher::split_layers(bool reuse) {
  PipelineInput input =
      pipeline_input(model_, training_, cluster_, s_, data_parallel(), micro_batches(),
                     static_cast<int64_t>(s_.pipeline_stage_gpus.size()));
  input.costs = pool_costs_;
  input.framework = framework_;
  // The estimate's split (under capacity, not the margin), so a strategy ranked here is the one
  // an estimate without pinned layers gives.
  if (reuse && audit_ != nullptr && split_works_.valid) audit_split_reuse(input);
  // The split is written into the strategy's own list once every work it reads is computed.
  if (!reuse) variant_split_works_.valid = false;
  balanced_stage_layers(input, s_.pipeline_stage_gpus, reuse ? split_works_ : variant_split_works_,
                        s_.pipeline_stage_layers);
  return !s_.pipeline_stage_layers.empty();
}

// The audit of split_works_: the works recomputed for this leaf, and its split, as reused.
void Searcher::audit_split_reuse(const PipelineInput& input) {
  SplitWorks fresh;
  std::vector<int64_t> recomputed, reused;
  balanced_stage_layers(input, s_.pipeline_stage_gpus, fresh, recomputed);
  SplitWorks kept = split_works_;
  balanced_stage_layers(input, s_.pipeline_stage_gpus, kept, reused);
  ++audit_->split_reuse_checked;
  if ((!same_bits(fresh.one, split_works_.one) || !same_bits(fresh.two, split_works_.two) ||
       recomputed != reused) &&
      audit_->violations++ == 0) {
    audit_->example = layout_label(s_) + ": the reused layer split's works differ";
  }
}

// The fewest block-recomputed layers per virtual chunk that fit (memory falls as they grow);
// none or a whole chunk would repeat the none and full options.
void Searcher::fit_block_layers(size_t pool) {
  Recompute& recompute = s_.recompute[pool];
  const int64_t chunk =
      *std::min_element(s_.pipeline_stage_layers.begin(), s_.pipeline_stage_layers.end()) /
      s_.virtual_pipeline_model_parallel_size;
  int64_t low = 1, high = std::max<int64_t>(1, chunk - 1);
  while (low < high) {
    recompute.num_layers = (low + high) / 2;
    bool fits = false;
    evaluate_time(fits, false, true);  // only whether it fits: the leaf is estimated after
    if (fits) {
      high = recompute.num_layers;
    } else {
      low = recompute.num_layers + 1;
    }
  }
  recompute.num_layers = low;
}

}  // namespace paraplan::detail
