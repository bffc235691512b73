// The order of published sweeps: one model under several configurations, ranked as published.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "paraplan/estimate.hpp"
#include "paraplan/units.hpp"
#include "stated_settings.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;
using units::kGiB;

// Published sweeps (published-sweeps.json, made by scripts/validation/sc21_sweeps.py): one model
// under several configurations, with the published order of their throughput (SC21 section 5,
// from the scripts NVIDIA released to reproduce its figures). Only the order is checked: the
// sweeps hold no throughput. Each configuration is estimated as the SC21 Table 1 runs are
// (with_stated_settings, the entries' own strategy keys).
namespace {

struct SweepRow {
  std::string name;
  double predicted = 0;  // tokens/s per GPU; 0 where the model finds it infeasible
  bool feasible = false, published_feasible = true;
  int published_rank = 0;  // 1 = best; tied configurations share a rank; 0 = out of memory
  int predicted_rank = 0;
  TimeBreakdown time;
  double peak_gib = 0;
  std::string reason;
};

struct SweepResult {
  std::string id;
  double tau = 0;
  bool best_matches = false;
  int discordant = 0;  // pairs the model orders against the published order
  int infeasible_published = 0, infeasible_matched = 0, feasible_rejected = 0;
  std::map<std::string, double> predicted;  // tokens/s per GPU by configuration name
};

// Kendall's tau-b of the predicted throughputs against the published ranks: pairs tied in either
// order shrink its denominator; a sweep without an untied pair scores 0.
double kendall_tau_b(const std::vector<const SweepRow*>& rows, int& discordant_pairs) {
  double concordant = 0, discordant = 0, tied_predicted = 0, tied_published = 0, pairs = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = i + 1; j < rows.size(); ++j) {
      const double predicted = rows[i]->predicted - rows[j]->predicted;
      const int published = rows[j]->published_rank - rows[i]->published_rank;
      pairs += 1;
      tied_predicted += predicted == 0;
      tied_published += published == 0;
      if (predicted == 0 || published == 0) continue;
      ((predicted > 0) == (published > 0) ? concordant : discordant) += 1;
    }
  }
  discordant_pairs = static_cast<int>(discordant);
  const double denominator = std::sqrt((pairs - tied_predicted) * (pairs - tied_published));
  return denominator > 0 ? (concordant - discordant) / denominator : 0;
}

SweepResult run_sweep(const nlohmann::json& sweep) {
  const std::string source = sweep["source"];
  std::vector<SweepRow> rows;
  for (const nlohmann::json& configuration : sweep["configurations"]) {
    // A configuration is the sweep's scenario with its own strategy (and batch), or a whole
    // scenario of its own.
    nlohmann::json entry = configuration.contains("scenario") ? configuration["scenario"] : sweep;
    if (configuration.contains("strategy")) entry["strategy"] = configuration["strategy"];
    if (configuration.contains("global_batch_size")) {
      entry["training"]["global_batch_size"] = configuration["global_batch_size"];
    }
    nlohmann::json scenario = with_stated_settings(scenario_of(entry), source);
    if (entry.contains("framework")) scenario["framework"] = entry["framework"];
    const Report r = estimate(parse_scenario(scenario));
    SweepRow row;
    row.name = configuration["name"];
    row.feasible = r.feasible;
    row.predicted = r.feasible ? r.tokens_per_s_per_gpu : 0;
    row.published_feasible = configuration["published_feasible"];
    row.time = r.time_breakdown;
    row.peak_gib = r.peak_memory_bytes() / kGiB;
    if (!r.feasible) row.reason = r.infeasible_reasons.front();
    const nlohmann::json& order = sweep["published_order"];
    for (size_t group = 0; group < order.size(); ++group) {
      for (const nlohmann::json& name : order[group]) {
        if (name == row.name) row.published_rank = static_cast<int>(group) + 1;
      }
    }
    CHECK_MESSAGE(row.published_feasible == (row.published_rank > 0), row.name);
    rows.push_back(row);
  }
  // Ranked: the configurations that ran (published out of memory ones have no rank).
  std::vector<SweepRow*> by_prediction;
  for (SweepRow& r : rows) {
    if (r.published_feasible) by_prediction.push_back(&r);
  }
  std::stable_sort(
      by_prediction.begin(), by_prediction.end(),
      [](const SweepRow* a, const SweepRow* b) { return a->predicted > b->predicted; });
  for (size_t i = 0; i < by_prediction.size(); ++i) {
    by_prediction[i]->predicted_rank = static_cast<int>(i) + 1;
  }
  const std::vector<const SweepRow*> ranked(by_prediction.begin(), by_prediction.end());
  SweepResult result;
  result.id = sweep["id"];
  for (const SweepRow& r : rows) result.predicted[r.name] = r.predicted;
  result.tau = kendall_tau_b(ranked, result.discordant);
  result.best_matches = !by_prediction.empty() && by_prediction.front()->feasible &&
                        by_prediction.front()->published_rank == 1;
  int name_width = 26;
  for (const SweepRow& r : rows) name_width = std::max(name_width, static_cast<int>(r.name.size()));
  std::printf("\n%s %s\n%-*s %11s %5s %5s %8s %8s %8s %8s %8s %8s %8s %7s\n", result.id.c_str(),
              sweep["name"].get<std::string>().c_str(), name_width, "configuration", "tokens/s/GPU",
              "pred", "publ", "compute", "recomp", "tp", "pp", "dp", "ep", "bubble", "GiB");
  for (const SweepRow& r : rows) {
    const std::string published =
        r.published_feasible ? std::to_string(r.published_rank) : std::string("OOM");
    const std::string predicted =
        r.published_feasible ? std::to_string(r.predicted_rank) : std::string("-");
    std::printf("%-*s %11.1f %5s %5s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %7.1f%s\n",
                name_width, r.name.c_str(), r.predicted, predicted.c_str(), published.c_str(),
                r.time.compute_s, r.time.recompute_s, r.time.tp_comm_s, r.time.pp_comm_s,
                r.time.dp_comm_s, r.time.ep_comm_s, r.time.bubble_s, r.peak_gib,
                r.feasible ? (r.published_feasible ? "" : "  ran out of memory, predicted to fit")
                           : "  INFEASIBLE");
    if (!r.published_feasible) {
      result.infeasible_published += 1;
      result.infeasible_matched += !r.feasible;
    } else if (!r.feasible) {
      result.feasible_rejected += 1;
      std::printf("      %s\n", r.reason.c_str());
    }
  }
  std::printf("%s: Kendall's tau-b %+.2f, %d discordant, predicted best %s (published best: %s)",
              result.id.c_str(), result.tau, result.discordant, by_prediction.front()->name.c_str(),
              sweep["published_order"][0].dump().c_str());
  if (result.infeasible_published > 0) {
    std::printf(", published out of memory %d, predicted infeasible %d",
                result.infeasible_published, result.infeasible_matched);
  }
  std::printf("%s\n", result.best_matches ? "" : "  BEST MISSED");
  return result;
}

}  // namespace

TEST_CASE("published sweeps: the order of one model's configurations (SC21 section 5)") {
  const nlohmann::json data = load("published-sweeps.json");
  std::vector<SweepResult> results;
  for (const nlohmann::json& sweep : data["sweeps"]) results.push_back(run_sweep(sweep));
  int best = 0;
  double tau_sum = 0;
  for (const SweepResult& r : results) {
    best += r.best_matches;
    tau_sum += r.tau;
  }
  const double mean_tau = tau_sum / static_cast<double>(results.size());
  std::printf("\n%zu sweeps: best predicted in %d, mean Kendall's tau-b %+.2f\n", results.size(),
              best, mean_tau);
  REQUIRE(results.size() == 15);

  // What the model gets right today (a floor, not a target): every sweep's best but S16-b128's,
  // and no pair ordered against the paper's but S16-b128's micro-batch sizes 1 and 2. There the
  // model gains 1.9% of compute per sample from micro-batch 2, less than the 4.8% of bubble it
  // adds; the paper's runs gained about 7% (Figure 16 at batch 512, read from the plot). Against
  // the plot, micro-batch 2 alone runs faster than the model (by about 1%; 1, 4 and 8 run 2-5%
  // slower), at both batch sizes: a per-micro-batch constant would not do that.
  CHECK(mean_tau >= 0.95);
  for (const SweepResult& r : results) {
    CAPTURE(r.id);
    const bool micro_batch_miss = r.id == "S16-b128";
    if (!micro_batch_miss) CHECK(r.best_matches);
    CHECK(r.discordant <= (micro_batch_miss ? 1 : 0));
    CHECK(r.feasible_rejected == 0);
  }
  // Not asserted, because the model misses it: S17's five configurations without recompute at
  // batch 16 and above ran out of memory on 80 GB; the model puts them at 66.2 GiB, with its
  // activations (43.5 GiB, 16 micro-batches of 5 layers) at Korthikanti et al.'s closed form and
  // the 2021 schedule's 16 kept stage outputs (0.75 GiB, deallocate_pipeline_outputs off).
}

// torchtitan's published benchmarks (torchtitan-sweeps.json): the order of each table's rows, the
// configurations from the files the must-fit tests read. The model prices them 14% to 186%
// faster than published (500 W H100s, torchtitan's own kernels: docs/model.md section 6); only
// the order is checked.
TEST_CASE("published sweeps: the order of torchtitan's benchmark tables") {
  const nlohmann::json data = load("torchtitan-sweeps.json");
  std::map<std::string, int> discordant_by_sweep;
  int best = 0;
  for (nlohmann::json sweep : data["sweeps"]) {
    const nlohmann::json recipes = load(sweep["configs"].get<std::string>())["recipes"];
    sweep["source"] = data["source"];
    for (const nlohmann::json& group : sweep["published_order"]) {
      for (const nlohmann::json& name : group) {
        const auto recipe =
            std::find_if(recipes.begin(), recipes.end(),
                         [&](const nlohmann::json& r) { return r["name"] == name; });
        REQUIRE_MESSAGE(recipe != recipes.end(), name);
        sweep["configurations"].push_back(
            {{"name", name}, {"scenario", (*recipe)["scenario"]}, {"published_feasible", true}});
      }
    }
    const SweepResult result = run_sweep(sweep);
    discordant_by_sweep[result.id] = result.discordant;
    best += result.best_matches;
    CHECK(result.feasible_rejected == 0);
  }
  REQUIRE(discordant_by_sweep.size() == 6);
  std::printf("\n%zu torchtitan sweeps: best predicted in %d\n", discordant_by_sweep.size(), best);
  // A floor: every best and every pair in the published order but one, Llama 3.1 8B's bf16 with
  // async TP against Float8 without it (TT-A8), where the model gains more from async TP (20%
  // against the published 10%) than from Float8 (12% against 16%).
  CHECK(best == 6);
  for (const auto& [id, discordant] : discordant_by_sweep) {
    CAPTURE(id);
    CHECK(discordant <= (id == "TT-A8" ? 1 : 0));
  }
}

// NVIDIA's MoE Parallel Folding paper (moe-folding-sweeps.json, made by
// scripts/validation/moe_folding_sweeps.py): Mixtral-8x22B, its fine-grained G8T8 variant and
// Qwen2-57B-A14B on 64 to 1024 H100 under the mappings of its appendix, with and without folding
// (ETP 1, EP across TP), against FSDP, FSDP + EP and TP + EP + DP, at 16k to 128k tokens, and in
// bf16 against fp8. Only the order of each sweep's MFU is checked.
TEST_CASE("published sweeps: the order of the MoE Parallel Folding paper's configurations") {
  const nlohmann::json data = load("moe-folding-sweeps.json");
  std::map<std::string, SweepResult> results;
  for (const nlohmann::json& sweep : data["sweeps"]) {
    const SweepResult r = run_sweep(sweep);
    results[r.id] = r;
  }
  int best = 0;
  double tau_sum = 0;
  for (const auto& [id, r] : results) {
    best += r.best_matches;
    tau_sum += r.tau;
  }
  const double mean_tau = tau_sum / static_cast<double>(results.size());
  std::printf(
      "\n%zu MoE Parallel Folding sweeps: best predicted in %d, mean Kendall's tau-b %+.2f\n",
      results.size(), best, mean_tau);
  REQUIRE(results.size() == 21);

  // The paper's claim, in every sweep: the folded mapping runs faster than Megatron-Core's
  // unfolded one beside it (the same precision in Table 2).
  int folded_pairs = 0;
  for (const auto& [id, r] : results) {
    for (const auto& [name, folded] : r.predicted) {
      if (name.rfind("MCore w/ Folding", 0) != 0) continue;
      const std::string precision = name.substr(name.rfind(')') + 1);
      for (const auto& [other, plain] : r.predicted) {
        if (other.rfind("MCore (", 0) != 0 || other.substr(other.rfind(')') + 1) != precision) {
          continue;
        }
        CAPTURE(id);
        CAPTURE(name);
        CHECK(folded > plain);
        folded_pairs += 1;
      }
    }
  }
  CHECK(folded_pairs == 22);

  // What the model gets right today (a floor, not a target): the best of 20 sweeps and every pair
  // but those below. Megatron-FSDP shards the experts over expert-data parallelism
  // (mcore_fsdp_adapter.py _init_dist_index: expt_device_mesh over
  // get_expert_data_parallel_group()), which strides across nodes once EP fills a node, so FSDP +
  // EP's expert gathers run at one NIC per GPU; priced so, it falls below both Megatron-Core
  // mappings everywhere (it had been above them, at 40-52% MFU, when experts were gathered over
  // the whole data-parallel group). Left out of order:
  // - FSDP + EP below TP + EP + DP for Qwen2-57B-A14B at 128-1024 GPUs and for the G8T8 variant
  //   at 1024 (a 0.1% tie there); the paper has it above.
  // - Mixtral-8x22B at 1024 GPUs: TP + EP + DP ahead of both pipelined mappings (published 36%
  //   against 42-45%). At batch 1024 on 1024 GPUs PP 8 runs 16 micro-batches, and the model's
  //   1F1B bubble (7/16 of the compute, no interleaving: the ModelZoo's VPP 1 for this model) cuts
  //   the folded mapping from 53% MFU at 128 GPUs to 36%; the paper's fell from 52% to 45%.
  // - Mixtral-8x22B at 128 GPUs (Tables 3 and 4): FSDP + EP (TP 2) 3% ahead of TP + EP + DP
  //   (TP 4); the paper has it 1-2% behind. At TP 4 each GPU's share of a layer is half TP 2's
  //   while its host issues as many ops (host_time.cpp, priced per op of a training layer):
  //   the eager MoE layer is held to its host.
  const std::map<std::string, int> known_discordant = {
      {"MPF-T4-mixtral-1024", 2}, {"MPF-T4-qwen2-128", 1},  {"MPF-T4-qwen2-256", 1},
      {"MPF-T4-qwen2-512", 1},    {"MPF-T4-qwen2-1024", 1}, {"MPF-T4-g8t8-1024", 1},
      {"MPF-T3-mixtral", 1},      {"MPF-T4-mixtral-128", 1}};
  CHECK(best >= 20);
  CHECK(mean_tau >= 0.87);
  for (const auto& [id, r] : results) {
    CAPTURE(id);
    const auto known = known_discordant.find(id);
    CHECK(r.discordant <= (known == known_discordant.end() ? 0 : known->second));
    CHECK(r.feasible_rejected == 0);
  }
}
