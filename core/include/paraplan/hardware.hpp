// GPUs and their networks, with efficiency curves loaded from presets (units converted once,
// at load time, to SI: FLOP/s, bytes, bytes/s, seconds).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paraplan {

enum class Precision { fp32, fp16, bf16, fp8 };
inline constexpr int kNumPrecisions = 4;

std::string_view to_string(Precision precision);
std::span<const std::string_view> precision_names();  // indexed by Precision

// Efficiency (0, 1] as a function of an operation's size, linear in log(size) between the
// given points and flat beyond the first and last.
class EfficiencyCurve {
 public:
  EfficiencyCurve() = default;
  // `points` are (size, efficiency) with strictly increasing sizes > 0.
  explicit EfficiencyCurve(const std::vector<std::pair<double, double>>& points);

  double at(double size) const;
  const std::vector<std::pair<double, double>>& points() const { return points_; }

 private:
  std::vector<std::pair<double, double>> points_;
  std::vector<double> log_sizes_;
};

// One network tier as seen by one GPU.
struct NetworkTier {
  std::string name;
  double bandwidth_bytes_per_s = 0;  // per GPU, per direction
  double latency_s = 0;              // per collective step
  EfficiencyCurve efficiency;        // achieved fraction of bandwidth by message bytes
};

// What a GPU holds besides PyTorch's tensors, and what sizes the NCCL buffers of a communicator
// (a preset's optional "memory_reserve"; the defaults are an H100's).
struct MemoryReserveSpec {
  double cuda_context_bytes = 0.5 * 1024 * 1024 * 1024;  // context and loaded kernel modules
  double workspace_bytes = 64.0 * 1024 * 1024;           // cuBLAS and Transformer Engine
  int64_t nccl_channels_intra_node = 24;    // collective channels of a communicator inside a node
  int64_t nccl_channels_inter_node = 16;    // of one that spans nodes
  int64_t nccl_p2p_channels_per_peer = 32;  // send/receive channels per NVLink peer
  int64_t nvls_channels = 16;               // NVLink SHARP channels (0: no NVLS)
};

// The host memory a GPU can offload to, and the link to it (PCIe, or NVLink-C2C to a Grace CPU).
struct HostMemory {
  double bytes = 0;                   // per GPU
  double bandwidth_bytes_per_s = 0;   // per direction, as pinned copies achieve it
  double cpu_memory_bytes_per_s = 0;  // the host DRAM bandwidth's share of one GPU (peak)
  // The share of that peak a streaming kernel (the CPU optimizer's step) reaches: a preset's
  // host.cpu_stream_efficiency, else this default. Source: STREAM triad results for two-socket
  // Xeon and EPYC servers sit near 80% of peak (an estimate, not measured here).
  double cpu_stream_efficiency = 0.8;
};

// The host CPU's time to issue work in PyTorch eager mode (core/src/model/host_time.hpp): per
// bare PyTorch op (dispatch and one kernel launch), per torch.nn.Linear call and per Transformer
// Engine module call. Zero where the preset gives none: the host is then priced as always ahead
// of the GPU.
struct HostIssueCost {
  double torch_op_s = 0;
  double torch_linear_s = 0;
  double te_module_s = 0;
  // Host time to issue one local expert's forward and backward in SequentialMLP (Megatron-LM
  // without --moe-grouped-gemm: experts.py loops over the experts, fc1, activation, fc2 each;
  // moe_layer_cost.cpp): a preset's host.sequential_mlp_expert_forward_us and
  // host.sequential_mlp_expert_backward_us, else these defaults. Source: the slope of the loop's
  // host time over its experts, measured by scripts/calibration/measure_host.py on a lent H200's
  // host with Megatron-Core r0.9's SequentialMLP itself and its local linears
  // (scripts/calibration/measured/host-h200-2026-11-26-megatron-core.json: 187 us forward, 320 us
  // backward; plain torch.nn.functional.linear: 101-107 us forward). MegaScale-MoE's baseline ran
  // Transformer Engine's linears, which cost the host more per call: a lower bound. No other host
  // was measured, so every GPU takes these unless its preset says otherwise.
  double sequential_mlp_expert_forward_s = 187e-6;
  double sequential_mlp_expert_backward_s = 320e-6;
  // What a host sync costs the GPU beyond the wait itself (core/src/model/host_time.hpp): the
  // host blocks until the GPU has drained its queue, copies the counts, wakes and issues the next
  // kernel, and the GPU idles in between. A preset's host.sync_gap_us, else this default.
  // Source: measured on a lent H200 behind a queue of matmuls: 57.07 us between the kernels
  // around a `.tolist()` of 256 per-expert counts, the median of 50
  // (scripts/calibration/measured/h200-head-dims-moe-2026-11-28.json, samples.host_sync
  // gap_after_sync_us; scripts/calibration/measure_gpu.py measure_host_sync). Charged only where
  // the host's issue cost (torch_op_s) is priced.
  double sync_gap_s = 57.07e-6;
};

// The host's issue costs per op from one software release on (a GPU preset's host.by_release):
// a later release's libraries can cost the same host less per op (docs/model.md section 1c).
struct ReleaseHostIssue {
  int first_release = 0;  // index into framework_version_names()
  double torch_op_s = 0;
  double torch_linear_s = 0;
  double te_module_s = 0;
};

struct GpuSpec {
  std::string id;
  // The preset's id when the GPU is that preset as published; empty for an inline object or a
  // preset with fields overridden ("base"), whose numbers no published run measured.
  std::string preset;
  std::string name;
  std::array<double, kNumPrecisions> tensor_flops_per_s{};  // dense; 0 = unsupported
  double vector_flops_per_s = 0;
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  int64_t nvlink_domain_gpus = 0;  // GPUs joined by the intra-node network
  int64_t gpus_per_host = 0;       // GPUs one host launches (the default gpus_per_node)
  NetworkTier intra_node;
  NetworkTier inter_node;
  EfficiencyCurve gemm_efficiency;                // by FLOPs of one GEMM
  EfficiencyCurve gemm_fp8_efficiency;            // same for fp8 GEMMs
  EfficiencyCurve attention_forward_efficiency;   // by FLOPs of one fused attention call
  EfficiencyCurve attention_backward_efficiency;  // same, backward
  // FlashAttention-2 (attention_backend flash) where the preset measured it, by the mean keys a
  // query row attends (forward; backward: queries a key row meets); empty: the above.
  EfficiencyCurve attention_forward_flash_efficiency;
  EfficiencyCurve attention_backward_flash_efficiency;
  EfficiencyCurve memory_efficiency;  // by bytes moved by one kernel
  double kernel_overhead_s = 0;       // fixed cost of each kernel
  double overlap_slowdown = 0;        // compute lost per second of communication hidden under it
  double compute_capability = 0;      // CUDA's major.minor (sm_90: 9.0); 0 where not an NVIDIA GPU
  // A scatter-add's rate over a copy's (core/src/model/kernels.hpp scatter_add_s): Megatron-LM's
  // unfused unpermute (moe_utils.py unpermute: zeros, then scatter_add_ of the
  // probability-weighted bf16 rows; the permute's backward, index_select's derivative index_add_,
  // alike) adds with atomics. A preset's scatter_add_over_copy, else this default. Source: on a
  // lent H200 it moves the bytes kernels count at 0.212 of the HBM peak over 0.4-11.7 GB (18
  // shapes, 4,096-32,768 tokens, hidden 2,048-7,168, top-8 of 64 and 256 experts;
  // scripts/calibration/measured/h200-head-dims-moe-2026-11-28.json, moe_permute), where the same
  // GPU's copies reach 0.867-0.884 (h200-2026-11-26.json, memory) and the permute's index_select
  // 0.79-0.87: 0.212 / 0.88 of the copy's rate. No other GPU was measured, so every GPU takes it
  // unless its preset says otherwise.
  double scatter_add_over_copy = 0.24;
  MemoryReserveSpec memory_reserve;
  HostMemory host;  // for activation offloading
  HostIssueCost host_issue;
  // The host's issue costs from named releases on (the preset's host.by_release, oldest first):
  // they replace host_issue's per-op figures for a scenario that names such a release
  // (host_issue_at); without a release the preset's own figures hold.
  std::vector<ReleaseHostIssue> host_issue_by_release;

  double tensor_flops(Precision precision) const {
    return tensor_flops_per_s[static_cast<int>(precision)];
  }
};

// Parses a GPU: a preset id (or alias) or an inline object. An inline object with "base"
// starts from that preset and overrides the fields it gives; otherwise it gives them all.
GpuSpec parse_gpu(const nlohmann::json& value, const std::string& path);

// The GPU's host issue costs for a job run on `release` (an index into
// framework_version_names()): the last host.by_release entry at or before it, else host_issue.
HostIssueCost host_issue_at(const GpuSpec& gpu, int release);

}  // namespace paraplan
