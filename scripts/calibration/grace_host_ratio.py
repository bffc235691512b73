#!/usr/bin/env python3
"""The host's per-op price on one platform over DGX H100's, from Megatron-LM's own CI.

Megatron-LM's functional tests (tests/functional_tests/test_cases/*/*) record each test's
per-iteration time on every platform they run on (golden_values_dev_dgx_<platform>.json,
"iteration-time"), with the same model_config.yaml and the same GPU count on each (the recipes
tests/test_utils/recipes/h100/gpt.yaml: 1 node x 8 GPUs; gb200/gpt.yaml: 2 nodes x 4 GPUs).
Most test models are tiny (hidden 512-1024, 4096 tokens a micro-batch): their GEMMs take a few
microseconds, far less than the host's tens of microseconds to issue each op, so an iteration
is the host's time to issue it and the ratio of two platforms' iteration times is the ratio of
their hosts' cost per op, measured on Megatron-Core's own layers, optimizer and logging.

Keeps the tests with hidden size <= 1024 and no CUDA graphs (which take host time away), takes
each test's median iteration time from step 5 on, and prints the median and quartiles over
tests of platform / dgx_h100.

Run: python3 grace_host_ratio.py MEGATRON_LM_GIT_DIR REV [PLATFORM]   (PLATFORM: dgx_gb200)

At each release tag it gives the ratio of host.by_release in presets/gpus/gb200.json (the goldens
at a tag were recorded with that release's Transformer Engine): core_v0.16.0 1.539 (71 tests),
core_v0.17.0 1.528 (75), core_v0.18.0 1.270 (77), core_v0.19.0 1.222 (77); tags before
core_v0.16.0 hold no dgx_gb200 goldens.
"""
import json
import re
import statistics
import subprocess
import sys


def main():
    git_dir, rev = sys.argv[1], sys.argv[2]
    platform = sys.argv[3] if len(sys.argv) > 3 else "dgx_gb200"

    def git(*args):
        result = subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True,
                                text=True)
        return result.stdout if result.returncode == 0 else None

    def show(path):
        return git("show", f"{rev}:{path}")

    def iteration_s(golden):
        values = json.loads(golden).get("iteration-time", {}).get("values", {})
        times = [t for step, t in values.items() if int(step) >= 5 and isinstance(t, (int, float))]
        return statistics.median(times) if times else None

    listing = git("ls-tree", "-r", "--name-only", rev, "tests/functional_tests/test_cases")
    name = f"golden_values_dev_{platform}.json"
    ratios = []
    for path in listing.split():
        if not path.endswith("/" + name):
            continue
        case = path.rsplit("/", 1)[0]
        reference = show(f"{case}/golden_values_dev_dgx_h100.json")
        config = show(f"{case}/model_config.yaml") or ""
        hidden = re.search(r"--hidden-size:\s*(\d+)", config)
        if reference is None or hidden is None or int(hidden.group(1)) > 1024:
            continue
        if "cuda-graph" in config or "cuda_graph" in config:
            continue
        other_s, h100_s = iteration_s(show(path)), iteration_s(reference)
        if other_s and h100_s:
            ratios.append(other_s / h100_s)
    quartiles = statistics.quantiles(ratios, n=4)
    print(f"{rev}: {platform} / dgx_h100 iteration time over {len(ratios)} host-bound tests: "
          f"median {statistics.median(ratios):.3f}, quartiles {quartiles[0]:.3f} "
          f"{quartiles[2]:.3f}")


if __name__ == "__main__":
    main()
