// The uncertainty band on an estimate: the 80% interval of measured / predicted tokens/s of the
// published runs of the estimate's regime (GPU family, dense or MoE, framework family), from the
// residual table the validation test writes (validation_residuals.inc).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "paraplan/framework.hpp"
#include "paraplan/report.hpp"
#include "paraplan/scenario.hpp"

namespace paraplan::detail {

// One published run of tests/validation/data, as the validation test last estimated it.
struct Residual {
  std::string_view run;               // published-runs*.json id
  std::string_view lineage;           // its publisher's tables (left out together)
  std::string_view gpu_family;        // gpu_family()
  bool moe = false;                   // Mixture-of-Experts model
  std::string_view framework_family;  // framework_family()
  double ratio = 0;                   // measured / predicted tokens/s per GPU
};

std::span<const Residual> validation_residuals();

// "A100" (a100, a100-40g, a800), "Hopper" (h100, h800, h200, h20, gh200), "Blackwell" (b200,
// gb200), "Blackwell Ultra" (b300, gb300), "AMD Instinct", "Ascend", "Kunlun"; a GPU that is not
// a preset as
// published (an inline or customised object) is "custom", a cluster of several families
// "mixed".
std::string gpu_family(const GpuSpec& gpu);
std::string gpu_family(const Cluster& cluster);
// "Megatron-Core" (Megatron-LM, Megatron-Bridge, MindSpeed-LLM), "DeepSpeed", "Colossal-AI",
// "FSDP2 (torchtitan)".
std::string_view framework_family(Framework framework);

struct RegimeKey {
  std::string gpu_family;
  bool moe = false;
  std::string framework_family;
};
RegimeKey regime_of(const ModelSpec& model, const Cluster& cluster, Framework framework);

// The band's ratios (measured / predicted) for a regime, from `residuals` without those of
// `left_out_lineage`: the 80% split-conformal interval of the narrowest regime with at least
// kMinRegimeRuns runs from kMinRegimeLineages publishers, from (GPU family, dense or MoE,
// framework family) up to all runs. A publisher's runs share its recipes and software, and their
// errors with them: a band from one or two publishers measures their recipes, not the regime,
// and three is the fewest that leave two when any one is left out.
struct RatioBand {
  double low = 0, high = 0;
  std::string regime;
  int64_t runs = 0;
  std::string basis;
  CoreText regime_text;  // `regime` with its id and values
  CoreText basis_text;   // `basis` with its id and values
};
inline constexpr int64_t kMinRegimeRuns = 8;
inline constexpr int64_t kMinRegimeLineages = 3;
inline constexpr double kBandLevel = 0.8;
RatioBand ratio_band(const RegimeKey& key, std::span<const Residual> residuals,
                     std::string_view left_out_lineage = {});

// The band on `tokens_per_s_per_gpu` (zero for an infeasible estimate).
Uncertainty uncertainty_of(const RatioBand& band, double tokens_per_s_per_gpu);

}  // namespace paraplan::detail
