// MoE memory beyond what a layer saves for its backward (docs/model.md, "Memory per GPU").
#pragma once

#include <cstdint>

#include "model/moe_dispatch.hpp"

namespace paraplan::detail {

// What one MoE layer holds while it runs and saves nothing of: the token dispatcher's rows on
// both sides of each all-to-all (Megatron-LM moe/token_dispatcher.py MoEAlltoAllTokenDispatcher:
// token_dispatch sends the permuted rows, `permutated_local_input_tokens`, and receives
// `global_input_tokens` before either is freed; the combine sends the experts' output, sorted
// back by `sort_chunks_by_idxs` into a new tensor, and receives the permuted rows that
// moe_utils.py unpermute sums into the tokens), and the router's 16-bit logits beside the fp32
// scores it saves (router.py gating, then `logits.float()`-ed softmax). The backward mirrors
// them with the gradients of the same rows. `element_bytes` is the activations' element size.
double moe_transient_bytes(const MoeDispatch& d, double hidden, double local_tokens, double experts,
                           double element_bytes);

// DeepEP's normal-mode buffers of one GPU for the flex dispatcher over `expert_parallel` ranks
// (Megatron-LM moe/fused_a2a.py get_buffer: the larger of the dispatch and combine configs'
// hints, `hidden_bytes = hidden x max(element size, 2)`; deep_ep/buffer.py
// get_dispatch_config/get_combine_config; csrc/config.hpp Config::get_nvl_buffer_size_hint and
// get_rdma_buffer_size_hint). Allocated once, outside PyTorch's caching allocator (cudaMalloc
// with IPC handles for NVLink, nvshmem_malloc for RDMA); the RDMA buffer only for an expert
// group that spans hosts (fused_a2a.py since Megatron-LM PR #4816: `group.size() >
// torch.cuda.device_count()`).
double deepep_buffer_bytes(int64_t expert_parallel, double hidden, bool spans_hosts);

}  // namespace paraplan::detail
