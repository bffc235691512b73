#include "model/validated_regime.hpp"

#include <algorithm>
#include <cstdio>

namespace paraplan::detail {
namespace {

// Derived from tests/validation/data/published-runs.json (73 runs; validated_regime_test.cpp
// recomputes it): per GPU and precision class, the highest measured MFU in the causal
// convention (mfu_causal: the work a causal kernel executes, so that long sequences compare
// fairly), over the dense peak of the preset.
constexpr ValidatedGpu kValidatedGpus[] = {
    {"a100", "16-bit", 0.559, "R030"},  {"b200", "fp8", 0.371, "R119"},
    {"gb200", "16-bit", 0.298, "R122"}, {"gb200", "fp8", 0.410, "R121"},
    {"h100", "16-bit", 0.556, "R091"},  {"h100", "fp8", 0.443, "R109"},
    {"h800", "16-bit", 0.099, "R070"},
};

// The model families of the same runs (model_family()).
constexpr std::string_view kValidatedFamilies[] = {"MoE, gated MLP", "MoE, non-gated MLP",
                                                   "dense, gated MLP", "dense, non-gated MLP"};

// The longest sequence among them.
constexpr int64_t kLongestValidatedSeqLength = 8192;

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

}  // namespace

std::span<const ValidatedGpu> validated_gpus() { return kValidatedGpus; }
std::span<const std::string_view> validated_model_families() { return kValidatedFamilies; }
int64_t longest_validated_seq_length() { return kLongestValidatedSeqLength; }

std::string_view precision_class(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return "fp32";
    case Precision::fp8:
      return "fp8";
    default:
      return "16-bit";
  }
}

std::string model_family(const ModelSpec& model) {
  std::string family = model.moe ? "MoE" : "dense";
  if (model.mla) family += ", multi-latent attention";
  family += is_gated(model.activation) ? ", gated MLP" : ", non-gated MLP";
  return family;
}

std::vector<std::string> regime_notes(const ModelSpec& model, const Training& training,
                                      const Cluster& cluster, double mfu) {
  std::vector<std::string> notes;
  const std::string_view precision = precision_class(training.precision);
  for (const GpuPool& pool : cluster.pools) {
    if (pool.count <= 0) continue;
    const std::string& id = pool.gpu.id;
    const auto gpu_runs = [&](const ValidatedGpu& v) { return v.gpu == id; };
    const auto* const end = std::end(kValidatedGpus);
    const auto* const any = std::find_if(std::begin(kValidatedGpus), end, gpu_runs);
    const auto* const same = std::find_if(std::begin(kValidatedGpus), end, [&](const auto& v) {
      return gpu_runs(v) && v.precision == precision;
    });
    if (any == end) {
      notes.push_back("GPU type " + id + " was never validated against a published run");
    } else if (same == end) {
      notes.push_back(std::string(precision) + " training on " + id +
                      " was never validated against a published run");
    } else if (mfu > same->best_mfu) {
      notes.push_back("causal MFU " + percent(mfu) + " is above the best published for " + id +
                      " in " + std::string(precision) + " (" + percent(same->best_mfu) + ", run " +
                      std::string(same->run) + ")");
    }
  }
  const std::string family = model_family(model);
  if (std::find(std::begin(kValidatedFamilies), std::end(kValidatedFamilies), family) ==
      std::end(kValidatedFamilies)) {
    notes.push_back("model family \"" + family + "\" was never validated against a published run");
  }
  if (training.seq_length > kLongestValidatedSeqLength) {
    notes.push_back("sequence length " + std::to_string(training.seq_length) +
                    " is longer than any validated run (" +
                    std::to_string(kLongestValidatedSeqLength) + ")");
  }
  return notes;
}

}  // namespace paraplan::detail
