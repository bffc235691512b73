// Memory that torchtitan's runtime holds besides the model's tensors: PyTorch pipelining's
// per-micro-batch buffers and FSDP2's sharded gradients cached on its reduce-scatter stream
// (docs/model.md, "Reserve").
#pragma once

#include <cstdint>

namespace paraplan::detail {

// torch.distributed.pipelining's buffers on one GPU of pipeline rank `rank` (of `stages`, each
// with `virtual_stages` chunks: chunk `rank + k x stages` for k < virtual_stages), for a step of
// `micro_batches` (torch/distributed/pipelining/stage.py, PyTorch main 0138610):
// - every chunk but the first receives its input into a buffer of its own per micro-batch,
//   allocated once and kept (`_prepare_forward_infra`, `_RecvInfo.buffer`);
// - every chunk but the last receives its output gradient into one per micro-batch
//   (`_prepare_backward_infra`, `_create_grad_recv_info`);
// - the last chunk keeps every micro-batch's output until the next step
//   (`forward_one_chunk`: `if self.is_last: self.output_chunks.append(output)`, cleared by
//   `clear_runtime_states`): the logits, `last_output_bytes` each.
// - every chunk keeps each micro-batch's output from its forward to its backward, the root its
//   backward starts from (`forward_one_chunk`: `self.fwd_cache[fwd_chunk_id] = (output_tuple,
//   flatten_input_tensors)`, popped by `backward_one_chunk`): no layer of the chunk saves it (a
//   block's last op, the residual add, saves no output; full recompute saves a block's input),
//   so each micro-batch in flight holds one more boundary tensor per chunk but the last (whose
//   outputs, the logits, are kept anyway);
// `boundary_bytes` is one micro-batch's activation between chunks (the layer input). A chunk's
// input buffer of a micro-batch in flight is its first layer's saved input, which the stage's
// activations count already: `in_flight` micro-batches (each across the rank's chunks) are left
// out of the input buffers.
double torch_pipelining_bytes(int64_t rank, int64_t stages, int64_t virtual_stages,
                              int64_t micro_batches, double in_flight, double boundary_bytes,
                              double last_output_bytes);

}  // namespace paraplan::detail
