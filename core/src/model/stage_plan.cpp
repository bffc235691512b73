#include "model/stage_plan.hpp"

#include <algorithm>

#include "model/rules.hpp"
#include "paraplan/report.hpp"

namespace paraplan::detail {

std::optional<Layout> plan_layout(const ModelSpec& model, const Training& training,
                                  const Cluster& cluster, Framework framework, const Strategy& s,
                                  std::vector<std::string>& reasons,
                                  std::vector<std::string>* ids) {
  Layout layout;
  for (const GpuPool& pool : cluster.pools) layout.num_gpus += pool.count;
  const RuleContext context{model, training, cluster, layout.num_gpus, framework};
  if (!check_rules(context, s, reasons, ids)) return std::nullopt;

  layout.data_parallel = data_parallel_size(context, s);
  layout.micro_batches = num_micro_batches(context, s);
  const int64_t p = s.pipeline_model_parallel_size;
  std::vector<int> stage_pools = s.pipeline_stage_gpus;
  if (stage_pools.empty()) stage_pools.assign(static_cast<size_t>(p), 0);
  // The cluster lists exactly the GPUs the stages use.
  const int64_t stage_gpus = s.gpus_per_stage(layout.data_parallel);
  for (size_t pool = 0; pool < cluster.pools.size(); ++pool) {
    const int64_t stages =
        std::count(stage_pools.begin(), stage_pools.end(), static_cast<int>(pool));
    if (stages * stage_gpus != cluster.pools[pool].count) {
      reasons.push_back(
          std::to_string(stages) + " pipeline stages of " + std::to_string(stage_gpus) +
          " GPUs on " + cluster.pools[pool].gpu.id + " use " + std::to_string(stages * stage_gpus) +
          " GPUs, but the cluster gives " + std::to_string(cluster.pools[pool].count));
      if (ids != nullptr) ids->emplace_back(kStageGpusReason);
    }
  }
  if (!reasons.empty()) return std::nullopt;

  std::vector<int64_t> layers =
      s.pipeline_stage_layers.empty()
          ? standard_split(model.num_layers, p, s.virtual_pipeline_model_parallel_size)
          : s.pipeline_stage_layers;
  layout.balance_layers = layers.empty();
  layers.resize(static_cast<size_t>(p));
  for (size_t i = 0; i < layers.size(); ++i) layout.stages.push_back({stage_pools[i], layers[i]});
  return layout;
}

}  // namespace paraplan::detail
