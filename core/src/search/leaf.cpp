// The search's leaf: estimating one strategy, the choices only memory settles (a mixed
// cluster's layer split, block recompute depth), and the lower bound that prunes shapes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/stage_split.hpp"
#include "search/searcher.hpp"

namespace paraplan::detail {

// The strategy's iteration time, and whether it fits; a strategy that does not fit is timed only
// where `time_unfit` asks (else its time is infinite).
double Searcher::evaluate_time(bool& fits, bool time_unfit) {
  group_stages(s_.pipeline_stage_gpus, s_.pipeline_stage_layers, model_, groups_);
  PipelineInput input = pipeline_input(model_, training_, cluster_, s_, data_parallel(),
                                       micro_batches(), s_.pipeline_model_parallel_size);
  input.groups = groups_;
  input.costs = pool_costs_;
  input.framework = framework_;
  input.memory_margin_bytes = options_.memory_margin.bytes;
  input.memory_margin_fraction = options_.memory_margin.fraction;
  input.time_unfit = time_unfit;
  const PipelineResult result = evaluate_pipeline(input, results_);
  if (result.fits && result.iteration_time_s < trace_best_) {
    trace_best_ = result.iteration_time_s;
    trace_bd_ = result.breakdown;
  }
  ++trace_.times;
  if (!result.fits && time_unfit) ++trace_.timed_unfit;
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
  const bool offloads_layers = !pins_.given(StrategyKeyId::cpu_offloading_num_layers) &&
                               s_.pipeline_model_parallel_size == 1;
  bool fits = false;
  const double time_s = evaluate_time(fits, offloads_layers);
  ++trace_.leaves;
  (fits ? trace_.fit : trace_.unfit)++;
  if (s_.pipeline_model_parallel_size == 1) {
    ++trace_.pp1;
    if (!fits) ++trace_.unfit_pp1;
  }
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
  if (s_.zero_stage >= 1 && !pins_.given(StrategyKeyId::optimizer_cpu_offload) &&
      pins_.flag(StrategyKeyId::use_precision_aware_optimizer).value_or(true)) {
    any |= offer_variant([&] {
      s_.optimizer_cpu_offload = true;
      s_.use_precision_aware_optimizer = true;
      s_.overlap_cpu_optimizer_d2h_h2d =
          pins_.flag(StrategyKeyId::overlap_cpu_optimizer_d2h_h2d).value_or(true);
    });
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

// The strategy changed by `change` (keys decided at the ZeRO level), ranked if its rules hold and
// it fits; the strategy is restored after.
template <typename Change>
bool Searcher::offer_variant(Change change) {
  ++trace_.variants;
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

// The rules of the keys decided at the ZeRO level (Megatron-LM's and the scenario's
// framework's), checked without counting a rejection.
bool Searcher::zero_rules_hold() const {
  const size_t zero = static_cast<size_t>(Level::zero);
  const auto& rules = rules_at_[zero];
  const auto& framework_rules = framework_rules_at_[zero];
  return std::all_of(rules.begin(), rules.end(),
                     [&](const Rule* rule) { return rule->holds(rule_context_, s_); }) &&
         std::all_of(
             framework_rules.begin(), framework_rules.end(),
             [&](const FrameworkRule* rule) { return rule->expressible(rule_context_, s_); });
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
// evenly): balance the stages' times under their memory.
bool Searcher::split_layers() {
  ++trace_.splits;
  PipelineInput input =
      pipeline_input(model_, training_, cluster_, s_, data_parallel(), micro_batches(),
                     static_cast<int64_t>(s_.pipeline_stage_gpus.size()));
  input.costs = pool_costs_;
  input.framework = framework_;
  // The estimate's split (under capacity, not the margin), so a strategy ranked here is the one
  // an estimate without pinned layers gives.
  s_.pipeline_stage_layers = balanced_stage_layers(input, s_.pipeline_stage_gpus);
  return !s_.pipeline_stage_layers.empty();
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
    evaluate_time(fits);
    if (fits) {
      high = recompute.num_layers;
    } else {
      low = recompute.num_layers + 1;
    }
  }
  recompute.num_layers = low;
}

// The pace (slowest stage) and total work per micro-batch of any split of the model's layers over
// `stages` stages of one GPU type, each layer at its kind's time (`dense_s`, `moe_s`), the first
// stage with the embedding and the last with the LM head: the work is the same for every split
// (each layer runs once), the slowest stage does at least the mean, and some stage holds at least
// ceil(layers / stages) layers, no faster than the cheapest that many layers can be.
std::pair<double, double> Searcher::one_type_split_bound_s(double dense_s, double moe_s,
                                                           double embedding_s, double head_s,
                                                           int64_t stages) const {
  const int64_t layers = model_.num_layers;
  const int64_t moe_layers = moe_layers_in(model_, 0, layers);
  const int64_t dense_layers = layers - moe_layers;
  const double work = static_cast<double>(dense_layers) * dense_s +
                      static_cast<double>(moe_layers) * moe_s + embedding_s + head_s;
  const int64_t most = (layers + stages - 1) / stages;
  const bool dense_cheaper = dense_s <= moe_s;
  const int64_t cheap = std::min(most, dense_cheaper ? dense_layers : moe_layers);
  const double fullest = static_cast<double>(cheap) * std::min(dense_s, moe_s) +
                         static_cast<double>(most - cheap) * std::max(dense_s, moe_s);
  const double pace = std::max(work / static_cast<double>(stages), fullest);
  return {pace, work};
}

// A lower bound on the iteration time for every recompute and ZeRO choice of a layer shape:
// the pipeline with each layer's compute and in-layer communication (tensor, context, expert
// parallel), which neither choice removes, and none of point-to-point, data parallel or
// optimizer time. With `recompute` (the recompute settings decided), each layer's backward also
// redoes at least what its recompute setting redoes (layer_recompute_floor_s).
double Searcher::lower_bound_s(bool recompute) const {
  const Strategy& s = s_;
  const auto pass_s = [](const PassTime& forward, const PassTime& backward) {
    return forward.total_s() + backward.total_s();
  };
  // One layer of each kind on stage `i`'s GPU type, recompute included where asked.
  const auto dense_s = [&](size_t i) {
    const auto pool = static_cast<size_t>(s.pipeline_stage_gpus[i]);
    const LayerCost& l = pool_costs_[pool]->dense;
    return pass_s(l.forward, l.backward) +
           (recompute ? layer_recompute_floor_s(l, s.recompute[pool], framework_) : 0.0);
  };
  const auto moe_s = [&](size_t i) {
    const auto pool = static_cast<size_t>(s.pipeline_stage_gpus[i]);
    const LayerCost& l = pool_costs_[pool]->moe;
    return pass_s(l.forward, l.backward) +
           (recompute ? layer_recompute_floor_s(l, s.recompute[pool], framework_) : 0.0);
  };
  const size_t stages = s.pipeline_stage_gpus.size();
  const auto edges_s = [&](size_t i) {
    const ModelCosts& c = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus[i])];
    return (i == 0 ? pass_s(c.embedding.forward, c.embedding.backward) : 0.0) +
           (i + 1 == stages ? pass_s(c.head.forward, c.head.backward) : 0.0);
  };
  const auto layer_s = [&](size_t i) { return std::min(dense_s(i), moe_s(i)); };
  // Pace (slowest stage) and total work of all stages per micro-batch.
  double pace = 0, work = 0;
  if (!split_at_leaf_) {  // a fixed split: each stage's dense and MoE layers as estimated
    int64_t first_layer = 0;
    for (size_t i = 0; i < stages; ++i) {
      const int64_t layers = s.pipeline_stage_layers[i];
      const int64_t moe_layers = moe_layers_in(model_, first_layer, layers);
      first_layer += layers;
      const double stage = static_cast<double>(layers - moe_layers) * dense_s(i) +
                           static_cast<double>(moe_layers) * moe_s(i) + edges_s(i);
      pace = std::max(pace, stage);
      work += stage;
    }
  } else if (!mixed_) {  // a split still to choose on one GPU type
    const ModelCosts& c = *pool_costs_[static_cast<size_t>(s.pipeline_stage_gpus.front())];
    const auto [pace_s, work_s] = one_type_split_bound_s(
        dense_s(0), moe_s(0), pass_s(c.embedding.forward, c.embedding.backward),
        pass_s(c.head.forward, c.head.backward), static_cast<int64_t>(stages));
    pace = pace_s;
    work = work_s;
  } else {  // a split still to choose: a perfectly balanced continuous split, least work
    double rate = 0, fixed = 0, fastest_layer = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < stages; ++i) {
      rate += 1 / layer_s(i);
      fixed += edges_s(i) / layer_s(i);
      fastest_layer = std::min(fastest_layer, layer_s(i));
      work += edges_s(i);
    }
    pace = (static_cast<double>(model_.num_layers) + fixed) / rate;
    work = std::max(pace, work + static_cast<double>(model_.num_layers) * fastest_layer);
  }
  // m paces, plus filling and draining the other stages' work (as evaluate_pipeline).
  return static_cast<double>(micro_batches()) * pace +
         (work - pace) / static_cast<double>(s.virtual_pipeline_model_parallel_size);
}

}  // namespace paraplan::detail

namespace paraplan::detail {

// The activations one GPU of `group` holds at its peak (stage_memory's activations, without the
// CUDA graphs' buffers): no ZeRO-level choice changes them, and every other term of the peak is
// at least zero.
double Searcher::group_activation_bytes(const PipelineInput& input, const StageGroup& group) const {
  const StageWork work = stage_work(input, group);
  const int64_t v = s_.virtual_pipeline_model_parallel_size;
  const double in_flight = in_flight_micro_batches(group.first, input.stages, v, micro_batches());
  return held_activation_bytes(s_, work, in_flight);
}

// Whether no strategy below the recompute level fits in GPU memory, whatever the ZeRO level and
// the leaf choose: some stage's activations alone exceed what the stage may use. Where the
// layers are split, each group's activations as the estimate computes them (a pool whose block
// recompute the leaf fits at either end of its range: its activations are affine in the layers
// it recomputes); where the leaf splits them, each stage's activations are at least its layers
// times the least a layer stores (recompute none or selective: linear in the layers), so no split
// fits when the stages cannot hold the model's layers between them.
bool Searcher::activations_overflow(int fit_pool) {
  // Offloading activations by layer (a variant the evaluation tries) lowers them.
  if (s_.pipeline_model_parallel_size == 1) return false;
  // The keys the ZeRO level sets as pinned or to their defaults, as it will.
  for (const auto& [row, value] : zero_pins_.fixed) row->set(s_, 0, value);
  if (s_.cpu_offloading_num_layers > 0) return false;
  PipelineInput input = pipeline_input(model_, training_, cluster_, s_, data_parallel(),
                                       micro_batches(), s_.pipeline_model_parallel_size);
  input.costs = pool_costs_;
  input.framework = framework_;
  const auto usable = [&](int pool) {
    return input.usable_bytes(cluster_.pools[static_cast<size_t>(pool)].gpu.hbm_bytes);
  };
  if (!split_at_leaf_) {
    group_stages(s_.pipeline_stage_gpus, s_.pipeline_stage_layers, model_, groups_);
    input.groups = groups_;
    // fit_block_layers' range of block-recomputed layers: 1 to a chunk less one.
    Recompute* block = fit_pool >= 0 ? &s_.recompute[static_cast<size_t>(fit_pool)] : nullptr;
    const int64_t kept = block ? block->num_layers : 0;
    const int64_t most = std::max<int64_t>(
        1, *std::min_element(s_.pipeline_stage_layers.begin(), s_.pipeline_stage_layers.end()) /
                   s_.virtual_pipeline_model_parallel_size -
               1);
    bool overflow = false;
    for (const StageGroup& group : groups_) {
      if (block) block->num_layers = 1;
      double bytes = group_activation_bytes(input, group);
      if (block) {
        block->num_layers = most;
        bytes = std::min(bytes, group_activation_bytes(input, group));
      }
      if (bytes > usable(group.pool)) {
        overflow = true;
        break;
      }
    }
    if (block) block->num_layers = kept;
    return overflow;
  }
  // The least a layer stores per micro-batch on each GPU type: one layer more in a middle stage.
  const int64_t stages = s_.pipeline_model_parallel_size;
  if (model_.num_layers < stages) return false;  // the leaf rejects the split
  const int64_t middle = stages > 2 ? 1 : 0;
  std::vector<double> layer_bytes(cluster_.pools.size(), 0.0);
  for (size_t pool = 0; pool < cluster_.pools.size(); ++pool) {
    if (std::find(s_.pipeline_stage_gpus.begin(), s_.pipeline_stage_gpus.end(),
                  static_cast<int>(pool)) == s_.pipeline_stage_gpus.end()) {
      continue;
    }
    if (s_.recompute[pool].granularity == RecomputeGranularity::full) return false;
    double least = std::numeric_limits<double>::infinity();
    for (const int64_t moe : {int64_t{0}, int64_t{1}}) {
      if (moe == 1 ? model_.num_moe_layers() == 0 : model_.num_moe_layers() == model_.num_layers) {
        continue;
      }
      const int p = static_cast<int>(pool);
      const StageWork one = stage_work(input, {p, middle, 1, 1, moe});
      const StageWork two = stage_work(input, {p, middle, 1, 2, 2 * moe});
      least = std::min(least, two.stored_activation_bytes - one.stored_activation_bytes);
    }
    if (!(least > 0)) return false;
    layer_bytes[pool] = least;
  }
  const int64_t v = s_.virtual_pipeline_model_parallel_size;
  const double a2a_overlap_chunk =
      s_.overlap_moe_expert_parallel_comm ? 1.0 / static_cast<double>(v) : 0.0;
  int64_t room = 0;  // layers the stages can hold between them
  for (int64_t i = 0; i < stages && room < model_.num_layers; ++i) {
    const int pool = s_.pipeline_stage_gpus[static_cast<size_t>(i)];
    const double in_flight =
        in_flight_micro_batches(i, stages, v, micro_batches()) + a2a_overlap_chunk;
    const double layers = usable(pool) / (in_flight * layer_bytes[static_cast<size_t>(pool)]);
    if (layers < 1) return true;  // not even one layer
    room +=
        static_cast<int64_t>(std::min(std::floor(layers), static_cast<double>(model_.num_layers)));
  }
  return room < model_.num_layers;
}

}  // namespace paraplan::detail

namespace paraplan::detail {

// The weights, gradients and optimizer state of one GPU of a stage, averaged over the stages,
// at most: stage_memory's for one group of every layer (the LM head left out), divided by the
// stages. Without sharded weights or gradients (ZeRO 0 and 1) each term is linear in the
// stage's parameters, with nothing subtracted, so the stages' terms add up to at least this
// group's and the fullest stage holds at least their mean.
double Searcher::mean_static_bytes(const PipelineInput& input) const {
  const int64_t layers = model_.num_layers;
  const StageGroup all{0, 0, 1, layers, moe_layers_in(model_, 0, layers)};
  const StageWork work = stage_work(input, all);
  const StageMemory memory = stage_memory(input, all, work, 0);
  return (memory.weights_bytes + memory.gradients_bytes + memory.optimizer_bytes) /
         static_cast<double>(input.stages);
}

// Whether this leaf and the offloading variants the evaluation would try (the optimizer on the
// CPU) cannot fit on one GPU type: the mean of the stages' weights, gradients and optimizer
// state alone exceeds what a GPU may use. Only where the bound is exact for the micro-batch walk
// (memory_bound_exact_), once something is ranked, for ZeRO 0 and 1, not where MindSpeed's
// parameter-copy reuse may follow. Block recompute does not change these terms.
bool Searcher::static_memory_overflows() {
  if (!memory_bound_exact_ || options_.exhaustive || mixed_ || top_.best() == nullptr ||
      reuse_fp32_param_variant_) {
    return false;
  }
  const int64_t dp_cp = data_parallel() * s_.context_parallel_size;
  if (dp_cp > 1 && s_.zero_stage > 1) return false;
  // A split the leaf cannot make is rejected there, not for memory.
  if (split_at_leaf_ && model_.num_layers < s_.pipeline_model_parallel_size) return false;
  PipelineInput input = pipeline_input(model_, training_, cluster_, s_, data_parallel(),
                                       micro_batches(), s_.pipeline_model_parallel_size);
  input.costs = pool_costs_;
  input.framework = framework_;
  const double usable = input.usable_bytes(cluster_.pools.front().gpu.hbm_bytes);
  if (!(mean_static_bytes(input) > usable)) return false;
  if (s_.zero_stage == 0 || pins_.given(StrategyKeyId::optimizer_cpu_offload) ||
      !pins_.flag(StrategyKeyId::use_precision_aware_optimizer).value_or(true)) {
    return true;  // no optimizer offload variant (evaluate)
  }
  // The variant with the optimizer on the CPU, as evaluate() makes it.
  Strategy offloaded = s_;
  offloaded.optimizer_cpu_offload = true;
  offloaded.use_precision_aware_optimizer = true;
  offloaded.overlap_cpu_optimizer_d2h_h2d =
      pins_.flag(StrategyKeyId::overlap_cpu_optimizer_d2h_h2d).value_or(true);
  input.strategy = &offloaded;
  return mean_static_bytes(input) > usable;
}

}  // namespace paraplan::detail
