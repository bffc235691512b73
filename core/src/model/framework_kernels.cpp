#include "model/framework_kernels.hpp"

#include <limits>
#include <string_view>

#include "model/kernels.hpp"

namespace paraplan::detail {

namespace {

// How each framework runs grouped experts (framework_kernels.hpp grouped_gemm_concurrency).
struct FrameworkKernelsRow {
  Framework framework;
  FrameworkKernels kernels;
  std::string_view source;
};
constexpr double kAllExperts = std::numeric_limits<double>::infinity();
constexpr FrameworkKernelsRow kFrameworkKernels[] = {
    {Framework::megatron,
     {kGroupedGemmStreams, true},
     "Megatron-Core's Transformer Engine spec (gpt_layer_specs.py); TEGroupedMLP: Transformer "
     "Engine's GroupedLinear, multi_stream_cublas_gemm"},
    {Framework::megatron_bridge, {kGroupedGemmStreams, true}, "runs Megatron-Core's TE spec"},
    {Framework::mindspeed_llm,
     {kAllExperts, false},
     "MindSpeed's GMM: one torch_npu.npu_grouped_matmul over all local experts "
     "(mindspeed/ops/gmm.py); no Transformer Engine on Ascend"},
    {Framework::deepspeed,
     {kGroupedGemmStreams, false},
     "PyTorch modules; no grouped GEMM (its rules keep it off)"},
    {Framework::colossalai,
     {kGroupedGemmStreams, false},
     "PyTorch modules; no grouped GEMM (its rules keep it off)"},
    {Framework::torchtitan,
     {kAllExperts, false},
     "PyTorch modules; GroupedExperts: one torch._grouped_mm per projection over all local "
     "experts (torchtitan/models/moe/moe.py _run_experts_grouped_mm)"},
};

}  // namespace

FrameworkKernels framework_kernels(Framework framework) {
  for (const FrameworkKernelsRow& row : kFrameworkKernels) {
    if (row.framework == framework) return row.kernels;
  }
  return {kGroupedGemmStreams, true};
}

}  // namespace paraplan::detail
