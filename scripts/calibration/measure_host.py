#!/usr/bin/env python3
"""Measures how long the host (CPU) takes to issue a layer's kernels against how long the GPU
takes to run them, on GPU 0: the question behind "host-bound" in docs/model.md section 6.

For each case it reports, per forward + backward of the block:
  host_us    time for Python to issue every kernel (the GPU synchronised before, so nothing
             waits on it but the block's own syncs), median of repeats; host_forward_us and
             host_backward_us, the forward's and the backward's;
  wall_us    time until the GPU has finished too;
  device_us  the sum of the kernels' device time (torch.profiler), what a GPU-only model prices.
host_us > device_us means the block is host-bound: the GPU idles between kernels.

Cases:
  experts_sequential  Megatron-Core's SequentialMLP, forward and backward (core_r0.9, commit
                      f1f03922, megatron/core/transformer/moe/experts.py: `tokens_per_expert.
                      tolist()`, `torch.split`, per expert fc1 -> SwiGLU -> fc2, `torch.cat`), with
                      torch.nn.functional.linear and, where installed, Transformer Engine's
                      te.pytorch.Linear (what the TE layer spec builds for each expert), and,
                      given --megatron-core, Megatron-Core's SequentialMLP itself with its local
                      linears;
  experts_grouped     the same experts as one torch._grouped_mm per GEMM (TEGroupedMLP's shape);
  moe_stage           whole MoE layers of one pipeline stage, forward and backward, with either
                      expert implementation: whether the rest of the layer hides the experts'
                      host time (the backward has no sync; the forward syncs every layer);
  dense_layer         a Llama-style layer in eager PyTorch (RMSNorm, QKV, rotary, cuDNN
                      attention, projection, RMSNorm, SwiGLU MLP, residuals);
  megatron_layers     given --megatron-core, four of Megatron-Core's own TransformerLayers (its
                      local spec), MoE and dense, at their training sequence and at 512 tokens.

Usage:
  python3 measure_host.py --out host-measured.json [--megatron-core PATH]
PATH holds megatron/core of the Megatron-LM commit to measure, its package __init__.py emptied
(the full one imports the distributed optimizer and more); the committed run used f1f03922:
  git -C Megatron-LM archive f1f03922 megatron/core | tar -x -C PATH
  : > PATH/megatron/core/__init__.py
"""
import argparse
import json
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

try:
    import transformer_engine.pytorch as te
    TE_VERSION = getattr(sys.modules["transformer_engine"], "__version__", "unknown")
except Exception as error:  # not installed, or built for another torch
    te = None
    TE_VERSION = f"not available: {type(error).__name__}: {error}"[:200]

# (name, hidden, expert ffn on this GPU, local experts, rows per expert): the experts one GPU runs.
#   megascale-moe-352b  MegaScale-MoE's Megatron-LM baseline (validation R069): 32 experts of
#                       14336 split by TP 8, top-3 of 8192 tokens gathered over TP 8 -> 768 rows;
#   qwen3-30b-a3b-ep8   128 experts of 768 on EP 8, top-8 of 8 x 4096 tokens -> 2048 rows;
#   deepseek-v3-ep64    256 experts of 2048 on EP 64, top-8 of 64 x 4096 tokens -> 8192 rows;
#   mixtral-8x7b-ep1    8 experts of 14336, top-2 of 4096 tokens -> 1024 rows.
EXPERT_CASES = [
    ("megascale-moe-352b", 4096, 1792, 32, 768),
    ("qwen3-30b-a3b-ep8", 2048, 768, 16, 2048),
    ("deepseek-v3-ep64", 7168, 2048, 4, 8192),
    ("mixtral-8x7b-ep1", 4096, 14336, 8, 1024),
]
# One pipeline stage of MegaScale-MoE's Megatron-LM baseline (validation R069: 60 layers on
# PP 15, TP 8) on one tensor-parallel rank: 4 heads and 1 query group of 128, experts and the
# shared expert at 14336 / 8, 8192 tokens after the sequence-parallel gather.
MOE_STAGE = {"layers": 4, "hidden": 4096, "heads": 4, "groups": 1, "head_dim": 128,
             "seq": 8192, "ffn": 1792, "experts": 32, "top_k": 3}
# (name, hidden, ffn, heads, query groups, sequence, micro-batch): one layer on one GPU (TP 1).
DENSE_CASES = [
    ("gpt-1.7b-s4096", 2048, 8192, 16, 16, 4096, 1),
    ("llama3-8b-s8192", 4096, 14336, 32, 8, 8192, 1),
]
REPEATS = 21


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def device_us(step):
    """Kernels of one step(): their summed device time (torch.profiler), in microseconds, and
    their count."""
    from torch.profiler import ProfilerActivity, profile
    step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    total, kernels = 0.0, 0
    for event in prof.events():
        if getattr(event, "device_type", None) == torch.autograd.DeviceType.CUDA:
            kernels += 1
            total += getattr(event, "device_time_total", None) or event.time_range.elapsed_us()
    return total, kernels


def measure(forward, grad):
    """Host, wall and device time of forward().backward(grad); see the module docstring."""
    step = lambda: forward().backward(grad)  # noqa: E731
    hosts, walls, forwards, backwards = [], [], [], []
    for repeat in range(REPEATS + 2):
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = forward()
        issued_forward = time.perf_counter()
        out.backward(grad)
        issued = time.perf_counter()
        torch.cuda.synchronize()
        done = time.perf_counter()
        if repeat >= 2:  # the first two warm caches and allocators
            forwards.append((issued_forward - start) * 1e6)
            backwards.append((issued - issued_forward) * 1e6)
            hosts.append((issued - start) * 1e6)
            walls.append((done - start) * 1e6)
    device, kernels = device_us(step)
    return {"host_us": statistics.median(hosts), "host_forward_us": statistics.median(forwards),
            "host_backward_us": statistics.median(backwards),
            "wall_us": statistics.median(walls), "device_us": device, "kernels": kernels}


def swiglu(x):
    gate, up = torch.chunk(x, 2, dim=-1)
    return F.silu(gate) * up


def sequential_experts_step(hidden, ffn, experts, rows, linear):
    """SequentialMLP over `experts` experts of `rows` rows each: its forward, and the gradient
    its backward takes."""
    dtype = torch.bfloat16
    fc1 = [linear(hidden, 2 * ffn) for _ in range(experts)]
    fc2 = [linear(ffn, hidden) for _ in range(experts)]
    tokens = torch.randn(rows * experts, hidden, device="cuda", dtype=dtype, requires_grad=True)
    tokens_per_expert = torch.full((experts,), rows, device="cuda", dtype=torch.int64)
    grad = torch.randn(rows * experts, hidden, device="cuda", dtype=dtype)

    def forward():
        counts = tokens_per_expert.tolist()  # experts.py: a host sync every layer
        outputs = [fc2[e](swiglu(fc1[e](chunk)))
                   for e, chunk in enumerate(torch.split(tokens, counts))]
        return torch.cat(outputs, dim=0)
    return forward, grad


def torch_linear(inputs, outputs):
    weight = torch.nn.Parameter(
        torch.randn(outputs, inputs, device="cuda", dtype=torch.bfloat16) / inputs ** 0.5)
    return lambda x: F.linear(x, weight)


def te_linear(inputs, outputs):
    return te.Linear(inputs, outputs, bias=False, params_dtype=torch.bfloat16, device="cuda")


def megatron_rank(path):
    """Makes the Megatron-Core checkout at `path` importable and this process its one rank."""
    if path not in sys.path:
        sys.path.insert(0, path)
    import torch.distributed as dist
    from megatron.core import parallel_state
    from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed
    if not dist.is_initialized():
        dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29517", world_size=1, rank=0)
        parallel_state.initialize_model_parallel(1, 1)
        model_parallel_cuda_manual_seed(0)  # the attention's dropout region forks its RNG


def megatron_sequential_experts_step(path, hidden, ffn, experts, rows):
    """SequentialMLP itself, from a Megatron-Core checkout at `path` (tested with core_r0.9,
    f1f03922, its package __init__ trimmed to nothing), with its own local linears
    (tensor_parallel ColumnParallelLinear/RowParallelLinear, whose autograd Function runs in
    Python) and Megatron-LM's default fused SwiGLU (bias_swiglu_fusion), on one rank."""
    megatron_rank(path)
    from megatron.core.tensor_parallel.layers import ColumnParallelLinear, RowParallelLinear
    from megatron.core.transformer.mlp import MLPSubmodules
    from megatron.core.transformer.moe.experts import SequentialMLP
    from megatron.core.transformer.transformer_config import TransformerConfig
    config = TransformerConfig(
        num_layers=1, hidden_size=hidden, ffn_hidden_size=ffn, num_attention_heads=32,
        num_moe_experts=experts, moe_router_topk=1, gated_linear_unit=True,
        activation_func=F.silu, bias_activation_fusion=True, add_bias_linear=False, bf16=True,
        params_dtype=torch.bfloat16, perform_initialization=False)
    mlp = SequentialMLP(experts, config, MLPSubmodules(linear_fc1=ColumnParallelLinear,
                                                       linear_fc2=RowParallelLinear)).cuda()
    with torch.no_grad():
        for parameter in mlp.parameters():
            parameter.normal_(0, 0.02)
    tokens = torch.randn(rows * experts, hidden, device="cuda", dtype=torch.bfloat16,
                         requires_grad=True)
    tokens_per_expert = torch.full((experts,), rows, device="cuda", dtype=torch.int64)
    grad = torch.randn(rows * experts, hidden, device="cuda", dtype=torch.bfloat16)
    return (lambda: mlp(tokens, tokens_per_expert)[0]), grad


# Megatron-Core's own layers, four of a pipeline stage on one rank (megatron_layers_step): the
# MoE layers of validation R069 on one tensor-parallel rank (as MOE_STAGE; a shared expert as
# wide as a routed one, aux-loss routing, the allgather dispatcher) and the dense layers of the
# Megatron-LM README's GPT-1.7B (R033: LayerNorm, GELU, biases), each at its training sequence
# and at 512 tokens, where the GPU's work is small enough that the host's time stands alone.
MEGATRON_LAYER_CASES = [
    ("megascale-moe-352b", dict(hidden_size=4096, ffn_hidden_size=1792, num_attention_heads=4,
                                num_query_groups=1, kv_channels=128, gated_linear_unit=True,
                                activation_func=F.silu, add_bias_linear=False, num_moe_experts=32,
                                moe_router_topk=3, moe_shared_expert_intermediate_size=1792,
                                moe_aux_loss_coeff=1e-2), (8192, 512)),
    ("gpt-1.7b", dict(hidden_size=2048, ffn_hidden_size=8192, num_attention_heads=16,
                      kv_channels=128, gated_linear_unit=False, activation_func=F.gelu,
                      add_bias_linear=True), (4096, 512)),
]


def megatron_layers_step(path, layers, seq, **shape):
    """`layers` Megatron-Core TransformerLayers of the local spec (its own linears, unfused
    attention, LayerNorm), forward and backward, micro-batch 1."""
    megatron_rank(path)
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_local_spec
    from megatron.core.transformer.spec_utils import build_module
    from megatron.core.transformer.transformer_config import TransformerConfig
    config = TransformerConfig(num_layers=layers, attention_dropout=0.0, hidden_dropout=0.0,
                               bias_activation_fusion=True, bf16=True,
                               params_dtype=torch.bfloat16, perform_initialization=False, **shape)
    spec = get_gpt_layer_local_spec(num_experts=shape.get("num_moe_experts"))
    # Megatron-LM's Float16Module casts the whole model, norms included, to bf16.
    stack = [build_module(spec, config=config, layer_number=i + 1).cuda().bfloat16()
             for i in range(layers)]
    with torch.no_grad():
        for layer in stack:
            for parameter in layer.parameters():
                parameter.normal_(0, 0.02)
    x0 = torch.randn(seq, 1, shape["hidden_size"], device="cuda", dtype=torch.bfloat16,
                     requires_grad=True)

    def forward():
        x = x0
        for layer in stack:
            x, _ = layer(x)
        return x
    return forward, torch.randn_like(x0)


def grouped_experts_step(hidden, ffn, experts, rows):
    """The experts as one grouped GEMM per matrix (torch._grouped_mm): the forward, and the
    gradient its backward takes."""
    dtype = torch.bfloat16
    w1 = torch.nn.Parameter(torch.randn(experts, hidden, 2 * ffn, device="cuda", dtype=dtype)
                            / hidden ** 0.5)
    w2 = torch.nn.Parameter(torch.randn(experts, ffn, hidden, device="cuda", dtype=dtype)
                            / ffn ** 0.5)
    tokens = torch.randn(rows * experts, hidden, device="cuda", dtype=dtype, requires_grad=True)
    offsets = torch.arange(1, experts + 1, device="cuda", dtype=torch.int32) * rows
    grad = torch.randn(rows * experts, hidden, device="cuda", dtype=dtype)

    def forward():
        return torch._grouped_mm(swiglu(torch._grouped_mm(tokens, w1, offs=offsets)), w2,
                                 offs=offsets)
    return forward, grad


def moe_stage_step(layers, hidden, heads, groups, head_dim, seq, ffn, experts, top_k, grouped):
    """`layers` MoE layers as one tensor-parallel rank runs them after the sequence-parallel
    gather (no communication): RMSNorm, QKV, cuDNN attention, projection, RMSNorm, router,
    permutation (index_select), the experts (SequentialMLP's loop behind its `tolist()` sync, or
    grouped GEMMs), unpermutation (index_add), a shared expert of the same width. Tokens are
    spread evenly over the experts. Returns the forward and the gradient its backward takes."""
    dtype = torch.bfloat16

    def weight(*shape):
        return torch.nn.Parameter(
            torch.randn(*shape, device="cuda", dtype=dtype) / shape[-1] ** 0.5)
    rows = seq * top_k // experts
    expert_ids = (torch.arange(seq * top_k, device="cuda") % experts).view(seq, top_k)
    order = torch.argsort(expert_ids.reshape(-1), stable=True)
    token_index = order // top_k
    tokens_per_expert = torch.full((experts,), rows, device="cuda", dtype=torch.int64)
    offsets = torch.arange(1, experts + 1, device="cuda", dtype=torch.int32) * rows
    blocks = []
    for _ in range(layers):
        block = {"norm1": torch.nn.Parameter(torch.ones(hidden, device="cuda", dtype=dtype)),
                 "norm2": torch.nn.Parameter(torch.ones(hidden, device="cuda", dtype=dtype)),
                 "qkv": weight((heads + 2 * groups) * head_dim, hidden),
                 "proj": weight(hidden, heads * head_dim), "router": weight(experts, hidden),
                 "shared1": weight(2 * ffn, hidden), "shared2": weight(hidden, ffn)}
        if grouped:
            block["w1"] = weight(experts, hidden, 2 * ffn)
            block["w2"] = weight(experts, ffn, hidden)
        else:
            block["fc1"] = [weight(2 * ffn, hidden) for _ in range(experts)]
            block["fc2"] = [weight(hidden, ffn) for _ in range(experts)]
        blocks.append(block)
    x0 = torch.randn(seq, hidden, device="cuda", dtype=dtype, requires_grad=True)
    grad = torch.randn_like(x0)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def layer(x, b):
        h = F.rms_norm(x, (hidden,), b["norm1"])
        qkv = F.linear(h, b["qkv"]).view(1, seq, heads + 2 * groups, head_dim).transpose(1, 2)
        q, k, v = qkv.split([heads, groups, groups], dim=1)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                               enable_gqa=groups != heads)
        y = x + F.linear(a.transpose(1, 2).reshape(seq, heads * head_dim), b["proj"])
        h2 = F.rms_norm(y, (hidden,), b["norm2"])
        probs = torch.softmax(F.linear(h2, b["router"]).float(), dim=-1)
        probs = probs.gather(1, expert_ids).reshape(-1)[order].unsqueeze(1).to(dtype)
        permuted = h2.index_select(0, token_index)
        if grouped:
            out = torch._grouped_mm(swiglu(torch._grouped_mm(permuted, b["w1"], offs=offsets)),
                                    b["w2"], offs=offsets)
        else:
            counts = tokens_per_expert.tolist()  # experts.py: a host sync every layer
            out = torch.cat([F.linear(swiglu(F.linear(chunk, b["fc1"][e])), b["fc2"][e])
                             for e, chunk in enumerate(torch.split(permuted, counts))])
        combined = torch.zeros_like(h2).index_add(0, token_index, out * probs)
        shared = F.linear(swiglu(F.linear(h2, b["shared1"])), b["shared2"])
        return y + combined + shared

    def forward():
        x = x0
        for b in blocks:
            x = layer(x, b)
        return x
    return forward, grad


def rotary(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


def dense_layer_step(hidden, ffn, heads, groups, seq, batch):
    """A Llama-style layer, eager PyTorch, cuDNN attention: the forward, and the gradient its
    backward takes."""
    dtype = torch.bfloat16
    head_dim = hidden // heads

    def weight(outputs, inputs):
        return torch.nn.Parameter(
            torch.randn(outputs, inputs, device="cuda", dtype=dtype) / inputs ** 0.5)
    w_qkv = weight((heads + 2 * groups) * head_dim, hidden)
    w_proj = weight(hidden, hidden)
    w_fc1 = weight(2 * ffn, hidden)
    w_fc2 = weight(hidden, ffn)
    norm1 = torch.nn.Parameter(torch.ones(hidden, device="cuda", dtype=dtype))
    norm2 = torch.nn.Parameter(torch.ones(hidden, device="cuda", dtype=dtype))
    x = torch.randn(batch, seq, hidden, device="cuda", dtype=dtype, requires_grad=True)
    angles = torch.randn(seq, head_dim, device="cuda", dtype=dtype)
    cos, sin = angles.cos(), angles.sin()
    grad = torch.randn_like(x)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def forward():
        h = F.rms_norm(x, (hidden,), norm1)
        qkv = F.linear(h, w_qkv).view(batch, seq, heads + 2 * groups, head_dim)
        q, k, v = qkv.split([heads, groups, groups], dim=2)
        q, k = rotary(q.transpose(1, 2), cos, sin), rotary(k.transpose(1, 2), cos, sin)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            a = F.scaled_dot_product_attention(q, k, v.transpose(1, 2), is_causal=True,
                                               enable_gqa=groups != heads)
        y = x + F.linear(a.transpose(1, 2).reshape(batch, seq, hidden), w_proj)
        return y + F.linear(swiglu(F.linear(F.rms_norm(y, (hidden,), norm2), w_fc1)), w_fc2)
    return forward, grad


def cpu_name():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def installed_packages():
    try:
        listing = subprocess.run([sys.executable, "-m", "pip", "list", "--format=freeze"],
                                 capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as error:
        return [f"pip list failed: {error}"]
    wanted = ("torch", "transformer", "apex", "megatron", "flash", "triton", "nvidia-cudnn",
              "deep", "numpy")
    return [line for line in listing.splitlines() if line.lower().startswith(wanted)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--sections", default="experts,moe_stage,megatron_layers,dense_layer",
                        help="comma-separated cases to run")
    parser.add_argument("--megatron-core", help="a Megatron-LM checkout (its megatron/core) for "
                        "SequentialMLP itself (megatron_sequential_experts_step)")
    args = parser.parse_args()
    torch.manual_seed(0)
    result = {
        "device": torch.cuda.get_device_name(0), "cpu": cpu_name(), "torch": torch.__version__,
        "transformer_engine": TE_VERSION, "python": platform.python_version(),
        "packages": installed_packages(), "date": time.strftime("%Y-%m-%d"),
        "command": " ".join(sys.argv), "cases": [],
    }
    log(f"{result['device']}, {result['cpu']}, torch {result['torch']}, TE {TE_VERSION}")
    linears = [("torch", torch_linear)] + ([("transformer_engine", te_linear)] if te else [])
    sections = args.sections.split(",")
    for name, hidden, ffn, experts, rows in EXPERT_CASES if "experts" in sections else []:
        shape = {"hidden": hidden, "ffn": ffn, "experts": experts, "rows_per_expert": rows}
        if args.megatron_core:
            try:
                numbers = measure(*megatron_sequential_experts_step(
                    args.megatron_core, hidden, ffn, experts, rows))
            except Exception as error:
                import traceback
                traceback.print_exc()
                numbers = {"error": f"{type(error).__name__}: {error}"[:300]}
            result["cases"].append({"case": "experts_sequential", "model": name,
                                    "linear": "megatron_core_local", **shape, **numbers})
            log(f"sequential {name} megatron_core_local: {numbers}")
        for implementation, linear in linears:
            try:
                numbers = measure(*sequential_experts_step(hidden, ffn, experts, rows, linear))
            except Exception as error:  # report and go on: one failure must not lose the rest
                numbers = {"error": f"{type(error).__name__}: {error}"[:300]}
            result["cases"].append({"case": "experts_sequential", "model": name,
                                    "linear": implementation, **shape, **numbers})
            log(f"sequential {name} {implementation}: {numbers}")
        try:
            numbers = measure(*grouped_experts_step(hidden, ffn, experts, rows))
        except Exception as error:
            numbers = {"error": f"{type(error).__name__}: {error}"[:300]}
        result["cases"].append({"case": "experts_grouped", "model": name, **shape, **numbers})
        log(f"grouped {name}: {numbers}")
        torch.cuda.empty_cache()
    for grouped in (False, True) if "moe_stage" in sections else ():
        try:
            numbers = measure(*moe_stage_step(grouped=grouped, **MOE_STAGE))
        except Exception as error:
            numbers = {"error": f"{type(error).__name__}: {error}"[:300]}
        result["cases"].append({"case": "moe_stage", "model": "megascale-moe-352b",
                                "experts_implementation": "grouped" if grouped else "sequential",
                                **MOE_STAGE, **numbers})
        log(f"moe stage grouped={grouped}: {numbers}")
        torch.cuda.empty_cache()
    for name, shape, seqs in (MEGATRON_LAYER_CASES if args.megatron_core and
                              "megatron_layers" in sections else []):
        for seq in seqs:
            try:
                numbers = measure(*megatron_layers_step(args.megatron_core, 4, seq, **shape))
            except Exception as error:
                import traceback
                traceback.print_exc()
                numbers = {"error": f"{type(error).__name__}: {error}"[:300]}
            result["cases"].append({
                "case": "megatron_layers", "model": name, "layers": 4, "seq_length": seq,
                **{k: (v.__name__ if callable(v) else v) for k, v in shape.items()}, **numbers})
            log(f"megatron layers {name} s{seq}: {numbers}")
            torch.cuda.empty_cache()
    for name, hidden, ffn, heads, groups, seq, batch in (DENSE_CASES if "dense_layer" in sections
                                                         else []):
        try:
            numbers = measure(*dense_layer_step(hidden, ffn, heads, groups, seq, batch))
        except Exception as error:
            numbers = {"error": f"{type(error).__name__}: {error}"[:300]}
        result["cases"].append({"case": "dense_layer", "model": name, "hidden": hidden,
                                "ffn": ffn, "heads": heads, "query_groups": groups,
                                "seq_length": seq, "micro_batch_size": batch, **numbers})
        log(f"dense {name}: {numbers}")
        torch.cuda.empty_cache()
    with open(args.out, "w") as out:
        json.dump(result, out, indent=1)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
