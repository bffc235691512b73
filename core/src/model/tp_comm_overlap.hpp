// Tensor-parallel communication overlap as Transformer Engine's userbuffers run it by default
// (--tp-comm-overlap; TE transformer_engine/pytorch/module/base.py initialize_ub,
// get_default_config): which GEMM each collective hides under, in how many chunks, and the SMs
// it takes from that GEMM.
#pragma once

#include <algorithm>
#include <string_view>

#include "paraplan/hardware.hpp"

namespace paraplan::detail {

// Streaming multiprocessors of the NVIDIA presets (0: not known, the overlap then costs the
// preset's overlap_slowdown per hidden second as elsewhere).
//   A100, A800: 108 (NVIDIA A100 Tensor Core GPU Architecture whitepaper, "108 SMs" for A100).
//   H100 SXM5, H800, H200, GH200: 132 (NVIDIA H100 Tensor Core GPU Architecture whitepaper,
//     "The H100 SXM5 GPU has 132 SMs"; H800 and H200 are the same GH100 configuration).
//   B200, GB200: 148 (Chips and Cheese, "Nvidia's B200: Keeping the CUDA Juggernaut Rolling",
//     2025: "B200 enables 74 SMs per die, giving 148 SMs across the GPU").
//   B300, GB300: 160 (NVIDIA "Inside NVIDIA Blackwell Ultra" technical blog: 160 SMs).
struct SmCount {
  std::string_view preset;
  double sms;
};
inline constexpr SmCount kSmCounts[] = {
    {"a100", 108},  {"a800", 108}, {"a100-40g", 108}, {"h100", 132}, {"h800", 132},  {"h200", 132},
    {"gh200", 132}, {"b200", 148}, {"gb200", 148},    {"b300", 160}, {"gb300", 160},
};

inline double sm_count(const GpuSpec& gpu) {
  for (const SmCount& s : kSmCounts) {
    if (s.preset == gpu.preset) return s.sms;
  }
  return 0;
}

// get_default_config: "num_sm": 1 if method == "ring_exchange" else 16, "set_sm_margin": not
// ring_exchange, "num_splits": tp_size if ring_exchange else 4, "use_ce": True.
inline constexpr double kUserbufferSms = 16;
inline constexpr double kPipelinedSplits = 4;

// Ring exchange (the all-gather before the column-parallel GEMM's forward, qkv_fprop and
// fc1_fprop, and before the row-parallel GEMM's input gradient, proj_dgrad and fc2_dgrad): the
// GEMM runs in tp chunks, the local one first, each later chunk after its transfer, which the
// copy engine moves (no SMs taken; the preset's overlap_slowdown stands for the HBM shared).
inline double ring_exchange_exposed_s(const GpuSpec& gpu, double comm_s, double gemm_s, double tp) {
  const double hidden = std::min(comm_s, gemm_s * (tp - 1) / tp);
  return comm_s - hidden + gpu.overlap_slowdown * hidden;
}

// The GEMM beside a pipelined or bulk overlap runs on the SMs the communication leaves it
// (set_sm_margin) for its whole length: the time it loses, per second of GEMM.
inline double userbuffer_margin(const GpuSpec& gpu) {
  const double sms = sm_count(gpu);
  return sms > kUserbufferSms ? kUserbufferSms / (sms - kUserbufferSms) : -1;
}

// Pipelined reduce-scatter (the row-parallel GEMM's forward, proj_fprop and fc2_fprop): the GEMM
// in 4 chunks, each chunk's reduce-scatter under the next chunk, the last one's exposed.
inline double pipelined_exposed_s(const GpuSpec& gpu, double comm_s, double gemm_s) {
  const double margin = userbuffer_margin(gpu);
  if (margin < 0) return comm_s / kPipelinedSplits + std::max(0.0, comm_s - gemm_s);
  const double rest = (kPipelinedSplits - 1) / kPipelinedSplits;
  return comm_s / kPipelinedSplits + std::max(0.0, rest * (comm_s - gemm_s * (1 + margin))) +
         gemm_s * margin;
}

// Bulk (the column-parallel backward: the input's all-gather under the input-gradient GEMM,
// qkv_dgrad and fc1_dgrad, and the input gradient's reduce-scatter under the weight-gradient
// GEMM, qkv_wgrad and fc1_wgrad): one collective beside the whole GEMM.
inline double bulk_exposed_s(const GpuSpec& gpu, double comm_s, double gemm_s) {
  const double margin = userbuffer_margin(gpu);
  if (margin < 0) {
    return std::max(0.0, comm_s - gemm_s) + gpu.overlap_slowdown * std::min(comm_s, gemm_s);
  }
  return std::max(0.0, comm_s - gemm_s * (1 + margin)) + gemm_s * margin;
}

}  // namespace paraplan::detail
