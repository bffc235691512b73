#include "model/moe_memory.hpp"

#include <algorithm>

namespace paraplan::detail {

double moe_transient_bytes(const MoeDispatch& d, double hidden, double local_tokens, double experts,
                           double element_bytes) {
  // The larger of the two all-to-alls: the dispatch's permuted rows and the rows received for
  // the local experts; the combine's sorted expert output and the rows it receives back.
  const double dispatch_rows = d.permuted_rows + d.expert_rows;
  const double combine_rows = d.unpermute_in_rows + d.expert_rows;
  const double router_logits = element_bytes * local_tokens * experts;
  return element_bytes * hidden * std::max(dispatch_rows, combine_rows) + router_logits;
}

namespace {

// DeepEP's constants (csrc/kernels/configs.cuh NUM_MAX_NVL_PEERS; config.hpp kNumMaxTopK,
// kNumMaxScales; internode.cu SourceMeta, two ints) and Megatron-LM's SMs for it
// (--moe-deepep-num-sms, default 20, as DeepEP's Buffer.num_sms): a channel per two SMs.
constexpr int64_t kNvlPeers = 8;
constexpr double kMaxTopK = 128;
constexpr double kMaxScales = 128;
constexpr double kSourceMetaBytes = 8;
constexpr double kChannels = 20 / 2;
// Per token of a chunk: its row, source meta, top-k indices (int64) and weights (fp32), scales.
constexpr double kTokenMetaBytes = kSourceMetaBytes + kMaxTopK * 8 + kMaxTopK * 4 + kMaxScales * 4;

// num_max_nvl_chunked_recv_tokens of buffer.py's configs (dispatch and combine alike): 256 up to
// 8 ranks, 288 up to 64, 560 at 128, 720 beyond; num_max_rdma_chunked_recv_tokens 128.
double nvl_recv_tokens(int64_t ranks) {
  return ranks <= 8 ? 256 : ranks <= 64 ? 288 : ranks <= 128 ? 560 : 720;
}
constexpr double kRdmaRecvTokens = 128;

}  // namespace

double deepep_buffer_bytes(int64_t expert_parallel, double hidden, bool spans_hosts) {
  if (expert_parallel <= 1) return 0;
  const double hidden_bytes = 2 * hidden;
  const double nvl_ranks = static_cast<double>(std::min(expert_parallel, kNvlPeers));
  const double rdma_ranks = static_cast<double>(std::max<int64_t>(1, expert_parallel / kNvlPeers));
  const double nvl =
      kChannels * nvl_ranks * (2 * rdma_ranks + 3) * 4 +
      kChannels * nvl_ranks * nvl_recv_tokens(expert_parallel) * (hidden_bytes + kTokenMetaBytes);
  if (expert_parallel <= kNvlPeers || !spans_hosts) return nvl;
  // Send and receive halves per channel and node, with an int4 of control per token.
  const double rdma =
      kChannels * rdma_ranks * (2.0 * kNvlPeers + 2) * 2 * 4 +
      2 * kChannels * rdma_ranks * kRdmaRecvTokens * (hidden_bytes + kTokenMetaBytes + 16);
  return nvl + rdma;
}

}  // namespace paraplan::detail
