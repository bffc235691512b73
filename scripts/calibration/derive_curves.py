#!/usr/bin/env python3
"""Derives the efficiency curves of GPU presets that have no published sweeps of their own.

presets/gpus/*.json for B200, GB200, B300, GB300, H200 (fp8), H20, MI300X, MI325X, MI355X, Ascend
910B and Kunlun P800, which no one has measured for this project, take the *shape* of a measured
reference curve (A100 or H100; H100's attention measured on a lent H100, the rest published) and
  * scale its sizes by the ratio of peaks (compute curves: tensor TFLOPS; memory and network
    curves: bandwidth), because a kernel of equal duration reaches an equal fraction of its
    plateau (the A100 and H100 GEMM curves agree with this within about 0.05), and
  * rescale its efficiencies to the new plateau given below (MAMF x 0.815 where a MAMF is
    published, an estimate otherwise; see presets/README.md and each preset's `sources`).
Prints the curves as JSON, ready to paste into a preset. Run: python3 derive_curves.py [gpu];
`derive_curves.py --check` fails where a preset's curve differs (a ctest).
"""
import json
import os
import re
import statistics
import sys

# Reference curves copied from presets/gpus/a100.json and h100.json: (sizes, efficiencies).
A100 = {
    "gemm": ([0.1, 1, 10, 100, 1000], [0.13, 0.38, 0.56, 0.66, 0.7]),
    # attention_forward and attention_backward: H100's measured shape (A100_ATTENTION below).
    "memory": ([0.1, 1, 10, 100, 1000], [0.1, 0.45, 0.78, 0.87, 0.9]),
    "intra_node": ([0.1, 1, 8, 64, 512], [0.1, 0.3, 0.6, 0.72, 0.78]),
    "inter_node": ([0.1, 1, 8, 64, 512], [0.1, 0.35, 0.7, 0.88, 0.92]),
}
H100 = {
    "gemm": ([0.1, 1, 10, 100, 1000], [0.07, 0.25, 0.47, 0.6, 0.65]),
    "gemm_fp8": ([0.1, 1, 10, 100, 1000], [0.05, 0.18, 0.38, 0.51, 0.56]),
    # Measured on a lent H100 (scripts/calibration/measured/h100-*2026-11-26.json): cuDNN.
    "attention_forward": ([0.5, 1, 3, 10, 30, 100, 300, 1000, 10000],
                          [0.045, 0.085, 0.17, 0.28, 0.36, 0.46, 0.52, 0.59, 0.6]),
    "attention_backward": ([1.3, 2.7, 5.4, 11, 21, 43, 86, 172, 344, 687, 1400, 11000, 30000],
                           [0.046, 0.086, 0.12, 0.19, 0.22, 0.266, 0.323, 0.393, 0.43, 0.472,
                            0.491, 0.524, 0.534]),
    # FlashAttention-2 as PyTorch's flash backend runs it, measured the same way but keyed by
    # the mean keys a query row attends (causal: half the length; flash_by_rows below).
    "attention_forward_flash": ([256, 512, 1024, 2048, 4096, 8192, 16384, 32768],
                                [0.184, 0.253, 0.281, 0.312, 0.313, 0.325, 0.333, 0.336]),
    "attention_backward_flash": ([256, 512, 1024, 2048, 4096, 8192, 16384, 32768],
                                 [0.109, 0.165, 0.218, 0.258, 0.278, 0.308, 0.319, 0.326]),
    "memory": ([0.1, 1, 10, 100, 1000], [0.06, 0.3, 0.7, 0.86, 0.9]),
    "intra_node": ([0.1, 1, 8, 64, 512], [0.08, 0.25, 0.55, 0.75, 0.8]),
    "inter_node": ([0.1, 1, 8, 64, 512], [0.08, 0.3, 0.65, 0.86, 0.92]),
}
DERATING = 0.815  # measured-kernel plateau / best-shape MAMF, calibrated on A100 (a100.json)


def rule(mamf_fraction):
    """The GEMM plateau of a part whose best-shape MAMF is `mamf_fraction` of its dense peak."""
    return round(mamf_fraction * DERATING, 3)


# Best-shape MAMF as a fraction of the dense peak (Bekman, ml-engineering, compute/accelerator,
# 'Maximum Achievable Matmul FLOPS comparison table', v2: mean of 100 iterations, caches reset).
MAMF = {
    ("h100", "bf16"): 792.1 / 989,    # v1, CUDA 12.1 (the calibration base of h100.json)
    ("h100", "fp8"): 1402.6 / 1979,   # torch 2.7.0+cu126
    ("h200", "fp8"): 1453.4 / 1979,   # torch 2.7.1+cu128 (bf16: "H200 is the same" as H100)
    ("b200", "bf16"): 1745.0 / 2250,  # torch 2.7.1+cu128
    ("b200", "fp8"): 3432.5 / 4500,
    ("gb200", "bf16"): 1822.0 / 2500,  # torch 2.10.0.dev20250916+cu130
    ("gb200", "fp8"): 3615.6 / 5000,
    # AMD, over our dense bf16 peaks (AMD's product pages), not the table's "Theory" column:
    ("mi325x", "bf16"): 784.9 / 1307.4,  # torch 2.6.0+6.2.4, PYTORCH_TUNABLEOP_ENABLED=1, 1000W
    ("mi355x", "bf16"): 1565.0 / 2516.6,  # torch 2.8.0+rocm7.0.2, TUNABLEOP=0 ("Theory" 2300 is
                                          # MI350X's peak; AMD's MI355X page gives 2.5 PFLOPS)
}

# What a matmul holds at the power limit against its boost-clock burst (Bekman, ml-engineering,
# compute/accelerator, 'Maximum Achievable and Sustainable Matmul FLOPS comparison table',
# mamf-finder.py benchmark version 4: MSMF, "what it holds once the chip is saturated at its
# power limit - use MSMF for training throughput", over MAMF of the same run; every GPU of the
# node measured while the others run a continuous matmul; torch 2.14.0+cu130):
#   H200 bf16 755 / 850 (MSMF at 685-688 W, 1860-1918 MHz), fp8 1354 / 1525;
#   B200 bf16 1439 / 1737 (978-987 W, 1399-1443 MHz against the 1965 MHz boost), fp8 2788 / 3350.
# The rule's 0.815 was calibrated on A100 and holds on Hopper, whose matmuls keep 0.888 of their
# burst (the lent H100's 8192^3 GEMM: 0.685 / 0.764 = 0.897, presets/README.md); B200 keeps only
# 0.83 of its, so its rule plateau is scaled by its ratio over Hopper's. GB200 (the same die at
# 1200 W) and the Blackwell Ultra parts have no MSMF of their own in version 4 (B300's, 1519 /
# 1892 bf16, is from version 3, "compare only roughly"): they take B200's ratio (estimate; a
# higher power limit would hold a higher clock, not credited).
SUSTAINED_OVER_BURST = {
    ("h200", "bf16"): 755 / 850,
    ("h200", "fp8"): 1354 / 1525,
    ("b200", "bf16"): 1439 / 1737,
    ("b200", "fp8"): 2788 / 3350,
}


def blackwell_sustained(dtype):
    """B200's matmul sustained/burst ratio over Hopper's (H200), for a Blackwell rule plateau."""
    return SUSTAINED_OVER_BURST["b200", dtype] / SUSTAINED_OVER_BURST["h200", dtype]


# Fused attention on Blackwell: FlashAttention-4 (Zadouri, Shah, Dao et al., arXiv:2603.05451)
# reaches up to 1613 TFLOPS forward on B200 in BF16, "up to 1.3x over cuDNN 9.13", the kernel
# Transformer Engine runs: cuDNN's best is about 1613 / 1.3 TFLOPS. The backward keeps H100's
# backward/forward plateau ratio (cuDNN measured on a lent H100: 0.534 / 0.60). GB200 runs the
# same silicon at 1200 W instead of 1000 W: its MAMF is 1822 / 1745 of B200's, taken for
# attention too.
# Those figures are bursts: the paper's 1613 TFLOPS is reproduced only over 1-10 repetitions
# (Dao-AILab/flash-attention issue 2362). Run back to back, as training runs it, attention on
# B200 pulls the board to its 1,000 W limit and the SM clock drops from 1965 to about 1580 MHz:
# FlashAttention-4 BF16 (batch 4, 8192 tokens, 16 heads, head dim 128) falls from 1450 TFLOPS
# (iterations 10-19) to 1237 (iterations 70-79, "fully throttled") (flashinfer-ai/flashinfer PR
# 2899, 2026-03-26). The sustained cuDNN rate is the burst rate times that ratio. H100's
# attention curves need no such factor: they were measured in an 80 s sweep of back-to-back
# calls (measure_gpu.py BUDGET_S["attention"]), under the power cap as training runs; nor do
# the GEMM plateaus: the rule's 0.815 x MAMF is H100's sustained rate (its 8192^3 GEMM settles
# at 0.685 of peak, 0.853 of MAMF, presets/README.md), and B200's sustained/burst ratio above,
# 0.853, is the same.
BLACKWELL_SUSTAINED_OVER_BURST = 1237 / 1450
CUDNN_B200_FORWARD_TFLOPS = 1613 / 1.3 * BLACKWELL_SUSTAINED_OVER_BURST
H100_ATTENTION_BACKWARD_RATIO = 0.534 / 0.6
GB200_OVER_B200 = 1822.0 / 1745.0
# HBM3e streaming: "over 6,000 GB/s" device-to-device (CUDA bandwidthTest on 8x B200, newmind.ai
# 2025) of HGX B200's 7.7 TB/s; about 0.8, against H100's 0.9.
BLACKWELL_MEMORY_PLATEAU = 0.8
# FlashAttention-2 on Blackwell (what Transformer Engine runs where cuDNN does not train the head
# dims, attention_cost.cpp): its kernels issue Ampere's warp-level mma.sync, not Blackwell's
# tcgen05, and run at about H100's speed in absolute TFLOPS, not at B200's peak. Measured on B200
# against Shah et al. 2024 (arXiv:2407.08608) on H100 SXM5 at the same shapes:
#   forward, head dim 128, non-causal: tritonbench PR 171 (meta-pytorch/tritonbench, 2025-03-04,
#   flash_v2, batch 8 x 16 heads) 352.1 / 353.9 / 361.6 TFLOPS at 2k / 4k / 8k tokens against
#   Fig. 5's 362 / 368 / 370: 0.973, 0.962, 0.977, median 0.973;
#   backward, head dim 64, non-causal: Dao-AILab/flash-attention issue 1589 (flash_attn
#   2.7.4.post1, benchmark_flash_attention.py, 16k tokens a batch) 243.05 / 280.64 / 301.61 at
#   512 / 1k / 2k tokens against Fig. 6's 198 / 238 / 264: 1.228, 1.179, 1.142, median 1.179.
# A call of equal FLOPs then takes H100's time: H100's measured flash curves at the same sizes,
# rescaled to the part's peak. GB200 takes GB200_OVER_B200 as for its other attention curves.
FLASH2_BLACKWELL_FORWARD_OVER_H100 = 0.973
FLASH2_BLACKWELL_BACKWARD_OVER_H100 = 1.179


def blackwell_flash(peak_tflops, over_b200=1.0):
    """FlashAttention-2's curves on a Blackwell part of `peak_tflops` dense bf16."""
    def plateau(curve, ratio):
        return round(H100[curve][1][-1] * 989.4 * ratio * over_b200 / peak_tflops, 3)
    return {
        "attention_forward_flash": (H100, 1.0, plateau("attention_forward_flash",
                                                       FLASH2_BLACKWELL_FORWARD_OVER_H100)),
        "attention_backward_flash": (H100, 1.0, plateau("attention_backward_flash",
                                                        FLASH2_BLACKWELL_BACKWARD_OVER_H100)),
    }

# Blackwell Ultra (B300 in HGX B300, GB300 in GB300 NVL72) has no MAMF row and no published
# attention sweep. NVIDIA lists the same dense bf16/fp8 peaks as the Blackwell part of the same
# system (HGX B300 = HGX B200: 2,250 / 4,500 TFLOPS; GB300 NVL72 = GB200 NVL72: 2,500 / 5,000),
# so each takes the nearest measured part's MAMF fraction and attention plateau: B300 B200's,
# GB300 GB200's. Its doubled softmax-exponential throughput and higher power limit are not
# credited (estimates, no measurement). Its NIC is a ConnectX-8 at 800 Gb/s per GPU (100 GB/s
# per direction): h100.json's NDR 400 Gb/s curve with sizes scaled by 100 / 50, plateau kept.
CX8_OVER_NDR = 100 / 50
NDR_PLATEAU = 0.92

# AMD Instinct parts after MI300X (MI325X: MI300X's compute with HBM3e; MI355X: CDNA 4) have a
# bf16 MAMF and nothing else, so they take mi300x.json's rule with their own numbers: GEMM plateau
# by the rule; fp8 at H100's fp8/bf16 plateau ratio (no FP8 MAMF published); attention at H100's
# attention-to-GEMM plateau ratio (forward 0.6 / 0.65) and backward/forward ratio (0.534 / 0.6);
# HBM streaming at MI300X's 0.78 (microbenchmarks of MI300X only); xGMI at MI300X's 0.70; the NDR
# NIC curve. All but the GEMM plateau are estimates.
H100_GEMM_PLATEAU = 0.65
H100_FP8_OVER_BF16 = rule(MAMF["h100", "fp8"]) / H100_GEMM_PLATEAU
H100_ATTENTION_FORWARD_RATIO = 0.6 / H100_GEMM_PLATEAU
MI300X_MEMORY_PLATEAU = 0.78
MI300X_XGMI_PLATEAU = 0.7


def amd_instinct(gemm_plateau, bf16_tflops, fp8_tflops, hbm_gb_per_s, xgmi_gb_per_s):
    """The curves of an AMD Instinct part by mi300x.json's rule (sizes scaled by its peaks)."""
    return {
        "gemm": (H100, bf16_tflops / 989.4, gemm_plateau),
        "gemm_fp8": (H100, fp8_tflops / 1978.9, round(gemm_plateau * H100_FP8_OVER_BF16, 3)),
        "attention_forward": (H100, bf16_tflops / 989.4,
                              round(gemm_plateau * H100_ATTENTION_FORWARD_RATIO, 3)),
        "attention_backward": (H100, bf16_tflops / 989.4,
                               round(gemm_plateau * H100_ATTENTION_FORWARD_RATIO
                                     * H100_ATTENTION_BACKWARD_RATIO, 3)),
        "memory": (H100, hbm_gb_per_s / 3350, MI300X_MEMORY_PLATEAU),
        "intra_node": (H100, xgmi_gb_per_s / 450, MI300X_XGMI_PLATEAU),
        "inter_node": (H100, 1.0, NDR_PLATEAU),
    }


# Per GPU and curve: (reference, size scale, plateau). Scales are ratios of the new GPU's peak
# (dense bf16 TFLOPS, fp8 for gemm_fp8; GB/s per direction for memory and networks) to the
# reference's; the plateau replaces the reference curve's last point.
def ascend(tflops, hbm_gb_per_s):
    """An Ascend 910-class part by ascend-910b.json's rule (estimates: 80% of A100's plateaus,
    A100's shapes at sizes scaled by the part's peaks; intra_node: HCCS as ascend-910b.json)."""
    return {
        "gemm": (A100, tflops / 312, 0.56),
        "attention_forward": (A100, tflops / 312, 0.56),
        "attention_backward": (A100, tflops / 312, 0.48),
        "memory": (A100, hbm_gb_per_s / 2039, 0.8),
        "intra_node": (A100, 196 / 300, 0.75),
        "inter_node": (A100, 1.0, 0.9),
    }


DERIVED = {
    "h100": {
        "gemm_fp8": (H100, 1.0, rule(MAMF["h100", "fp8"])),
    },
    "h800": {
        "gemm_fp8": (H100, 1.0, rule(MAMF["h100", "fp8"])),  # H100 silicon
    },
    "h200": {
        "gemm_fp8": (H100, 1.0, rule(MAMF["h200", "fp8"])),
    },
    "b200": {
        "gemm": (H100, 2250 / 989.4,
                 round(rule(MAMF["b200", "bf16"]) * blackwell_sustained("bf16"), 3)),
        "gemm_fp8": (H100, 4500 / 1978.9,
                     round(rule(MAMF["b200", "fp8"]) * blackwell_sustained("fp8"), 3)),
        "attention_forward": (H100, 2250 / 989.4, round(CUDNN_B200_FORWARD_TFLOPS / 2250, 3)),
        "attention_backward": (H100, 2250 / 989.4,
                               round(CUDNN_B200_FORWARD_TFLOPS / 2250
                                     * H100_ATTENTION_BACKWARD_RATIO, 3)),
        "memory": (H100, 7700 / 3350, BLACKWELL_MEMORY_PLATEAU),
        **blackwell_flash(2250),
    },
    "gb200": {
        "gemm": (H100, 2500 / 989.4,
                 round(rule(MAMF["gb200", "bf16"]) * blackwell_sustained("bf16"), 3)),
        "gemm_fp8": (H100, 5000 / 1978.9,
                     round(rule(MAMF["gb200", "fp8"]) * blackwell_sustained("fp8"), 3)),
        "attention_forward": (H100, 2500 / 989.4,
                              round(CUDNN_B200_FORWARD_TFLOPS * GB200_OVER_B200 / 2500, 3)),
        "attention_backward": (H100, 2500 / 989.4,
                               round(CUDNN_B200_FORWARD_TFLOPS * GB200_OVER_B200 / 2500
                                     * H100_ATTENTION_BACKWARD_RATIO, 3)),
        "memory": (H100, 8000 / 3350, BLACKWELL_MEMORY_PLATEAU),
        **blackwell_flash(2500, GB200_OVER_B200),
    },
    "h20": {
        "gemm": (H100, 148 / 989.4, 0.73),            # estimate: MAMF ~90% x 0.815
        "gemm_fp8": (H100, 296 / 1978.9, round(0.73 * rule(MAMF["h100", "fp8"]) / 0.65, 2)),
        "attention_forward": (H100, 148 / 989.4, round(0.73 * H100_ATTENTION_FORWARD_RATIO, 3)),
        "attention_backward": (H100, 148 / 989.4, round(0.73 * H100_ATTENTION_FORWARD_RATIO
                                                        * H100_ATTENTION_BACKWARD_RATIO, 3)),
        "memory": (H100, 4000 / 3350, 0.9),
        "intra_node": (H100, 1.0, 0.8),               # same NVLink 4 as H100
        "inter_node": (H100, 1.0, 0.92),
    },
    "mi300x": {
        "gemm": (H100, 1307.4 / 989.4, round(0.514 * DERATING, 2)),  # MAMF v2 51.4%
        "gemm_fp8": (H100, 2614.9 / 1978.9, round(0.42 * rule(MAMF["h100", "fp8"]) / 0.65, 2)),
        "attention_forward": (H100, 1307.4 / 989.4, 0.42),  # ~550 TFLOPS (CK/AITER)
        "attention_backward": (H100, 1307.4 / 989.4,
                               round(0.42 * H100_ATTENTION_BACKWARD_RATIO, 3)),
        "memory": (H100, 5300 / 3350, 0.78),
        "intra_node": (H100, 448 / 450, 0.7),
        "inter_node": (H100, 1.0, 0.92),
    },
    # MI325X: MI300X's peaks (1,307.4 / 2,614.9), 6.0 TB/s HBM3e, the same 7 x 64 GB/s xGMI.
    "mi325x": amd_instinct(rule(MAMF["mi325x", "bf16"]), 1307.4, 2614.9, 6000, 448),
    # MI355X: 2,516.6 / 5,033.2 dense, 8.0 TB/s HBM3e, 7 links of 76.8 GB/s each way (1,075 GB/s).
    "mi355x": amd_instinct(rule(MAMF["mi355x", "bf16"]), 2516.6, 5033.2, 8000, 537.6),
    "ascend-910b": {
        "gemm": (A100, 313 / 312, 0.56),
        "attention_forward": (A100, 313 / 312, 0.56),
        "attention_backward": (A100, 313 / 312, 0.48),
        "memory": (A100, 1600 / 2039, 0.8),
        "intra_node": (A100, 196 / 300, 0.75),
        "inter_node": (A100, 1.0, 0.9),
    },
    # The other Ascend 910B bins and the 910C die (presets/gpus/ascend-910b1.json etc.): the
    # 910B rule with each part's own peak and HBM bandwidth.
    "ascend-910b1": ascend(376, 1600),
    "ascend-910b2": ascend(376, 1600),
    "ascend-910b4": ascend(280, 1600),
    "ascend-910c": ascend(376, 1600),
    "kunlun3": {
        "gemm": (A100, 345 / 312, 0.55),
        "attention_forward": (A100, 345 / 312, 0.55),
        "attention_backward": (A100, 345 / 312, 0.47),
        "memory": (A100, 2000 / 2039, 0.8),
        "intra_node": (A100, 200 / 300, 0.7),
        "inter_node": (H100, 1.0, 0.9),
    },
}

# Blackwell Ultra: no measurement yet, so (estimates) the Blackwell part of the same system at
# the same peaks, with its own HBM bandwidth and ConnectX-8 (800 Gb/s) network curve.
BLACKWELL_ULTRA = {
    "memory": (H100, 8000 / 3350, BLACKWELL_MEMORY_PLATEAU),
    "inter_node": (H100, CX8_OVER_NDR, NDR_PLATEAU),
}
DERIVED["b300"] = {**DERIVED["b200"], **BLACKWELL_ULTRA}

# A100 fused attention: FlashAttention-2 (Dao 2023, arXiv:2307.08691) Fig. 4 gives its plateaus,
# causal, head dim 128, at 16k tokens: about 225 TFLOPS forward (0.7 of 312) and 190 backward
# (0.6); its smaller calls take H100's measured shape at sizes scaled by the peaks (FA2's own
# 2k-token point, about 190 TFLOPS at 137 GFLOP, is 0.61, and this gives 0.64). The A100 parts
# and those derived from A100's curves share it.
A100_ATTENTION = {
    "attention_forward": (H100, 312 / 989.4, 0.7),
    "attention_backward": (H100, 312 / 989.4, 0.6),
}
for name in ("a100", "a100-40g", "a800"):
    DERIVED[name] = A100_ATTENTION
DERIVED["gb300"] = {**DERIVED["gb200"], **BLACKWELL_ULTRA}


def significant(x, digits=3):
    return float(f"{x:.{digits}g}")


def derive(reference, curve, scale, plateau):
    sizes, efficiencies = reference[curve]
    top = efficiencies[-1]
    return [[s if scale == 1 else significant(s * scale), round(e / top * plateau, 3)]
            for s, e in zip(sizes, efficiencies)]


for curve, spec in A100_ATTENTION.items():
    A100[curve] = tuple(map(list, zip(*derive(spec[0], curve, *spec[1:]))))


def flash_by_rows(measured):
    """FlashAttention-2's curves from a measure_gpu.py sweep: per sequence length L, the median
    efficiency over its batch x heads shapes, keyed by L / 2, the mean keys a causal query row
    attends (kernels.hpp FlashSpan). The sweep's calls of equal FLOPs but different lengths
    differ by up to 0.1 (H100 backward at 2.7 TFLOP: 0.31 at 16k tokens, 0.22 at 2k), while at one
    length batch x heads moves it by a few hundredths: the length sets it, not the FLOPs."""
    curves = {}
    for kind in ("attention_forward", "attention_backward"):
        by_length = {}
        for sample in measured["samples"][kind]:
            if sample["backend"] == "flash":
                by_length.setdefault(sample["shape"][2], []).append(sample["efficiency"])
        points = []
        for length, values in sorted(by_length.items()):
            values.sort()
            middle = len(values) // 2
            median = values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
            points.append([length // 2, round(median, 3)])
        curves[f"{kind}_flash"] = points
    return curves


def head_dim_ratios(measured, backend, min_seq=2048):
    """Efficiency at each head dim relative to head dim 128, from a measure_gpu.py
    attention_head_dims_equal sweep: per (heads, length) at `min_seq` tokens and more (shorter
    calls are launch-bound), forward from CUDA-graph replays and backward from profiled kernel
    time, the median ratio over the sweep, rounded to 0.01 (kernels.hpp kFlashHeadDims)."""
    device_s = {}
    for sample in measured["samples"]["attention_head_dims_equal"]:
        if sample["backend"] == backend and sample["seq"] >= min_seq:
            device_s[(sample["heads"], sample["seq"], sample["d_qk"])] = (
                sample["forward_graph_us"], sample["backward_profiled_us"])
    ratios = {}
    for head_dim in sorted({key[2] for key in device_s}):
        pairs = [(device_s[(h, n, 128)], device_s[(h, n, d)], d / 128)
                 for (h, n, d) in device_s if d == head_dim and (h, n, 128) in device_s]
        # Executed FLOPs grow with the head dim: efficiency ratio = FLOP ratio x time ratio.
        forward = statistics.median(base[0] / time[0] * flops for base, time, flops in pairs)
        backward = statistics.median(base[1] / time[1] * flops for base, time, flops in pairs)
        ratios[head_dim] = (round(forward, 2), round(backward, 2))
    return ratios


def cpp_head_dim_table(name):
    """The {head dim, forward, backward} entries of a kernels.hpp table."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "core", "src", "model", "kernels.hpp")) as file:
        text = file.read()
    body = re.search(name + r"\[\] = \{(.*?)\};", text, re.S).group(1)
    return {int(float(d)): (float(f), float(b))
            for d, f, b in re.findall(r"\{([\d.]+), ([\d.]+), ([\d.]+)\}", body)}


def overlap_slowdown(measured, channels=(16, 32)):
    """Compute lost per second of overlap (presets' overlap_slowdown) from a measure_overlap.py
    run: the median of 1 - alone / beside over its GEMM shapes and paces, beside copy kernels of
    `channels` thread blocks (NCCL runs one block per channel: 16-32 on NVLink, the presets'
    nccl_channels_*), rounded to 0.01. Unpaced samples and copies that ended before the GEMMs
    are left out (they do not overlap the whole GEMM loop)."""
    lost = [s["compute_lost_per_s"] for s in measured["samples"]
            if s["pace_gb_per_s"] > 0 and s["copy_outlasted_gemms"]
            and channels[0] <= s["blocks"] <= channels[1]]
    return round(statistics.median(lost), 2)


# Presets whose overlap_slowdown is measured: H200's own, and the Hopper dies of the same 132 SMs.
OVERLAP_MEASURED = {name: "h200-overlap-2026-11-28.json" for name in ("h100", "h800", "h200", "gh200")}
# Presets whose flash curves are measured sweeps (scripts/calibration/measured/).
FLASH_MEASURED = {"h100": "h100-2026-11-26.json", "h800": "h100-2026-11-26.json",
                  "h200": "h200-2026-11-26.json"}
HEAD_DIMS_MEASURED = "h200-head-dims-moe-2026-11-28.json"


def check():
    """Exit 1 where a preset's curve differs from what this script derives, or from the copy of
    it this script derives from (ctest runs it)."""
    here = os.path.dirname(os.path.abspath(__file__))

    def preset(name):
        with open(os.path.join(here, "..", "..", "presets", "gpus", f"{name}.json")) as file:
            return json.load(file)

    def efficiency(name):
        return preset(name)["efficiency"]

    stale = []
    for name, specs in DERIVED.items():
        curves = efficiency(name)
        for curve, spec in specs.items():
            if curves.get(curve) != derive(spec[0], curve, *spec[1:]):
                stale.append(f"{name}.json {curve} differs from derive_curves.py's output")
    # The references are copies of their presets' curves; H100's gemm_fp8 is the roll-off shape
    # h100.json's own fp8 curve is derived from.
    for name, reference in (("a100", A100), ("h100", H100)):
        curves = efficiency(name)
        for curve, (sizes, values) in reference.items():
            if (name, curve) != ("h100", "gemm_fp8") and curves.get(curve) != [
                    list(point) for point in zip(sizes, values)]:
                stale.append(f"{name}.json {curve} differs from derive_curves.py's copy of it")
    for name, measured in FLASH_MEASURED.items():
        with open(os.path.join(here, "measured", measured)) as file:
            expected = flash_by_rows(json.load(file))
        curves = efficiency(name)
        for curve, points in expected.items():
            if curves.get(curve) != points:
                stale.append(f"{name}.json {curve} differs from flash_by_rows({measured})")
    with open(os.path.join(here, "measured", HEAD_DIMS_MEASURED)) as file:
        if head_dim_ratios(json.load(file), "flash") != cpp_head_dim_table("kFlashHeadDims"):
            stale.append(f"(kernels.hpp) kFlashHeadDims differs from head_dim_ratios("
                         f"{HEAD_DIMS_MEASURED})")
    for name, measured in OVERLAP_MEASURED.items():
        with open(os.path.join(here, "measured", measured)) as file:
            if preset(name)["overlap_slowdown"] != overlap_slowdown(json.load(file)):
                stale.append(f"{name}.json overlap_slowdown differs from overlap_slowdown({measured})")
    for entry in stale:
        print(f"presets/gpus/{entry}")
    print(f"{len(DERIVED)} presets' derived curves and the reference copies checked, "
          f"{len(stale)} stale")
    sys.exit(1 if stale else 0)


def main():
    if sys.argv[1:] == ["--check"]:
        check()
    names = sys.argv[1:] or list(DERIVED)
    for name in names:
        curves = {c: derive(*spec[:1], c, *spec[1:]) for c, spec in DERIVED[name].items()}
        print(json.dumps({name: curves}))


if __name__ == "__main__":
    main()
