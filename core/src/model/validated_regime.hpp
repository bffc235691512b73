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

#include "paraplan/scenario.hpp"

namespace paraplan::detail {

// A GPU type and precision class with published runs, and the highest MFU among them (the
// full-attention convention of Report::mfu, measured tokens/s x model FLOPs / dense peak).
struct ValidatedGpu {
  std::string_view gpu;        // preset id
  std::string_view precision;  // precision_class()
  double best_mfu = 0;
  std::string_view run;  // the published run that reached it (published-runs.json id)
};

std::span<const ValidatedGpu> validated_gpus();
std::span<const std::string_view> validated_model_families();
int64_t longest_validated_seq_length();

// "16-bit" (fp16 and bf16 run on the same tensor cores at the same peak), "fp8" or "fp32".
std::string_view precision_class(Precision precision);
// "dense" or "MoE", with "multi-latent attention" and the MLP kind ("gated MLP" for SwiGLU and
// GeGLU, "non-gated MLP" otherwise).
std::string model_family(const ModelSpec& model);

// One note per way the job leaves the validated regimes: a GPU type or precision never
// measured, a model family never measured, a longer sequence, an MFU above the best published
// for its GPU (`mfu` is mfu_causal; < 0: not checked). Empty when it stays inside them.
std::vector<std::string> regime_notes(const ModelSpec& model, const Training& training,
                                      const Cluster& cluster, double mfu);

}  // namespace paraplan::detail
