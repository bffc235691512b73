#!/usr/bin/env python3
"""Compares a measure_gpu.py result with a preset's efficiency curves, as Paraplan reads them.

Usage: python3 compare_measured.py scripts/calibration/measured/h100-2026-11-26.json \
           presets/gpus/h100.json

Prints, per curve, the measured median efficiency per decade of size beside the preset's curve
at the same size (interpolated in log size, clamped at its ends, as EfficiencyCurve::at does).
Fused attention efficiency depends on the sequence length more than on a call's GFLOP, so it is
also printed per sequence length (median over head counts), beside the preset at the GFLOP of
one micro-batch-1 call with 8 heads of dimension 128 (Llama 2 70B at TP 8).
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
    print(f"\n{'cuDNN attention, b=1 h=8':28s} {'seq':>9s} {'forward':>9s} {'preset':>7s} "
          f"{'backward':>9s} {'preset':>7s}")
    for seq in sorted({s["shape"][2] for s in samples["attention_forward"]}):
        row = []
        for name, factor in (("attention_forward", 1.0), ("attention_backward", 2.5)):
            values = [s["efficiency"] for s in samples[name]
                      if s["backend"] == "cudnn" and s["shape"][2] == seq]
            gflop = factor * 0.5 * 4 * 8 * seq * seq * 128 / 1e9
            row += [statistics.median(values) if values else float("nan"),
                    preset_at(preset[name], gflop)]
        print(f"{'':28s} {seq:9d} {row[0]:9.3f} {row[1]:7.3f} {row[2]:9.3f} {row[3]:7.3f}")
    sustained = samples["sustained"]["efficiency_per_window"]
    print(f"\nsustained 8192^3 bf16 GEMM: first window {sustained[0]:.3f}, median "
          f"{statistics.median(sustained):.3f} of the bf16 peak over {len(sustained)} windows")
    print("launch:", samples["launch"])


if __name__ == "__main__":
    main(*sys.argv[1:3])
