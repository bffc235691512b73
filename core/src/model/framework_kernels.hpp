// How each framework runs its layers' kernels (framework_kernels.cpp's table).
#pragma once

#include "paraplan/framework.hpp"

namespace paraplan::detail {

// How a framework's layers run, from its source (framework_kernels.cpp's table):
// `grouped_gemm_concurrency`, how many of a MoE layer's local expert GEMMs its grouped GEMM
// (--moe-grouped-gemm) runs at once (Transformer Engine's GroupedLinear one cuBLAS GEMM per
// expert on its 4 compute streams, kernels.hpp kGroupedGemmStreams; a single grouped kernel all
// of them); `transformer_engine`, whether its linears, norms and attention are Transformer
// Engine modules (host_time.hpp prices their calls), else PyTorch's.
struct FrameworkKernels {
  double grouped_gemm_concurrency;
  bool transformer_engine;
};
FrameworkKernels framework_kernels(Framework framework);

}  // namespace paraplan::detail
