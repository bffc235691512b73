#include "paraplan/hardware.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "input/json_reader.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/framework.hpp"
#include "paraplan/presets.hpp"
#include "paraplan/units.hpp"

namespace paraplan {
namespace {

using units::kGiB;
using units::kGiga;
using units::kMega;
using units::kMiB;
using units::kMicro;
using units::kTera;

using detail::ObjectReader;

constexpr std::array<std::string_view, kNumPrecisions> kPrecisions = {"fp32", "fp16", "bf16",
                                                                      "fp8"};

// [[size, efficiency], ...] with sizes in `unit`, strictly increasing, efficiencies in (0, 1].
EfficiencyCurve parse_curve(const nlohmann::json& value, const std::string& path, double unit) {
  if (!value.is_array() || value.empty() || value.size() > 64) {
    throw detail::value_error(path, text_id::kErrorCurve,
                              "expected an array of 1 to 64 [size, efficiency] pairs",
                              {{"max", "64"}}, value);
  }
  std::vector<std::pair<double, double>> points;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string point_path = path + "[" + std::to_string(i) + "]";
    const nlohmann::json& point = value[i];
    if (!point.is_array() || point.size() != 2) {
      throw detail::value_error(point_path, text_id::kErrorCurvePoint,
                                "expected a [size, efficiency] pair", {}, point);
    }
    const double size = detail::read_number(point[0], point_path + "[0]", 1e-9, 1e12) * unit;
    const double efficiency = detail::read_number(point[1], point_path + "[1]", 1e-3, 1.0);
    if (!points.empty() && size <= points.back().first) {
      throw detail::input_error(point_path + "[0]", text_id::kErrorCurveSizes,
                                "sizes must increase from one point to the next");
    }
    points.emplace_back(size, efficiency);
  }
  return EfficiencyCurve(points);
}

NetworkTier parse_tier(ObjectReader& object, const nlohmann::json& curve,
                       const std::string& curve_path) {
  NetworkTier tier;
  tier.name = object.optional_string("name").value_or("");
  tier.bandwidth_bytes_per_s = object.number("gb_per_s", 1e-3, 1e6) * kGiga;
  tier.latency_s = object.number("latency_us", 0, 1e6) * kMicro;
  tier.efficiency = parse_curve(curve, curve_path, kMega);
  return tier;
}

// Replaces or merges `overrides` into `base`, object by object.
void merge_into(nlohmann::json& base, const nlohmann::json& overrides) {
  for (const auto& [key, value] : overrides.items()) {
    auto it = base.find(key);
    if (it != base.end() && it->is_object() && value.is_object()) {
      merge_into(*it, value);
    } else {
      base[key] = value;
    }
  }
}

// The efficiency curves of GEMMs, attention (FlashAttention-2's optional) and memory copies.
void parse_kernel_curves(ObjectReader& efficiency, GpuSpec& gpu) {
  gpu.gemm_efficiency = parse_curve(efficiency.required("gemm"), efficiency.path_of("gemm"), kGiga);
  const nlohmann::json* fp8_curve = efficiency.find("gemm_fp8");
  gpu.gemm_fp8_efficiency = fp8_curve
                                ? parse_curve(*fp8_curve, efficiency.path_of("gemm_fp8"), kGiga)
                                : gpu.gemm_efficiency;
  if (gpu.tensor_flops(Precision::fp8) > 0 && fp8_curve == nullptr) {
    throw detail::input_error(efficiency.path_of("gemm_fp8"), text_id::kErrorFp8CurveRequired,
                              "is required when tensor_tflops has fp8");
  }
  gpu.attention_forward_efficiency = parse_curve(efficiency.required("attention_forward"),
                                                 efficiency.path_of("attention_forward"), kGiga);
  gpu.attention_backward_efficiency = parse_curve(efficiency.required("attention_backward"),
                                                  efficiency.path_of("attention_backward"), kGiga);
  // Optional, both or neither: FlashAttention-2's curves (attention_backend flash), keyed by the
  // rows a thread block loops over (kernels.hpp FlashSpan), not by FLOPs.
  const nlohmann::json* flash_forward = efficiency.find("attention_forward_flash");
  const nlohmann::json* flash_backward = efficiency.find("attention_backward_flash");
  if ((flash_forward == nullptr) != (flash_backward == nullptr)) {
    const char* missing = flash_forward ? "attention_backward_flash" : "attention_forward_flash";
    throw detail::input_error(efficiency.path_of(missing), text_id::kErrorFlashCurvePair,
                              "is required with the other FlashAttention-2 curve");
  }
  if (flash_forward) {
    constexpr double kRowsUnit = 1;  // sizes are token counts, as written
    gpu.attention_forward_flash_efficiency =
        parse_curve(*flash_forward, efficiency.path_of("attention_forward_flash"), kRowsUnit);
    gpu.attention_backward_flash_efficiency =
        parse_curve(*flash_backward, efficiency.path_of("attention_backward_flash"), kRowsUnit);
  }
  gpu.memory_efficiency =
      parse_curve(efficiency.required("memory"), efficiency.path_of("memory"), kMega);
}

// The optional memory reserve's fields (defaults in MemoryReserveSpec).
void parse_memory_reserve(ObjectReader& object, GpuSpec& gpu) {
  if (const nlohmann::json* reserve = object.find("memory_reserve")) {
    ObjectReader r(*reserve, object.path_of("memory_reserve"));
    MemoryReserveSpec& m = gpu.memory_reserve;
    m.cuda_context_bytes =
        r.optional_number("cuda_context_gib", 0, 1e3).value_or(m.cuda_context_bytes / kGiB) * kGiB;
    m.workspace_bytes =
        r.optional_number("workspaces_mib", 0, 1e6).value_or(m.workspace_bytes / kMiB) * kMiB;
    m.nccl_channels_intra_node = r.optional_integer("nccl_channels_intra_node", 0, 1024)
                                     .value_or(m.nccl_channels_intra_node);
    m.nccl_channels_inter_node = r.optional_integer("nccl_channels_inter_node", 0, 1024)
                                     .value_or(m.nccl_channels_inter_node);
    m.nccl_p2p_channels_per_peer = r.optional_integer("nccl_p2p_channels_per_peer", 0, 1024)
                                       .value_or(m.nccl_p2p_channels_per_peer);
    m.nvls_channels = r.optional_integer("nvls_channels", 0, 1024).value_or(m.nvls_channels);
    r.reject_unknown_keys();
  }
}

// The host's issue costs per op from named releases on (host.by_release): each entry's "from"
// release and its three figures, the releases strictly increasing.
std::vector<ReleaseHostIssue> parse_host_by_release(const nlohmann::json& entries,
                                                    const std::string& path) {
  if (!entries.is_array() || entries.empty() || entries.size() > framework_version_names().size()) {
    const std::string max = std::to_string(framework_version_names().size());
    throw detail::value_error(path, text_id::kErrorReleaseEntries,
                              "expected an array of 1 to " + max +
                                  " {\"from\", \"torch_op_us\", \"torch_linear_us\", "
                                  "\"te_module_us\"} entries",
                              {{"max", max}}, entries);
  }
  std::vector<ReleaseHostIssue> releases;
  for (size_t i = 0; i < entries.size(); ++i) {
    ObjectReader entry(entries[i], path + "[" + std::to_string(i) + "]");
    ReleaseHostIssue release;
    release.first_release = entry.choice("from", framework_version_names());
    if (!releases.empty() && release.first_release <= releases.back().first_release) {
      throw detail::input_error(entry.path_of("from"), text_id::kErrorReleasesIncrease,
                                "releases must increase from entry to entry");
    }
    release.torch_op_s = entry.number("torch_op_us", 0, 1e6) * kMicro;
    release.torch_linear_s = entry.number("torch_linear_us", 0, 1e6) * kMicro;
    release.te_module_s = entry.number("te_module_us", 0, 1e6) * kMicro;
    entry.reject_unknown_keys();
    releases.push_back(release);
  }
  return releases;
}

// The host: its memory for offloading, the link to it and its issue costs.
void parse_host(ObjectReader& object, GpuSpec& gpu) {
  // Host memory for offloading; a GPU without "host" gets a PCIe Gen5 server's 256 GB per GPU at
  // 55 GB/s, with 76.8 GB/s of its DDR5 (h100.json's values).
  gpu.host = {256 * kGiga, 55 * kGiga, 76.8 * kGiga};
  if (const nlohmann::json* host = object.find("host")) {
    ObjectReader h(*host, object.path_of("host"));
    h.optional_string("name");
    gpu.host.bytes = h.number("memory_gb_per_gpu", 0, 1e6) * kGiga;
    gpu.host.bandwidth_bytes_per_s = h.number("gb_per_s", 1e-3, 1e5) * kGiga;
    gpu.host.cpu_memory_bytes_per_s =
        h.optional_number("cpu_memory_gb_per_s", 1e-3, 1e5).value_or(76.8) * kGiga;
    gpu.host.cpu_stream_efficiency = h.optional_number("cpu_stream_efficiency", 0.01, 1)
                                         .value_or(gpu.host.cpu_stream_efficiency);
    // The host CPU's issue time per bare PyTorch op, per torch.nn.Linear and per Transformer
    // Engine module call.
    gpu.host_issue.torch_op_s = h.optional_number("torch_op_us", 0, 1e6).value_or(0) * 1e-6;
    gpu.host_issue.torch_linear_s = h.optional_number("torch_linear_us", 0, 1e6).value_or(0) * 1e-6;
    gpu.host_issue.te_module_s = h.optional_number("te_module_us", 0, 1e6).value_or(0) * 1e-6;
    // SequentialMLP's host time per local expert (default in hardware.hpp, with its source).
    HostIssueCost& issue = gpu.host_issue;
    if (const auto us = h.optional_number("sequential_mlp_expert_forward_us", 0, 1e6)) {
      issue.sequential_mlp_expert_forward_s = *us * 1e-6;
    }
    if (const auto us = h.optional_number("sequential_mlp_expert_backward_us", 0, 1e6)) {
      issue.sequential_mlp_expert_backward_s = *us * 1e-6;
    }
    // The GPU's idle gap at a host sync (default in hardware.hpp, with its source).
    if (const auto us = h.optional_number("sync_gap_us", 0, 1e6)) issue.sync_gap_s = *us * 1e-6;
    if (const nlohmann::json* by_release = h.find("by_release")) {
      gpu.host_issue_by_release = parse_host_by_release(*by_release, h.path_of("by_release"));
    }
    h.reject_unknown_keys();
  }
}

GpuSpec parse_gpu_object(const nlohmann::json& value, const std::string& path) {
  ObjectReader object(value, path);
  GpuSpec gpu;
  gpu.id = object.string("id");
  if (gpu.id.empty() || gpu.id.size() > 64) {
    throw detail::input_error(object.path_of("id"), text_id::kErrorIdLength,
                              "expected 1 to 64 characters", {{"max", "64"}});
  }
  gpu.name = object.optional_string("name").value_or(gpu.id);

  ObjectReader tensor(object.required("tensor_tflops"), object.path_of("tensor_tflops"));
  for (size_t i = 0; i < kPrecisions.size(); ++i) {
    gpu.tensor_flops_per_s[i] = tensor.optional_number(kPrecisions[i], 0, 1e6).value_or(0) * kTera;
  }
  tensor.reject_unknown_keys();
  if (gpu.tensor_flops(Precision::bf16) <= 0 && gpu.tensor_flops(Precision::fp16) <= 0) {
    throw detail::input_error(tensor.path(), text_id::kErrorNo16BitPeak,
                              "needs a bf16 or fp16 peak above 0");
  }
  gpu.vector_flops_per_s = object.number("vector_tflops", 1e-3, 1e6) * kTera;
  gpu.hbm_bytes = object.number("hbm_gib", 1e-3, 1e6) * kGiB;
  gpu.hbm_bytes_per_s = object.number("hbm_gb_per_s", 1e-3, 1e7) * kGiga;
  gpu.kernel_overhead_s = object.number("kernel_overhead_us", 0, 1e4) * kMicro;
  gpu.overlap_slowdown = object.number("overlap_slowdown", 0, 1);
  gpu.compute_capability = object.optional_number("compute_capability", 0, 100).value_or(0);
  gpu.scatter_add_over_copy =
      object.optional_number("scatter_add_over_copy", 0.01, 1).value_or(gpu.scatter_add_over_copy);
  const std::optional<int64_t> gpus_per_host = object.optional_integer("gpus_per_host", 1, 1 << 20);

  ObjectReader efficiency(object.required("efficiency"), object.path_of("efficiency"));
  parse_kernel_curves(efficiency, gpu);

  ObjectReader intra(object.required("intra_node"), object.path_of("intra_node"));
  gpu.intra_node =
      parse_tier(intra, efficiency.required("intra_node"), efficiency.path_of("intra_node"));
  gpu.nvlink_domain_gpus = intra.integer("gpus", 1, 1 << 20);
  // Optional for inline GPUs: by default one host holds the whole NVLink domain (HGX boards).
  gpu.gpus_per_host = gpus_per_host.value_or(gpu.nvlink_domain_gpus);
  intra.reject_unknown_keys();
  ObjectReader inter(object.required("inter_node"), object.path_of("inter_node"));
  gpu.inter_node =
      parse_tier(inter, efficiency.required("inter_node"), efficiency.path_of("inter_node"));
  inter.reject_unknown_keys();
  efficiency.reject_unknown_keys();

  parse_memory_reserve(object, gpu);
  parse_host(object, gpu);

  // Documentation fields, checked by the preset tests.
  object.find("aliases");
  object.find("sources");
  object.reject_unknown_keys();
  return gpu;
}

}  // namespace

std::span<const std::string_view> precision_names() { return kPrecisions; }

std::string_view to_string(Precision precision) {
  return kPrecisions[static_cast<size_t>(precision)];
}

EfficiencyCurve::EfficiencyCurve(const std::vector<std::pair<double, double>>& points)
    : points_(points) {
  log_sizes_.reserve(points.size());
  for (const auto& point : points) log_sizes_.push_back(std::log(point.first));
}

double EfficiencyCurve::at(double size) const {
  if (points_.empty()) return 1.0;
  if (!(size > points_.front().first)) return points_.front().second;
  if (size >= points_.back().first) return points_.back().second;
  const auto upper = std::upper_bound(points_.begin(), points_.end(), size,
                                      [](double x, const auto& point) { return x < point.first; });
  const size_t i = static_cast<size_t>(upper - points_.begin());
  const double fraction =
      (std::log(size) - log_sizes_[i - 1]) / (log_sizes_[i] - log_sizes_[i - 1]);
  return points_[i - 1].second + fraction * (points_[i].second - points_[i - 1].second);
}

HostIssueCost host_issue_at(const GpuSpec& gpu, int release) {
  HostIssueCost issue = gpu.host_issue;
  for (const ReleaseHostIssue& entry : gpu.host_issue_by_release) {
    if (entry.first_release > release) break;
    issue.torch_op_s = entry.torch_op_s;
    issue.torch_linear_s = entry.torch_linear_s;
    issue.te_module_s = entry.te_module_s;
  }
  return issue;
}

GpuSpec parse_gpu(const nlohmann::json& value, const std::string& path) {
  if (value.is_string()) {
    const nlohmann::json* preset = find_preset(PresetKind::gpu, value.get<std::string>());
    if (preset == nullptr) {
      std::string known;
      for (const std::string& id : preset_ids(PresetKind::gpu)) {
        known += (known.empty() ? "" : ", ") + id;
      }
      throw detail::unknown_preset_error(path, "gpu", value, known);
    }
    GpuSpec gpu = parse_gpu_object(*preset, path);
    gpu.preset = gpu.id;
    return gpu;
  }
  if (value.is_object() && value.contains("base")) {
    const nlohmann::json& base = value["base"];
    const std::string base_path = path + ".base";
    if (!base.is_string()) {
      throw detail::value_error(base_path, text_id::kErrorGpuBase, "expected a GPU preset id", {},
                                base);
    }
    const nlohmann::json* preset = find_preset(PresetKind::gpu, base.get<std::string>());
    if (preset == nullptr) {
      throw detail::unknown_preset_error(base_path, "gpu", base, "");
    }
    nlohmann::json merged = *preset;
    nlohmann::json overrides = value;
    overrides.erase("base");
    if (!overrides.contains("id")) {
      throw detail::input_error(path + ".id", text_id::kErrorCustomGpuId,
                                "is required: name the customised GPU");
    }
    merge_into(merged, overrides);
    return parse_gpu_object(merged, path);
  }
  return parse_gpu_object(value, path);
}

}  // namespace paraplan
