// torchtitan's FSDP2 where it differs from Megatron-FSDP, for scenarios whose framework is
// "torchtitan" with zero_stage 2 or 3 (docs/model.md, "Frameworks"): the same units (each
// transformer block, the embedding, the final norm with the LM head: torchtitan/distributed/
// fsdp.py apply_fsdp_to_decoder), but gradients reduce-scattered in fp32 and, with pipeline
// parallelism, every unit kept whole through the iteration (fsdp2_keeps_unsharded).
// Sources: pytorch/torchtitan at commit b5bcd76 (2026-08-21).
#pragma once

#include <cstdint>

#include "paraplan/framework.hpp"
#include "paraplan/hardware.hpp"
#include "paraplan/model.hpp"
#include "paraplan/scenario.hpp"
#include "paraplan/strategy.hpp"

namespace paraplan::detail {

// torchtitan/config/configs.py: mixed_precision_reduce: Literal["float32"] = "float32", the
// MixedPrecisionPolicy reduce_dtype of every fully_shard.
constexpr double kFsdp2ReduceBytes = 4;

// torchtitan's loss (components/loss.py at v0.2.2, cross_entropy_loss): PyTorch's
// cross_entropy on the logits cast to fp32, which keeps the fp32 log-softmax for its backward;
// there its fp32 gradient and the fp32 input gradient join it: 12 bytes per logit, whatever
// the training precision (Megatron-LM's fused loss holds 6 from 16-bit: edge_cost.cpp).
constexpr double kTorchtitanLossBytesPerLogit = 3 * 4;

// With tensor parallelism torchtitan's loss is vocabulary parallel (loss_parallel), whose
// backward builds the input gradient from four fp32 tensors of the local logits at once: the
// saved log-softmax, the zeros it scatters -1 into, exp of the log-softmax and their sum
// (`grad_input = zeros_like(x)`, `(grad_input + torch.exp(x)) * grad_output`):
// torch/distributed/tensor/parallel/loss.py _nll_loss_and_log_softmax_backward (PyTorch 2024-25,
// torchtitan 9dec370's loss_parallel) and components/loss.py _LossParallelCrossEntropy.backward
// at b5bcd76: 16 bytes per logit.
constexpr double kTorchtitanLossParallelBytesPerLogit = 4 * 4;

// torchtitan's compiled loss (cross_entropy_loss_fusion: compile.components "loss", v0.2.2
// components/loss.py build_cross_entropy_loss `torch.compile(loss_fn)`; at e7c0cae, June 2025,
// whenever training.compile, added by pytorch/torchtitan#1033; 9dec370 of December 2024 left it
// uncompiled, "compiling loss function causes CUDA errors"): Inductor fuses the fp32 cast, the
// log-softmax and the NLL into reductions over the 16-bit logits, which the backward keeps in
// place of the fp32 log-softmax (the partitioner recomputes pointwise ops from the smallest
// saved tensor, the graph's input, and keeps the per-row max and sum), and writes the input
// gradient in the logits' dtype in one kernel (nll_loss_backward's scatter into zeros becomes a
// pointwise select, inductor fx_passes scatter_upon_const_tensor): the saved logits and their
// gradient, two logit elements.
constexpr double kTorchtitanCompiledLossLogitElements = 2;

// The bytes per logit torchtitan's loss holds, `logit_element_bytes` being the logits' element:
// vocabulary parallel with tensor parallelism (torchtitan 9dec370 train.py loss_parallel unless
// training.disable_loss_parallel; b5bcd76 cross_entropy_loss on Shard(-1) logits), whose
// compiled form over DTensors is not priced apart; compiled without it
// (cross_entropy_loss_fusion); PyTorch's fused cross_entropy otherwise.
double torchtitan_loss_bytes_per_logit(const Strategy& s, double logit_element_bytes);

// What torchtitan's LM head saves beyond the rank's sequence shard of its input, held from the
// head's forward through the loss to the head's backward: with tensor parallelism the output
// layer is ColwiseParallel(input_layouts=Shard(1)) (parallelisms/parallelize_llama.py apply_tp at
// 9dec370, the commit of the published December 2024 runs; b5bcd76 rewrote its tensor
// parallelism on spmd_types and was not checked), whose input hook redistributes the final
// norm's output to Replicate before F.linear (torch/distributed/tensor/parallel/style.py
// ColwiseParallel._prepare_input_fn), so the linear saves the whole micro-batch's 16-bit input for
// its weight gradient; the output layer stays out of Float8 (float8.py module_filter_fn: fqn !=
// "output"; b5bcd76 quantization/float8.md filter_fqns ["output"]). Megatron-LM saves the shard
// and gathers it again in the backward. Zero without sequence-parallel tensor parallelism.
double torchtitan_head_gathered_input_bytes(const ModelSpec& model, const Training& training,
                                            const Strategy& s);

// FSDP2 prices this strategy (framework torchtitan, zero_stage 2 or 3: fsdp_reshard_after_forward
// "never" or the default).
bool torchtitan_fsdp2(Framework framework, const Strategy& s);

// With pipelines FSDP2 keeps every unit of the stage whole through the iteration: gathered at
// the first micro-batch's forward and not resharded after it (fsdp.py
// get_fsdp_reshard_after_forward_policy: "For PP, by default do not reshard after forward to
// avoid per-microbatch all-gathers") nor after any backward but the stage's last, whose
// gradients stay whole until that last backward reduce-scatters them (torch.distributed.pipelining
// stage.py backward_maybe_with_nosync: set_reshard_after_backward(False),
// set_requires_gradient_sync(False)), accumulated in the fp32 reduce dtype (_fsdp_param.py
// to_accumulated_grad_if_needed). Without pipelines each block is gathered for its forward and
// again for its backward, and reduce-scattered after it.
bool fsdp2_keeps_unsharded(int64_t pipeline_stages);

// One FSDP2 unit of a stage: a transformer block, the embedding, or the norm and LM head. Under
// expert parallelism the block's routed experts are sharded over the expert-data-parallel mesh
// and the rest over the data-parallel one: a unit of their own in torchtitan's llama4/deepseek
// apply_fsdp (models/llama4/infra/parallelize.py: fully_shard(transformer_block.moe.experts,
// mesh=dp_mod_ep_mesh) before fully_shard(transformer_block, mesh=dp_mesh)), a per-parameter mesh
// in one unit in later versions (distributed/fsdp.py apply_fsdp_to_decoder: shard_placement_fn
// puts inner_experts on edp_mesh); either way one collective per mesh.
struct Fsdp2Unit {
  double parameters = 0;         // sharded over data x context parallel
  double expert_parameters = 0;  // this GPU's experts, sharded over expert-data parallel
  double gather_bytes = 2;       // per gathered element (16 bits, or fp8 with fp8_param_gather)
  bool reshard_after_forward = true;
};

// The exposed time of one unit's FSDP2 traffic per micro-batch: its parameters gathered in the
// unit's `gather_bytes` under the forward (FSDP2 prefetches the next unit), again under the
// backward when resharded after forward, and its gradients reduce-scattered in fp32 under the
// backward. The experts' collectives follow the block's on the same all-gather and
// reduce-scatter streams (FSDP2's FSDPCommContext has one of each), so they add up.
double fsdp2_unit_comm_s(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp,
                         const Fsdp2Unit& unit, double forward_s, double backward_s);

// The 16-bit unsharded gradients autograd hands to FSDP2's reduce-scatter: torchtitan's
// MixedPrecisionPolicy param_dtype (config/configs.py mixed_precision_param: "bfloat16"), the
// dtype each gathered parameter computes and is differentiated in.
constexpr double kFsdp2UnshardedGradientBytes = 2;

// FSDP2's copies around one unit's collectives that run on the compute stream (PyTorch
// torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, 2025): after each all-gather,
// foreach_all_gather_copy_out splits the flat gathered buffer into the unit's parameters
// (torch.split_with_sizes_copy: reads and writes `gather_bytes` per parameter), called from
// FSDPParamGroup.wait_for_unshard on the current stream; before each reduce-scatter,
// foreach_reduce_scatter_copy_in (torch.ops.fsdp.chunk_cat) reads the 16-bit unsharded gradients
// and writes them into the fp32 reduce-scatter input on the current stream ("Only after the
// copy-in finishes can we free the gradients"; reduce_scatter_stream.wait_stream(current_stream)
// follows). Per micro-batch of one unit: a copy-out for each gather (two when resharded after
// forward) and one copy-in; what runs on the side streams (the all-gather copy-in of this rank's
// shard, the post-reduce on the 1/n shard) is left out.
double fsdp2_unit_copy_s(const GpuSpec& gpu, const Strategy& s, int64_t data_parallel_cp,
                         const Fsdp2Unit& unit);

}  // namespace paraplan::detail
