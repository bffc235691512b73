#!/usr/bin/env python3
"""What each stated optimization is credited with on the 2025 published runs (issue 32).

For every scored run of tests/validation/data/published-runs-2025.json, estimates the entry as
stated and again with one switch turned off (overlap_moe_expert_parallel_comm,
moe_shared_expert_overlap, tp_comm_overlap, CUDA graphs, the flex (DeepEP) dispatcher,
fp8_param_gather), and prints the gain the model credits each switch with (tokens/s as stated
over tokens/s without it, minus one), next to the run's error and the exposed EP, TP and compute
shares of its iteration. Compare the gains with NVIDIA's per-switch ablations before pricing a
switch anew; this script fits nothing.

Usage: python3 scripts/validation/switch_ablation.py [build/native/paraplan]
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests/validation/data/published-runs-2025.json")
SWITCHES = {
    "a2a_ovl": ("overlap_moe_expert_parallel_comm", False),
    "shared_ovl": ("moe_shared_expert_overlap", False),
    "tp_ovl": ("tp_comm_overlap", False),
    "graphs": ("cuda_graph_impl", "none"),
    "flex": ("moe_token_dispatcher_type", "alltoall"),
    "fp8pg": ("fp8_param_gather", False),
}


def estimate(paraplan, scenario):
    """The report of `scenario`, or None where the CLI refuses it."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
        path = f.name
    try:
        run = subprocess.run([paraplan, "estimate", path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    return json.loads(run.stdout) if run.returncode == 0 else None


def scenario_of(entry):
    """The entry's scenario, as the validation test estimates it."""
    scenario = {k: entry[k] for k in ("model", "training", "cluster", "strategy")}
    if "framework" in entry:
        scenario["framework"] = entry["framework"]
    return scenario


def gain(paraplan, scenario, tokens, key, off):
    """The gain credited to switch `key` ('-' where the run leaves it off, 'x' infeasible)."""
    if scenario["strategy"].get(key) in (None, off, False, "none"):
        return "-"
    without = json.loads(json.dumps(scenario))
    without["strategy"][key] = off
    if key == "cuda_graph_impl":
        without["strategy"].pop("cuda_graph_scope", None)
    report = estimate(paraplan, without)
    if not report or not report["feasible"] or not tokens:
        return "x"
    return "%+.1f%%" % (100 * (tokens / report["tokens_per_s_per_gpu"] - 1))


def main():
    paraplan = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/native/paraplan")
    with open(DATA) as f:
        entries = json.load(f)
    print("id     measured predicted  error " + " ".join("%9s" % k for k in SWITCHES))
    for entry in entries:
        if entry["measured"].get("confidence") == "low":
            continue
        scenario = scenario_of(entry)
        report = estimate(paraplan, scenario)
        measured = entry["measured"]["tokens_per_s_per_gpu"]
        tokens = report["tokens_per_s_per_gpu"] if report["feasible"] else 0
        row = "%s %9.0f %9.0f %+5.0f%% " % (entry["id"], measured, tokens,
                                            100 * (tokens / measured - 1))
        row += " ".join("%9s" % gain(paraplan, scenario, tokens, *s) for s in SWITCHES.values())
        parts = report["time_breakdown_s"]
        total = sum(parts.values())
        row += "  ep %2.0f%% tp %2.0f%% compute %2.0f%%" % tuple(
            100 * parts.get(k, 0) / total for k in ("ep_comm", "tp_comm", "compute"))
        print(row)


if __name__ == "__main__":
    main()
