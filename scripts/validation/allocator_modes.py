#!/usr/bin/env python3
"""Writes which PyTorch allocator mode each launch with a known outcome ran with.

Each case of oom-outcomes.json and each recipe of the launch lists gets "expandable_segments":
true where its launch set PYTORCH_CUDA_ALLOC_CONF (PYTORCH_NPU_ALLOC_CONF on Ascend) to
expandable_segments:True, false where it ran PyTorch's default caching allocator; each file gets
"expandable_segments_source", the launch scripts read. Run from the repository root after the
scripts that make these files (they do not write the field): python3
scripts/validation/allocator_modes.py. The facts below are read from the sources named.
"""
import json
import re

DATA = "tests/validation/data/"

# Megatron-Bridge's performance launcher: scripts/performance/utils/executors.py PERF_ENV_VARS
# (slurm executor) leaves PYTORCH_CUDA_ALLOC_CONF unset; perf_plugins.py
# _set_model_specific_environment_variables sets expandable_segments:True only for Llama 3.1
# 405B pretraining on GB200 in fp8_cs/fp8_mx (v0.2.0 line 252, v0.3.0 line 269) and, from
# v0.3.0 (line 276), DeepSeek-V3 pretraining on H100.
BRIDGE = {
    "recipe-configs.json": (
        "NVIDIA-NeMo/Megatron-Bridge v0.2.0 scripts/performance/utils/executors.py PERF_ENV_VARS "
        "(no PYTORCH_CUDA_ALLOC_CONF) and perf_plugins.py:252 (expandable_segments:True for "
        "llama31 405b on gb200 in fp8_cs/fp8_mx)",
        lambda n: re.match(r"LLAMA31_405B_GB200_FP8_(CS|MX)_", n) is not None,
    ),
    "recipe-configs-26.02.json": (
        "NVIDIA-NeMo/Megatron-Bridge v0.3.0 scripts/performance/utils/executors.py PERF_ENV_VARS "
        "(no PYTORCH_CUDA_ALLOC_CONF) and perf_plugins.py:269,276 (expandable_segments:True for "
        "llama31_405b pretraining on gb200 in fp8_cs/fp8_mx, deepseek_v3 pretraining on h100)",
        lambda n: re.match(r"LLAMA31_405B_PRETRAIN_CONFIG_GB200_FP8_(CS|MX)_", n) is not None
        or n.startswith("DEEPSEEK_V3_PRETRAIN_CONFIG_H100_"),
    ),
}

# yanring/Megatron-MoE-ModelZoo e865051: run_deepseek_v3_gb200.sh:25, run_deepseek_v3_gb300.sh:25
# and run_kimi_k2_gb200_128k_G128.sh:29 export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
# for every launch after them; qwen3/run_gb200_235b.sh lines 36, 42, 45 set it on the line; the
# other scripts leave it unset.
ZOO_SOURCE = (
    "yanring/Megatron-MoE-ModelZoo e865051: run_deepseek_v3_gb200.sh:25, run_deepseek_v3_gb300.sh:25, "
    "run_kimi_k2_gb200_128k_G128.sh:29 export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; "
    "qwen3/run_gb200_235b.sh:36,42,45 set it on the launch line; no other script sets it")
ZOO_EXPANDABLE_SCRIPTS = ("best_practice/deepseek-v3/run_deepseek_v3_gb200.sh",
                          "best_practice/deepseek-v3/run_deepseek_v3_gb300.sh",
                          "best_practice/kimi-k2/run_kimi_k2_gb200_128k_G128.sh")
ZOO_EXPANDABLE_LINES = ("best_practice/qwen3/run_gb200_235b.sh:36",
                        "best_practice/qwen3/run_gb200_235b.sh:42",
                        "best_practice/qwen3/run_gb200_235b.sh:45")

# torchtitan's launcher sets it: run_llama_train.sh:22 at 9dec370 (the December 2024 benchmarks),
# run_train.sh:43 today (PYTORCH_ALLOC_CONF, the same setting's newer name).
TITAN_SOURCE = ("pytorch/torchtitan run_llama_train.sh:22 at 9dec370 "
                "(PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True\"); run_train.sh:43 at b5bcd76c")

# MindSpeed-LLM c77308a1 examples/mcore/*/pretrain_*.sh: the scripts below export
# PYTORCH_NPU_ALLOC_CONF=expandable_segments:True on their line 3-5; the others do not.
MINDSPEED_SOURCE = ("Ascend/MindSpeed-LLM c77308a1 examples/mcore/*/pretrain_*.sh: export "
                    "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True in the scripts marked true")
MINDSPEED_EXPANDABLE = {
    "examples/mcore/deepseek2_lite/pretrain_deepseek2_lite_16b_ptd_16p.sh",
    "examples/mcore/deepseek2_lite/pretrain_deepseek2_lite_16b_ptd_8p.sh",
    "examples/mcore/kimi2/pretrain_kimi2_18b_4k_8p_ptd.sh",
    "examples/mcore/ling_v2/pretrain_ling_mini_16b_4k_ptd.sh",
    "examples/mcore/qwen3/pretrain_qwen3_0point6b_4K_ptd.sh",
    "examples/mcore/qwen3/pretrain_qwen3_14b_4K_ptd.sh",
    "examples/mcore/qwen3/pretrain_qwen3_8b_4K_ptd.sh",
    "examples/mcore/qwen3_moe/pretrain_qwen3_30b_a3b_4K_ptd.sh",
}

# oom-outcomes.json: OOM01-RAN05 ran Megatron-Bridge's SFT launcher without the setting (PR #3107's
# skill: "the actual OOM fix was PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"); RAN06 (VPP 10)
# and RAN17 (OOM01's configuration) with it (the memory-tuning skill, "A Note on VPP": "The VPP=10
# run actually used slightly more peak memory (60.2 GB vs 58.8 GB) but did not OOM because
# expandable segments prevented fragmentation"; "Baseline + expandable_segments ... Passed");
# OOM07/RAN08
# DeepSeek-V3 pretraining on GB200 (perf_plugins.py:270-276 at 02b574d2, PR #3067's commit, sets
# it for deepseek_v3 pretraining on h100 and gb200); OOM09-RAN12 MindSpeed-LLM scripts export PYTORCH_NPU_ALLOC_CONF=
# expandable_segments:True (af8fab41^ and aec316b9^/aec316b9, line 3); OOM13 a Megatron-LM user
# launch (issue #606's script does not set it); OOM14/RAN16 ran Bridge's run_script.py directly,
# without the perf executor's environment, RAN15 is the maintainer's reference run with it (issue
# #4587).
OUTCOMES_SOURCE = (
    "OOM01-RAN05: Megatron-Bridge PR #3107 and its memory-tuning skill (the fix of the baseline "
    "was PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; the rows ran without it); RAN06 and "
    "RAN17: the same skill, 'A Note on VPP' (skills/nemo-mbridge-perf-memory-tuning/SKILL.md:150-154"
    " at 067f987d; skills/perf-techniques/memory-tuning/SKILL.md:100-104 at 8225f968): 'The VPP=10 "
    "run actually used slightly more peak memory (60.2 GB vs 58.8 GB) but did not OOM because "
    "expandable segments prevented fragmentation', and its row 'Baseline + expandable_segments', "
    "which ran with it; OOM07/RAN08: "
    "Megatron-Bridge 02b574d2 (PR #3067) scripts/performance/perf_plugins.py:270-276 "
    "(expandable_segments:True for deepseek_v3 pretraining on h100 and gb200); OOM09-RAN12: MindSpeed-LLM af8fab41^/af8fab41/aec316b9^/"
    "aec316b9 scripts, line 3: export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True; OOM13: "
    "Megatron-LM issue #606's script (unset); OOM14/RAN16: Megatron-Bridge issue #4587, "
    "run_script.py launched directly, which bypasses PerfEnvPlugin's PYTORCH_CUDA_ALLOC_CONF "
    "(unset); RAN15: the same issue's reference run with expandable_segments:True)")
OUTCOMES_EXPANDABLE = {"RAN06", "OOM07", "RAN08", "OOM09", "RAN10", "OOM11", "RAN12", "RAN15",
                       "RAN17"}


# fujii-4d-sweep.json: okoge-kaz/Megatron-LM's launch scripts of the sweep set no allocator setting.
FUJII_SOURCE = (
    "okoge-kaz/Megatron-LM e6c1be32 scripts/abci/Llama-3.1-8B/llama-3.1-8b-tp4-pp2.sh and 442bc922 "
    "scripts/tsubame/Llama-3.1-8B/llama-3.1-8B-tp2-pp2-te-v1.9.sh: no PYTORCH_CUDA_ALLOC_CONF")


def annotate(file, source, expandable, key="recipes", name="name"):
    with open(DATA + file) as f:
        document = json.load(f)
    document["expandable_segments_source"] = source
    for entry in document[key]:
        entry["expandable_segments"] = bool(expandable(entry[name]))
    with open(DATA + file, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")


def main():
    for file, (source, expandable) in BRIDGE.items():
        annotate(file, source, expandable)
    annotate("moe-model-zoo-configs.json", ZOO_SOURCE,
             lambda n: n.split(":")[0] in ZOO_EXPANDABLE_SCRIPTS or n in ZOO_EXPANDABLE_LINES)
    for file in ("torchtitan-configs.json", "torchtitan-async-tp-configs.json",
                 "torchtitan-h200-configs.json"):
        annotate(file, TITAN_SOURCE, lambda n: True)
    annotate("mindspeed-llm-configs.json", MINDSPEED_SOURCE, lambda n: n in MINDSPEED_EXPANDABLE)
    annotate("oom-outcomes.json", OUTCOMES_SOURCE, lambda i: i in OUTCOMES_EXPANDABLE, key="cases",
             name="id")
    annotate("fujii-4d-sweep.json", FUJII_SOURCE, lambda i: False, key="cases", name="id")


if __name__ == "__main__":
    main()
