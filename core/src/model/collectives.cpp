#include "model/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace paraplan::detail {
namespace {

double tier_bandwidth(const NetworkTier& tier, double bytes) {
  return tier.bandwidth_bytes_per_s * tier.efficiency.at(bytes);
}

// Bus bandwidth of a ring over the group: NVLink inside a node; across nodes, every member in a
// node drives its own NIC, so a node sends at members_per_node NICs' rate (NCCL rings/rails).
double ring_bandwidth(const GpuSpec& gpu, const Group& group, double bytes) {
  const double intra = tier_bandwidth(gpu.intra_node, bytes);
  if (!group.spans_nodes) return intra;
  const double inter = static_cast<double>(group.members_per_node) *
                       tier_bandwidth(gpu.inter_node, bytes / group.members_per_node);
  return std::min(intra, inter);
}

// Start-up cost: a tree/ring of log2(n) latency steps on the slowest tier crossed.
double collective_latency_s(const GpuSpec& gpu, const Group& group) {
  const double steps = std::ceil(std::log2(static_cast<double>(group.size)));
  return steps * (group.spans_nodes ? gpu.inter_node.latency_s : gpu.intra_node.latency_s);
}

double ring_s(const GpuSpec& gpu, const Group& group, double bytes, double passes) {
  if (group.size <= 1 || bytes <= 0) return 0;
  const double n = static_cast<double>(group.size);
  // Each GPU sends (n-1)/n of the buffer per pass (Thakur et al. 2005; NCCL "bus bandwidth").
  return collective_latency_s(gpu, group) +
         passes * (n - 1) / n * bytes / ring_bandwidth(gpu, group, bytes);
}

}  // namespace

Group place_group(int64_t size, int64_t stride, int64_t gpus_per_node) {
  Group group;
  group.size = size;
  if (size <= 1) return group;
  // Members fit in one node when the group's rank span does; otherwise node_size/stride of
  // them share each node (at least one).
  if (stride * size <= gpus_per_node) {
    group.members_per_node = size;
    group.spans_nodes = false;
  } else {
    group.members_per_node =
        std::clamp<int64_t>(gpus_per_node / std::max<int64_t>(stride, 1), 1, size);
    group.spans_nodes = true;
  }
  return group;
}

double all_gather_s(const GpuSpec& gpu, const Group& group, double bytes) {
  return ring_s(gpu, group, bytes, 1);
}

double reduce_scatter_s(const GpuSpec& gpu, const Group& group, double bytes) {
  return ring_s(gpu, group, bytes, 1);
}

double all_reduce_s(const GpuSpec& gpu, const Group& group, double bytes) {
  return ring_s(gpu, group, bytes, 2);  // reduce-scatter then all-gather
}

double all_to_all_s(const GpuSpec& gpu, const Group& group, double bytes_per_gpu) {
  if (group.size <= 1 || bytes_per_gpu <= 0) return 0;
  const double n = static_cast<double>(group.size);
  const double k = static_cast<double>(group.members_per_node);
  const double chunk = bytes_per_gpu / n;
  // Chunks to peers in the node go over NVLink, the rest over this GPU's NIC, concurrently.
  const double intra_s = (k - 1) * chunk / tier_bandwidth(gpu.intra_node, chunk);
  const double inter_s =
      group.spans_nodes ? (n - k) * chunk / tier_bandwidth(gpu.inter_node, chunk) : 0.0;
  return collective_latency_s(gpu, group) + std::max(intra_s, inter_s);
}

double p2p_s(const GpuSpec& gpu, bool inter_node, double bytes) {
  if (bytes <= 0) return 0;
  const NetworkTier& tier = inter_node ? gpu.inter_node : gpu.intra_node;
  return tier.latency_s + bytes / tier_bandwidth(tier, bytes);
}

}  // namespace paraplan::detail
