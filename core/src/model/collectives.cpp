#include "model/collectives.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "model/collective_memo.hpp"

namespace paraplan::detail {

// The memo's table: direct-mapped, an entry per slot, a newer collective overwriting an older one
// in its slot. Only the GPUs of the scope's cluster are memoised, by their pool: a GPU elsewhere
// (an estimate's own copy of the cluster) is computed as outside any scope.
struct CollectiveMemoScope::Table {
  enum class Kind : uint8_t { all_gather, reduce_scatter, all_reduce, all_to_all, p2p };
  struct Entry {
    uint64_t bytes_bits = 0;
    int64_t size = 0, members_per_node = 0;
    uint32_t pool = 0;
    Kind kind = Kind::all_gather;
    bool spans_nodes = false, used = false;
    double time_s = 0;
  };
  static constexpr size_t kSlots = 4096;  // a power of two

  const Cluster* cluster = nullptr;
  std::array<Entry, kSlots> entries{};

  // The pool of `gpu` in the scope's cluster, or -1.
  int pool_of(const GpuSpec& gpu) const {
    for (size_t p = 0; p < cluster->pools.size(); ++p) {
      if (&cluster->pools[p].gpu == &gpu) return static_cast<int>(p);
    }
    return -1;
  }

  static size_t slot_of(const Entry& key) {
    uint64_t h = key.bytes_bits * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(key.size) * 0xC2B2AE3D27D4EB4Full;
    h ^= (static_cast<uint64_t>(key.members_per_node) << 16) ^
         (static_cast<uint64_t>(key.pool) << 8) ^ (static_cast<uint64_t>(key.kind) << 1) ^
         static_cast<uint64_t>(key.spans_nodes);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return static_cast<size_t>(h & (kSlots - 1));
  }

  static bool same_key(const Entry& a, const Entry& b) {
    return a.used && a.bytes_bits == b.bytes_bits && a.size == b.size &&
           a.members_per_node == b.members_per_node && a.pool == b.pool && a.kind == b.kind &&
           a.spans_nodes == b.spans_nodes;
  }
};

namespace {

thread_local CollectiveMemoScope::Table* active_memo = nullptr;

using MemoKind = CollectiveMemoScope::Table::Kind;

// The bits of `x` (std::bit_cast is missing from the WebAssembly toolchain's libc++ 14).
uint64_t bits_of(double x) {
  uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// `compute()`, the time of the collective `kind` of `group` over `bytes` on `gpu`, read from the
// active memo where it holds it.
template <typename Compute>
double memoised(const GpuSpec& gpu, MemoKind kind, const Group& group, double bytes,
                Compute compute) {
  CollectiveMemoScope::Table* table = active_memo;
  const int pool = table != nullptr ? table->pool_of(gpu) : -1;
  if (pool < 0) return compute();
  const CollectiveMemoScope::Table::Entry key{bits_of(bytes),
                                              group.size,
                                              group.members_per_node,
                                              static_cast<uint32_t>(pool),
                                              kind,
                                              group.spans_nodes,
                                              true,
                                              0};
  CollectiveMemoScope::Table::Entry& entry =
      table->entries[CollectiveMemoScope::Table::slot_of(key)];
  if (CollectiveMemoScope::Table::same_key(entry, key)) return entry.time_s;
  const double time_s = compute();
  entry = key;
  entry.time_s = time_s;
  return time_s;
}

// NCCL's cost model (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel and its default tuner
// constants), Simple protocol, the one NCCL uses for the large buffers of training:
// baseLatencies Ring/Tree Simple 8.4 us per collective; the per-step hardware latencies are the
// presets' intra_node.latency_us (hwLatencies NVLINK Ring Simple 3.4 us) and
// inter_node.latency_us (NET Ring Simple 14 us).
constexpr double kNcclBaseLatencyS = 8.4e-6;
// getNetOverhead: 1 us per network step on x86 hosts, x3 with the Simple protocol; an inter-node
// ring's intra-node steps cost at least this.
constexpr double kNcclNetOverheadS = 3.0e-6;
// Tree all-reduce bus bandwidth: busBw * .92 ("if (a == NCCL_ALGO_TREE && coll ==
// ncclFuncAllReduce) busBw = std::min(busBw*.92, ...)"), algorithm bandwidth busBw * .5.
constexpr double kNcclTreeBandwidthFactor = 0.92;

// The same constants for the LL protocol, which NCCL's model picks for a buffer of a few bytes
// (its latency is the lowest, its bandwidth irrelevant there): baseLatencies Ring LL 6.6 us,
// Tree LL 6.8 us; hwLatencies NVLINK Ring LL 0.6 us, Tree LL 0.6 us, NET Ring LL 2.7 us, Tree
// LL 5.0 us; the network overhead per intra-node step of an inter-node ring, 1 us (not tripled
// outside Simple). Taken for every GPU: the presets give Simple's per-step latencies only.
constexpr double kNcclRingLlBaseLatencyS = 6.6e-6;
constexpr double kNcclTreeLlBaseLatencyS = 6.8e-6;
constexpr double kNcclNvlinkLlStepS = 0.6e-6;
constexpr double kNcclNetRingLlStepS = 2.7e-6;
constexpr double kNcclNetTreeLlStepS = 5.0e-6;
constexpr double kNcclNetLlOverheadS = 1.0e-6;

// The presets' intra_node and inter_node curves are nccl-tests bus bandwidth by buffer size,
// measured on one 8-GPU node and on 2 nodes of 8 (presets/README.md). A ring moves its buffer in
// steps of buffer / ranks, so a group's efficiency is the curve read at the buffer that gives
// the same per-step chunk on the reference ring: chunk x 8 (NVLink) or chunk x 16 (NICs); the
// latency those reference rings already include is not charged twice.
constexpr int64_t kIntraCurveRanks = 8;
constexpr int64_t kInterCurveRanks = 16;
constexpr int64_t kInterCurveNodes = 2;

double tier_bandwidth(const NetworkTier& tier, double bytes) {
  return tier.bandwidth_bytes_per_s * tier.efficiency.at(bytes);
}

// Bus bandwidth of a ring whose steps move `chunk` bytes: NVLink inside a domain; across
// domains every member drives its own NIC, so a domain sends at members_per_node NICs' rate
// (NCCL's rings over the rails), and no faster than NVLink feeds them.
double bus_bandwidth(const GpuSpec& gpu, const Group& group, double chunk) {
  const double intra = tier_bandwidth(gpu.intra_node, chunk * kIntraCurveRanks);
  if (!group.spans_nodes) return intra;
  const double inter = static_cast<double>(group.members_per_node) *
                       tier_bandwidth(gpu.inter_node, chunk * kInterCurveRanks);
  return std::min(intra, inter);
}

// The latency of the reference ring the group's efficiency curve was measured on.
double reference_latency_s(const GpuSpec& gpu, Collective collective, const Group& group) {
  return group.spans_nodes
             ? nccl_ring_latency_s(gpu, collective, kInterCurveRanks, kInterCurveNodes)
             : nccl_ring_latency_s(gpu, collective, kIntraCurveRanks, 1);
}

// A ring collective: each GPU sends (n-1)/n of the buffer per pass (Thakur et al. 2005; NCCL
// "bus bandwidth"), plus the latency of the steps the reference ring did not have.
double ring_s(const GpuSpec& gpu, const Group& group, double bytes, Collective collective) {
  if (group.size <= 1 || bytes <= 0) return 0;
  const double n = static_cast<double>(group.size);
  const double passes = collective == Collective::all_reduce ? 2 : 1;
  const double latency = nccl_ring_latency_s(gpu, collective, group.size, group.nodes());
  return passes * (n - 1) / n * bytes / bus_bandwidth(gpu, group, bytes / n) +
         std::max(0.0, latency - reference_latency_s(gpu, collective, group));
}

// all_reduce_s outside the memo.
double ring_or_tree_all_reduce_s(const GpuSpec& gpu, const Group& group, double bytes) {
  const double ring = ring_s(gpu, group, bytes, Collective::all_reduce);
  // NCCL enables the tree across nodes and picks the algorithm its model predicts faster: the
  // tree's latency grows with log2(nodes), its bandwidth is .92 x .5 of the bus bandwidth.
  if (!group.spans_nodes || bytes <= 0) return ring;
  const double n = static_cast<double>(group.size);
  const double tree_latency = nccl_tree_latency_s(gpu, group.size, group.nodes());
  const double tree =
      bytes / (0.5 * kNcclTreeBandwidthFactor * bus_bandwidth(gpu, group, bytes / n)) +
      std::max(0.0, tree_latency - reference_latency_s(gpu, Collective::all_reduce, group));
  return std::min(ring, tree);
}

// all_to_all_s outside the memo.
double pairwise_all_to_all_s(const GpuSpec& gpu, const Group& group, double bytes_per_gpu) {
  if (group.size <= 1 || bytes_per_gpu <= 0) return 0;
  const double n = static_cast<double>(group.size);
  const double k = static_cast<double>(group.members_per_node);
  const double chunk = bytes_per_gpu / n;
  // Chunks to peers in the domain go over NVLink, the rest over this GPU's NIC, concurrently;
  // NCCL issues the sends to all peers at once over its channels, so the start-up is a
  // log2(n)-deep fan-out of the slowest tier's steps rather than n-1 sequential ones. A chunk to
  // one peer moves as one step of the reference ring that sends chunks of its size (the curves'
  // key, above).
  const double intra_s = (k - 1) * chunk / tier_bandwidth(gpu.intra_node, chunk * kIntraCurveRanks);
  const double inter_s =
      group.spans_nodes ? (n - k) * chunk / tier_bandwidth(gpu.inter_node, chunk * kInterCurveRanks)
                        : 0.0;
  const double steps = std::ceil(std::log2(n));
  const double step_s = group.spans_nodes ? gpu.inter_node.latency_s : gpu.intra_node.latency_s;
  return steps * step_s + std::max(intra_s, inter_s);
}

// p2p_s outside the memo.
double message_s(const GpuSpec& gpu, bool inter_node, double bytes) {
  if (bytes <= 0) return 0;
  // One message moves as one step of the reference ring that sends messages of its size.
  const NetworkTier& tier = inter_node ? gpu.inter_node : gpu.intra_node;
  const double ranks = static_cast<double>(inter_node ? kInterCurveRanks : kIntraCurveRanks);
  return tier.latency_s + bytes / tier_bandwidth(tier, bytes * ranks);
}

}  // namespace

double nccl_ring_latency_s(const GpuSpec& gpu, Collective collective, int64_t ranks,
                           int64_t nodes) {
  if (ranks <= 1) return 0;
  // "Inter-node rings still have to traverse all GPUs": nsteps = 2(n-1) for all-reduce, n-1 for
  // all-gather and reduce-scatter, of which 2(nodes-1) or nodes-1 cross the network.
  const int64_t passes = collective == Collective::all_reduce ? 2 : 1;
  const double steps = static_cast<double>(passes * (ranks - 1));
  const double inter_steps = nodes > 1 ? static_cast<double>(passes * (nodes - 1)) : 0.0;
  const double intra_step_s =
      nodes > 1 ? std::max(gpu.intra_node.latency_s, kNcclNetOverheadS) : gpu.intra_node.latency_s;
  return kNcclBaseLatencyS + (steps - inter_steps) * intra_step_s +
         inter_steps * gpu.inter_node.latency_s;
}

double nccl_tree_latency_s(const GpuSpec& gpu, int64_t ranks, int64_t nodes) {
  if (ranks <= 1) return 0;
  // 2 * ((nRanks/nNodes - 1) * intraLat + log2i(nNodes) * interLat): up and down a chain inside
  // each node and a (double binary) tree across nodes.
  const double per_node = static_cast<double>(ranks / std::max<int64_t>(nodes, 1));
  const double levels = std::floor(std::log2(static_cast<double>(std::max<int64_t>(nodes, 1))));
  return kNcclBaseLatencyS +
         2 * ((per_node - 1) * gpu.intra_node.latency_s + levels * gpu.inter_node.latency_s);
}

Group place_group(int64_t size, int64_t stride, int64_t domain_gpus) {
  Group group;
  group.size = size;
  if (size <= 1) return group;
  // Members fit in one NVLink domain when the group's rank span does; otherwise
  // domain/stride of them share each domain (at least one).
  if (stride * size <= domain_gpus) {
    group.members_per_node = size;
    group.spans_nodes = false;
  } else {
    group.members_per_node =
        std::clamp<int64_t>(domain_gpus / std::max<int64_t>(stride, 1), 1, size);
    group.spans_nodes = true;
  }
  return group;
}

double all_gather_s(const GpuSpec& gpu, const Group& group, double bytes) {
  return memoised(gpu, MemoKind::all_gather, group, bytes,
                  [&] { return ring_s(gpu, group, bytes, Collective::all_gather); });
}

double reduce_scatter_s(const GpuSpec& gpu, const Group& group, double bytes) {
  return memoised(gpu, MemoKind::reduce_scatter, group, bytes,
                  [&] { return ring_s(gpu, group, bytes, Collective::reduce_scatter); });
}

double all_reduce_s(const GpuSpec& gpu, const Group& group, double bytes) {
  return memoised(gpu, MemoKind::all_reduce, group, bytes,
                  [&] { return ring_or_tree_all_reduce_s(gpu, group, bytes); });
}

// NCCL's ring and tree all-reduce latencies (tuning.cc, as nccl_ring_latency_s and
// nccl_tree_latency_s) with the LL constants; NCCL runs the shorter.
double scalar_all_reduce_s(const Group& group) {
  if (group.size <= 1) return 0;
  const double nodes = static_cast<double>(group.nodes());
  const double steps = 2 * static_cast<double>(group.size - 1);
  const double inter_steps = 2 * (nodes - 1);
  const double intra_step_s =
      group.spans_nodes ? std::max(kNcclNvlinkLlStepS, kNcclNetLlOverheadS) : kNcclNvlinkLlStepS;
  const double ring = kNcclRingLlBaseLatencyS + (steps - inter_steps) * intra_step_s +
                      inter_steps * kNcclNetRingLlStepS;
  const double per_node = static_cast<double>(group.size) / nodes;
  const double tree =
      kNcclTreeLlBaseLatencyS + 2 * ((per_node - 1) * kNcclNvlinkLlStepS +
                                     std::floor(std::log2(nodes)) * kNcclNetTreeLlStepS);
  return std::min(ring, tree);
}

double all_to_all_s(const GpuSpec& gpu, const Group& group, double bytes_per_gpu) {
  return memoised(gpu, MemoKind::all_to_all, group, bytes_per_gpu,
                  [&] { return pairwise_all_to_all_s(gpu, group, bytes_per_gpu); });
}

double p2p_s(const GpuSpec& gpu, bool inter_node, double bytes) {
  const Group link{inter_node ? 1 : 0, 0, inter_node};  // the tier as the memo's key
  return memoised(gpu, MemoKind::p2p, link, bytes,
                  [&] { return message_s(gpu, inter_node, bytes); });
}

CollectiveMemoScope::CollectiveMemoScope(const Cluster& cluster)
    : table_(std::make_unique<Table>()), enclosing_(active_memo) {
  table_->cluster = &cluster;
  active_memo = table_.get();
}

CollectiveMemoScope::~CollectiveMemoScope() { active_memo = enclosing_; }

}  // namespace paraplan::detail
