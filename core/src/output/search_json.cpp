// The search result as docs/contract.md section 5 gives it, with AIAK's field names for the
// per-stage layout.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/rules.hpp"
#include "paraplan/launch.hpp"
#include "paraplan/megatron.hpp"
#include "paraplan/search.hpp"
#include "paraplan/units.hpp"
#include "search/top_strategies.hpp"

namespace paraplan {
namespace {

using units::kGiB;

// The strategy with its stage GPUs and layers spelled out (even for a single GPU type).
Strategy with_stages(Strategy s, const ModelSpec& model) {
  if (s.pipeline_stage_gpus.empty()) {
    s.pipeline_stage_gpus.assign(static_cast<size_t>(s.pipeline_model_parallel_size), 0);
  }
  if (s.pipeline_stage_layers.empty()) {
    s.pipeline_stage_layers = detail::standard_split(
        model.num_layers, s.pipeline_model_parallel_size, s.virtual_pipeline_model_parallel_size);
  }
  return s;
}

// The per-GPU-type keys (peak memory, recompute, GPUs) and the stages' chips and layers; the
// ids of the GPU types in use by pool.
std::map<int, std::string> write_per_gpu(const Strategy& s, const Report& report,
                                         const Cluster& cluster, nlohmann::json& out) {
  std::map<int, double> peak_gib;
  for (size_t i = 0; i < report.stages.size(); ++i) {
    const int pool = s.pipeline_stage_gpus[i];
    peak_gib[pool] = std::max(peak_gib[pool], report.stages[i].memory.peak_bytes() / kGiB);
  }
  nlohmann::json memory = nlohmann::json::object(), granularity = nlohmann::json::object(),
                 method = nlohmann::json::object(), num_layers = nlohmann::json::object(),
                 gpus = nlohmann::json::object();
  const int64_t stage_gpus =
      report.data_parallel_size * s.tensor_model_parallel_size * s.context_parallel_size;
  std::map<int, std::string> ids;
  for (const auto& [pool, gib] : peak_gib) {
    const std::string& id = cluster.pools[static_cast<size_t>(pool)].gpu.id;
    const Recompute& r = s.recompute[static_cast<size_t>(pool)];
    ids[pool] = id;
    memory[id] = gib;
    granularity[id] = to_string(r.granularity);
    method[id] = to_string(r.method);
    num_layers[id] = r.num_layers;
    gpus[id] =
        stage_gpus * std::count(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(), pool);
  }
  out["max-use-mem-size"] = memory;
  nlohmann::json chips = nlohmann::json::array();
  for (const int pool : s.pipeline_stage_gpus)
    chips.push_back(cluster.pools[static_cast<size_t>(pool)].gpu.id);
  out["pipeline-stage-chips"] = chips;
  out["pipeline-stage-layers"] = s.pipeline_stage_layers;
  out["recompute-granularity"] = granularity;
  out["recompute-method"] = method;
  out["recompute-num-layers"] = num_layers;
  out["gpus_used"] = gpus;
  return ids;
}

// The keys a results table draws (to_table_json's), `estimate` given; `s` is the ranked
// strategy with its stages spelled out. Writes the per-GPU-type keys; returns write_per_gpu's
// ids.
std::map<int, std::string> write_table_keys(const RankedStrategy& ranked, size_t rank,
                                            const Scenario& scenario, const Strategy& s,
                                            nlohmann::json estimate, nlohmann::json& out) {
  const Report& report = ranked.report;
  out["rank"] = rank;
  out["strategy"] = to_json(s, scenario.cluster);
  out["estimate"] = std::move(estimate);
  out["headroom_gib"] = report.headroom_bytes() / kGiB;  // smallest over the stages
  out["tight"] = report.memory_tight;
  out["tie_with_best"] = ranked.tie_with_best;
  if (!ranked.rank_note.empty()) {
    out["rank_note"] = ranked.rank_note;
    out["rank_note_text"] = to_json(ranked.rank_note_text);
  }
  return write_per_gpu(s, report, scenario.cluster, out);
}

nlohmann::json ranked_json(const RankedStrategy& ranked, size_t rank, const Scenario& scenario) {
  const Strategy s = with_stages(ranked.strategy, scenario.model);
  const Report& report = ranked.report;
  nlohmann::json out;
  const std::map<int, std::string> ids =
      write_table_keys(ranked, rank, scenario, s, to_json(report), out);
  out["megatron_args"] = join_arguments(
      megatron_arguments(s, scenario.model, scenario.training, s.pipeline_stage_gpus.front()));
  // The search's own layout identity and families, so no reader re-derives their rules.
  out["layout"] = nlohmann::json(detail::layout_key(ranked.strategy)).dump();
  nlohmann::json families = nlohmann::json::array();
  for (const LayoutFamily family : kLayoutFamilies) {
    if (detail::in_family(ranked.strategy, family)) families.push_back(to_string(family));
  }
  out["families"] = families;
  out["memory_verdict"] = to_string(report.memory_verdict);  // as estimate.memory.verdict
  out["sim_throughput"] = report.tokens_per_s_per_gpu;
  out["sim_total_time_s"] = report.iteration_time_s;
  // Mixed GPU types: each type's own flags.
  if (ids.size() > 1) {
    nlohmann::json by_gpu = nlohmann::json::object();
    for (const auto& [pool, id] : ids) {
      by_gpu[id] = join_arguments(megatron_arguments(s, scenario.model, scenario.training, pool));
    }
    out["megatron_args_by_gpu"] = by_gpu;
  }
  out["launch"] = launches_json(s, scenario, report.data_parallel_size);
  return out;
}

}  // namespace

std::string_view to_string(LayoutFamily family) {
  switch (family) {
    case LayoutFamily::tp:
      return "tp";
    case LayoutFamily::pp:
      return "pp";
    case LayoutFamily::cp:
      return "cp";
    case LayoutFamily::zero3:
      return "zero3";
    case LayoutFamily::ep:
      return "ep";
  }
  return "";
}

nlohmann::json to_json(const SearchResult& result, const Scenario& scenario) {
  nlohmann::json strategies = nlohmann::json::array();
  for (size_t i = 0; i < result.strategies.size(); ++i) {
    strategies.push_back(ranked_json(result.strategies[i], i + 1, scenario));
  }
  // The best of each family over every strategy the search saw, with the rank of that very
  // strategy where it is listed (0 where it is not).
  nlohmann::json family_bests = nlohmann::json::object();
  for (const FamilyBest& family : result.family_bests) {
    family_bests[std::string(to_string(family.family))] =
        ranked_json(family.best, family.rank, scenario);
  }
  nlohmann::json diagnosis_texts = nlohmann::json::array();
  for (const CoreText& text : result.diagnosis_texts) diagnosis_texts.push_back(to_json(text));
  return {{"strategies", strategies},
          {"stats", to_json(result.stats)},
          {"diagnosis", result.diagnosis},
          {"diagnosis_texts", std::move(diagnosis_texts)},
          {"family_bests", family_bests}};
}

nlohmann::json to_json(const SearchStats& stats) {
  nlohmann::json out = {{"space", stats.space},     {"evaluated", stats.evaluated},
                        {"pruned", stats.pruned},   {"feasible", stats.feasible},
                        {"seconds", stats.seconds}, {"complete", stats.complete},
                        {"stopped", stats.stopped}};
  if (!stats.stopped_text.id.empty()) out["stopped_text"] = to_json(stats.stopped_text);
  return out;
}

nlohmann::json to_json(const RankedStrategy& ranked, size_t rank, const Scenario& scenario) {
  return ranked_json(ranked, rank, scenario);
}

nlohmann::json to_table_json(const RankedStrategy& ranked, size_t rank, const Scenario& scenario) {
  const Strategy s = with_stages(ranked.strategy, scenario.model);
  nlohmann::json out;
  write_table_keys(ranked, rank, scenario, s, to_table_json(ranked.report), out);
  return out;
}

}  // namespace paraplan
