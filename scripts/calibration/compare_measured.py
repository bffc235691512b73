#!/usr/bin/env python3
"""Compares a measure_gpu.py result with a preset's efficiency curves, as Paraplan reads them.

Usage: python3 compare_measured.py scripts/calibration/measured/h100-2026-11-26.json \
           presets/gpus/h100.json

Prints, per curve, the measured median efficiency per decade of size beside the preset's curve
at the same size (interpolated in log size, clamped at its ends, as EfficiencyCurve::at does),
and where the file has them, micro-batch-1 attention calls (the forward from CUDA-graph
replays; backwards under about 120 us were host-bound in eager mode).
"""
import json
import math
import statistics
import sys


def preset_at(points, size):
    if size <= points[0][0]:
        return points[0][1]
    if size >= points[-1][0]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= size < x1:
            return y0 + (math.log(size) - math.log(x0)) / (math.log(x1) - math.log(x0)) * (y1 - y0)


def main(measured_path, preset_path):
    with open(measured_path) as file:
        measured = json.load(file)
    with open(preset_path) as file:
        preset = json.load(file)["efficiency"]
    print(f"{measured['device']}, torch {measured['torch']}, cuDNN {measured['cudnn']}, "
          f"{measured['date']}; preset {preset_path}")
    print(f"{'curve':28s} {'size':>9s} {'measured':>9s} {'preset':>7s} {'ratio':>6s}")
    for name, points in measured["efficiency"].items():
        base = name.removesuffix("_cudnn").removesuffix("_flash")
        base = "memory" if base == "elementwise" else base
        for size, value in points:
            reference = preset_at(preset[base], size) if base in preset else None
            ratio = f"{value / reference:6.2f}" if reference else ""
            print(f"{name:28s} {size:9.3g} {value:9.3f} "
                  f"{reference if reference is None else round(reference, 3)!s:>7s} {ratio}")
    samples = measured["samples"]
    rows = samples.get("attention_head_dims")
    if isinstance(rows, list) and rows:
        print(f"\n{'cuDNN attention, batch 1':28s} {'GFLOP':>9s} {'forward':>9s} {'preset':>7s} "
              f"{'backward':>9s} {'preset':>7s}")
        for r in sorted(rows, key=lambda r: (r["d_qk"], r["heads"] * r["seq"] ** 2)):
            gflop = 0.5 * 2 * r["heads"] * r["seq"] ** 2 * (r["d_qk"] + r["d_v"]) / 1e9
            forward = gflop * 1e3 / r["forward_graph_us"] / measured["peaks"]["bf16_tflops"]
            label = f"h{r['heads']} s{r['seq']} d{r['d_qk']}/{r['d_v']}"
            print(f"{label:28s} {gflop:9.3g} {forward:9.3f} "
                  f"{preset_at(preset['attention_forward'], gflop):7.3f} {r['backward']:9.3f} "
                  f"{preset_at(preset['attention_backward'], 2.5 * gflop):7.3f}")
    if not isinstance(samples.get("sustained"), dict):
        return
    sustained = samples["sustained"]["efficiency_per_window"]
    print(f"\nsustained 8192^3 bf16 GEMM: first window {sustained[0]:.3f}, median "
          f"{statistics.median(sustained):.3f} of the bf16 peak over {len(sustained)} windows")
    print("launch:", samples["launch"])


if __name__ == "__main__":
    main(*sys.argv[1:3])
