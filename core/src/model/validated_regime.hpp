// The regimes the published runs of tests/validation/data cover: GPU types with the precisions
// they were measured in and the best MFU published for each, model families and the longest
// sequence. A report outside them says so (Report::validation); tests/unit/model/
// validated_regime_test.cpp derives the tables from the data again and fails when they drift.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/uncertainty.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/scenario.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// A GPU family (model/uncertainty.hpp gpu_family(): A100 40 GB and A800 are read with the A100,
// H800 with the H100) and precision class with published runs, and the highest MFU among them
// (causal convention, measured tokens/s x model FLOPs / dense peak of the run's preset).
struct ValidatedGpu {
  std::string_view family;     // gpu_family()
  std::string_view precision;  // precision_class()
  double best_mfu = 0;
  std::string_view run;  // the published run that reached it (published-runs*.json id)
};

// A framework and ZeRO stage the published runs were priced under
// (tests/validation/stated_settings.cpp assigns each source its framework;
// published_runs_test.cpp checks this table against its rows). `caveat`, when not empty, says how
// far those runs are from the model.
struct ValidatedFramework {
  Framework framework;
  int64_t zero_stage = 0;
  std::string_view caveat_id;  // the caveat's text id (web/src/i18n/core-texts.ts)
  std::string_view caveat;
};

std::span<const ValidatedGpu> validated_gpus();
std::span<const ValidatedFramework> validated_frameworks();
std::span<const std::string_view> validated_model_families();
int64_t longest_validated_seq_length();

// "16-bit" (fp16 and bf16 run on the same tensor cores at the same peak), "fp8" or "fp32".
std::string_view precision_class(Precision precision);
// "dense" or "MoE", with "multi-latent attention" and the MLP kind ("gated MLP" for SwiGLU and
// GeGLU, "non-gated MLP" otherwise).
std::string model_family(const ModelSpec& model);

// The framework whose runs validate `framework`'s pricing: Megatron-Bridge and MindSpeed-LLM
// run Megatron-Core and are priced as Megatron-LM (docs/model.md section 3a).
Framework validated_as(Framework framework);

// For a regime whose published runs the model misses by far (mixture-of-experts, FSDP:
// Megatron-FSDP or torchtitan's FSDP2), the measured error from the residual table: how far
// measured tokens/s fell from the prediction in that regime's runs. Its id is empty for the
// other regimes.
CoreText measured_error_note(const ModelSpec& model, Framework framework, const Strategy& strategy,
                             const RatioBand& band);

// One note per way the job leaves the validated regimes: a GPU type or precision never
// measured, a model family never measured, a framework and ZeRO stage never measured (or
// measured far from the model), a longer sequence, a mechanism the model leaves out that its
// validated runs show, an MFU above the best published for its GPU (`mfu` is mfu_causal; < 0:
// not checked). Empty when it stays inside them.
std::vector<CoreText> regime_notes(const ModelSpec& model, const Training& training,
                                   const Cluster& cluster, Framework framework,
                                   const Strategy& strategy, double mfu);

}  // namespace paraplan::detail
