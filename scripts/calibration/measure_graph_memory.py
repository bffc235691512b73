#!/usr/bin/env python3
"""What CUDA graphs of training layers keep on the GPU, against the same layers run eagerly
(issue 33: the graphs' private memory pool; docs/model.md, memory).

PyTorch's caching allocator gives each graph capture a private pool (CUDACachingAllocator.cpp,
`beginAllocateToPool`): what the capture allocates stays in that pool for the graph's life, freed
blocks are reused only by later captures into the same pool, never by eager code.
torch.cuda.make_graphed_callables, which Transformer Engine's make_graphed_callables follows,
captures each callable's forward and backward into one pool shared by the callables of one call.

A stack of Llama-style layers (RMSNorm, QKV, SDPA attention, projection, SwiGLU MLP) in bf16 is
run three ways at each (hidden, sequence, layers, graph sets):
  eager      forward and backward of the stack: peak allocated and reserved above the weights;
  graphed    make_graphed_callables over `sets` copies of the layers in one call (one pool, as a
             schedule that keeps a graph set per micro-batch in flight captures them):
             allocated and reserved once captured, then the peak of replaying each set's
             forward and backward;
Reported in GiB, each above the memory held before the case (weights and inputs).

Usage: python3 measure_graph_memory.py --out graph-memory.json
"""
import argparse
import gc
import json
import sys

import torch
import torch.nn.functional as F

GIB = 1024**3
CASES = [  # (hidden, ffn, heads, sequence, layers, graph sets)
    (4096, 14336, 32, 4096, 4, 1),
    (4096, 14336, 32, 4096, 4, 2),
    (4096, 14336, 32, 4096, 4, 4),
    (4096, 14336, 32, 8192, 4, 1),
    (4096, 14336, 32, 8192, 8, 1),
    (8192, 28672, 64, 4096, 2, 1),
    (8192, 28672, 64, 4096, 2, 2),
]


class Layer(torch.nn.Module):
    def __init__(self, hidden, ffn, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.RMSNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden, bias=False)
        self.proj = torch.nn.Linear(hidden, hidden, bias=False)
        self.norm2 = torch.nn.RMSNorm(hidden)
        self.fc1 = torch.nn.Linear(hidden, 2 * ffn, bias=False)
        self.fc2 = torch.nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):  # x: [batch, sequence, hidden]
        b, s, h = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, h // self.heads).unbind(2)
        attention = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                   v.transpose(1, 2), is_causal=True)
        x = x + self.proj(attention.transpose(1, 2).reshape(b, s, h))
        gate, up = self.fc1(self.norm2(x)).chunk(2, dim=-1)
        return x + self.fc2(F.silu(gate) * up)


class Shared(torch.nn.Module):
    """A callable of its own around a shared layer (make_graphed_callables replaces the forward of
    the module it is given)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)


def gib(value):
    return round(value / GIB, 3)


def reset():
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def step(layers, x):
    y = x
    for layer in layers:
        y = layer(y)
    y.backward(torch.ones_like(y))


def measure(hidden, ffn, heads, seq, count, sets):
    layers = [Layer(hidden, ffn, heads).cuda().bfloat16() for _ in range(count)]
    x = torch.randn(1, seq, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    step(layers, x)  # gradients allocated, kernels chosen
    reset()
    base_allocated, base_reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    step(layers, x)
    torch.cuda.synchronize()
    eager = {"peak_allocated_gib": gib(torch.cuda.max_memory_allocated() - base_allocated),
             "peak_reserved_gib": gib(torch.cuda.max_memory_reserved() - base_reserved)}
    reset()
    base_allocated, base_reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    # One call captures every set (one pool, as Transformer Engine captures every micro-batch's
    # graphs in one call); each set's callables are wrappers sharing the layers' weights.
    wrappers = [Shared(layer) for _ in range(sets) for layer in layers]
    inputs = [(torch.randn(1, seq, hidden, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True),) for _ in wrappers]
    graphed = torch.cuda.make_graphed_callables(tuple(wrappers), tuple(inputs))
    graphed_sets = [graphed[i * count:(i + 1) * count] for i in range(sets)]
    torch.cuda.synchronize()
    captured = {"allocated_gib": gib(torch.cuda.memory_allocated() - base_allocated),
                "reserved_gib": gib(torch.cuda.memory_reserved() - base_reserved)}
    torch.cuda.reset_peak_memory_stats()
    for graphed in graphed_sets:
        step(graphed, x)
    torch.cuda.synchronize()
    captured["replay_peak_allocated_gib"] = gib(torch.cuda.max_memory_allocated() - base_allocated)
    captured["replay_peak_reserved_gib"] = gib(torch.cuda.max_memory_reserved() - base_reserved)
    weights = sum(p.numel() * p.element_size() for layer in layers for p in layer.parameters())
    activation_bytes = seq * hidden * 2  # one [s, h] bf16 tensor
    del graphed_sets, graphed, wrappers, inputs, layers, x
    reset()
    return {"hidden": hidden, "ffn": ffn, "heads": heads, "seq": seq, "layers": count,
            "graph_sets": sets, "weights_gib": gib(weights), "sh_bf16_gib": gib(activation_bytes),
            "eager": eager, "graphed": captured}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    result = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "command": " ".join(sys.argv), "cases": []}
    for case in CASES:
        try:
            sample = measure(*case)
        except (RuntimeError, torch.OutOfMemoryError) as error:
            print(f"case {case}: {str(error)[:300]}", flush=True)
            reset()
            continue
        result["cases"].append(sample)
        print(json.dumps(sample), flush=True)
        with open(args.out, "w") as file:
            json.dump(result, file, indent=1)


if __name__ == "__main__":
    main()
