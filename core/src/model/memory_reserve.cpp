#include "model/memory_reserve.hpp"

#include <algorithm>

#include "model/collectives.hpp"
#include "model/layer_cost.hpp"
#include "model/moe_memory.hpp"

namespace paraplan::detail {
namespace {

// NCCL's default buffer of one connection, per protocol (nccl src/init.cc: DEFAULT_LL_BUFFSIZE
// = 8 lines x 512 threads x 8 steps x 16 B, DEFAULT_LL128_BUFFSIZE = 120 x 640 x 8 x 8 B,
// DEFAULT_BUFFSIZE = 4 MiB for Simple). A ring channel gives each GPU one incoming connection,
// whose LL and LL128 buffers it holds, and one outgoing, whose Simple buffer it holds when
// peers read over NVLink (src/transport/p2p.cc, P2P read): one connection's buffers per channel.
constexpr double kNcclLlBytes = 8.0 * 512 * 8 * 16;
constexpr double kNcclLl128Bytes = 120.0 * 640 * 8 * 8;
constexpr double kNcclSimpleBytes = 4.0 * 1024 * 1024;
constexpr double kNcclChannelBytes = kNcclLlBytes + kNcclLl128Bytes + kNcclSimpleBytes;
// NVLink SHARP: per head, nChannels x 2 buffers of NCCL_NVLS_CHUNKSIZE (128 KiB) x NCCL_STEPS (8)
// (src/transport/nvls.cc, ncclNvlsBufferSetup: nvlsPerRankSize = nChannels * 2 * buffSize),
// one head per GPU of the node in the communicator.
constexpr double kNvlsChannelBytes = 2.0 * 128 * 1024 * 8;
// Send/receive: one Simple buffer of the P2P chunk x NCCL_STEPS per channel and direction
// (src/init.cc computeBuffSizes: P2P_NVL_CHUNKSIZE 512 KiB over NVLink, P2P_NET_CHUNKSIZE
// 128 KiB over the network), NCCL_NCHANNELS_PER_NET_PEER (2) channels per network peer.
constexpr double kP2pNvlinkChannelBytes = 2.0 * 512 * 1024 * 8;
constexpr double kP2pNetChannelBytes = 2.0 * 128 * 1024 * 8;
constexpr double kP2pNetChannelsPerPeer = 2;
// Transformer Engine's tensor-parallel overlap (module/base.py initialize_ub): one userbuffer of
// [seq x micro-batch / cp, hidden] per overlapped GEMM: four ring-exchange and two all-gather
// bulk ones (fp8 with an fp8 recipe), two pipelined and two bulk reduce-scatter ones (16-bit).
constexpr double kUserbuffersAllGather = 6;
constexpr double kUserbuffersReduceScatter = 4;
// PyTorch's caching allocator reserves more than it allocates: freed blocks of one size cannot
// always serve a larger request (segments of 2 MiB multiples, blocks split, not merged across
// segments). Static buffers (weights, gradient buffers, optimizer shards) are allocated once;
// the activations churn. Megatron-LM adds 5% to its activation estimate for temporaries and
// overhead (training/theoretical_memory_usage.py, "overhead_factor = 1.05"); published
// out-of-memory reports show 1-6% of the allocated memory reserved but unallocated
// (docs/model.md, "Reserve"). The fraction of the activations is an estimate. Blocks freed by
// a side stream's allocations stay cached for that stream (c10/cuda/CUDACachingAllocator.cpp:
// a block is found by (stream, size), BlockComparatorSize orders by stream first): they add to
// this (side_stream_cache_bytes, from the framework's streams).
constexpr double kFragmentationFraction = 0.05;

Group pipeline_peers(const PipelineInput& in) {
  const int64_t stride = in.strategy->gpus_per_stage(in.data_parallel);
  const bool node_local = stride * in.stages <= in.cluster->gpus_per_node;
  return {in.stages, node_local ? in.stages : 1, !node_local};
}

// The model-parallel group (tensor x pipeline ranks of one data-parallel replica), which reduces
// the gradient norm: tensor ranks are adjacent, pipeline ranks a stage apart.
Group model_parallel_group(const PipelineInput& in) {
  const Strategy& s = *in.strategy;
  const int64_t t = s.tensor_model_parallel_size;
  const int64_t stage = s.gpus_per_stage(in.data_parallel);
  const int64_t node = in.cluster->gpus_per_node;
  const int64_t stages_per_node =
      std::clamp<int64_t>(node / std::max<int64_t>(1, stage), 1, in.stages);
  Group g;
  g.size = t * in.stages;
  g.members_per_node = std::min(g.size, std::min(t, node) * stages_per_node);
  g.spans_nodes = g.size > g.members_per_node;
  return g;
}

// The NCCL buffers of every communicator the strategy makes, per GPU.
double nccl_buffers_bytes(const PipelineInput& in, const MemoryReserveSpec& spec) {
  const Strategy& s = *in.strategy;
  const int64_t node = in.cluster->gpus_per_node;
  const int64_t t = s.tensor_model_parallel_size;
  const int64_t cp = s.context_parallel_size;
  const int64_t ep = s.expert_model_parallel_size;
  const int64_t dp_cp = in.data_parallel * cp;
  const int zero = dp_cp > 1 ? s.zero_stage : 0;
  // NCCL buffers of the communicators Megatron-LM uses in training (core/parallel_state.py),
  // each only where the strategy makes it larger than one GPU. NCCL connects an algorithm's
  // buffers when a collective first uses it (NCCL_RUNTIME_CONNECT, default since 2.22): bulk
  // collectives a ring, an all-reduce across nodes a tree too, and NVLink SHARP where two or
  // more members share an NVSwitch node; small all-reduces (gradient norm, barriers) one ring
  // or tree.
  enum class Use { small, gather_scatter, all_reduce };
  double nccl = 0;
  const auto collective = [&](const Group& g, Use use) {
    if (g.size <= 1) return;
    nccl += nccl_ring_bytes(spec, g.spans_nodes);
    if (use == Use::small) return;
    if (use == Use::all_reduce && g.spans_nodes) nccl += nccl_ring_bytes(spec, true);  // tree
    nccl += nccl_nvls_bytes(spec, g.members_per_node);
  };
  const auto send_receive = [&](const Group& g, double peers) {
    if (g.size <= 1 || peers <= 0) return;
    const double nvlink_peers = std::min(peers, static_cast<double>(g.members_per_node - 1));
    nccl += nccl_p2p_bytes(spec, nvlink_peers, peers - nvlink_peers);
  };
  // Tensor parallel: all-reduce, or all-gather and reduce-scatter with sequence parallelism.
  collective(place_group(t, 1, node), s.sequence_parallel ? Use::gather_scatter : Use::all_reduce);
  // Context parallel: Transformer Engine's ring attention sends K/V to the next rank and
  // receives from the previous one.
  const Group cp_group = place_group(cp, t, node);
  send_receive(cp_group, cp == 2 ? 1 : 2);
  // Data (x context) parallel gradients and parameters: all-reduce, or with a sharded optimizer
  // reduce-scatter and all-gather.
  const Use dp_use = zero == 0 ? Use::all_reduce : Use::gather_scatter;
  collective(place_group(dp_cp, t, node), dp_use);
  // Experts: all-to-all over expert parallelism, gradients over expert-data parallelism.
  if (in.model->moe) {
    const int64_t etp = s.expert_tensor_parallel();
    const Group ep_group = place_group(ep, etp, node);
    send_receive(ep_group, static_cast<double>(ep - 1));
    collective(place_group(s.expert_data_parallel(in.data_parallel), etp * ep, node), dp_use);
  }
  // Pipeline: activations and gradients to the previous and next stage.
  if (in.stages > 1) {
    const Group pp = pipeline_peers(in);
    send_receive(pp, in.stages == 2 ? 1 : 2);
    // Tied embeddings: the first and last stages all-reduce the embedding gradient.
    if (!in.model->untie_embeddings_and_output_weights) {
      collective({2, pp.spans_nodes ? 1 : 2, pp.spans_nodes}, Use::all_reduce);
    }
  }
  // The gradient norm is all-reduced over the model-parallel group; barriers and timers use the
  // world.
  collective(model_parallel_group(in), Use::small);
  const int64_t world = s.gpus_per_stage(in.data_parallel) * in.stages;
  collective({world, std::min(world, node), world > node}, Use::small);
  return nccl;
}

// Everything nccl_buffers_bytes reads: equal keys, equal bytes.
struct NcclBuffersKey {
  int64_t channels_intra_node = 0, channels_inter_node = 0, p2p_channels_per_peer = 0,
          nvls_channels = 0;
  int64_t gpus_per_node = 0, tensor = 0, context = 0, expert = 0, expert_tensor = 0,
          data_parallel = 0, stages = 0, zero_stage = 0;
  bool sequence_parallel = false, moe = false, untied_embeddings = false, valid = false;
  bool operator==(const NcclBuffersKey&) const = default;
};

NcclBuffersKey nccl_buffers_key(const PipelineInput& in, const MemoryReserveSpec& spec) {
  const Strategy& s = *in.strategy;
  return {spec.nccl_channels_intra_node,
          spec.nccl_channels_inter_node,
          spec.nccl_p2p_channels_per_peer,
          spec.nvls_channels,
          in.cluster->gpus_per_node,
          s.tensor_model_parallel_size,
          s.context_parallel_size,
          s.expert_model_parallel_size,
          s.expert_tensor_parallel(),
          in.data_parallel,
          in.stages,
          s.zero_stage,
          s.sequence_parallel,
          in.model->moe.has_value(),
          in.model->untie_embeddings_and_output_weights,
          true};
}

// nccl_buffers_bytes, computed once for the stages that share its inputs: the stages of one
// evaluation, and the leaves of a layout that differ only in keys it does not read, ask one after
// the other, so the last inputs and their bytes are kept (per thread).
double shared_nccl_buffers_bytes(const PipelineInput& in, const MemoryReserveSpec& spec) {
  thread_local NcclBuffersKey last_key;
  thread_local double last_bytes = 0;
  const NcclBuffersKey key = nccl_buffers_key(in, spec);
  if (!(key == last_key)) {
    last_bytes = nccl_buffers_bytes(in, spec);
    last_key = key;
  }
  return last_bytes;
}

// Transformer Engine's tensor-parallel overlap buffers, per GPU.
double userbuffers_bytes(const PipelineInput& in) {
  const Strategy& s = *in.strategy;
  const int64_t t = s.tensor_model_parallel_size;
  const int64_t cp = s.context_parallel_size;
  // Tensor-parallel overlap buffers (Megatron-LM training/initialize.py
  // _initialize_tp_communicators: shape [seq_length x micro_batch_size / cp, hidden_size]).
  // torchtitan's async tensor parallelism runs PyTorch's fused collective matmuls on symmetric
  // memory instead (distributed/tensor_parallel.py maybe_enable_async_tp), no such buffers.
  if (s.tp_comm_overlap && t > 1 && in.framework != Framework::torchtitan) {
    const double element = activation_element_bytes(in.training->precision);
    const double gather_element = in.training->precision == Precision::fp8 ? 1 : element;
    const double tokens = static_cast<double>(in.training->seq_length) *
                          static_cast<double>(s.micro_batch_size) / static_cast<double>(cp);
    return tokens * static_cast<double>(in.model->hidden_size) *
           (kUserbuffersAllGather * gather_element + kUserbuffersReduceScatter * element);
  }
  return 0;
}

}  // namespace

double nccl_ring_bytes(const MemoryReserveSpec& spec, bool spans_nodes) {
  const int64_t channels =
      spans_nodes ? spec.nccl_channels_inter_node : spec.nccl_channels_intra_node;
  return static_cast<double>(channels) * kNcclChannelBytes;
}

double nccl_nvls_bytes(const MemoryReserveSpec& spec, int64_t members_per_node) {
  if (spec.nvls_channels <= 0 || members_per_node < 2) return 0;
  return static_cast<double>(spec.nvls_channels) * kNvlsChannelBytes *
         static_cast<double>(members_per_node);
}

double nccl_p2p_bytes(const MemoryReserveSpec& spec, double nvlink_peers, double network_peers) {
  return nvlink_peers * static_cast<double>(spec.nccl_p2p_channels_per_peer) *
             kP2pNvlinkChannelBytes +
         network_peers * kP2pNetChannelsPerPeer * kP2pNetChannelBytes;
}

MemoryReserve memory_reserve(const PipelineInput& in, const StageGroup& group,
                             double activations_bytes, double side_stream_cache_bytes) {
  const Strategy& s = *in.strategy;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  const MemoryReserveSpec& spec = gpu.memory_reserve;
  const int64_t ep = s.expert_model_parallel_size;

  MemoryReserve r;
  r.cuda_context_bytes = spec.cuda_context_bytes;
  r.workspaces_bytes = spec.workspace_bytes;
  r.nccl_buffers_bytes = shared_nccl_buffers_bytes(in, spec);
  r.userbuffers_bytes = userbuffers_bytes(in);
  // DeepEP's buffers for Megatron-LM's flex dispatcher on nodes of up to eight NVLink peers
  // (moe_memory.hpp). Where NVLink joins more GPUs (GB200 NVL72) the flex dispatcher runs
  // HybridEP, which "natively supports MNNVL" (Megatron-LM moe/README.md, dispatcher table), and
  // whose buffers are not priced.
  if (in.model->moe && s.moe_token_dispatcher_type == MoeDispatcher::flex &&
      gpu.nvlink_domain_gpus <= 8) {
    r.dispatcher_buffers_bytes = deepep_buffer_bytes(ep, static_cast<double>(in.model->hidden_size),
                                                     ep > in.cluster->gpus_per_node);
  }
  r.fragmentation_bytes = kFragmentationFraction * activations_bytes + side_stream_cache_bytes;
  return r;
}

}  // namespace paraplan::detail
