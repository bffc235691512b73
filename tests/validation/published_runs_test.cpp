// Throughput of the published training runs (published-runs.json), a table per source, with
// the settings each source states (stated_settings.cpp) and as given.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "model/uncertainty.hpp"
#include "model/validated_regime.hpp"
#include "paraplan/estimate.hpp"
#include "stated_settings.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;

namespace {

// The sources of published-runs.json, in the order the tables print, each recognised by a
// phrase of its `source`, and its lineage: the publisher's series of tables, left out together
// when a band is computed leave-one-source-out (a newer release of the same table is no news).
struct Source {
  const char* label;
  const char* phrase;
  const char* lineage;
};
const Source kSources[] = {
    {"Megatron-LM SC21 Table 1, weak scaling (A100)", "Table 1 (weak scaling", "Megatron-LM SC21"},
    {"SC21 Table 2, DeepSpeed ZeRO-3 of 2021 (A100)", "Table 2 (PTD-P vs ZeRO-3",
     "Megatron-LM SC21"},
    {"Korthikanti et al. 2022 Table 5 (A100)", "Korthikanti", "Korthikanti 2022"},
    {"Megatron-LM README (H100)", "NVIDIA/Megatron-LM README", "Megatron-LM README"},
    {"NVIDIA DGX Cloud recipes (H100)", "dgxc-benchmarking", "DGX Cloud"},
    {"MegaScale, Megatron-LM baseline (A100)", "MegaScale: Scaling", "MegaScale"},
    {"MegaScale-MoE, Megatron-LM baseline (H800)", "MegaScale-MoE", "MegaScale-MoE"},
    {"BLOOM-176B, Megatron-DeepSpeed (A100)", "BLOOM-176B", "BLOOM"},
    {"NeMo 24.07 fp8 (H100)", "NeMo docs/source/performance", "NeMo"},
    {"Megatron-Bridge 25.11 (H100, B200, GB200)", "Megatron-Bridge", "Megatron-Bridge"},
    // published-runs-2025.json: each entry states its recipe's settings itself (`restated`).
    {"2025: Megatron-Bridge 25.09-26.08 (H100, B200, GB200)",
     "NVIDIA-NeMo/Megatron-Bridge, docs/performance-summary", "Megatron-Bridge"},
    {"2025: DGX Cloud benchmarking v25.05 (H100, GB200)", "dgxc-benchmarking release tag v25.05",
     "DGX Cloud"},
    {"2025: NeMo 25.02-25.04 performance summary (B200, GB200)",
     "NeMo Framework User Guide, Performance Summary", "NeMo"},
    {"2025: NeMo long-context table (H100, B200)", "performance_long_seque", "NeMo"},
};
// The first file's sources are kSources[0, kFirst2025Source), the 2025 file's the rest.
constexpr size_t kFirst2025Source = 10;

size_t source_index(const std::string& source, bool set_2025) {
  const size_t begin = set_2025 ? kFirst2025Source : 0;
  const size_t end = set_2025 ? std::size(kSources) : kFirst2025Source;
  for (size_t i = begin; i < end; ++i) {
    if (source.find(kSources[i].phrase) != std::string::npos) return i;
  }
  FAIL("no source table for " << source);
  return 0;
}

struct Row {
  std::string id, name, framework;
  int64_t zero_stage = 0;
  size_t source = 0;
  bool set_2025 = false;  // from published-runs-2025.json
  bool scored = true;     // confidence not "low" (low: printed for information only)
  bool moe = false;
  detail::RegimeKey regime;  // GPU family, dense or MoE, framework family (model/uncertainty.hpp)
  double measured = 0, predicted = 0, as_given = 0;
  double free_fraction = 0;  // smallest headroom over the stages, as a fraction of capacity
  bool feasible = false, as_given_feasible = false;
  std::vector<std::string> reasons;
  std::string note;  // how the test filled in what the source does not state
  double error() const { return predicted / measured - 1; }
  double error_as_given() const { return as_given / measured - 1; }
  // measured / predicted, as the residual table keeps it (4 digits)
  double ratio() const { return std::round(measured / predicted * 1e4) / 1e4; }
  const char* lineage() const { return kSources[source].lineage; }
};

// The runs of one file. The first file's entries leave out settings their sources state
// (stated_settings.cpp adds them); the 2025 file's entries state them.
void run_file(const char* file, bool set_2025, std::vector<Row>& rows) {
  for (const nlohmann::json& entry : load(file)) {
    const std::string source = entry.value("source", "");
    Row row;
    row.id = entry["id"];
    row.name = entry["name"];
    row.set_2025 = set_2025;
    row.scored = entry["measured"].value("confidence", "") != "low";
    row.source = source_index(source, set_2025);
    row.moe = entry["model"].is_object() && entry["model"].contains("moe");
    row.measured = entry["measured"]["tokens_per_s_per_gpu"];
    // As given: the entry alone, as README.md hands it to `paraplan estimate` (and as outside
    // checks run other published runs), every unstated key at its documented default.
    const Report as_given = estimate(parse_scenario(scenario_of(entry)));
    row.as_given = as_given.tokens_per_s_per_gpu;
    row.as_given_feasible = as_given.feasible;
    const nlohmann::json stated_scenario =
        set_2025 ? scenario_of(entry) : with_stated_settings(scenario_of(entry), source);
    // PARAPLAN_DUMP_SCENARIO=R120 writes that run's scenario, with its stated settings, to
    // stdout: `paraplan estimate` then shows its whole report.
    if (const char* dump = std::getenv("PARAPLAN_DUMP_SCENARIO"); dump && row.id == dump) {
      std::printf("%s\n", stated_scenario.dump(1).c_str());
    }
    row.framework = stated_scenario.value("framework", "megatron");
    const nlohmann::json fitted_scenario = with_unstated_recompute_fitted(
        stated_scenario, entry, estimate(parse_scenario(stated_scenario)));
    const Scenario parsed = parse_scenario(fitted_scenario);
    const Report stated = estimate(parsed);
    row.regime = detail::regime_of(parsed.model, parsed.cluster, parsed.framework);
    if (fitted_scenario != stated_scenario) {
      const nlohmann::json& s = fitted_scenario["strategy"];
      row.note = "recompute not stated; the least that fits: " + s["recompute_granularity"].dump() +
                 " " + s["recompute_method"].dump() + " " + s["recompute_num_layers"].dump() + " " +
                 s["recompute_modules"].dump();
    }
    row.zero_stage = fitted_scenario["strategy"].value("zero_stage", 0);
    row.predicted = stated.tokens_per_s_per_gpu;
    row.feasible = stated.feasible;
    row.free_fraction = stated.stages.empty() ? 0 : 1;
    for (const StageReport& stage : stated.stages) {
      row.free_fraction =
          std::min(row.free_fraction,
                   (stage.capacity_bytes - stage.memory.peak_bytes()) / stage.capacity_bytes);
    }
    row.reasons = stated.infeasible_reasons;
    rows.push_back(row);
  }
}

std::vector<Row> run_published() {
  std::vector<Row> rows;
  run_file("published-runs.json", false, rows);
  run_file("published-runs-2025.json", true, rows);
  return rows;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

struct Summary {
  size_t runs = 0, infeasible = 0;
  double median = 0, p90 = 0, max = 0, mean = 0;
};

// Errors with the stated settings, or of the entries as given.
Summary summarise(const std::vector<const Row*>& rows, bool as_given = false) {
  Summary s;
  std::vector<double> errors;
  for (const Row* r : rows) {
    errors.push_back(std::abs(as_given ? r->error_as_given() : r->error()));
    s.infeasible += (as_given ? r->as_given_feasible : r->feasible) ? 0 : 1;
  }
  s.runs = rows.size();
  if (errors.empty()) return s;
  s.median = quantile(errors, 0.5);
  s.p90 = quantile(errors, 0.9);
  s.max = *std::max_element(errors.begin(), errors.end());
  s.mean = std::accumulate(errors.begin(), errors.end(), 0.0) / static_cast<double>(errors.size());
  return s;
}

void print_summary(const char* label, const Summary& s) {
  std::printf("%-46s %4zu runs  median %5.1f%%  p90 %5.1f%%  max %6.1f%%  mean %5.1f%%%s\n", label,
              s.runs, 100 * s.median, 100 * s.p90, 100 * s.max, 100 * s.mean,
              s.infeasible ? ("  " + std::to_string(s.infeasible) + " INFEASIBLE").c_str() : "");
}

template <typename Pick>
std::vector<const Row*> select(const std::vector<Row>& rows, Pick pick) {
  std::vector<const Row*> out;
  for (const Row& r : rows) {
    if (pick(r)) out.push_back(&r);
  }
  return out;
}

double rounded(double value, double step) { return std::round(value / step) * step; }

nlohmann::json summary_json(const Summary& s) {
  return {{"runs", s.runs},
          {"infeasible", s.infeasible},
          {"median_abs_error", rounded(s.median, 1e-4)},
          {"p90_abs_error", rounded(s.p90, 1e-4)},
          {"max_abs_error", rounded(s.max, 1e-4)},
          {"mean_abs_error", rounded(s.mean, 1e-4)}};
}

// The tables above as the web page shows them (web/src/validation/validation.json): both sets,
// the runs the model was built beside and the 2025-26 runs it never saw, each with its own
// summary, so the page states both. Errors are predicted / measured - 1, rounded to 0.01
// percentage points, throughputs to 0.1 tokens/s; low-confidence runs are left out as they are
// from the scores.
nlohmann::json validation_table(const std::vector<Row>& all_rows) {
  const std::vector<const Row*> scored = select(all_rows, [](const Row& r) { return r.scored; });
  nlohmann::json sources = nlohmann::json::array();
  for (size_t source = 0; source < std::size(kSources); ++source) {
    nlohmann::json runs = nlohmann::json::array();
    for (const Row* r : scored) {
      if (r->source != source) continue;
      runs.push_back({{"id", r->id},
                      {"name", r->name},
                      {"measured_tokens_per_s_per_gpu", rounded(r->measured, 0.1)},
                      {"predicted_tokens_per_s_per_gpu", rounded(r->predicted, 0.1)},
                      {"error", rounded(r->error(), 1e-4)},
                      {"feasible", r->feasible}});
    }
    sources.push_back({{"label", kSources[source].label},
                       {"set", source < kFirst2025Source ? 0 : 1},
                       {"runs", runs},
                       {"summary", summary_json(summarise(select(all_rows, [&](const Row& r) {
                          return r.scored && r.source == source;
                        })))}});
  }
  const auto set_summary = [&](bool set_2025) {
    const auto of = [&](bool moe) {
      return summary_json(summarise(select(all_rows, [&](const Row& r) {
        return r.scored && r.set_2025 == set_2025 && r.moe == moe;
      })));
    };
    return nlohmann::json{{"dense", of(false)}, {"moe", of(true)}};
  };
  nlohmann::json first = set_summary(false);
  first["label"] = "Runs of 2019-2024 (the model was built beside them)";
  nlohmann::json later = set_summary(true);
  later["label"] = "Runs of 2025-2026, each with its recipe's stated settings (never tuned to)";
  return {{"what", "tokens/s per GPU of published training runs against the model's estimate"},
          {"regenerate",
           "PARAPLAN_VALIDATION_JSON=web/src/validation/validation.json "
           "build/native/tests/validation_test"},
          {"sets", {first, later}},
          {"sources", sources}};
}

// Every run of both files, estimated once for the test cases below.
const std::vector<Row>& published_rows() {
  static const std::vector<Row> rows = run_published();
  return rows;
}

std::vector<Row> rows_of(bool set_2025) {
  std::vector<Row> out;
  for (const Row& r : published_rows()) {
    if (r.set_2025 == set_2025) out.push_back(r);
  }
  return out;
}

// A source's table: each run's measured and predicted tokens/s per GPU (in sample: the model as
// it is, no parameter fitted to any run).
void print_source_table(const std::vector<Row>& rows, size_t source) {
  std::printf("\n%s\n%-5s %-40s %-15s %11s %11s %8s %9s %6s\n", kSources[source].label, "id", "run",
              "framework", "measured", "predicted", "error", "as given", "free");
  for (const Row& r : rows) {
    if (r.source != source) continue;
    std::printf("%-5s %-40.40s %-15s %11.1f %11.1f %+7.1f%% %+8.1f%% %5.1f%%%s%s\n", r.id.c_str(),
                r.name.c_str(), r.framework.c_str(), r.measured, r.predicted, 100 * r.error(),
                100 * r.error_as_given(), 100 * r.free_fraction, r.feasible ? "" : "  INFEASIBLE",
                r.scored ? "" : "  (low confidence: not scored)");
    if (!r.feasible) std::printf("      %s\n", r.reasons.front().c_str());
    if (!r.note.empty()) std::printf("      %s\n", r.note.c_str());
  }
  print_summary(
      "", summarise(select(rows, [&](const Row& r) { return r.source == source && r.scored; })));
}

}  // namespace

TEST_CASE("published training runs: tokens/s per GPU, a table per source") {
  const std::vector<Row> rows = rows_of(false);
  for (size_t source = 0; source < kFirst2025Source; ++source) print_source_table(rows, source);
  std::printf("\n");
  const auto is_dense = [](const Row& r) { return !r.moe; };
  const auto is_moe = [](const Row& r) { return r.moe; };
  const Summary dense = summarise(select(rows, is_dense));
  const Summary moe = summarise(select(rows, is_moe));
  print_summary("all dense runs", dense);
  print_summary("all mixture-of-experts runs", moe);
  const Summary dense_as_given = summarise(select(rows, is_dense), true);
  const Summary moe_as_given = summarise(select(rows, is_moe), true);
  print_summary("all dense runs, as given", dense_as_given);
  print_summary("all mixture-of-experts runs, as given", moe_as_given);

  // The runs the model was first built beside (SC21 Table 1, Korthikanti et al., the Megatron-LM
  // README and DGX Cloud tables): they must stay where they were.
  const std::vector<const Row*> first =
      select(rows, [](const Row& r) { return r.source == 0 || (r.source >= 2 && r.source <= 4); });
  const Summary first_summary = summarise(first);
  print_summary("first 38 runs (SC21 T1, Korthikanti, README, DGX)", first_summary);
  CHECK(first_summary.runs == 38);
  CHECK(first_summary.infeasible == 0);
  CHECK(first_summary.median <= 0.10);
  // R036 (Megatron-LM README, GPT-32B at TP 8 and DP 48, one data-parallel rank per node) is
  // the worst at -31%: its fp32 gradient reduce-scatter over 48 nodes in 82 buckets pays NCCL's
  // per-step ring latency; the README does not state the NCCL version (2.23+ would run PAT).
  // -30.7% -> -31.4% when Transformer Engine's userbuffers took their 16 SMs from the GEMMs
  // beside them (tp_comm_overlap.hpp; the README's runs use TE's default configuration).
  // -31.3% -> -32.4% when the H100's overlap_slowdown was measured (0.16 -> 0.23, a lent H200):
  // the reduce-scatter hidden under its backward costs that much more compute.
  CHECK(first_summary.max <= 0.325);
  // Every published run ran, so every one must fit (issue 11), and the errors must not slip back
  // from where they are: dense median 7.3% and p90 21.2%, mixture-of-experts median 21.7% and
  // p90 26.1% (issue 11 asks for 6%, 15% and 15%; docs/model.md section 6 says what holds the
  // rest).
  CHECK(dense.infeasible == 0);
  CHECK(moe.infeasible == 0);
  CHECK(dense.median <= 0.074);
  // 21.24% -> 21.34% when linear_qkv's bias gradient came out of its weight-gradient GEMM as
  // Transformer Engine computes it (layer_cost.cpp bias_gradient_fused): GPT-3-style runs with
  // biases 0.1-0.6 points faster. 21.3% -> 17.5% when MegaScale's Megatron-LM baseline ran
  // without the data-parallel overlap its Megatron-LM did not have on the interleaved schedule
  // (stated_settings.cpp with_megascale_baseline): R050-R054 +16-30% -> +12-20%.
  CHECK(dense.p90 <= 0.176);
  // MoE 20.9% / 25.3% -> 14.7% / 18.5% when the unfused unpermute's scatter-add ran at its
  // measured rate (the GPU preset's scatter_add_over_copy, hardware.hpp): MegaScale-MoE's
  // Megatron-LM runs R069-R073.
  CHECK(moe.median <= 0.148);
  CHECK(moe.p90 <= 0.186);
  // As given, every MoE entry fits (the MoE defaults, docs/model.md section 5), and every dense
  // one but three of NVIDIA's tuned recipes (fp8 runs gather fp8 parameters by default): R096 and
  // R115 reduce gradients in bf16 where Megatron-LM's default keeps them in fp32 (R115 also keeps
  // Adam's moments in bf16), R120 offloads activations; the entries cannot state any of these.
  CHECK(moe_as_given.infeasible == 0);
  CHECK(dense_as_given.infeasible <= 3);
  // The DeepSpeed-era runs (SC21 Table 2, BLOOM-176B) are priced as DeepSpeed, the rest as
  // Megatron-LM.
  for (const Row& r : rows) {
    const std::string label = kSources[r.source].label;
    const bool deepspeed = label.find("DeepSpeed") != std::string::npos;
    CHECK_MESSAGE(r.framework == (deepspeed ? "deepspeed" : "megatron"), r.id);
  }
  // The report's validated frameworks and ZeRO stages (model/validated_regime.cpp) are these
  // rows'.
  std::set<std::pair<std::string, int64_t>> ran, validated;
  for (const Row& r : rows) ran.insert({r.framework, r.zero_stage});
  for (const detail::ValidatedFramework& v : detail::validated_frameworks()) {
    validated.insert({std::string(to_string(v.framework)), v.zero_stage});
  }
  CHECK(ran == validated);
  const Summary table5 = summarise(select(rows, [](const Row& r) { return r.source == 2; }));
  std::printf("Korthikanti et al. 2022 Table 5: mean |error| %.1f%% (Calculon: 3.7%%)\n",
              100 * table5.mean);
  CHECK(table5.mean <= 0.05);
}

namespace {

// The scored runs the model finds feasible, as the residual table keeps them.
std::vector<detail::Residual> residuals_of(const std::vector<Row>& rows) {
  std::vector<detail::Residual> out;
  for (const Row& r : rows) {
    if (!r.scored || !r.feasible) continue;
    out.push_back(
        {r.id, r.lineage(), r.regime.gpu_family, r.moe, r.regime.framework_family, r.ratio()});
  }
  return out;
}

// core/src/model/validation_residuals.inc as it should read.
std::string residual_table_text(const std::vector<Row>& rows) {
  std::string text =
      "// Generated by tests/validation/published_runs_test.cpp from tests/validation/data (the "
      "scored\n// published runs the model finds feasible): do not edit. Regenerate with\n"
      "// PARAPLAN_RESIDUALS_INC=core/src/model/validation_residuals.inc "
      "build/native/tests/validation_test\n"
      "// {run, lineage, GPU family, MoE, framework family, measured / predicted tokens/s}\n";
  for (const detail::Residual& r : residuals_of(rows)) {
    char line[256];
    std::snprintf(line, sizeof line, "{\"%s\", \"%s\", \"%s\", %s, \"%s\", %.4f},\n",
                  std::string(r.run).c_str(), std::string(r.lineage).c_str(),
                  std::string(r.gpu_family).c_str(), r.moe ? "true" : "false",
                  std::string(r.framework_family).c_str(), r.ratio);
    text += line;
  }
  return text;
}

struct Coverage {
  size_t runs = 0, inside = 0, below = 0, above = 0;
  double fraction() const { return runs ? static_cast<double>(inside) / runs : 0; }
};

// Whether each run's measured throughput lies in its regime's band, the band built from
// `residuals` without the run's own lineage (leave_out) or from all of them (in sample).
Coverage coverage(const std::vector<const Row*>& rows,
                  const std::vector<detail::Residual>& residuals, bool leave_out) {
  Coverage c;
  for (const Row* r : rows) {
    if (!r->scored || !r->feasible) continue;
    const detail::RatioBand band =
        detail::ratio_band(r->regime, residuals, leave_out ? r->lineage() : "");
    ++c.runs;
    if (r->ratio() < band.low) {
      ++c.below;
    } else if (r->ratio() > band.high) {
      ++c.above;
    } else {
      ++c.inside;
    }
  }
  return c;
}

void print_coverage(const char* label, const Coverage& in_sample, const Coverage& loso) {
  std::printf(
      "%-58s %4zu runs  in sample %5.1f%%  leave-one-source-out %5.1f%% (%zu below, %zu "
      "above)\n",
      label, loso.runs, 100 * in_sample.fraction(), 100 * loso.fraction(), loso.below, loso.above);
}

}  // namespace

TEST_CASE("the page's validation table is current") {
  // The page's copy of these tables: written with PARAPLAN_VALIDATION_JSON=PATH, else it must
  // equal what the model gives now (a model change regenerates it).
  const nlohmann::json table = validation_table(published_rows());
  if (const char* path = std::getenv("PARAPLAN_VALIDATION_JSON"); path && *path) {
    std::ofstream(path) << table.dump(1) << "\n";
    std::printf("wrote %s\n", path);
  } else {
    std::ifstream file(PARAPLAN_WEB_VALIDATION_JSON);
    REQUIRE_MESSAGE(file.good(), PARAPLAN_WEB_VALIDATION_JSON << " is missing");
    const nlohmann::json committed = nlohmann::json::parse(file);
    CHECK_MESSAGE(committed == table,
                  "web/src/validation/validation.json is stale: regenerate it with "
                  "PARAPLAN_VALIDATION_JSON=web/src/validation/validation.json "
                  "build/native/tests/validation_test");
  }
}

TEST_CASE("2025-26 published runs, each with the settings its recipe states") {
  const std::vector<Row> rows = rows_of(true);
  for (size_t source = kFirst2025Source; source < std::size(kSources); ++source) {
    print_source_table(rows, source);
  }
  std::printf("\n");
  const auto scored = [](bool moe) {
    return [moe](const Row& r) { return r.scored && r.moe == moe; };
  };
  const Summary dense = summarise(select(rows, scored(false)));
  const Summary moe = summarise(select(rows, scored(true)));
  print_summary("2025 dense runs (scored)", dense);
  print_summary("2025 mixture-of-experts runs (scored)", moe);
  CHECK(dense.runs + moe.runs == 62);  // 68 less the six low-confidence long-context rows
  // Regression floors at the errors measured when this set was added (dense median 19.2%, p90
  // 43.7%; MoE median 27.8%, p90 114.8%; H006, H022 and H036 out of memory). Issue 32 asks for
  // dense median 10%, MoE median 15%, p90 30%, every run feasible. The MoE median's floor moved
  // from 27.9% to 28.1% when fourteen NeMo and DGX Cloud runs stated the token dropping their
  // recipes run (MegatronTokenDropCallback: moe_expert_capacity_factor 1.0, padded): the
  // imbalance the model had charged them is gone, which fixes Grok-1 (-28% to +3%) and exposes
  // what Mixtral's and DeepSeek-V3's DGX Cloud runs still miss.
  // The dense floors moved from 19.3% / 43.8% to 6.0% / 18.6% when FlashAttention-2's curves were
  // keyed by the keys a query row attends and NeMo's long-context runs stated the FlashAttention-2
  // their launcher set (NVTE_FUSED_ATTN: 0): H063-H068 +35..+47% -> +0.5..-6.4%.
  // They moved to 6.8% / 20.0% when FlashAttention-2's head-dim ratios were measured (a lent
  // H200, kernels.hpp kFlashHeadDims): at head dim 192 its backward keeps 1.02 of head dim
  // 128's efficiency where cuDNN's, applied before, keeps 0.71; flash-attn's head-dim-192
  // kernels are the same on Hopper and Blackwell (not sm8x), so Nemotron-4-340B's FlashAttention
  // on B200 and GB200 runs faster: H038 +18.7% -> +23.9%, H055 +14.9% -> +19.3% (what makes
  // those runs slower is still to be found); Hopper's R115 -8.2% -> -6.2%.
  // The median moved to 8.1% when the Hopper presets' overlap_slowdown was measured on a lent
  // H200 (0.16 -> 0.23, scripts/calibration/measure_overlap.py): the Hopper rows that hide
  // communication under compute slow by 0.5-1.9 points (NeMo long context H063-H068).
  CHECK(dense.median <= 0.082);
  CHECK(dense.p90 <= 0.200);
  CHECK(moe.median <= 0.281);
  CHECK(moe.p90 <= 1.149);
  // Every run fits since H022 runs its recipe's micro-batch size (data/README.md).
  CHECK(dense.infeasible + moe.infeasible == 0);
  // H005 (DeepSeek-V3 on 1024 H100, Megatron-Bridge 25.09) runs what its launcher set on H100
  // (data/README.md): DeepEP's deduplicated dispatch and the 1F1B all-to-all overlap. Priced
  // with the recipe's alltoall dispatcher and no overlap it was 27.6% slow (17.0 s of a 25.3 s
  // step exposed all-to-all); with them it is within 15% (+12.6%).
  const auto row = [&rows](const char* id) {
    return std::find_if(rows.begin(), rows.end(), [id](const Row& r) { return r.id == id; });
  };
  REQUIRE(row("H005") != rows.end());
  CHECK(std::abs(row("H005")->error()) <= 0.15);
  // H009 (Qwen3-30B-A3B on 16 H100, Megatron-Bridge 26.02.01) runs its release's recipe, the
  // EP16 HybridEP config of H008 (v0.3.1 QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1,
  // data/README.md), not the PP2 VP12 EP8 its table kept from 26.02: the two rows are one
  // configuration and are priced alike (PP2 VP12 EP8 was priced 17% faster, +43.7%).
  REQUIRE(row("H008") != rows.end());
  REQUIRE(row("H009") != rows.end());
  CHECK(row("H009")->predicted == doctest::Approx(row("H008")->predicted).epsilon(1e-9));
}

// `restated` cites a recipe for each setting the entry states (key "strategy.moe_router_fusion",
// "model.mtp_num_layers", "framework"): the test estimates the entry itself, so each cited value
// must be the entry's own, or the table prices a setting other than the one its source names.
TEST_CASE("2025-26 published runs: every restated setting is the entry's own") {
  for (const nlohmann::json& entry : load("published-runs-2025.json")) {
    for (const nlohmann::json& restated : entry.value("restated", nlohmann::json::array())) {
      std::string pointer = "/" + restated["key"].get<std::string>();
      std::replace(pointer.begin(), pointer.end(), '.', '/');
      const nlohmann::json::json_pointer at(pointer);
      INFO(entry["id"].get<std::string>() << " " << pointer);
      REQUIRE(entry.contains(at));
      CHECK(entry.at(at) == restated["value"]);
    }
  }
}

TEST_CASE("uncertainty bands: coverage leave-one-source-out, and the residual table is current") {
  const std::vector<Row>& rows = published_rows();
  const std::vector<detail::Residual> residuals = residuals_of(rows);

  // The table each estimate's band comes from: written with PARAPLAN_RESIDUALS_INC=PATH, else it
  // must equal what the model gives now (a model change regenerates it).
  const std::string text = residual_table_text(rows);
  if (const char* path = std::getenv("PARAPLAN_RESIDUALS_INC"); path && *path) {
    std::ofstream(path) << text;
    std::printf("wrote %s\n", path);
  } else {
    std::ifstream file(PARAPLAN_RESIDUALS_INC_PATH);
    REQUIRE_MESSAGE(file.good(), PARAPLAN_RESIDUALS_INC_PATH << " is missing");
    const std::string committed((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
    CHECK_MESSAGE(committed == text,
                  "core/src/model/validation_residuals.inc is stale: regenerate it with "
                  "PARAPLAN_RESIDUALS_INC=core/src/model/validation_residuals.inc "
                  "build/native/tests/validation_test");
    // The table compiled into the core is this one.
    CHECK(detail::validation_residuals().size() == residuals.size());
  }

  // Per source: each run's band built without its lineage's runs (leave-one-source-out).
  std::printf("\nUncertainty bands (10th..90th percentile of measured / predicted, level 0.8)\n");
  std::printf("%-5s %-40s %-36s %5s %13s %8s %s\n", "id", "run", "regime", "runs", "LOSO band",
              "ratio", "");
  for (const Row& r : rows) {
    if (!r.scored || !r.feasible) continue;
    const detail::RatioBand band = detail::ratio_band(r.regime, residuals, r.lineage());
    const bool inside = r.ratio() >= band.low && r.ratio() <= band.high;
    std::printf("%-5s %-40.40s %-36.36s %5lld %6.2f..%-5.2f %8.2f %s\n", r.id.c_str(),
                r.name.c_str(), band.regime.c_str(), static_cast<long long>(band.runs), band.low,
                band.high, r.ratio(), inside ? "" : (r.ratio() < band.low ? "BELOW" : "ABOVE"));
  }
  std::printf("\n");
  for (size_t source = 0; source < std::size(kSources); ++source) {
    const std::vector<const Row*> of_source =
        select(rows, [&](const Row& r) { return r.source == source; });
    print_coverage(kSources[source].label, coverage(of_source, residuals, false),
                   coverage(of_source, residuals, true));
  }
  const std::vector<const Row*> first = select(rows, [](const Row& r) { return !r.set_2025; });
  const std::vector<const Row*> recent = select(rows, [](const Row& r) { return r.set_2025; });
  const std::vector<const Row*> all = select(rows, [](const Row&) { return true; });
  print_coverage("first 73 runs", coverage(first, residuals, false),
                 coverage(first, residuals, true));
  print_coverage("2025 runs", coverage(recent, residuals, false),
                 coverage(recent, residuals, true));
  const Coverage loso = coverage(all, residuals, true);
  print_coverage("all runs", coverage(all, residuals, false), loso);
  // Target: an 80% band covers 70-90% of runs it has not seen (78.0% when the band was added).
  CHECK(loso.fraction() >= 0.70);
  CHECK(loso.fraction() <= 0.90);
}
