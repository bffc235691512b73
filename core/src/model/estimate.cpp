#include "paraplan/estimate.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "model/cost_cache.hpp"
#include "model/framework_rules.hpp"
#include "model/number_text.hpp"
#include "model/pipeline_model.hpp"
#include "model/stage_plan.hpp"
#include "model/stage_split.hpp"
#include "model/text_ids.hpp"
#include "model/uncertainty.hpp"
#include "model/validated_regime.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/search.hpp"
#include "paraplan/units.hpp"

namespace paraplan {
namespace {

bool all_finite(const Report& r) {
  double sum = r.iteration_time_s + r.tokens_per_s + r.samples_per_s + r.model_tflops_per_gpu +
               r.mfu + r.hfu + r.model_tflops_per_gpu_causal + r.mfu_causal +
               r.time_breakdown.total_s() + r.model_parameters + r.model_flops_per_token;
  for (const StageReport& stage : r.stages) {
    sum += stage.memory.peak_bytes() + stage.memory.peak_allocated_bytes() + stage.forward_s +
           stage.backward_s + stage.pp_comm_s + stage.dp_comm_exposed_s + stage.optimizer_s +
           stage.in_flight_micro_batches;
  }
  return std::isfinite(sum);
}

std::string gib(double bytes) { return fixed_text(bytes / units::kGiB, 1) + " GiB"; }

// The default margin on a GPU of `capacity_bytes` for the launch's class (docs/model.md, "Memory
// verdict").
double default_margin_bytes(double capacity_bytes, limits::MarginClass margin_class) {
  return limits::default_memory_margin_percent(margin_class) / 100 * capacity_bytes;
}

// Sets the memory verdict's reason, in English and with its id and values.
void set_verdict_text(Report& report, CoreText text) {
  report.memory_verdict_reason = text.text;
  report.memory_verdict_text = std::move(text);
}

// The reason of `verdict` for `stage`, the worst, at `share` of its capacity with `margin_bytes`
// the default margin (docs/model.md, "Memory verdict").
CoreText verdict_text(MemoryVerdict verdict, const StageReport& stage, size_t index, double share,
                      double margin_bytes, limits::MarginClass margin_class) {
  const bool expandable = margin_class.mode == limits::AllocatorMode::expandable_segments;
  const bool graphs = margin_class.cuda_graphs;
  const bool p2p_cp = margin_class.p2p_context_parallel;
  const double peak = stage.memory.peak_bytes();
  const std::vector<std::pair<std::string, std::string>> args = {
      {"stage", std::to_string(index)},
      {"gpu", stage.gpu},
      {"peak_gib", fixed_text(peak / units::kGiB, 1)},
      {"capacity_gib", fixed_text(stage.capacity_bytes / units::kGiB, 1)},
      {"share_percent", fixed_text(100 * share, 0)},
      {"free_gib", fixed_text((stage.capacity_bytes - peak) / units::kGiB, 1)},
      {"margin_gib", fixed_text(margin_bytes / units::kGiB, 1)},
      {"margin_percent", fixed_text(100 * margin_bytes / stage.capacity_bytes, 0)},
      {"allocator", expandable ? "expandable_segments" : "default_segments"},
      {"cuda_graphs", graphs ? "true" : "false"},
      {"p2p_context_parallel", p2p_cp ? "true" : "false"}};
  const char* what = verdict == MemoryVerdict::oom ? "more than its capacity"
                     : verdict == MemoryVerdict::at_risk
                         ? "inside the default margin, where published launches went either way"
                         : "the most of any stage, below the default margin";
  const std::string text =
      "pipeline stage " + args[0].second + " (" + args[1].second + ") peaks at " + args[2].second +
      " GiB of " + args[3].second + " GiB (" + args[4].second + "%, " + args[5].second +
      " GiB free): " + what + " (the default margin keeps " + args[6].second + " GiB, " +
      args[7].second + "%, free, for the allocator mode, " +
      (expandable ? "expandable segments" : "PyTorch's default fixed segments") +
      (graphs ? ", with CUDA graphs" : "") +
      (p2p_cp ? ", with context parallelism over point-to-point sends" : "") +
      "; docs/model.md \"Memory verdict\")";
  const char* id = verdict == MemoryVerdict::oom       ? text_id::kVerdictOom
                   : verdict == MemoryVerdict::at_risk ? text_id::kVerdictAtRisk
                                                       : text_id::kVerdictFits;
  return {id, text, args, {}};
}

// The worst stage's memory verdict and the numbers behind it (docs/model.md, "Memory verdict").
void set_memory_verdict(Report& report, limits::MarginClass margin_class) {
  if (report.stages.empty()) {
    set_verdict_text(report, {text_id::kMemoryRejected,
                              "memory not estimated: the strategy is rejected before it",
                              {},
                              {}});
    return;
  }
  size_t worst = 0;
  MemoryVerdict verdict = MemoryVerdict::fits;
  double worst_share = -1;
  for (size_t i = 0; i < report.stages.size(); ++i) {
    const StageReport& stage = report.stages[i];
    const double share = stage.memory.peak_bytes() / stage.capacity_bytes;
    const MemoryVerdict v =
        memory_verdict_of(stage.memory.peak_bytes(), stage.capacity_bytes, margin_class);
    if (v > verdict || (v == verdict && share > worst_share)) {
      verdict = v;
      worst = i;
      worst_share = share;
    }
  }
  const StageReport& stage = report.stages[worst];
  const double margin = default_margin_bytes(stage.capacity_bytes, margin_class);
  report.memory_verdict = verdict;
  set_verdict_text(report, verdict_text(verdict, stage, worst, worst_share, margin, margin_class));
}

// A stage's memory against its GPU's and its host's: infeasible above capacity, a warning inside
// the default margin.
void check_stage_memory(Report& report, const StageReport& stage, const GpuSpec& gpu,
                        limits::MarginClass margin_class, int64_t i) {
  const std::string where = "pipeline stage " + std::to_string(i) + " (" + stage.gpu + ", " +
                            std::to_string(stage.layers) + " layers)";
  const double margin = default_margin_bytes(stage.capacity_bytes, margin_class);
  const double headroom = stage.capacity_bytes - stage.memory.peak_bytes();
  // Tight: inside the default margin, the memory verdict at_risk (docs/model.md, "Memory
  // verdict").
  if (headroom >= 0 && headroom < margin) report.memory_tight = true;
  if (stage.memory.peak_bytes() > stage.capacity_bytes) {
    report.feasible = false;
    report.infeasible_reason_ids.emplace_back(kStageMemoryReason);
    report.infeasible_reasons.push_back(where + " needs " + gib(stage.memory.peak_bytes()) +
                                        " per GPU, more than the " + gib(stage.capacity_bytes) +
                                        " it has");
  } else if (headroom < margin) {
    // Fits, but within the default margin: where published launches went either way.
    report.memory_warnings.push_back(
        where + " leaves " + gib(stage.capacity_bytes - stage.memory.peak_bytes()) + " of its " +
        gib(stage.capacity_bytes) + " free, less than the default " + gib(margin) +
        " memory margin: at_risk, it may run out of memory");
  }
  if (stage.memory.host_bytes > gpu.host.bytes) {
    report.feasible = false;
    report.infeasible_reason_ids.emplace_back(kHostMemoryReason);
    report.infeasible_reasons.push_back(where + " offloads " + gib(stage.memory.host_bytes) +
                                        " of activations per GPU, more than the " +
                                        gib(gpu.host.bytes) + " of host memory per GPU");
  }
}

// The report of sizes that overflow double precision.
Report overflow_report() {
  Report overflow;
  overflow.feasible = false;
  overflow.infeasible_reason_ids.emplace_back(kOverflowReason);
  overflow.infeasible_reasons.push_back(
      "the sizes are too large to estimate in double precision (a time or memory overflowed)");
  set_verdict_text(overflow, {text_id::kMemoryOverflow,
                              "memory not estimated: the sizes overflow double precision",
                              {},
                              {}});
  return overflow;
}

}  // namespace

const char* to_string(MemoryVerdict verdict) {
  switch (verdict) {
    case MemoryVerdict::fits:
      return "fits";
    case MemoryVerdict::at_risk:
      return "at_risk";
    case MemoryVerdict::oom:
      return "oom";
  }
  return "fits";
}

MemoryVerdict memory_verdict_of(double peak_bytes, double capacity_bytes,
                                limits::MarginClass margin_class) {
  if (peak_bytes > capacity_bytes) return MemoryVerdict::oom;
  if (capacity_bytes - peak_bytes < default_margin_bytes(capacity_bytes, margin_class)) {
    return MemoryVerdict::at_risk;
  }
  return MemoryVerdict::fits;
}

limits::MarginClass margin_class_of(const Strategy& s, Framework framework) {
  return {s.expandable_segments ? limits::AllocatorMode::expandable_segments
                                : limits::AllocatorMode::default_segments,
          s.cuda_graph_impl != CudaGraphImpl::none,
          s.context_parallel_size > 1 && s.cp_comm_type == CpCommType::p2p &&
              framework != Framework::torchtitan};
}

struct Estimator::Impl {
  Impl(ModelSpec m, Training t, Cluster c, Framework f)
      : model_note(detail::trained_model_note(m, f)),
        model(detail::trained_model(std::move(m), f)),
        training(t),
        cluster(std::move(c)),
        framework(f),
        costs(model, training, cluster, framework),
        band(detail::ratio_band(detail::regime_of(model, cluster, framework),
                                detail::validation_residuals())) {}

  CoreText model_note;  // what the framework's model drops (framework_rules.hpp)
  ModelSpec model;
  Training training;
  Cluster cluster;
  Framework framework;
  detail::CostCache costs;
  detail::RatioBand band;  // the regime's, from every published run (model/uncertainty.hpp)

  Report estimate(const Strategy& s);
  void add_stage_reports(Report& report, const Strategy& s, const detail::PipelineInput& input,
                         const std::vector<detail::StageGroup>& groups,
                         const std::vector<detail::GroupResult>& results) const;
  void set_throughput(Report& report, const detail::Layout& layout,
                      const detail::PipelineResult& pipeline) const;
  void set_validation(Report& report, const Strategy& s) const;
};

Report Estimator::Impl::estimate(const Strategy& s) {
  Report report;
  report.model_parameters = count_parameters(model).total;
  report.model_flops_per_token = model_flops_per_token(model, training.seq_length);
  report.model_flops_per_token_causal = model_flops_per_token_causal(model, training.seq_length);
  for (CoreText& note : detail::regime_notes(model, training, cluster, framework, s, -1)) {
    report.validation.add(std::move(note));  // MFU below
  }
  report.uncertainty = detail::uncertainty_of(band, 0);
  const std::optional<detail::Layout> layout =
      detail::plan_layout(model, training, cluster, framework, s, report.infeasible_reasons,
                          &report.infeasible_reason_ids);
  if (!layout) {
    report.feasible = false;
    set_memory_verdict(report, margin_class_of(s, framework));  // "memory not estimated"
    return report;
  }
  report.num_gpus = layout->num_gpus;
  report.data_parallel_size = layout->data_parallel;
  report.num_micro_batches = layout->micro_batches;

  std::vector<int> stage_pools;
  std::vector<int64_t> stage_layers;
  for (const detail::StagePlan& stage : layout->stages) {
    stage_pools.push_back(stage.pool);
    stage_layers.push_back(stage.layers);
  }
  std::vector<const detail::ModelCosts*> pool_costs;
  for (size_t pool = 0; pool < cluster.pools.size(); ++pool) {
    pool_costs.push_back(&costs.get(static_cast<int>(pool), s));
  }
  detail::PipelineInput input =
      detail::pipeline_input(model, training, cluster, s, layout->data_parallel,
                             layout->micro_batches, static_cast<int64_t>(layout->stages.size()));
  input.costs = pool_costs;
  input.framework = framework;
  if (layout->balance_layers) {
    // Layers that do not split evenly: the split the search would choose, balancing the
    // stages' times under their memory (Megatron-LM --pipeline-model-parallel-layout).
    stage_layers = detail::balanced_stage_layers(input, stage_pools);
  }
  std::vector<detail::StageGroup> groups;
  detail::group_stages(stage_pools, stage_layers, model, groups);
  input.groups = groups;
  std::vector<detail::GroupResult> results;
  const detail::PipelineResult pipeline = detail::evaluate_pipeline(input, results);

  report.iteration_time_s = pipeline.iteration_time_s;
  report.time_breakdown = pipeline.breakdown;
  report.bottleneck_stage = static_cast<int>(groups[pipeline.bottleneck_group].first);
  add_stage_reports(report, s, input, groups, results);
  set_memory_verdict(report, margin_class_of(s, framework));
  set_throughput(report, *layout, pipeline);
  set_validation(report, s);
  if (!all_finite(report)) return overflow_report();
  return report;
}

// One StageReport per pipeline stage, with its memory checked.
void Estimator::Impl::add_stage_reports(Report& report, const Strategy& s,
                                        const detail::PipelineInput& input,
                                        const std::vector<detail::StageGroup>& groups,
                                        const std::vector<detail::GroupResult>& results) const {
  for (size_t g = 0; g < groups.size(); ++g) {
    const detail::StageGroup& group = groups[g];
    const detail::GroupResult& r = results[g];
    const GpuSpec& gpu = cluster.pools[static_cast<size_t>(group.pool)].gpu;
    for (int64_t i = group.first; i < group.first + group.count; ++i) {
      StageReport stage;
      stage.gpu = gpu.id;
      stage.layers = group.layers;
      stage.capacity_bytes = gpu.hbm_bytes;
      stage.memory = detail::stage_memory(input, group, r.work, i);
      stage.in_flight_micro_batches = detail::in_flight_micro_batches(
          i, input.stages, s.virtual_pipeline_model_parallel_size, input.micro_batches);
      stage.forward_s = r.work.forward.total_s();
      stage.backward_s = r.work.backward.total_s() + r.work.recompute.total_s();
      stage.recompute_s = r.work.recompute.total_s();
      stage.pp_comm_s = r.work.pp_comm_s;
      stage.dp_comm_exposed_s = r.grad_exposed_s + r.param_exposed_s +
                                static_cast<double>(input.micro_batches) * r.work.zero3_comm_s;
      stage.optimizer_s = r.optimizer_s;
      stage.host_copy_bytes = r.host_copy_bytes;
      check_stage_memory(report, stage, gpu, margin_class_of(s, framework), i);
      report.stages.push_back(std::move(stage));
    }
  }
}

// Throughput and utilisation (MFU counts model FLOPs only; HFU adds recompute).
void Estimator::Impl::set_throughput(Report& report, const detail::Layout& layout,
                                     const detail::PipelineResult& pipeline) const {
  const double tokens = static_cast<double>(training.global_batch_size) * training.seq_length;
  const double gpus = static_cast<double>(layout.num_gpus);
  double peak_flops = 0;
  for (const GpuPool& pool : cluster.pools) {
    peak_flops += static_cast<double>(pool.count) * pool.gpu.tensor_flops(training.precision);
  }
  const double model_flops = report.model_flops_per_token * tokens;
  report.tokens_per_s = tokens / report.iteration_time_s;
  report.tokens_per_s_per_gpu = report.tokens_per_s / gpus;
  report.samples_per_s = static_cast<double>(training.global_batch_size) / report.iteration_time_s;
  report.model_tflops_per_gpu = model_flops / report.iteration_time_s / gpus / 1e12;
  report.mfu = model_flops / report.iteration_time_s / peak_flops;
  report.hfu = (model_flops + pipeline.recompute_flops) / report.iteration_time_s / peak_flops;
  const double causal_flops = report.model_flops_per_token_causal * tokens;
  report.model_tflops_per_gpu_causal = causal_flops / report.iteration_time_s / gpus / 1e12;
  report.mfu_causal = causal_flops / report.iteration_time_s / peak_flops;
}

// The band and the notes on how far the validation covers this strategy.
void Estimator::Impl::set_validation(Report& report, const Strategy& s) const {
  report.uncertainty = detail::uncertainty_of(band, report.tokens_per_s_per_gpu);
  report.validation = {};
  for (CoreText& note :
       detail::regime_notes(model, training, cluster, framework, s, report.mfu_causal)) {
    report.validation.add(std::move(note));
  }
  if (CoreText note = detail::measured_error_note(model, framework, s, band); !note.id.empty()) {
    report.validation.add(std::move(note));
  }
  if (!model_note.id.empty()) report.validation.add(model_note);
}

Estimator::Estimator(ModelSpec model, Training training, Cluster cluster, Framework framework)
    : impl_(std::make_unique<Impl>(std::move(model), training, std::move(cluster), framework)) {}
Estimator::~Estimator() = default;
Estimator::Estimator(Estimator&&) noexcept = default;
Estimator& Estimator::operator=(Estimator&&) noexcept = default;

Report Estimator::estimate(const Strategy& strategy) { return impl_->estimate(strategy); }

Report estimate(const Scenario& scenario) {
  if (scenario.cluster.pools.size() > 1 && !scenario.strategy.pipeline_stage_gpus) {
    throw InputError("strategy.pipeline_stage_gpus",
                     CoreText{text_id::kErrorStageGpusRequired,
                              "is required when cluster.gpus lists several GPU types (one type "
                              "per pipeline stage)",
                              {},
                              {}});
  }
  Estimator estimator(scenario.model, scenario.training, scenario.cluster, scenario.framework);
  return estimator.estimate(complete_strategy(scenario));
}

}  // namespace paraplan
