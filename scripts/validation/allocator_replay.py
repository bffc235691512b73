#!/usr/bin/env python3
"""Replays PyTorch's native caching allocator (default mode, fixed segments) over the eager
tensors of one pipeline rank, to see how much reserved memory the deterministic history of the
interleaved schedule strands beyond the allocated peak (issue 33, item 1; docs/model.md, "What
the default allocator's rules price").

The allocator, from c10/cuda/CUDACachingAllocator.cpp (large pool; every tensor here is over
1 MiB):
- get_allocation_size: a request under kMinLargeAlloc (10 MiB) takes a kLargeBuffer (20 MiB)
  segment, a larger one a segment of its own rounded up to kRoundLarge (2 MiB);
- get_free_block: the smallest cached free block that fits (best fit), on the same stream;
- should_split: a large block is split when more than kSmallSize (1 MiB) would remain;
- free_block: a freed block merges with its free neighbours of the same segment only.
One stream, no events: blocks are reusable as soon as they are freed, so the replay leaves out
what side streams hold back (recordStream) and the CUDA graphs' private pool.

The job: OOM01 of tests/validation/data/oom-outcomes.json (Megatron-Bridge PR #3107: Llama 3 70B
SFT, TP 4 with sequence parallelism, PP 4, VP 5 or 10, DP 2, fp8, 4096 tokens, micro-batch 1,
recompute core_attn, the MLP in TE CUDA graphs), pipeline rank 0, 16 micro-batches, two steps;
optionally Adam's two fp32 moments of each parameter shard created lazily at the first step
(Transformer Engine's FusedAdam initialises its state on the first step), between the steps.
The schedule: Megatron-LM's interleaved 1F1B order (schedules.py
forward_backward_pipelining_with_interleaving: warm-up (pp - rank - 1) * 2 + (vp - 1) * pp
forward chunks, then one forward and one backward, then the remaining backwards; chunk of the
k-th forward (k // pp) % vp, of the k-th backward vp - 1 - (k // pp) % vp).

Prints, per virtual pipeline size, the replay's allocated and reserved peaks and their gap.
"""

import bisect
import itertools

MIB = 1 << 20
K_SMALL_SIZE = 1 * MIB
K_LARGE_BUFFER = 20 * MIB
K_MIN_LARGE_ALLOC = 10 * MIB
K_ROUND_LARGE = 2 * MIB

# Llama 3 70B on a TP 4 rank with sequence parallelism, fp8 GEMM inputs (bytes).
SEQ, HIDDEN, KV, FFN, TP = 4096, 8192, 1024, 28672, 4
LN_OUT_FP8 = SEQ // TP * HIDDEN  # the norm's fp8 output, this rank's shard (saved)
GATHERED_FP8 = SEQ * HIDDEN  # all-gathered for the GEMM (transient)
QKV_BF16 = SEQ * (HIDDEN + 2 * KV) // TP * 2  # input of the recomputed core attention (saved)
CTX_BF16 = SEQ * HIDDEN // TP * 2  # core attention output (transient)
CTX_FP8 = SEQ * HIDDEN // TP  # the projection's fp8 input (saved)
PARTIAL_BF16 = SEQ * HIDDEN * 2  # the projection's output before its reduce-scatter
HIDDEN_BF16 = SEQ // TP * HIDDEN * 2  # reduce-scattered hidden states (saved)
# Parameters of one layer on this TP rank, halved by the distributed optimizer over DP 2.
SHARDS = [n * HIDDEN // TP // 2 for n in (HIDDEN + 2 * KV, HIDDEN, 2 * FFN, FFN)]


class Block:
    __slots__ = ("size", "free", "prev", "next", "key")


class Allocator:
    def __init__(self):
        self.free = []  # (size, serial, block), sorted: best fit is the first that fits
        self.serial = itertools.count()
        self.reserved = self.allocated = self.peak_reserved = self.peak_allocated = 0

    def _cache(self, block):
        block.key = (block.size, next(self.serial), block)
        bisect.insort(self.free, block.key)

    def _uncache(self, block):
        self.free.pop(bisect.bisect_left(self.free, block.key))

    def malloc(self, size):
        size = -(-size // 512) * 512
        at = bisect.bisect_left(self.free, (size, -1, None))
        if at < len(self.free):
            block = self.free[at][2]
            self._uncache(block)
        else:
            block = Block()
            block.prev = block.next = None
            block.size = (
                K_LARGE_BUFFER
                if size < K_MIN_LARGE_ALLOC
                else -(-size // K_ROUND_LARGE) * K_ROUND_LARGE
            )
            self.reserved += block.size
        block.free = False
        if block.size - size > K_SMALL_SIZE:
            rest = Block()
            rest.size, rest.free = block.size - size, True
            rest.prev, rest.next = block, block.next
            if block.next:
                block.next.prev = rest
            block.next, block.size = rest, size
            self._cache(rest)
        self.allocated += block.size
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return block

    def _absorb(self, block, nxt):
        """Merges `nxt`, the block after `block` in its segment, into `block`."""
        block.size += nxt.size
        block.next = nxt.next
        if nxt.next:
            nxt.next.prev = block

    def release(self, block):
        self.allocated -= block.size
        block.free = True
        if block.prev is not None and block.prev.free:
            prev = block.prev
            self._uncache(prev)
            self._absorb(prev, block)
            block = prev
        if block.next is not None and block.next.free:
            nxt = block.next
            self._uncache(nxt)
            self._absorb(block, nxt)
        self._cache(block)


def forward_layer(a):
    """One layer's eager forward (the MLP runs in a CUDA graph's pool): the tensors it saves."""
    ln_out = a.malloc(LN_OUT_FP8)
    gathered = a.malloc(GATHERED_FP8)
    qkv = a.malloc(QKV_BF16)
    a.release(gathered)
    ctx = a.malloc(CTX_BF16)
    ctx_fp8 = a.malloc(CTX_FP8)
    a.release(ctx)
    partial = a.malloc(PARTIAL_BF16)
    residual = a.malloc(HIDDEN_BF16)
    a.release(partial)
    output = a.malloc(HIDDEN_BF16)
    return [ln_out, qkv, ctx_fp8, residual, output]


def backward_layer(a, saved):
    ln_out, qkv, ctx_fp8, residual, output = saved
    grad_out = a.malloc(HIDDEN_BF16)
    grad_mlp = a.malloc(HIDDEN_BF16)
    a.release(grad_out)
    partial = a.malloc(PARTIAL_BF16)
    grad_ctx = a.malloc(CTX_BF16)
    a.release(partial)
    ctx = a.malloc(CTX_BF16)  # the recomputed core attention
    grad_qkv = a.malloc(QKV_BF16)
    a.release(ctx)
    a.release(grad_ctx)
    a.release(qkv)
    a.release(ctx_fp8)
    gathered = a.malloc(GATHERED_FP8)
    grad_partial = a.malloc(PARTIAL_BF16)
    a.release(grad_qkv)
    grad_in = a.malloc(HIDDEN_BF16)
    a.release(grad_partial)
    a.release(gathered)
    for block in (ln_out, residual, output, grad_mlp, grad_in):
        a.release(block)


def replay(vp, lazy_adam, pp=4, rank=0, micro_batches=16, layers=20, steps=2):
    a = Allocator()
    per_chunk = layers // vp
    saved = {}
    total = micro_batches * vp

    def chunk(k, backward):
        c = (k // pp) % vp
        return (vp - 1 - c if backward else c), (k // (pp * vp)) * pp + k % pp

    def forward(k):
        saved[chunk(k, False)] = [forward_layer(a) for _ in range(per_chunk)]

    def backward(k):
        for layer in reversed(saved.pop(chunk(k, True))):
            backward_layer(a, layer)

    warmup = min(total, (pp - rank - 1) * 2 + (vp - 1) * pp)
    for step in range(steps):
        if step == 1 and lazy_adam:
            for _ in range(layers):
                for shard in SHARDS:
                    a.malloc(4 * shard)  # exp_avg
                    a.malloc(4 * shard)  # exp_avg_sq
        for k in range(warmup):
            forward(k)
        for k in range(total - warmup):
            forward(warmup + k)
            backward(k)
        for k in range(total - warmup, total):
            backward(k)
    return a


def main():
    print("| VP | Adam state at the first step | allocated peak GiB | reserved peak GiB | gap GiB |")
    print("|---|---|---|---|---|")
    for vp in (5, 10):
        for lazy in (False, True):
            a = replay(vp, lazy)
            print(
                f"| {vp} | {'yes' if lazy else 'no'} | {a.peak_allocated / 2**30:.2f} "
                f"| {a.peak_reserved / 2**30:.2f} "
                f"| {(a.peak_reserved - a.peak_allocated) / 2**30:.2f} |"
            )


if __name__ == "__main__":
    main()
