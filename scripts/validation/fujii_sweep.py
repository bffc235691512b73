#!/usr/bin/env python3
"""Fujii et al. 2024's Llama-3.1-8B sweep: every layout that trained or did not fit, as scenarios.

Fujii, Watanabe, Yokota 2024 ("Accelerating Large Language Model Training with 4D Parallelism
and Memory Consumption Estimator", arXiv:2411.06465) ran Llama-3.1-8B under Megatron-LM on ABCI
A100 40GB (8 a node) and TSUBAME 4.0 H100 94GB (4 a node), TP, CP, PP and micro-batch varied at
8 to 256 GPUs. The sweep's record is the first author's Megatron-LM fork, okoge-kaz/Megatron-LM
e4e8c218 (2024-10-22) scripts/abci/Llama-3.1-8B/4d_parallelism.md: a cell holds the measured
TFLOP/s per GPU (the run trained), "-" (no result) or nothing (not run). Every cell ran the launch
script of the same fork, scripts/abci/Llama-3.1-8B/llama-3.1-8b-tp4-pp2.sh at e6c1be32
(2024-10-13, branch v0.8.0-abci; the TSUBAME script
scripts/tsubame/Llama-3.1-8B/llama-3.1-8B-tp2-pp2-te-v1.9.sh at 442bc922 passes the same flags):
--sequence-parallel --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather
--bf16 --accumulate-allreduce-grads-in-fp32 --use-flash-attn
--untie-embeddings-and-output-weights --global-batch-size 1024, no recompute flag, no
PYTORCH_CUDA_ALLOC_CONF (PyTorch's default allocator: allocator_modes.py).

    python3 scripts/validation/fujii_sweep.py OKOGE_KAZ_MEGATRON_GIT_DIR \\
        > tests/validation/data/fujii-4d-sweep.json
"""

import argparse
import json
import re
import sys

from recipe_io import git

FORK = "https://github.com/okoge-kaz/Megatron-LM"
TABLE_COMMIT = "e4e8c2184f64906e46442ce3ad2b64df9670d1ee"
TABLE_PATH = "scripts/abci/Llama-3.1-8B/4d_parallelism.md"
SCRIPT = ("scripts/abci/Llama-3.1-8B/llama-3.1-8b-tp4-pp2.sh at e6c1be32deb5848c15d0095d9bed2492d0"
          "a194f4 (branch v0.8.0-abci)")
SOURCE = (f"Fujii, Watanabe, Yokota 2024, arXiv:2411.06465; the sweep's table: {FORK}/blob/"
          f"{TABLE_COMMIT}/{TABLE_PATH}; the launch: {FORK} {SCRIPT}")

# The GPUs as CUDA reports them: the A100 40GB preset (39.39 GiB); TSUBAME 4.0's H100 SXM5 94GB
# (HBM2e) as the H100 preset with the 93.1 GiB that PyTorch's out-of-memory message gives a 94 GB
# H100 ('GPU 0 has a total capacity of 93.09 GiB', '93.10 GiB', '93.11 GiB' in public H100 NVL
# 94 GB logs), 4 to a node (TSUBAME 4.0 handbook; the script's NUM_GPU_PER_NODE=4).
GPUS = {
    "A100 (40GB)": ("a100-40g", 8, "A100 40GB"),
    "H100 (94GB)": ({"base": "h100", "id": "h100-sxm5-94gb", "hbm_gib": 93.1}, 4, "H100 94GB"),
}
ASSUMPTIONS = [
    "'-' read as out of memory: the paper marks the runs that did not fit in its tables; the "
    "record's '-' cells are monotone in the micro-batch (a '-' at micro-batch k stays '-' at 2k) "
    "and where a row also holds numbers they are its fewest GPUs (least data parallelism, the "
    "least sharded distributed optimizer); one cell holds the Japanese long mark for '-'",
    "the record's note 'Some experiments are being re-conducted with "
    "TORCH_NCCL_AVOID_RECORD_STREAMS=1 set' does not say which cells: each is read as run "
    "without it (PyTorch's default then: ProcessGroupNCCL records its tensors' use on the NCCL "
    "stream, which the caching allocator honours before reusing their blocks), which the model "
    "does not price",
    "z-loss (--use-z-loss) and --reset-attention-mask as Megatron-LM's plain loss and causal "
    "mask (flash attention takes no mask tensor)",
]
# '-' cells the model prices under the default margin of launches without context parallelism
# over point-to-point sends: what differs, as each case's `note`. The context-parallel ones bound
# the margin of their own class (core/src/input/memory_margin.cpp). Keyed by (GPU heading,
# sequence length, layout), with the columns.
RECORD_STREAMS = (
    "TORCH_NCCL_AVOID_RECORD_STREAMS unset (the record's note): ProcessGroupNCCL calls "
    "recordStream on the tensors of async collectives, so the caching allocator reuses their "
    "blocks only once the collectives finish as the host sees them, while the host runs ahead "
    "(pytorch/pytorch PR #76861; torchtitan PR #737 sets the variable for tensor parallelism "
    "'to avoid unexpectedly high memory usage'), and point-to-point ops record streams whatever "
    "it says (pytorch/pytorch issue #147168): sequence-parallel gathers and the context-parallel "
    "ring's send/receive buffers held longer than their use, not priced: the launches with that "
    "ring take a margin of their own")
NOTES = {
    ("A100 (40GB)", 8192, (4, 2, 2, 4)): (
        (16, 32, 64, 128, 256),
        "row '(4, 2, 2, 4)' is '-' in every column, the 8 GPU one included, which cannot hold "
        "its 16 GPUs a replica: a filled row rather than an outcome per cell; priced as the "
        "'(4, 1, 2, 2)' layout that ran at 16-256 GPUs (the same tokens per GPU)"),
    ("A100 (40GB)", 8192, (2, 2, 2, 2)): (
        (64, 128, 256),
        "'-' at every size while '(2, 2, 2, 1)' and '(4, 2, 2, 2)' ran; " + RECORD_STREAMS),
    ("A100 (40GB)", 8192, (2, 4, 2, 2)): ((16,), "data parallel 1; " + RECORD_STREAMS),
    ("A100 (40GB)", 8192, (4, 2, 1, 1)): ((8,), "data parallel 1; " + RECORD_STREAMS),
    ("A100 (40GB)", 8192, (2, 2, 4, 2)): ((16,), "data parallel 1; " + RECORD_STREAMS),
    ("H100 (94GB)", 8192, (4, 1, 1, 4)): (
        (4,), "data parallel 1, priced 0.2 points under the default margin's line; ran at 8"),
}


def strategy(tp, cp, pp, mbs):
    return {
        "tensor_model_parallel_size": tp, "context_parallel_size": cp,
        "pipeline_model_parallel_size": pp, "micro_batch_size": mbs,
        "sequence_parallel": tp > 1, "zero_stage": 1, "overlap_grad_reduce": True,
        "overlap_param_gather": True, "use_flash_attn": True, "grad_reduce_in_bf16": False,
        "recompute_granularity": "none",
    }


def tables(text):
    """(GPU heading, sequence length, column GPU counts, [((tp, cp, pp, mbs), cells)])."""
    gpu = None
    found = []
    for line in text.splitlines():
        if line.startswith("## "):
            gpu = line[3:].strip()
        elif (m := re.match(r"Llama-3\.1-8B context length (\d+)", line)):
            found.append((gpu, int(m.group(1)), [], []))
        elif line.startswith("| (TP"):
            found[-1][2].extend(int(c.split()[0]) for c in line.split("|")[2:-1])
        elif (m := re.match(r"\| \((\d+), (\d+), (\d+), (\d+)\)\s*\|(.*)\|\s*$", line)):
            layout = tuple(int(g) for g in m.groups()[:4])
            found[-1][3].append((layout, [c.strip() for c in m.group(5).split("|")]))
    return found


def case(number, heading, seq, gpus, layout, cell):
    gpu_type, per_node, gpu_name = GPUS[heading]
    tp, cp, pp, mbs = layout
    outcome = "oom" if cell in ("-", "\u30fc") else "ran"
    if outcome == "ran":
        float(cell)  # a measured TFLOP/s, or the table is not read right
    entry = {
        "id": f"FWY{number:03d}",
        "name": f"Llama 3.1 8B s{seq}, {gpus} {gpu_name}, TP{tp} CP{cp} PP{pp} "
                f"DP{gpus // (tp * cp * pp)}, mbs {mbs}",
        "outcome": outcome,
        "source": SOURCE,
        "evidence": f"{TABLE_PATH}, {heading}, context length {seq}, row '({tp}, {cp}, {pp}, "
                    f"{mbs})', column '{gpus} GPU': '{cell}'",
        "assumptions": ASSUMPTIONS,
        "scenario": {
            "model": "llama3.1-8b",
            "framework": "megatron",
            "training": {"global_batch_size": 1024, "seq_length": seq, "precision": "bf16"},
            "cluster": {"gpus_per_node": per_node, "gpus": [{"type": gpu_type, "count": gpus}]},
            "strategy": strategy(tp, cp, pp, mbs),
        },
    }
    columns, note = NOTES.get((heading, seq, layout), ((), ""))
    if outcome == "oom" and gpus in columns:
        entry["note"] = note
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fork_git_dir", help="a git directory of okoge-kaz/Megatron-LM")
    args = parser.parse_args()
    text = git(args.fork_git_dir, "show", f"{TABLE_COMMIT}:{TABLE_PATH}")
    cases = []
    skipped = []
    for heading, seq, columns, rows in tables(text):
        for layout, cells in rows:
            for gpus, cell in zip(columns, cells):
                if not cell:
                    continue
                if gpus < layout[0] * layout[1] * layout[2]:
                    skipped.append(f"{heading}, context length {seq}, row {layout}, column "
                                   f"'{gpus} GPU': '{cell}' (the layout needs more GPUs)")
                    continue
                cases.append(case(len(cases) + 1, heading, seq, gpus, layout, cell))
    document = {
        "source": SOURCE + "; made by scripts/validation/fujii_sweep.py",
        "cases": cases,
        "left_out": skipped,
    }
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
