#!/usr/bin/env python3
"""Whether PyTorch's caching allocator reuses, during a CUDA graph capture, blocks freed after
another stream used them (issue 33: the deferred frees a full-iteration graph keeps reserved;
core/src/model cuda_graph_deferred_bytes).

During capture the allocator cannot query the events that guard a block a side stream used
(`record_stream`), so such frees are deferred until the capture ends
(CUDACachingAllocator.cpp: needs_events_deferred_until_no_capture) unless
PYTORCH_CUDA_ALLOC_CONF has graph_capture_record_stream_reuse:True. This script captures `n`
steps, each allocating a block on the capture stream, using it on a side stream as Megatron-LM's
A2A overlap does, and freeing it, and reports the pool's reserved bytes after capture for each n,
with and without `record_stream`, under the allocator setting given by the environment.

Usage: python3 measure_capture_reuse.py --out capture-reuse.json   (run once per
PYTORCH_CUDA_ALLOC_CONF; the script re-runs itself for the settings in SETTINGS)
"""
import argparse
import json
import os
import subprocess
import sys

import torch

BLOCK_MIB = 64
STEPS = [1, 4, 16]
SETTINGS = ["", "expandable_segments:True", "graph_capture_record_stream_reuse:True"]


def captured_reserved_mib(steps, record_stream):
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    before = torch.cuda.memory_reserved()
    side = torch.cuda.Stream()
    graph = torch.cuda.CUDAGraph()
    elements = BLOCK_MIB * 2**20 // 4
    warm = torch.ones(elements, device="cuda")
    with torch.cuda.graph(graph):
        for _ in range(steps):
            x = warm * 1.0  # a fresh block on the capture stream
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                x.mul_(2.0)
            if record_stream:
                x.record_stream(side)
            torch.cuda.current_stream().wait_stream(side)
            del x
    torch.cuda.synchronize()
    reserved = (torch.cuda.memory_reserved() - before) / 2**20
    del graph, warm
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return round(reserved, 1)


def child():
    rows = []
    for record_stream in (False, True):
        for steps in STEPS:
            try:
                rows.append({"record_stream": record_stream, "steps": steps,
                             "reserved_mib": captured_reserved_mib(steps, record_stream)})
            except RuntimeError as error:
                rows.append({"record_stream": record_stream, "steps": steps,
                             "error": str(error)[:300]})
    print(json.dumps({"PYTORCH_CUDA_ALLOC_CONF": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
                      "rows": rows}))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out")
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        child()
        return
    result = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "block_mib": BLOCK_MIB, "command": " ".join(sys.argv), "settings": []}
    for setting in SETTINGS:
        env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=setting)
        done = subprocess.run([sys.executable, __file__, "--child"], env=env,
                              capture_output=True, text=True, timeout=300)
        print(done.stdout.strip() or done.stderr[-800:], flush=True)
        try:
            result["settings"].append(json.loads(done.stdout.strip().splitlines()[-1]))
        except (json.JSONDecodeError, IndexError):
            result["settings"].append({"PYTORCH_CUDA_ALLOC_CONF": setting,
                                       "error": done.stderr[-800:]})
    with open(args.out, "w") as file:
        json.dump(result, file, indent=1)


if __name__ == "__main__":
    main()
