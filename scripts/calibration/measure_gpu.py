#!/usr/bin/env python3
"""Measures the efficiency curves of one GPU for a Paraplan preset (presets/gpus/*.json).

NOT YET RUN: no GPU was available to this project. Run it on the target GPU and paste the
"efficiency" object it writes into the preset (see presets/README.md, "Calibrating a GPU").

Measures, on GPU 0:
  gemm / gemm_fp8      torch.matmul (bf16) and torch._scaled_mm (fp8 e4m3) over the GEMM shapes
                       that tensor- and context-parallel splits of common models produce
                       (forward, input-gradient and weight-gradient shapes), keyed by GFLOP;
  attention_forward /  torch.nn.functional.scaled_dot_product_attention (flash backend, causal,
  attention_backward   bf16) keyed by executed GFLOP, counted as Paraplan does: forward
                       0.5 x 4 b h s^2 d, backward 2.5 x the forward;
  memory               device-to-device copies keyed by MB moved (read + write).
Efficiency = achieved FLOP/s (or bytes/s) / the preset's dense peak. Each curve is the median
efficiency per decade of size, made non-decreasing. Raw samples are written too.

Usage:
  python3 measure_gpu.py --preset presets/gpus/h100.json --out h100-measured.json
  python3 measure_gpu.py --bf16-tflops 989.4 --fp8-tflops 1978.9 --hbm-gb-per-s 3350 --out x.json
Requires PyTorch >= 2.3 with CUDA or ROCm; fp8 needs torch._scaled_mm support (Hopper, Ada,
Blackwell, MI300). Network curves are not measured here: use nccl-tests / rccl-tests
(all_reduce_perf -b 64K -e 1G -f 2), bus bandwidth / link bandwidth per message size.
"""
import argparse
import json
import math
import statistics
import time

import torch
import torch.nn.functional as F

# (name, hidden, ffn, heads, query groups, head dim, gated MLP)
MODELS = [
    ("llama2-7b", 4096, 11008, 32, 32, 128, True),
    ("llama2-70b", 8192, 28672, 64, 8, 128, True),
    ("gpt3-175b", 12288, 49152, 96, 96, 128, False),
    ("llama3.1-405b", 16384, 53248, 128, 8, 128, True),
]
TENSOR_PARALLEL = [1, 2, 4, 8]
CONTEXT_PARALLEL = [1, 2, 4]
SEQ_LENGTH = 4096
ATTENTION_SEQS = [512, 1024, 2048, 4096, 8192, 16384]
COPY_MB = [0.0625, 0.25, 1, 4, 16, 64, 256, 1024]


def timed(fn, warmup, iters):
    """Median seconds of fn() over iters runs, after warmup runs."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


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
    return sorted(shapes, key=lambda s: s[0] * s[1] * s[2])


def fp8_dtype():
    return torch.float8_e4m3fnuz if torch.version.hip else torch.float8_e4m3fn


def measure_gemms(peak_tflops, fp8, args):
    samples = []
    for m, n, k in gemm_shapes():
        flops = 2.0 * m * n * k
        try:
            if fp8:
                a = torch.randn(m, k, device="cuda").to(fp8_dtype())
                b = torch.randn(n, k, device="cuda").to(fp8_dtype()).t()  # column-major
                one = torch.ones((), device="cuda")
                fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                              out_dtype=torch.bfloat16)
            else:
                a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
                fn = lambda: torch.matmul(a, b)
            seconds = timed(fn, args.warmup, args.iters)
        except (AttributeError, TypeError) as error:  # this PyTorch has no fp8 GEMM
            print(f"no {'fp8' if fp8 else 'bf16'} GEMMs: {error}")
            return samples
        except RuntimeError as error:  # a shape or dtype this GPU's library rejects
            print(f"skipping {'fp8' if fp8 else 'bf16'} GEMM {m}x{n}x{k}: {error}")
            continue
        samples.append({"m": m, "n": n, "k": k, "gflop": flops / 1e9,
                        "efficiency": flops / seconds / (peak_tflops * 1e12)})
        del a, b
    return samples


def measure_attention(peak_tflops, args):
    forward, backward = [], []
    for _, _, _, heads, _, d, _ in MODELS:
        for t in TENSOR_PARALLEL:
            for s in ATTENTION_SEQS:
                batch = max(1, 16384 // s)
                shape = (batch, heads // t, s, d)
                q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16,
                                       requires_grad=True) for _ in range(3))
                executed = 0.5 * 4.0 * batch * (heads // t) * s * s * d  # causal half
                run = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
                try:
                    with sdpa_flash():
                        fwd_s = timed(run, args.warmup, args.iters)
                        out = run()
                        grad = torch.randn_like(out)
                        bwd_s = timed(lambda: torch.autograd.grad(out, (q, k, v), grad,
                                                                  retain_graph=True),
                                      args.warmup, args.iters)
                except RuntimeError as error:
                    print(f"skipping attention {shape}: {error}")
                    continue
                forward.append({"shape": shape, "gflop": executed / 1e9,
                                "efficiency": executed / fwd_s / (peak_tflops * 1e12)})
                backward.append({"shape": shape, "gflop": 2.5 * executed / 1e9,
                                 "efficiency": 2.5 * executed / bwd_s / (peak_tflops * 1e12)})
                del q, k, v, out, grad
    return forward, backward


def sdpa_flash():
    """Context manager that restricts SDPA to the flash kernel (falls back to the default)."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        return sdpa_kernel(SDPBackend.FLASH_ATTENTION)
    except ImportError:
        return torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False,
                                              enable_mem_efficient=False)


def measure_memory(hbm_gb_per_s, args):
    samples = []
    for mb in COPY_MB:
        elements = int(mb * 1e6 / 2 / 2)  # bf16, half the bytes read and half written
        src = torch.randn(elements, device="cuda", dtype=torch.bfloat16)
        dst = torch.empty_like(src)
        seconds = timed(lambda: dst.copy_(src), args.warmup, args.iters)
        moved = 2.0 * elements * 2
        samples.append({"mb": moved / 1e6,
                        "efficiency": moved / seconds / (hbm_gb_per_s * 1e9)})
        del src, dst
    return samples


def curve(samples, key):
    """Median efficiency per decade of size, as strictly increasing, non-decreasing points."""
    by_decade = {}
    for sample in samples:
        by_decade.setdefault(math.floor(math.log10(sample[key])), []).append(sample)
    points, best = [], 0.0
    for decade in sorted(by_decade):
        group = by_decade[decade]
        size = math.exp(statistics.mean(math.log(s[key]) for s in group))
        best = max(best, statistics.median(s["efficiency"] for s in group))
        points.append([float(f"{size:.3g}"), round(min(1.0, max(0.001, best)), 3)])
    return points


def peaks(args):
    if args.preset:
        with open(args.preset) as file:
            preset = json.load(file)
        tensor = preset["tensor_tflops"]
        return tensor.get("bf16", tensor.get("fp16")), tensor.get("fp8"), preset["hbm_gb_per_s"]
    return args.bf16_tflops, args.fp8_tflops, args.hbm_gb_per_s


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", help="preset JSON giving the dense peaks and HBM bandwidth")
    parser.add_argument("--bf16-tflops", type=float)
    parser.add_argument("--fp8-tflops", type=float)
    parser.add_argument("--hbm-gb-per-s", type=float)
    parser.add_argument("--out", required=True)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    args = parser.parse_args()
    bf16, fp8, hbm = peaks(args)
    if not bf16 or not hbm:
        parser.error("give --preset or --bf16-tflops and --hbm-gb-per-s")

    torch.backends.cuda.matmul.allow_tf32 = False
    samples = {"gemm": measure_gemms(bf16, False, args)}
    if fp8:
        samples["gemm_fp8"] = measure_gemms(fp8, True, args)
    samples["attention_forward"], samples["attention_backward"] = measure_attention(bf16, args)
    samples["memory"] = measure_memory(hbm, args)

    efficiency = {name: curve(s, "mb" if name == "memory" else "gflop")
                  for name, s in samples.items() if s}
    result = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "backend": f"ROCm {torch.version.hip}" if torch.version.hip else f"CUDA {torch.version.cuda}",
        "date": time.strftime("%Y-%m-%d"),
        "peaks": {"bf16_tflops": bf16, "fp8_tflops": fp8, "hbm_gb_per_s": hbm},
        "efficiency": efficiency,
        "samples": samples,
    }
    with open(args.out, "w") as file:
        json.dump(result, file, indent=1)
    print(json.dumps(efficiency, indent=1))


if __name__ == "__main__":
    main()
