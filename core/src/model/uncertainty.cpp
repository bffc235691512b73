#include "model/uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "model/number_text.hpp"
#include "model/text_ids.hpp"

namespace paraplan::detail {
namespace {

// Written by tests/validation/published_runs_test.cpp from the published runs of
// tests/validation/data (every scored run the model finds feasible); that test fails when it no
// longer matches what the model gives.
constexpr Residual kResiduals[] = {
#include "model/validation_residuals.inc"
};

// GPU families: presets whose compute units and software stack are one generation (the preset
// files' datasheets). H800 and H20 are Hopper dies (H800: H100's Tensor Cores with fewer NVLink
// links; H20: a cut-down Hopper); A800 is the A100 with fewer NVLink links; B300 and GB300
// (Blackwell Ultra) are another die than B200's, with no published run.
struct Family {
  std::string_view preset;
  std::string_view family;
};
constexpr Family kFamilies[] = {
    {"a100", "A100"},           {"a100-40g", "A100"},        {"a800", "A100"},
    {"h100", "Hopper"},         {"h800", "Hopper"},          {"h200", "Hopper"},
    {"h20", "Hopper"},          {"gh200", "Hopper"},         {"b200", "Blackwell"},
    {"gb200", "Blackwell"},     {"b300", "Blackwell Ultra"}, {"gb300", "Blackwell Ultra"},
    {"mi300x", "AMD Instinct"}, {"mi325x", "AMD Instinct"},  {"mi355x", "AMD Instinct"},
    {"ascend-910b", "Ascend"},  {"ascend-910b1", "Ascend"},  {"ascend-910b2", "Ascend"},
    {"ascend-910b4", "Ascend"}, {"ascend-910c", "Ascend"},   {"kunlun3", "Kunlun"},
};

// The order statistics that bound a split-conformal prediction interval (Vovk et al. 2005; Lei et
// al. 2018, "Distribution-free predictive inference for regression", section 2.2): of n
// exchangeable residuals, the floor((n + 1) x tail)-th and ceil((n + 1) x (1 - tail))-th smallest
// enclose a new one with probability at least 1 - 2 x tail, where plain percentiles of a few runs
// cover less. Clamped to the smallest and largest where n is too small for that guarantee.
std::pair<double, double> conformal_interval(std::vector<double> values, double tail) {
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  const auto low = static_cast<size_t>(std::max(1.0, std::floor((n + 1) * tail)));
  const auto high = static_cast<size_t>(std::min(n, std::ceil((n + 1) * (1 - tail))));
  return {values[low - 1], values[high - 1]};
}

// The regimes tried, narrowest first: each a name (with its text id) and whether a run belongs
// to it.
struct RegimeLevel {
  CoreText name;
  bool (*member)(const RegimeKey& key, const Residual& r);
};

std::vector<RegimeLevel> levels(const RegimeKey& key) {
  const std::string kind = key.moe ? "MoE" : "dense";
  const std::pair<std::string, std::string> gpu{"gpu_family", key.gpu_family};
  const std::pair<std::string, std::string> model{"kind", kind};
  return {
      {{text_id::kRegimeGpuKindFramework,
        key.gpu_family + ", " + kind + ", " + key.framework_family,
        {gpu, model, {"framework_family", key.framework_family}},
        {}},
       [](const RegimeKey& k, const Residual& r) {
         return r.gpu_family == k.gpu_family && r.moe == k.moe &&
                r.framework_family == k.framework_family;
       }},
      {{text_id::kRegimeGpuKind,
        key.gpu_family + ", " + kind + ", any framework",
        {gpu, model},
        {}},
       [](const RegimeKey& k, const Residual& r) {
         return r.gpu_family == k.gpu_family && r.moe == k.moe;
       }},
      {{text_id::kRegimeKind, kind + ", any GPU and framework", {model}, {}},
       [](const RegimeKey& k, const Residual& r) { return r.moe == k.moe; }},
      {{text_id::kRegimeAll, "all published runs", {}, {}},
       [](const RegimeKey&, const Residual&) { return true; }},
  };
}

// A regime passed over for too few runs or publishers: "\"NAME\" has R published runs from P
// publishers' tables".
CoreText passed_over(const CoreText& regime, int64_t runs, int64_t publishers) {
  return {text_id::kRegimeTooFewRuns,
          "\"" + regime.text + "\" has " + std::to_string(runs) + " published run" +
              (runs == 1 ? "" : "s") + " from " + std::to_string(publishers) +
              " publishers' tables",
          {{"runs", std::to_string(runs)}, {"publishers", std::to_string(publishers)}},
          {regime}};
}

// How the band was derived, and the narrower regimes passed over (`why`) for too few runs.
CoreText basis_of(const RatioBand& band, int64_t publishers, std::vector<CoreText> why) {
  const std::string low = fixed_text(band.low, 2);
  const std::string high = fixed_text(band.high, 2);
  CoreText basis{text_id::kBand,
                 "measured / predicted tokens/s of " + std::to_string(band.runs) +
                     " published runs from " + std::to_string(publishers) +
                     " publishers' tables, their 80% split-conformal interval: " + low + " to " +
                     high + " times the estimate",
                 {{"runs", std::to_string(band.runs)},
                  {"publishers", std::to_string(publishers)},
                  {"low", low},
                  {"high", high}},
                 {}};
  if (why.empty()) return basis;
  basis.id = text_id::kBandWiderRegime;
  basis.text += "; the wider regime because ";
  for (size_t i = 0; i < why.size(); ++i) basis.text += (i == 0 ? "" : "; ") + why[i].text;
  basis.text += " (a band needs " + std::to_string(kMinRegimeRuns) + " runs from " +
                std::to_string(kMinRegimeLineages) + " publishers)";
  basis.args.emplace_back("min_runs", std::to_string(kMinRegimeRuns));
  basis.args.emplace_back("min_publishers", std::to_string(kMinRegimeLineages));
  basis.parts = std::move(why);
  return basis;
}

}  // namespace

std::span<const Residual> validation_residuals() { return kResiduals; }

std::string gpu_family(const GpuSpec& gpu) {
  if (gpu.preset.empty()) return "custom";
  for (const Family& f : kFamilies) {
    if (f.preset == gpu.preset) return std::string(f.family);
  }
  return gpu.preset;
}

std::string gpu_family(const Cluster& cluster) {
  std::string family;
  for (const GpuPool& pool : cluster.pools) {
    if (pool.count <= 0) continue;
    const std::string f = gpu_family(pool.gpu);
    if (!family.empty() && f != family) return "mixed";
    family = f;
  }
  return family;
}

std::string_view framework_family(Framework framework) {
  switch (framework) {
    case Framework::deepspeed:
      return "DeepSpeed";
    case Framework::colossalai:
      return "Colossal-AI";
    case Framework::torchtitan:
      return "FSDP2 (torchtitan)";
    default:
      return "Megatron-Core";
  }
}

RegimeKey regime_of(const ModelSpec& model, const Cluster& cluster, Framework framework) {
  return {gpu_family(cluster), model.moe.has_value(), std::string(framework_family(framework))};
}

RatioBand ratio_band(const RegimeKey& key, std::span<const Residual> residuals,
                     std::string_view left_out_lineage) {
  std::vector<CoreText> why;  // the narrower regimes passed over, and their run counts
  const std::vector<RegimeLevel> tried = levels(key);
  for (size_t i = 0; i < tried.size(); ++i) {
    std::vector<double> ratios;
    std::set<std::string_view> lineages;
    for (const Residual& r : residuals) {
      if (r.lineage == left_out_lineage || !tried[i].member(key, r)) continue;
      ratios.push_back(r.ratio);
      lineages.insert(r.lineage);
    }
    const int64_t runs = static_cast<int64_t>(ratios.size());
    const int64_t publishers = static_cast<int64_t>(lineages.size());
    if ((runs < kMinRegimeRuns || publishers < kMinRegimeLineages) && i + 1 < tried.size()) {
      why.push_back(passed_over(tried[i].name, runs, publishers));
      continue;
    }
    RatioBand band;
    if (runs == 0) return band;
    std::tie(band.low, band.high) = conformal_interval(ratios, (1 - kBandLevel) / 2);
    band.regime_text = tried[i].name;
    band.regime = band.regime_text.text;
    band.runs = runs;
    band.basis_text = basis_of(band, publishers, std::move(why));
    band.basis = band.basis_text.text;
    return band;
  }
  return {};
}

Uncertainty uncertainty_of(const RatioBand& band, double tokens_per_s_per_gpu) {
  Uncertainty u;
  u.low_tokens_per_s_per_gpu = band.low * tokens_per_s_per_gpu;
  u.high_tokens_per_s_per_gpu = band.high * tokens_per_s_per_gpu;
  u.level = kBandLevel;
  u.regime = band.regime;
  u.runs = band.runs;
  u.basis = band.basis;
  u.regime_text = band.regime_text;
  u.basis_text = band.basis_text;
  return u;
}

}  // namespace paraplan::detail
