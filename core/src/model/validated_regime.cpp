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

// The frameworks that ran them, with their ZeRO stages (tests/validation/published_runs_test.cpp
// checks the set).
constexpr ValidatedFramework kValidatedFrameworks[] = {
    {Framework::megatron, 0, ""},
    {Framework::megatron, 1, ""},
    {Framework::megatron, 3, ""},   // Megatron-FSDP: R120
    {Framework::deepspeed, 1, ""},  // Megatron-DeepSpeed's bf16 optimizer: BLOOM-176B
    // SC21 Table 2 (R017-R019): docs/model.md section 6.
    {Framework::deepspeed, 3,
     "its only published runs, DeepSpeed ZeRO-3 of 2021 (SC21 Table 2), ran 1.4 to 3.2 times "
     "slower than predicted: its per-parameter host work is not modelled"},
};

// torchtitan's published benchmarks, checked for order only (tests/validation/sweeps_test.cpp,
// torchtitan-sweeps.json; docs/model.md section 6).
constexpr const char* kTorchtitanOrderOnly =
    "'s throughput; its published benchmarks (on 500 W H100s) rank configurations as the model "
    "does but ran 14% to 62% slower than predicted at 8192 tokens, and more with context "
    "parallelism";

// The longest sequence among them.
constexpr int64_t kLongestValidatedSeqLength = 8192;

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
  // CUDA graphs' pool: oom-outcomes.json OOM01 and OOM02 (docs/model.md section 2).
  if (strategy.cuda_graph_impl != CudaGraphImpl::none) {
    notes.push_back(
        "CUDA graphs are priced by their static buffers only, not by their memory pool's "
        "fragmentation: a published launch with Transformer Engine graphs ran out of memory where "
        "the model left 18% of the GPU free");
  }
  if (training.seq_length > kLongestValidatedSeqLength) {
    notes.push_back("sequence length " + std::to_string(training.seq_length) +
                    " is longer than any validated run (" +
                    std::to_string(kLongestValidatedSeqLength) + ")");
  }
  return notes;
}

}  // namespace paraplan::detail
