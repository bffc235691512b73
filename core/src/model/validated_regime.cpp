#include "model/validated_regime.hpp"

#include <algorithm>
#include <cmath>

#include "model/number_text.hpp"
#include "model/text_ids.hpp"
#include "paraplan/limits.hpp"

namespace paraplan::detail {
namespace {

// Derived from the scored runs of tests/validation/data/published-runs*.json
// (validated_regime_test.cpp recomputes it): per GPU family (gpu_family(): a GPU is compared with
// its family's runs, the A100 40 GB with the A100's, the H800 with the H100's) and precision
// class, the highest measured MFU in the causal convention (mfu_causal: the work a causal kernel
// executes, so that long sequences compare fairly), over the dense peak of the run's preset.
constexpr ValidatedGpu kValidatedGpus[] = {
    {"A100", "16-bit", 0.559, "R030"},   {"Blackwell", "16-bit", 0.467, "H033"},
    {"Blackwell", "fp8", 0.410, "R121"}, {"Hopper", "16-bit", 0.556, "R091"},
    {"Hopper", "fp8", 0.443, "R109"},
};

// The model families of the same runs (model_family()).
constexpr std::string_view kValidatedFamilies[] = {
    "MoE, gated MLP", "MoE, multi-latent attention, gated MLP", "MoE, non-gated MLP",
    "dense, gated MLP", "dense, non-gated MLP"};

// The frameworks that ran them, with their ZeRO stages (tests/validation/published_runs_test.cpp
// checks the set).
constexpr ValidatedFramework kValidatedFrameworks[] = {
    {Framework::megatron, 0, "", ""},
    {Framework::megatron, 1, "", ""},
    {Framework::megatron, 3, "", ""},   // Megatron-FSDP: R120
    {Framework::deepspeed, 1, "", ""},  // Megatron-DeepSpeed's bf16 optimizer: BLOOM-176B
    // SC21 Table 2 (R017-R019): docs/model.md section 6.
    {Framework::deepspeed, 3, text_id::kDeepSpeedZero3Slower,
     "its only published runs, DeepSpeed ZeRO-3 of 2021 (SC21 Table 2), ran 1.4 to 3.1 times "
     "slower than predicted: its per-parameter host work is not modelled"},
};

// torchtitan's published benchmarks, checked for order only (tests/validation/sweeps_test.cpp,
// torchtitan-sweeps.json; docs/model.md section 6).
constexpr const char* kTorchtitanOrderOnly =
    "'s throughput; its published benchmarks (on 500 W H100s) rank configurations as the model "
    "does but ran 14% to 62% slower than predicted at 8192 tokens, and more with context "
    "parallelism";

// The longest sequence among them (NeMo's long-context table, H068: 1M tokens on 1024 H100).
constexpr int64_t kLongestValidatedSeqLength = 1048576;

std::string percent(double fraction) { return fixed_text(100 * fraction, 1) + "%"; }

}  // namespace

std::span<const ValidatedGpu> validated_gpus() { return kValidatedGpus; }
std::span<const ValidatedFramework> validated_frameworks() { return kValidatedFrameworks; }
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

Framework validated_as(Framework framework) {
  const bool megatron_core =
      framework == Framework::megatron_bridge || framework == Framework::mindspeed_llm;
  return megatron_core ? Framework::megatron : framework;
}

namespace {

using Args = std::vector<std::pair<std::string, std::string>>;

// The note on one GPU type of the cluster, if its runs leave the validated regime; id empty
// otherwise.
CoreText gpu_note(const GpuSpec& gpu, std::string_view precision, double mfu) {
  const std::string& id = gpu.id;
  const std::string family = gpu_family(gpu);
  if (gpu.preset.empty()) {
    return {text_id::kGpuNotPreset,
            "GPU " + id +
                " is not a preset as published (its fields are given or overridden): no "
                "published run measured it",
            {{"gpu", id}},
            {}};
  }
  const auto gpu_runs = [&](const ValidatedGpu& v) { return v.family == family; };
  const auto* const end = std::end(kValidatedGpus);
  const auto* const any = std::find_if(std::begin(kValidatedGpus), end, gpu_runs);
  const auto* const same = std::find_if(std::begin(kValidatedGpus), end, [&](const auto& v) {
    return gpu_runs(v) && v.precision == precision;
  });
  const std::string p(precision);
  if (any == end) {
    return {text_id::kGpuNeverValidated,
            "GPU type " + id + " was never validated against a published run",
            {{"gpu", id}},
            {}};
  }
  if (same == end) {
    return {
        text_id::kPrecisionNeverValidated,
        p + " training on " + id + " (" + family + ") was never validated against a published run",
        {{"precision", p}, {"gpu", id}, {"gpu_family", family}},
        {}};
  }
  if (mfu <= same->best_mfu) return {};
  return {text_id::kMfuAboveBest,
          "causal MFU " + percent(mfu) + " is above the best published for " + id + " (" + family +
              ") in " + p + " (" + percent(same->best_mfu) + ", run " + std::string(same->run) +
              ")",
          {{"mfu", percent(mfu)},
           {"gpu", id},
           {"gpu_family", family},
           {"precision", p},
           {"best_mfu", percent(same->best_mfu)},
           {"run", std::string(same->run)}},
          {}};
}

// The note on the framework and ZeRO stage, if the published runs miss them or miss them by far;
// id empty otherwise.
CoreText framework_note(Framework framework, int64_t zero_stage) {
  const auto* const validated = std::find_if(
      std::begin(kValidatedFrameworks), std::end(kValidatedFrameworks), [&](const auto& v) {
        return v.framework == validated_as(framework) && v.zero_stage == zero_stage;
      });
  const std::string name(to_string(framework));
  const Args args = {{"framework", name}, {"zero_stage", std::to_string(zero_stage)}};
  const std::string framework_stage = name + " with zero_stage " + std::to_string(zero_stage);
  if (validated == std::end(kValidatedFrameworks)) {
    const bool titan = framework == Framework::torchtitan;
    return {titan ? text_id::kTorchtitanOrderOnly : text_id::kFrameworkNeverValidated,
            framework_stage + " was never validated against a published run" +
                (titan ? kTorchtitanOrderOnly : ""),
            args,
            {}};
  }
  if (validated->caveat.empty()) return {};
  return {std::string(validated->caveat_id),
          framework_stage + ": " + std::string(validated->caveat),
          args,
          {}};
}

}  // namespace

std::vector<CoreText> regime_notes(const ModelSpec& model, const Training& training,
                                   const Cluster& cluster, Framework framework,
                                   const Strategy& strategy, double mfu) {
  std::vector<CoreText> notes;
  const auto add = [&notes](CoreText note) {
    if (!note.id.empty()) notes.push_back(std::move(note));
  };
  const std::string_view precision = precision_class(training.precision);
  for (const GpuPool& pool : cluster.pools) {
    if (pool.count > 0) add(gpu_note(pool.gpu, precision, mfu));
  }
  const std::string family = model_family(model);
  if (std::find(std::begin(kValidatedFamilies), std::end(kValidatedFamilies), family) ==
      std::end(kValidatedFamilies)) {
    add({text_id::kFamilyNeverValidated,
         "model family \"" + family + "\" was never validated against a published run",
         {{"family", family}},
         {}});
  }
  add(framework_note(framework, strategy.zero_stage));
  // SequentialMLP (Megatron-LM without --moe-grouped-gemm) loops over a GPU's experts in Python,
  // two linears each: its host time is priced at the rate of Megatron-Core's own linears
  // (moe_dispatch.hpp, docs/model.md section 6).
  if (model.moe && !strategy.moe_grouped_gemm &&
      model.moe->num_experts > strategy.expert_model_parallel_size) {
    add({text_id::kGroupedGemmOffLowerBound,
         "moe_grouped_gemm off runs one expert at a time from the host, whose launch time is "
         "priced without Transformer Engine's costs, a lower bound: the validated runs of this "
         "kind (MegaScale-MoE's Megatron-LM baseline, many experts per GPU) ran 1.2 to 1.3 times "
         "slower than predicted",
         {},
         {}});
  }
  // CUDA graphs' pool: oom-outcomes.json OOM01 and OOM02 (docs/model.md section 2).
  if (strategy.cuda_graph_impl != CudaGraphImpl::none) {
    const std::string margin =
        std::to_string(std::lround(limits::default_memory_margin_percent({.cuda_graphs = true})));
    add({text_id::kCudaGraphPoolNotPriced,
         "CUDA graphs are priced by their static buffers only, not by their memory pool's "
         "fragmentation: published launches with Transformer Engine's graphs and PyTorch's "
         "default allocator ran out of memory where the model left 17.5% of the GPU free; the "
         "default margin with graphs is " +
             margin + "%",
         {{"margin_percent", margin}},
         {}});
  }
  if (training.seq_length > kLongestValidatedSeqLength) {
    add({text_id::kSequenceLongerThanValidated,
         "sequence length " + std::to_string(training.seq_length) +
             " is longer than any validated run (" + std::to_string(kLongestValidatedSeqLength) +
             ")",
         {{"seq_length", std::to_string(training.seq_length)},
          {"longest", std::to_string(kLongestValidatedSeqLength)}},
         {}});
  }
  return notes;
}

CoreText measured_error_note(const ModelSpec& model, Framework framework, const Strategy& strategy,
                             const RatioBand& band) {
  const bool fsdp = framework == Framework::torchtitan || strategy.zero_stage == 3;
  if ((!model.moe && !fsdp) || band.runs == 0) return {};
  const std::string low = fixed_text(band.low, 2);
  const std::string high = fixed_text(band.high, 2);
  const std::string range = low + " to " + high;
  const std::string measured = "published runs of \"" + band.regime + "\" measured " + range +
                               " times the predicted tokens/s (80% interval of " +
                               std::to_string(band.runs) + " runs)";
  const Args args = {{"low", low}, {"high", high}, {"runs", std::to_string(band.runs)}};
  if (model.moe) {
    return {text_id::kMoeMeasuredError,
            "mixture-of-experts, where the model errs most: " + measured,
            args,
            {band.regime_text}};
  }
  return {text_id::kFsdpMeasuredError,
          "FSDP: few published runs measure it (Megatron-FSDP two, torchtitan's FSDP2 none); " +
              measured,
          args,
          {band.regime_text}};
}

}  // namespace paraplan::detail
