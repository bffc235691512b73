#!/usr/bin/env python3
"""Replays PyTorch's caching allocator over SC21 Figure 17's first stage without recompute, to
ask whether Megatron-LM of 2021 strands memory that today's Megatron-LM does not (issue 33,
memory18; docs/model.md, "The risk the default margin leaves").

The launch (published-sweeps.json S17 "no recompute, batch 16", out of memory): GPT 145.6B,
TP 8, PP 16, micro-batch 1, 16 micro-batches in flight on the first stage (5 layers and the
embeddings), fp16, NVIDIA/Megatron-LM de7dc40 in nvcr.io/nvidia/pytorch:20.12-py3. What that
code allocates every iteration and today's does not: `--DDP-impl local` without
`--use-contiguous-buffers-in-ddp` keeps autograd's per-parameter `param.grad`, allocated in the
first micro-batch's backward among the activations; `allreduce_gradients` flattens them into one
coalesced buffer (`_flatten_dense_tensors`) and points `param.main_grad` at them (the last
step's stay referenced until then); the optimizer step makes fp32 copies
(`main_param.grad = model_param.grad.float()`, optimizer.py:309), freed by the next
`zero_grad(set_to_none=True)`; apex FusedAdam creates its two moments at the first step. Today's
Megatron-LM keeps gradients in buffers allocated once (`--contiguous-buffers` is the only mode).

The allocator is allocator_replay.py's (c10/cuda/CUDACachingAllocator.cpp, the large pool), plus
what PyTorch 1.8 and today's do when cudaMalloc fails (`malloc`: `free_cached_blocks()` /
`release_cached_blocks()`, which frees every wholly free segment, then one retry). The layer's
tensors, in the order de7dc40's ParallelTransformerLayer makes and frees them, are those of
Korthikanti et al. 2022 that the model prices (memory_verdict_test.cpp "SC21 Figure 17's first
stage"), with the transients between (the baddbmm's empty input and output, the attention's
locals until it returns, the backward's gradients; the fused softmax's backward in place).

Prints, for three iterations, the allocated and reserved peaks and the least device memory for
PyTorch's tensors with which the trace runs (bisection on the capacity), for de7dc40's gradients
and for persistent gradient buffers. Run: python3 scripts/validation/sc21_allocator_replay.py.
"""

import bisect

from allocator_replay import MIB, Allocator

GIB = 1 << 30
S, B, H, TP, HEADS, VOCAB, LAYERS = 2048, 1, 12288, 8, 96, 51200, 5
HIDDEN = S * B * H * 2  # [s, b, h] fp16
HIDDEN_MASK = S * B * H  # a dropout mask of [s, b, h], one byte
QKV = 3 * S * B * H // TP * 2
SCORES = HEADS // TP * S * S * B * 2  # [b, a/t, s, s] fp16
SCORES_MASK = HEADS // TP * S * S * B
CONTEXT = S * B * H // TP * 2
FFN = 4 * S * B * H // TP * 2
LAYER_WEIGHTS = [3 * H // TP * H * 2, H * H // TP * 2, 4 * H // TP * H * 2, H * 4 * H // TP * 2]
EMBEDDING_WEIGHTS = [VOCAB // TP * H * 2, S * H * 2]  # word (split over TP) and position
PARAMETERS = EMBEDDING_WEIGHTS + LAYER_WEIGHTS * LAYERS


class OutOfMemory(Exception):
    pass


class CappedAllocator(Allocator):
    """The allocator on a device with `capacity` bytes for PyTorch: a request no cached block
    fits maps a new segment; when that would exceed the capacity, every wholly free segment is
    released first, and the request fails if it still does not fit."""

    def __init__(self, capacity):
        super().__init__()
        self.capacity = capacity

    def _release_free_segments(self):
        kept = []
        for key in self.free:
            block = key[2]
            if block.prev is None and block.next is None:
                self.reserved -= block.size
            else:
                kept.append(key)
        self.free = kept

    def malloc(self, size):
        size = -(-size // 512) * 512
        if bisect.bisect_left(self.free, (size, -1, None)) == len(self.free):
            segment = 20 * MIB if size < 10 * MIB else -(-size // (2 * MIB)) * 2 * MIB
            if self.reserved + segment > self.capacity:
                self._release_free_segments()
                if self.reserved + segment > self.capacity:
                    raise OutOfMemory()
        return super().malloc(size)


class Gradients:
    """Weight gradients: autograd's param.grad, made by the first micro-batch's backward and
    accumulated into by the others (each one's gradient a transient), or a persistent buffer."""

    def __init__(self, allocator, persistent):
        self.allocator, self.persistent, self.live = allocator, persistent, {}

    def accumulate(self, key, size):
        if self.persistent or key in self.live:
            self.allocator.release(self.allocator.malloc(size))
        else:
            self.live[key] = self.allocator.malloc(size)


def forward_layer(a, x):
    """de7dc40 ParallelTransformerLayer.forward: the tensors it saves and its output."""
    ln1, qkv = a.malloc(HIDDEN), a.malloc(QKV)
    empty = a.malloc(SCORES)
    scores = a.malloc(SCORES)
    a.release(empty)
    probs, probs_mask, dropped = a.malloc(SCORES), a.malloc(SCORES_MASK), a.malloc(SCORES)
    bmm, context, projected = a.malloc(CONTEXT), a.malloc(CONTEXT), a.malloc(HIDDEN)
    a.release(scores)
    a.release(bmm)
    mask1, out1 = a.malloc(HIDDEN_MASK), a.malloc(HIDDEN)
    a.release(projected)
    ln2, fc1, gelu, fc2 = a.malloc(HIDDEN), a.malloc(FFN), a.malloc(FFN), a.malloc(HIDDEN)
    mask2, out2 = a.malloc(HIDDEN_MASK), a.malloc(HIDDEN)
    a.release(fc2)
    saved = dict(x=x, ln1=ln1, qkv=qkv, probs=probs, probs_mask=probs_mask, dropped=dropped,
                 context=context, mask1=mask1, out1=out1, ln2=ln2, fc1=fc1, gelu=gelu, mask2=mask2)
    return saved, out2


def backward_layer(a, saved, grad, gradients, layer):
    """The layer's backward, in autograd's order; returns the gradient of its input."""
    def swap(new_size, *freed):
        made = a.malloc(new_size)
        for name in freed:
            a.release(saved.pop(name) if isinstance(name, str) else name)
        return made

    grad_fc2 = swap(HIDDEN, "mask2")
    gradients.accumulate((layer, 3), LAYER_WEIGHTS[3])
    grad_gelu = swap(FFN, "gelu", grad_fc2)
    grad_fc1 = swap(FFN, "fc1", grad_gelu)
    gradients.accumulate((layer, 2), LAYER_WEIGHTS[2])
    grad_ln2 = swap(HIDDEN, "ln2", grad_fc1)
    grad_out1 = swap(HIDDEN, grad_ln2, "out1")
    grad_residual = swap(HIDDEN, grad_out1, grad)
    grad_projected = swap(HIDDEN, "mask1")
    gradients.accumulate((layer, 1), LAYER_WEIGHTS[1])
    grad_context = swap(CONTEXT, "context", grad_projected)
    grad_dropped, grad_value = a.malloc(SCORES), a.malloc(CONTEXT)
    a.release(saved.pop("dropped"))
    a.release(grad_context)
    grad_probs = swap(SCORES, "probs_mask", grad_dropped)
    a.release(saved.pop("probs"))  # the fused softmax's backward writes into grad_probs
    grad_query, grad_key = a.malloc(CONTEXT), a.malloc(CONTEXT)
    a.release(grad_probs)
    grad_qkv = swap(QKV, grad_query, grad_key, grad_value)
    gradients.accumulate((layer, 0), LAYER_WEIGHTS[0])
    grad_ln1 = swap(HIDDEN, "ln1", "qkv", grad_qkv)
    grad_x = swap(HIDDEN, grad_ln1, "x")
    return swap(HIDDEN, grad_x, grad_residual)


def forward_micro_batch(a):
    """Embeddings (word, position, their sum, dropout, [b, s, h] -> [s, b, h]) and the layers; the
    stage output stays referenced until the micro-batch's backward (output_tensors)."""
    word, position, embedded = a.malloc(HIDDEN), a.malloc(HIDDEN), a.malloc(HIDDEN)
    a.release(word)
    a.release(position)
    mask, dropped = a.malloc(HIDDEN_MASK), a.malloc(HIDDEN)
    a.release(embedded)
    x = a.malloc(HIDDEN)
    a.release(dropped)
    layers = []
    for _ in range(LAYERS):
        saved, x = forward_layer(a, x)
        layers.append(saved)
    return mask, layers, x


def backward_micro_batch(a, micro_batch, gradients):
    mask, layers, output = micro_batch
    chunk = a.malloc(CONTEXT)  # the received 1/TP chunk of the output's gradient, gathered
    grad = a.malloc(HIDDEN)
    a.release(chunk)
    for layer in reversed(range(LAYERS)):
        grad = backward_layer(a, layers[layer], grad, gradients, layer)
    a.release(output)
    grad_embedded = a.malloc(HIDDEN)
    a.release(mask)
    a.release(grad)
    gradients.accumulate("word", EMBEDDING_WEIGHTS[0])
    gradients.accumulate("position", EMBEDDING_WEIGHTS[1])
    a.release(grad_embedded)


def one_f_one_b(a, gradients, micro_batches, stages):
    """de7dc40 forward_backward_pipelining_without_interleaving on the first stage: stages - 1
    warm-up forwards, then one forward and one backward, then the remaining backwards."""
    warm_up = min(stages - 1, micro_batches)
    in_flight = [forward_micro_batch(a) for _ in range(warm_up)]
    for _ in range(micro_batches - warm_up):
        in_flight.append(forward_micro_batch(a))
        backward_micro_batch(a, in_flight.pop(0), gradients)
    while in_flight:
        backward_micro_batch(a, in_flight.pop(0), gradients)


def replay(capacity, persistent_gradients, iterations=3, micro_batches=16, stages=16):
    a = CappedAllocator(capacity)
    for size in PARAMETERS:
        a.malloc(size)  # fp16 weights
    for size in PARAMETERS:
        a.malloc(2 * size)  # fp32 main copies
    if persistent_gradients:
        for size in PARAMETERS:
            a.malloc(size)  # today's gradient buffer
    main_grads, fp32_grads = [], []
    for iteration in range(iterations):
        for block in fp32_grads:
            a.release(block)  # zero_grad(set_to_none=True)
        gradients = Gradients(a, persistent_gradients)
        one_f_one_b(a, gradients, micro_batches, stages)
        if not persistent_gradients:
            for block in main_grads:
                a.release(block)  # param.main_grad = param.grad drops the last step's
            main_grads = list(gradients.live.values())
            a.release(a.malloc(sum(PARAMETERS)))  # the coalesced all-reduce buffer
            fp32_grads = [a.malloc(2 * size) for size in PARAMETERS]  # grad.float()
        if iteration == 0:
            for size in PARAMETERS:
                a.malloc(2 * size)  # exp_avg
                a.malloc(2 * size)  # exp_avg_sq
    return a


def least_capacity_gib(persistent_gradients):
    """The least capacity for PyTorch's tensors with which the replay runs, to 0.05 GiB."""
    low, high = 40.0, 100.0
    while high - low > 0.05:
        middle = (low + high) / 2
        try:
            replay(int(middle * GIB), persistent_gradients)
            high = middle
        except OutOfMemory:
            low = middle
    return high


def main():
    print("| gradients | allocated peak GiB | reserved peak GiB (no limit) | least capacity GiB |")
    print("|---|---|---|---|")
    for persistent, name in ((False, "de7dc40: param.grad, .float() copies"),
                             (True, "persistent buffer (today)")):
        a = replay(1 << 62, persistent)
        print(f"| {name} | {a.peak_allocated / GIB:.2f} | {a.peak_reserved / GIB:.2f} "
              f"| {least_capacity_gib(persistent):.2f} |")


if __name__ == "__main__":
    main()
