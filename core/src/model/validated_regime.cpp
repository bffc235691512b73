#include "model/validated_regime.hpp"

#include <algorithm>
#include <cstdio>

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
    {Framework::megatron, 0, ""},
    {Framework::megatron, 1, ""},
    {Framework::megatron, 3, ""},   // Megatron-FSDP: R120
    {Framework::deepspeed, 1, ""},  // Megatron-DeepSpeed's bf16 optimizer: BLOOM-176B
    // SC21 Table 2 (R017-R019): docs/model.md section 6.
    {Framework::deepspeed, 3,
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

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

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

std::vector<std::string> regime_notes(const ModelSpec& model, const Training& training,
                                      const Cluster& cluster, Framework framework,
                                      const Strategy& strategy, double mfu) {
  std::vector<std::string> notes;
  const std::string_view precision = precision_class(training.precision);
  for (const GpuPool& pool : cluster.pools) {
    if (pool.count <= 0) continue;
    const std::string& id = pool.gpu.id;
    const std::string family = gpu_family(pool.gpu);
    if (pool.gpu.preset.empty()) {
      notes.push_back("GPU " + id +
                      " is not a preset as published (its fields are given or overridden): no "
                      "published run measured it");
      continue;
    }
    const auto gpu_runs = [&](const ValidatedGpu& v) { return v.family == family; };
    const auto* const end = std::end(kValidatedGpus);
    const auto* const any = std::find_if(std::begin(kValidatedGpus), end, gpu_runs);
    const auto* const same = std::find_if(std::begin(kValidatedGpus), end, [&](const auto& v) {
      return gpu_runs(v) && v.precision == precision;
    });
    if (any == end) {
      notes.push_back("GPU type " + id + " was never validated against a published run");
    } else if (same == end) {
      notes.push_back(std::string(precision) + " training on " + id + " (" + family +
                      ") was never validated against a published run");
    } else if (mfu > same->best_mfu) {
      notes.push_back("causal MFU " + percent(mfu) + " is above the best published for " + id +
                      " (" + family + ") in " + std::string(precision) + " (" +
                      percent(same->best_mfu) + ", run " + std::string(same->run) + ")");
    }
  }
  const std::string family = model_family(model);
  if (std::find(std::begin(kValidatedFamilies), std::end(kValidatedFamilies), family) ==
      std::end(kValidatedFamilies)) {
    notes.push_back("model family \"" + family + "\" was never validated against a published run");
  }
  const auto* const validated_framework = std::find_if(
      std::begin(kValidatedFrameworks), std::end(kValidatedFrameworks), [&](const auto& v) {
        return v.framework == validated_as(framework) && v.zero_stage == strategy.zero_stage;
      });
  const std::string framework_stage =
      std::string(to_string(framework)) + " with zero_stage " + std::to_string(strategy.zero_stage);
  if (validated_framework == std::end(kValidatedFrameworks)) {
    notes.push_back(framework_stage + " was never validated against a published run" +
                    (framework == Framework::torchtitan ? kTorchtitanOrderOnly : ""));
  } else if (!validated_framework->caveat.empty()) {
    notes.push_back(framework_stage + ": " + std::string(validated_framework->caveat));
  }
  // SequentialMLP (Megatron-LM without --moe-grouped-gemm) loops over a GPU's experts in Python,
  // two linears each: its host time is priced at the rate of Megatron-Core's own linears
  // (moe_dispatch.hpp, docs/model.md section 6).
  if (model.moe && !strategy.moe_grouped_gemm &&
      model.moe->num_experts > strategy.expert_model_parallel_size) {
    notes.push_back(
        "moe_grouped_gemm off runs one expert at a time from the host, whose launch time is "
        "priced without Transformer Engine's costs, a lower bound: the validated runs of this "
        "kind (MegaScale-MoE's Megatron-LM baseline, many experts per GPU) ran 1.2 to 1.3 times "
        "slower than predicted");
  }
  // CUDA graphs' pool: oom-outcomes.json OOM01, OOM02 and OOM14 (docs/model.md section 2).
  if (strategy.cuda_graph_impl != CudaGraphImpl::none) {
    notes.push_back(
        "CUDA graphs are priced by their static buffers only, not by their memory pool's "
        "fragmentation: published launches with graphs and PyTorch's default allocator ran out of "
        "memory where the model left 18% (Transformer Engine graphs) and 23% (a full-iteration "
        "graph) of the GPU free; the default margin with graphs is 24%");
  }
  if (training.seq_length > kLongestValidatedSeqLength) {
    notes.push_back("sequence length " + std::to_string(training.seq_length) +
                    " is longer than any validated run (" +
                    std::to_string(kLongestValidatedSeqLength) + ")");
  }
  return notes;
}

std::string measured_error_note(const ModelSpec& model, Framework framework,
                                const Strategy& strategy, const RatioBand& band) {
  const bool fsdp = framework == Framework::torchtitan || strategy.zero_stage == 3;
  if ((!model.moe && !fsdp) || band.runs == 0) return "";
  char range[64];
  std::snprintf(range, sizeof range, "%.2f to %.2f", band.low, band.high);
  const std::string measured = "published runs of \"" + band.regime + "\" measured " + range +
                               " times the predicted tokens/s (80% interval of " +
                               std::to_string(band.runs) + " runs)";
  if (model.moe) return "mixture-of-experts, where the model errs most: " + measured;
  return "FSDP: few published runs measure it (Megatron-FSDP two, torchtitan's FSDP2 none); " +
         measured;
}

}  // namespace paraplan::detail
