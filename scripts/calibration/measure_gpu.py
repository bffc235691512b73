#!/usr/bin/env python3
"""Measures the efficiency curves of one GPU for a Paraplan preset (presets/gpus/*.json).

Run on the target GPU; compare the "efficiency" object it writes with the preset's curves (see
presets/README.md, "Calibrating a GPU"). Measurements of this project are kept, with the
command that made them, in scripts/calibration/measured/.

Measures, on GPU 0, each section within its own time budget (shapes in a seeded random order,
so a section cut short still spans its sizes):
  gemm / gemm_fp8      torch.matmul (bf16) and torch._scaled_mm (fp8 e4m3, per-tensor scales)
                       over the GEMM shapes that tensor- and context-parallel splits of common
                       models produce (forward, input-gradient and weight-gradient shapes),
                       keyed by GFLOP;
  attention_forward /  torch.nn.functional.scaled_dot_product_attention (causal, bf16, head dim
  attention_backward   128) on the flash and the cuDNN backend, keyed by executed GFLOP, counted
                       as Paraplan does: forward 0.5 x 4 b h s^2 d, backward 2.5 x the forward;
  attention_head_dims  cuDNN attention at micro-batch 1, head dims 64, 128 and 192/128 (multi-
                       latent), the forward also from CUDA-graph replays and the backward from its
                       kernels' profiled time (eager calls under about 120 us are host-bound);
  memory               device-to-device copies keyed by MB moved (read + write), rotating over
                       512 MB of buffers so that L2 does not serve them;
  elementwise          the memory-bound kernels of a layer (layer norm, RMS norm, GELU, SiLU,
                       residual add) at training sizes, keyed by MB moved, against the memory
                       curve;
  grouped_gemm         the expert GEMMs of MoE layers: torch._grouped_mm, one matmul per expert,
                       and one matmul of the summed rows;
  launch               the gap between dependent kernels replayed from a CUDA graph, and the host
                       time of one eager PyTorch launch;
  sustained            a large bf16 GEMM run back to back, throughput per second, with the
                       clocks and power nvidia-smi reads meanwhile.
GEMM-like kernels are timed as CUDA-graph replays of back-to-back launches (device time, no
host gaps). Efficiency = achieved FLOP/s (or bytes/s) / the preset's dense peak. Each curve is
the median efficiency per decade of size, made non-decreasing. Raw samples are written too.

Usage:
  python3 measure_gpu.py --preset presets/gpus/h100.json --out h100-measured.json
  python3 measure_gpu.py --preset presets/gpus/h100.json --sections attention_head_dims --out x.json
  python3 measure_gpu.py --bf16-tflops 989.4 --fp8-tflops 1978.9 --hbm-gb-per-s 3350 --out x.json
Requires PyTorch >= 2.3 with CUDA or ROCm; fp8 needs torch._scaled_mm (Hopper, Ada, Blackwell,
MI300), grouped GEMMs torch._grouped_mm (PyTorch >= 2.8, Hopper). Network curves are not
measured here: use nccl-tests / rccl-tests (all_reduce_perf -b 64K -e 1G -f 2), bus bandwidth /
link bandwidth per message size.
"""
import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

# (name, hidden, ffn, heads, query groups, head dim, gated MLP)
MODELS = [
    ("gpt3-1.3b", 2048, 8192, 16, 16, 128, False),
    ("llama2-7b", 4096, 11008, 32, 32, 128, True),
    ("llama2-70b", 8192, 28672, 64, 8, 128, True),
    ("gpt3-175b", 12288, 49152, 96, 96, 128, False),
    ("llama3.1-405b", 16384, 53248, 128, 8, 128, True),
]
TENSOR_PARALLEL = [1, 2, 4, 8]
CONTEXT_PARALLEL = [1, 2, 4]
SEQ_LENGTH = 4096
ATTENTION_SEQS = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
COPY_MB = [0.0625, 0.25, 1, 4, 16, 64, 256, 1024]
# (name, hidden, expert ffn, gated) of MoE experts; fc1 forward GEMMs of `experts` local experts
# with `rows` tokens each.
EXPERTS = [
    ("deepseek-v3", 7168, 2048, True),
    ("qwen3-235b-a22b", 4096, 1536, True),
    ("mixtral-8x22b", 6144, 16384, True),
]
LOCAL_EXPERTS = [2, 8, 32]
ROWS_PER_EXPERT = [256, 1024, 4096, 16384]
# Seconds each section may take (the whole run stays under about seven minutes).
BUDGET_S = {"gemm": 100, "gemm_fp8": 80, "attention": 80, "memory": 10, "elementwise": 12,
            "grouped_gemm": 40, "launch": 10, "sustained": 15, "attention_head_dims": 80,
            "attention_head_dims_equal": 150, "moe_permute": 40, "host_sync": 10}
TARGET_TIMED_S = 0.02  # device time per timed replay


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def median_s(run, calls, repeats=5):
    """Median seconds per call of `run()`, which issues `calls` launches, over `repeats`."""
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3 / calls)
    return statistics.median(times)


def graph_timed(fn):
    """Device seconds of one fn(), from CUDA-graph replays of fn() launched back to back."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up outside capture (cuBLAS handles, workspaces)
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    single = median_s(fn, 1, 3)  # an upper bound (host gaps included) sizes the graph
    calls = max(1, min(200, int(TARGET_TIMED_S / max(single, 1e-7))))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    seconds = median_s(graph.replay, calls)
    del graph
    return seconds


def profiled_s(fn, calls=5):
    """Device seconds of one fn(): the sum of its kernels' times as the PyTorch profiler (CUPTI)
    reads them, without the host's launch gaps (for calls that cannot be graph-captured)."""
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    device_us = sum(event.self_device_time_total for event in profile.key_averages())
    return device_us * 1e-6 / calls


def eager_timed(fn):
    """Seconds of one fn() launched back to back in eager mode (for autograd calls)."""
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    single = median_s(fn, 1, 3)
    calls = max(1, min(50, int(TARGET_TIMED_S / max(single, 1e-7))))
    return median_s(lambda: [fn() for _ in range(calls)], calls)


def in_budget(section, items):
    """Yields items in a seeded random order until the section's time budget is spent."""
    items = list(items)
    random.Random(0).shuffle(items)
    deadline = time.monotonic() + BUDGET_S[section]
    for count, item in enumerate(items):
        if time.monotonic() > deadline:
            log(f"{section}: budget spent after {count} of {len(items)}")
            return
        yield item


def gemm_shapes():
    """(m, n, k) of every linear layer's forward, dgrad and wgrad GEMM under TP x CP splits."""
    shapes = set()
    for _, h, ffn, heads, groups, d, gated in MODELS:
        for t in TENSOR_PARALLEL:
            for c in CONTEXT_PARALLEL:
                tokens = SEQ_LENGTH // c
                layers = [(h, (heads + 2 * groups) * d // t),  # QKV (column parallel)
                          (heads * d // t, h),                  # attention output (row)
                          (h, (2 if gated else 1) * ffn // t),  # fc1 (column)
                          (ffn // t, h)]                        # fc2 (row)
                for k, n in layers:
                    shapes.add((tokens, n, k))   # forward
                    shapes.add((tokens, k, n))   # input gradient
                    shapes.add((k, n, tokens))   # weight gradient
    return sorted(shapes)


def fp8_dtype():
    return torch.float8_e4m3fnuz if torch.version.hip else torch.float8_e4m3fn


def gemm_fn(m, n, k, fp8):
    if fp8:
        a = torch.randn(m, k, device="cuda").to(fp8_dtype())
        b = torch.randn(n, k, device="cuda").to(fp8_dtype()).t()  # column-major
        one = torch.ones((), device="cuda")
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    return lambda: torch.matmul(a, b)


def measure_gemms(peak_tflops, fp8):
    section = "gemm_fp8" if fp8 else "gemm"
    samples = []
    for m, n, k in in_budget(section, gemm_shapes()):
        flops = 2.0 * m * n * k
        try:
            seconds = graph_timed(gemm_fn(m, n, k, fp8))
        except (AttributeError, TypeError) as error:  # this PyTorch has no fp8 GEMM
            log(f"no {section}: {error}")
            return samples
        except RuntimeError as error:  # a shape or dtype this GPU's library rejects
            log(f"skipping {section} {m}x{n}x{k}: {error}")
            continue
        samples.append({"m": m, "n": n, "k": k, "gflop": flops / 1e9, "us": seconds * 1e6,
                        "efficiency": flops / seconds / (peak_tflops * 1e12)})
    return samples


def sdpa_backend(name):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel({"flash": SDPBackend.FLASH_ATTENTION,
                        "cudnn": SDPBackend.CUDNN_ATTENTION}[name])


def measure_attention(peak_tflops):
    forward, backward = [], []
    configs = [(backend, heads // t, d, s)
               for backend in ("flash", "cudnn")
               for _, _, _, heads, _, d, _ in MODELS[2:] for t in TENSOR_PARALLEL
               for s in ATTENTION_SEQS if heads // t * s * s <= 128 * 32768**2]
    for backend, heads, d, s in in_budget("attention", configs):
        batch = max(1, 16384 // s)
        shape = (batch, heads, s, d)
        executed = 0.5 * 4.0 * batch * heads * s * s * d  # causal half
        try:
            q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16,
                                   requires_grad=True) for _ in range(3))
            with sdpa_backend(backend):
                run = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
                fwd_s = eager_timed(run)
                out = run()
                grad = torch.randn_like(out)
                bwd_s = eager_timed(lambda: torch.autograd.grad(out, (q, k, v), grad,
                                                                retain_graph=True))
        except RuntimeError as error:
            log(f"skipping attention {backend} {shape}: {str(error)[:200]}")
            continue
        common = {"backend": backend, "shape": shape}
        forward.append({**common, "gflop": executed / 1e9, "us": fwd_s * 1e6,
                        "efficiency": executed / fwd_s / (peak_tflops * 1e12)})
        backward.append({**common, "gflop": 2.5 * executed / 1e9, "us": bwd_s * 1e6,
                         "efficiency": 2.5 * executed / bwd_s / (peak_tflops * 1e12)})
        del q, k, v, out, grad
    return forward, backward


def measure_attention_head_dims(peak_tflops, section="attention_head_dims"):
    """Attention at micro-batch 1 over head dims, executed FLOPs counted as 0.5 x 2 b h s^2
    (d_qk + d_v) forward, 2.5 x that backward. `attention_head_dims`: cuDNN over the head dims of
    GQA/MHA (64, 128) and of multi-latent attention (query/key 192 = 128 + 64 rotary, value 128);
    `attention_head_dims_equal`: FlashAttention-2 (PyTorch's flash backend) and cuDNN over equal
    head dims 64, 128, 192 (Nemotron-4) and 256, at sequences up to 16,384."""
    samples = []
    if section == "attention_head_dims":
        configs = [("cudnn", heads, s, d_qk, d_v) for heads in (8, 16, 32)
                   for s in (512, 1024, 2048, 4096, 8192)
                   for d_qk, d_v in ((64, 64), (128, 128), (192, 128))]
    else:
        configs = [(backend, heads, s, d, d) for backend in ("flash", "cudnn")
                   for heads in (8, 16) for s in (1024, 2048, 4096, 8192, 16384)
                   for d in (64, 128, 192, 256)]
    for backend, heads, s, d_qk, d_v in in_budget(section, configs):
        executed = 0.5 * 2.0 * heads * s * s * (d_qk + d_v)
        try:
            q, k = (torch.randn((1, heads, s, d_qk), device="cuda", dtype=torch.bfloat16,
                                requires_grad=True) for _ in range(2))
            v = torch.randn((1, heads, s, d_v), device="cuda", dtype=torch.bfloat16,
                            requires_grad=True)
            with sdpa_backend(backend):
                run = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
                fwd_s = eager_timed(run)
                try:  # device time alone: is the eager forward host-bound?
                    with torch.no_grad():
                        fwd_graph_s = graph_timed(run)
                except RuntimeError as error:
                    log(f"no graph of attention: {str(error)[:200]}")
                    fwd_graph_s = float("nan")
                out = run()
                grad = torch.randn_like(out)
                backward = lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
                bwd_s = eager_timed(backward)
                try:  # eager backwards under about 120 us are host-bound
                    bwd_device_s = profiled_s(backward)
                except (AttributeError, RuntimeError) as error:
                    log(f"no profile of the attention backward: {str(error)[:200]}")
                    bwd_device_s = float("nan")
        except RuntimeError as error:
            log(f"skipping attention {backend} {heads}x{s} d {d_qk}/{d_v}: {str(error)[:200]}")
            continue
        samples.append({"backend": backend, "heads": heads, "seq": s, "d_qk": d_qk, "d_v": d_v,
                        "forward_us": fwd_s * 1e6, "forward_graph_us": fwd_graph_s * 1e6,
                        "backward_us": bwd_s * 1e6, "backward_profiled_us": bwd_device_s * 1e6,
                        "forward": executed / fwd_s / (peak_tflops * 1e12),
                        "backward": 2.5 * executed / bwd_s / (peak_tflops * 1e12)})
        del q, k, v, out, grad
    return samples


def measure_memory(hbm_gb_per_s):
    """Copies rotating over buffers of 512 MB in all, so small copies are not served by L2."""
    samples = []
    for mb in in_budget("memory", COPY_MB):
        elements = int(mb * 1e6 / 2 / 2)  # bf16, half the bytes read and half written
        buffers = max(1, int(512 / mb))
        pairs = [(torch.randn(elements, device="cuda", dtype=torch.bfloat16),
                  torch.empty(elements, device="cuda", dtype=torch.bfloat16))
                 for _ in range(buffers)]
        seconds = graph_timed(lambda: [dst.copy_(src) for src, dst in pairs]) / buffers
        moved = 2.0 * elements * 2
        samples.append({"mb": moved / 1e6, "us": seconds * 1e6,
                        "efficiency": moved / seconds / (hbm_gb_per_s * 1e9)})
    return samples


def measure_elementwise(hbm_gb_per_s):
    """Layer norm, RMS norm, GELU, SiLU and the residual add on tokens x hidden bf16 tensors."""
    samples = []
    configs = [(op, tokens, hidden) for op in ("layer_norm", "rms_norm", "gelu", "silu", "add")
               for tokens in (1024, 4096, 16384) for hidden in (4096, 8192, 16384)]
    for op, tokens, hidden in in_budget("elementwise", configs):
        x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
        y = torch.randn_like(x)
        w = torch.ones(hidden, device="cuda", dtype=torch.bfloat16)
        fn, tensors = {
            "layer_norm": (lambda: F.layer_norm(x, (hidden,), w, w), 2),
            "rms_norm": (lambda: F.rms_norm(x, (hidden,), w), 2),
            "gelu": (lambda: F.gelu(x, approximate="tanh"), 2),
            "silu": (lambda: F.silu(x), 2),
            "add": (lambda: x + y, 3),
        }[op]
        try:
            seconds = graph_timed(fn)
        except (AttributeError, RuntimeError) as error:
            log(f"skipping {op}: {error}")
            continue
        moved = tensors * x.numel() * 2.0
        samples.append({"op": op, "tokens": tokens, "hidden": hidden, "mb": moved / 1e6,
                        "us": seconds * 1e6,
                        "efficiency": moved / seconds / (hbm_gb_per_s * 1e9)})
    return samples


def measure_grouped_gemms(peak_tflops):
    samples = []
    configs = [(name, h, (2 if gated else 1) * ffn, e, rows)
               for name, h, ffn, gated in EXPERTS for e in LOCAL_EXPERTS
               for rows in ROWS_PER_EXPERT if e * rows <= 131072]
    for name, k, n, experts, rows in in_budget("grouped_gemm", configs):
        total = experts * rows
        flops = 2.0 * total * n * k
        a = torch.randn(total, k, device="cuda", dtype=torch.bfloat16)
        weights = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16)
        offsets = torch.arange(rows, total + 1, rows, device="cuda", dtype=torch.int32)
        variants = {
            "grouped": lambda: torch._grouped_mm(a, weights.transpose(-2, -1), offs=offsets),
            "sequential": lambda: [torch.matmul(a[i * rows:(i + 1) * rows], weights[i].t())
                                   for i in range(experts)],
            "one_gemm": lambda: torch.matmul(a, weights[0].t()),  # same rows, one weight
        }
        sample = {"model": name, "experts": experts, "rows_per_expert": rows, "k": k, "n": n,
                  "gflop": flops / 1e9}
        for variant, fn in variants.items():
            try:
                seconds = graph_timed(fn)
            except (AttributeError, RuntimeError, TypeError) as error:
                log(f"skipping {variant} {name} {experts}x{rows}: {str(error)[:200]}")
                continue
            sample[variant] = flops / seconds / (peak_tflops * 1e12)
        samples.append(sample)
        del a, weights
    return samples


def measure_moe_permute(hbm_gb_per_s):
    """Megatron-LM's unfused token permutation (moe_utils.py permute / unpermute, drop-less):
    `masked_select` of token indices by the transposed routing map (its output size is read by the
    host: a device-to-host sync), `index_select` of the rows, and the unpermute's zero-fill and
    `scatter_add_` of the probability-weighted rows. Keyed by the bytes Paraplan counts
    (permute 2 x rows x row bytes; unpermute 3 x rows + tokens, x row bytes); efficiency against
    the preset's HBM bandwidth. Top-k 8 of 64-256 experts, 4,096-32,768 tokens."""
    samples = []
    configs = [(tokens, hidden, experts) for tokens in (4096, 16384, 32768)
               for hidden in (2048, 4096, 7168) for experts in (64, 256)]
    top_k = 8
    for tokens, hidden, experts in in_budget("moe_permute", configs):
        try:
            x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
            scores = torch.rand(tokens, experts, device="cuda")
            chosen = scores.topk(top_k, dim=1).indices
            routing_map = torch.zeros(tokens, experts, device="cuda", dtype=torch.bool)
            routing_map.scatter_(1, chosen, True)
            probs = torch.rand(tokens, experts, device="cuda", dtype=torch.bfloat16)
            token_indices = torch.arange(tokens, device="cuda").unsqueeze(0).expand(experts, -1)
            mask_t = routing_map.T.contiguous()

            def indices():  # the synchronising step alone
                return token_indices.masked_select(mask_t)

            sorted_indices = indices()
            rows = sorted_indices.numel()
            permute = lambda: x.index_select(0, sorted_indices)
            permuted = permute()
            weights = probs.T.contiguous().masked_select(mask_t).unsqueeze(1)

            def unpermute():
                out = torch.zeros(tokens, hidden, device="cuda", dtype=torch.bfloat16)
                index = sorted_indices.unsqueeze(1).expand(-1, hidden)
                return out.scatter_add_(0, index, permuted * weights)

            indices_s = eager_timed(indices)
            permute_s = graph_timed(permute)
            unpermute_s = graph_timed(unpermute)
        except RuntimeError as error:
            log(f"skipping permute {tokens}x{hidden} e{experts}: {str(error)[:200]}")
            continue
        row = 2 * hidden
        permute_mb = 2 * row * rows / 1e6
        unpermute_mb = row * (3 * rows + tokens) / 1e6
        samples.append({"tokens": tokens, "hidden": hidden, "experts": experts, "rows": rows,
                        "indices_us": indices_s * 1e6, "permute_us": permute_s * 1e6,
                        "unpermute_us": unpermute_s * 1e6, "permute_mb": permute_mb,
                        "unpermute_mb": unpermute_mb,
                        "permute": permute_mb / 1e3 / permute_s / hbm_gb_per_s,
                        "unpermute": unpermute_mb / 1e3 / unpermute_s / hbm_gb_per_s})
        del x, scores, routing_map, probs, permuted, weights
    return samples


def measure_host_sync():
    """A device-to-host read (`.item()`, `.tolist()` of per-expert counts) on an idle GPU, and
    behind a queue of work: the host waits until the GPU drains, and the GPU then idles for the
    host's next launches (the gap measured between the two kernels around the sync)."""
    counts = torch.randint(0, 4096, (256,), device="cuda")
    x = torch.zeros(1024, device="cuda")
    repeats = 200

    def per_call_us(fn):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / repeats * 1e6

    item_us = per_call_us(lambda: counts[0].item())
    tolist_us = per_call_us(lambda: counts.tolist())
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    torch.matmul(a, a)
    torch.cuda.synchronize()
    gaps = []
    for _ in range(50):
        for _ in range(4):  # a queue the host runs ahead of
            torch.matmul(a, a)
        before, after = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        before.record()
        counts.tolist()
        x.add_(1.0)
        after.record()
        torch.cuda.synchronize()
        gaps.append(before.elapsed_time(after) * 1e3)
    return {"item_us": item_us, "tolist_256_us": tolist_us,
            "gap_after_sync_us": statistics.median(gaps)}


def measure_launch():
    """Per-kernel device time of dependent tiny kernels replayed from a graph, and host time
    of one eager launch (the rate PyTorch's Python front end issues kernels at)."""
    x = torch.zeros(1024, device="cuda")
    launches = 2000
    graph_s = graph_timed(lambda: x.add_(1.0))
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(launches):
        x.add_(1.0)
    torch.cuda.synchronize()
    eager_s = (time.perf_counter() - start) / launches
    a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    torch.matmul(a, a)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(launches):
        torch.matmul(a, a)
    torch.cuda.synchronize()
    eager_matmul_s = (time.perf_counter() - start) / launches
    return {"graph_tiny_kernel_us": graph_s * 1e6, "eager_add_us": eager_s * 1e6,
            "eager_matmul_us": eager_matmul_s * 1e6}


SMI_QUERY = ["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem,power.draw,"
             "power.limit,temperature.gpu,clocks_throttle_reasons.active", "--format=csv"]


def nvidia_smi_reader():
    return subprocess.Popen(SMI_QUERY, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def nvidia_smi():
    try:
        return subprocess.run(SMI_QUERY, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"nvidia-smi failed: {error}"


def measure_sustained(peak_tflops):
    """An 8192^3 bf16 GEMM run back to back for the budget: TFLOPS per second of run."""
    size = 8192
    fn = gemm_fn(size, size, size, False)
    flops = 2.0 * size ** 3
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    windows, readers = [], []
    start = time.monotonic()
    while time.monotonic() - start < BUDGET_S["sustained"] - 1:
        if len(readers) < 3 and time.monotonic() - start > 4 * (len(readers) + 1):
            readers.append(nvidia_smi_reader())  # reads the clocks while the GEMMs run
        seconds = median_s(lambda: [fn() for _ in range(50)], 50, 1)
        windows.append(round(flops / seconds / (peak_tflops * 1e12), 4))
    return {"efficiency_per_window": windows,
            "nvidia_smi": [reader.communicate(timeout=10)[0].strip() for reader in readers]}


def curve(samples, key, value="efficiency"):
    """Median efficiency per decade of size, as strictly increasing, non-decreasing points."""
    by_decade = {}
    for sample in samples:
        if value in sample:
            by_decade.setdefault(math.floor(math.log10(sample[key])), []).append(sample)
    points, best = [], 0.0
    for decade in sorted(by_decade):
        group = by_decade[decade]
        size = math.exp(statistics.mean(math.log(s[key]) for s in group))
        best = max(best, statistics.median(s[value] for s in group))
        points.append([float(f"{size:.3g}"), round(min(1.0, max(0.001, best)), 3)])
    return points


def peaks(args):
    if args.preset:
        with open(args.preset) as file:
            preset = json.load(file)
        tensor = preset["tensor_tflops"]
        return (tensor.get("bf16", tensor.get("fp16")), tensor.get("fp8"),
                preset["hbm_gb_per_s"], preset.get("efficiency", {}))
    return args.bf16_tflops, args.fp8_tflops, args.hbm_gb_per_s, {}


def environment():
    props = torch.cuda.get_device_properties(0)
    return {"device": torch.cuda.get_device_name(0), "multiprocessors": props.multi_processor_count,
            "memory_mib": props.total_memory // 2**20, "torch": torch.__version__,
            "backend": f"ROCm {torch.version.hip}" if torch.version.hip
            else f"CUDA {torch.version.cuda}",
            "cudnn": torch.backends.cudnn.version(), "date": time.strftime("%Y-%m-%d"),
            "nvidia_smi_idle": nvidia_smi()}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", help="preset JSON giving the dense peaks and HBM bandwidth")
    parser.add_argument("--bf16-tflops", type=float)
    parser.add_argument("--fp8-tflops", type=float)
    parser.add_argument("--hbm-gb-per-s", type=float)
    parser.add_argument("--out", required=True)
    parser.add_argument("--sections", nargs="*", help="measure only these sections")
    args = parser.parse_args()
    bf16, fp8, hbm, preset_curves = peaks(args)
    if not bf16 or not hbm:
        parser.error("give --preset or --bf16-tflops and --hbm-gb-per-s")

    torch.backends.cuda.matmul.allow_tf32 = False
    result = {**environment(), "command": " ".join(sys.argv),
        "peaks": {"bf16_tflops": bf16, "fp8_tflops": fp8, "hbm_gb_per_s": hbm},
        "budget_s": BUDGET_S, "samples": {}}

    def save():
        with open(args.out, "w") as file:
            json.dump(result, file, indent=1)

    sections = [
        ("sustained", lambda: measure_sustained(bf16)),
        ("launch", measure_launch),
        ("memory", lambda: measure_memory(hbm)),
        ("elementwise", lambda: measure_elementwise(hbm)),
        ("gemm", lambda: measure_gemms(bf16, False)),
        ("gemm_fp8", lambda: measure_gemms(fp8, True) if fp8 else []),
        ("attention", lambda: measure_attention(bf16)),
        ("grouped_gemm", lambda: measure_grouped_gemms(bf16)),
        ("attention_head_dims", lambda: measure_attention_head_dims(bf16)),
        ("attention_head_dims_equal",
         lambda: measure_attention_head_dims(bf16, "attention_head_dims_equal")),
        ("moe_permute", lambda: measure_moe_permute(hbm)),
        ("host_sync", measure_host_sync),
    ]
    for name, measure in sections:
        if args.sections and name not in args.sections:
            continue
        log(f"{name} ...")
        try:
            result["samples"][name] = measure()
        except Exception as error:  # keep what the other sections measured
            log(f"{name} failed: {type(error).__name__}: {error}")
            result["samples"][name] = {"error": f"{type(error).__name__}: {error}"}
        torch.cuda.empty_cache()
        save()

    samples = result["samples"]
    if isinstance(samples.get("attention"), tuple):
        forward, backward = samples.pop("attention")
        samples["attention_forward"], samples["attention_backward"] = forward, backward
    efficiency = {}
    for name in ("gemm", "gemm_fp8", "memory", "elementwise"):
        if isinstance(samples.get(name), list) and samples[name]:
            efficiency[name] = curve(samples[name], "mb" if name in ("memory", "elementwise")
                                     else "gflop")
    for name in ("attention_forward", "attention_backward"):
        for backend in ("flash", "cudnn"):
            chosen = [s for s in samples.get(name, []) if s["backend"] == backend]
            if chosen:
                efficiency[f"{name}_{backend}"] = curve(chosen, "gflop")
    for variant in ("grouped", "sequential", "one_gemm"):
        if isinstance(samples.get("grouped_gemm"), list):
            efficiency[f"grouped_gemm_{variant}"] = curve(samples["grouped_gemm"], "gflop",
                                                          variant)
    result["efficiency"] = efficiency
    save()
    print(json.dumps({"launch": samples.get("launch"),
                      "sustained": samples.get("sustained")}, indent=1))
    for name, points in efficiency.items():
        base = name.split("_flash")[0].split("_cudnn")[0]
        print(f"{name:32s} measured {points}")
        if base in preset_curves:
            print(f"{'':32s} preset   {preset_curves[base]}")
    head_dim_samples = [s for name in ("attention_head_dims", "attention_head_dims_equal")
                        if isinstance(samples.get(name), list) for s in samples[name]]
    for sample in head_dim_samples:
        if isinstance(sample, dict):
            print("attention {backend} h{heads} s{seq} d {d_qk}/{d_v}: forward {forward:.3f} "
                  "backward {backward:.3f} forward {forward_us:.1f} us, from a graph "
                  "{forward_graph_us:.1f} us; backward {backward_us:.1f} us, profiled "
                  "{backward_profiled_us:.1f} us".format(**sample))
    print(json.dumps({"moe_permute": samples.get("moe_permute"),
                      "host_sync": samples.get("host_sync")}, indent=1))


if __name__ == "__main__":
    main()
