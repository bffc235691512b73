// The default memory margin per allocator mode and its basis: the band of peak memory where
// published launches in that mode went either way (docs/model.md, "Memory verdict";
// tests/validation/memory_verdict_test.cpp derives it again from the outcomes, each with the mode
// it ran in, and fails when it drifts).
#include <algorithm>

#include "paraplan/limits.hpp"

namespace paraplan::limits {
namespace {

// PyTorch's default allocator (fixed segments), launches that capture no CUDA graph: the lowest
// predicted peak of a launch that ran out of memory in it is 82.8% of capacity (fujii-4d-sweep.json
// FWY152: Llama-3.1-8B at sequence 8192 on 4 H100 94GB, TP 4, micro-batch 4, Megatron-LM
// v0.8.0-abci; the one below SC21 Figure 17's runs without recompute at 83.5%, PyTorch before
// 2.1, with their schedule's kept stage outputs: deallocate_pipeline_outputs off at Megatron-LM
// de7dc40, of the 79.25 GiB CUDA reports on an A100 80GB), so 18% calls every one at_risk or oom.
constexpr double kDefaultSegmentsMarginPercent = 18;

// The default allocator with CUDA graphs: the lowest is 82.5% (OOM01/OOM02, Megatron-Bridge PR
// #3107, TE graphs of the MLP, fp8 current scaling with the core attention recomputed: its output
// stays in 16 bits for the output projection, Megatron-LM set_save_original_input; 81.6% before
// that was priced), so 18%. OOM14 (Megatron-Bridge issue #4587:
// Qwen3 30B-A3B in mxfp8 on 8 B300 with a full-iteration graph and the A2A overlap, "about 60.9 GB
// inactive and 268.9 GB reserved" when it failed) was priced at 76.5% and took 24% here until the
// capture's deferred frees were priced (model/cuda_graph_memory.cpp cuda_graph_deferred_bytes):
// priced over capacity now, `oom` at any margin, it bounds no band.
constexpr double kDefaultSegmentsGraphsMarginPercent = 18;

// expandable_segments:True: the three launches that ran out of memory in this mode (OOM07
// DeepSeek-V3 on GB200, Megatron-Bridge PR #3067; OOM09 and OOM11, MindSpeed-LLM on Ascend with
// PYTORCH_NPU_ALLOC_CONF=expandable_segments:True) are priced above capacity (100.8%, 155%,
// 261%): none lies inside a band, so the outcomes give this mode no margin of its own, and it
// takes the default allocator's for the same use of CUDA graphs, the more conservative (the
// model's reserved peak is 18-27% under torchtitan's published one for its 1F1B pipelines, which
// run in this mode: docs/model.md).
constexpr double kExpandableSegmentsMarginPercent = kDefaultSegmentsMarginPercent;
constexpr double kExpandableSegmentsGraphsMarginPercent = kDefaultSegmentsGraphsMarginPercent;

// Context parallelism over a ring of point-to-point sends (Transformer Engine's
// AttnFuncWithCPAndKVP2P, cp_comm_type p2p: each step's K and V go by batch_isend_irecv): the
// lowest predicted peak of a launch that ran out of memory with it is 64.3% (fujii-4d-sweep.json
// FWY033: Llama-3.1-8B at sequence 8192 on 256 A100 40GB, TP 4, CP 2, PP 2, micro-batch 4; 70.0%
// without that row, whose every cell reads '-'), while launches without it ran out at 82.8% and
// more. The mechanism the source names, not priced: ProcessGroupNCCL records the stream use of a
// point-to-point op's tensors whatever TORCH_NCCL_AVOID_RECORD_STREAMS says (pytorch/pytorch
// #147168), and the caching allocator reuses a recorded block only once the host has seen the
// op finish (pytorch/pytorch PR #76861), so the ring's buffers stay held while the host runs
// ahead, by an amount no source gives. So 36% for any allocator mode and graphs, the wider of
// the two where a class of its own is narrower. The sweep's context-parallel launches on H100
// 94GB that ran at 64-85% of capacity read at_risk with it (docs/model.md, "Memory verdict").
constexpr double kP2pContextParallelMarginPercent = 36;

double allocator_margin_percent(AllocatorMode mode, bool cuda_graphs) {
  if (mode == AllocatorMode::expandable_segments) {
    return cuda_graphs ? kExpandableSegmentsGraphsMarginPercent : kExpandableSegmentsMarginPercent;
  }
  return cuda_graphs ? kDefaultSegmentsGraphsMarginPercent : kDefaultSegmentsMarginPercent;
}

}  // namespace

double default_memory_margin_percent(MarginClass c) {
  const double allocator = allocator_margin_percent(c.mode, c.cuda_graphs);
  return c.p2p_context_parallel ? std::max(allocator, kP2pContextParallelMarginPercent) : allocator;
}

double default_memory_margin_percent() { return default_memory_margin_percent(MarginClass{}); }

}  // namespace paraplan::limits
