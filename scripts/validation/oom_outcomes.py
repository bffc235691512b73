#!/usr/bin/env python3
"""Real out-of-memory outcomes, and the fixes that then ran, as scenarios with their evidence.

Each case is a configuration somebody launched and what happened: "oom" (CUDA/NPU out of memory)
or "ran" (the fix that made it run, or a sibling the same thread measured). The configurations
come from the framework's own files at the commit the thread names, so nothing is guessed but
what `assumptions` lists, each with its rule:

- Megatron-Bridge (NVIDIA-NeMo/Megatron-Bridge): its performance harness
  (scripts/performance/configs/*/*_workload_base_configs.py) and the PR/commit that changed it to
  stop an out-of-memory, with the peak memory its skill docs recorded;
- MindSpeed-LLM (Ascend/MindSpeed-LLM): example launches (examples/mcore/*/*.sh) before and
  after the commit that fixed their out-of-memory, read by mindspeed_llm.py's parser;
- Megatron-LM issues with the launch script in the thread.

    python3 scripts/validation/oom_outcomes.py MINDSPEED_LLM_GIT_DIR \\
        > tests/validation/data/oom-outcomes.json
"""

import argparse
import copy
import json
import sys

from mindspeed_llm import expand, flags, scenario
from recipe_io import git

BRIDGE = "https://github.com/NVIDIA-NeMo/Megatron-Bridge"
MINDSPEED = "https://github.com/Ascend/MindSpeed-LLM"

# Megatron-Bridge's Llama 3 70B SFT on 32 H100 80GB, FP8 current scaling, as its performance
# harness built it at 7b6203f (PR #3107's base): scripts/performance/configs/llama/
# llama3_workload_base_configs.py `_LLAMA3_70B_SFT_CONFIG_H100` (TP 4, PP 4, VPP 5, MBS 1,
# GBS 32, 32 GPUs) and `LLAMA3_70B_SFT_CONFIG_H100_FP8_CS_V1` (recompute_modules ["core_attn"],
# TE CUDA graphs of the MLP); llama3_llm_finetune.py llama3_70b_sft_config_h100 (seq 4096 packed,
# distributed optimizer, grad_reduce_in_fp32 False, tp_comm_overlap when TP > 1); utils.py
# WorkloadBaseConfig.sequence_parallel = TP > 1; precision.py fp8_cs =
# bf16_with_fp8_current_scaling_mixed (tensorwise, fp8_param_gather), as recipe-configs*.json;
# llama3_70b_sft_config_h100's CommOverlapConfig(defer_embedding_wgrad_compute=True,
# wgrad_deferral_limit=22) (llama3_llm_finetune.py at 39b4a5b49, set from c3e43e6aa to c8327cfc2).
LLAMA3_70B_SFT_H100 = {
    "model": "llama3-70b",
    "framework": "megatron-bridge",
    "training": {"global_batch_size": 32, "seq_length": 4096, "precision": "fp8"},
    "cluster": {"gpus_per_node": 8, "gpus": [{"type": "h100", "count": 32}]},
    "strategy": {
        "tensor_model_parallel_size": 4, "pipeline_model_parallel_size": 4,
        "virtual_pipeline_model_parallel_size": 5, "context_parallel_size": 1,
        "expert_model_parallel_size": 1, "micro_batch_size": 1, "sequence_parallel": True,
        "zero_stage": 1, "overlap_grad_reduce": True, "overlap_param_gather": True,
        "use_flash_attn": True, "grad_reduce_in_bf16": True, "cross_entropy_loss_fusion": True,
        "cross_entropy_fusion_impl": "te", "tp_comm_overlap": True, "fp8_recipe": "tensorwise",
        "fp8_param_gather": True, "recompute_granularity": "selective",
        "recompute_modules": ["core_attn"], "cuda_graph_impl": "transformer_engine",
        "cuda_graph_scope": ["mlp"], "defer_embedding_wgrad_compute": True,
        "wgrad_deferral_limit": 22,
    },
}
SFT_ASSUMPTIONS = [
    "packed SFT sequences of 4096 tokens priced as pretraining sequences of 4096 (pad_to_max_length"
    " in llama3_llm_finetune.py pads each pack to 4096)",
    "TE CUDA graphs of the MLP (cuda_graph_impl transformer_engine, scope mlp) priced by their "
    "static buffers (cuda_graph_memory.cpp); the graph pool's own fragmentation, and the pool "
    "being closed to eager allocations, are not priced",
    "'Peak Mem (GB)' of the skill's table read as Megatron-LM's max allocated memory on rank 0 "
    "(the skill compares it across runs as allocated memory)",
]
SFT_SKILL = (BRIDGE + "/blob/main/skills/nemo-mbridge-perf-memory-tuning/SKILL.md (commit 8225f968"
             "'s skills/perf-techniques/memory-tuning/SKILL.md: 'Strategy comparison') and "
             "skills/nemo-mbridge-perf-activation-recompute/SKILL.md")


def llama3_70b_sft(case_id, name, outcome, evidence, peak_gb, **strategy):
    scenario_doc = copy.deepcopy(LLAMA3_70B_SFT_H100)
    scenario_doc["strategy"].update(strategy)
    return {
        "id": case_id, "name": name, "outcome": outcome,
        "source": BRIDGE + "/pull/3107 and " + SFT_SKILL,
        "evidence": evidence,
        "reported": {"peak_gb": peak_gb, "kind": "allocated", "rank": 0},
        "assumptions": SFT_ASSUMPTIONS,
        "scenario": scenario_doc,
    }


# Megatron-Bridge's DeepSeek-V3 pretraining on 256 GB200, bf16, as recipe-configs-26.02.json
# holds DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_BF16_V1 (scripts/validation/bridge_recipes.py), which
# PR #3067 (02b574d2) made out of DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_V1 (recompute_modules ["mlp"])
# by setting recompute_modules ["mla_up_proj"].
DEEPSEEK_V3_GB200_BF16 = {
    "model": "deepseek-v3",
    "framework": "megatron-bridge",
    "training": {"global_batch_size": 2048, "seq_length": 4096, "precision": "bf16"},
    "cluster": {"gpus_per_node": 4, "gpus": [{"type": "gb200", "count": 256}]},
    "strategy": {
        "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 4,
        "virtual_pipeline_model_parallel_size": 4, "context_parallel_size": 1,
        "expert_model_parallel_size": 64, "micro_batch_size": 1, "sequence_parallel": False,
        "zero_stage": 1, "overlap_grad_reduce": True, "overlap_param_gather": True,
        "use_flash_attn": True, "grad_reduce_in_bf16": True, "cross_entropy_loss_fusion": True,
        "cross_entropy_fusion_impl": "te", "expert_tensor_parallel_size": 1,
        "moe_router_force_load_balancing": True, "moe_grouped_gemm": True,
        "moe_permute_fusion": True, "moe_token_dispatcher_type": "flex",
        "moe_flex_dispatcher_backend": "hybridep",
        "recompute_granularity": "selective", "recompute_modules": ["mla_up_proj"],
        "pipeline_stage_layers": [16, 16, 16, 13], "cuda_graph_impl": "transformer_engine",
        "cuda_graph_scope": ["attn", "moe_router", "moe_preprocess"],
    },
}


def deepseek_v3_gb200(case_id, name, outcome, evidence, modules):
    scenario_doc = copy.deepcopy(DEEPSEEK_V3_GB200_BF16)
    scenario_doc["strategy"]["recompute_modules"] = modules
    return {
        "id": case_id, "name": name, "outcome": outcome,
        "source": BRIDGE + "/pull/3067 (commit 02b574d2, scripts/performance/configs/deepseek/"
                  "deepseek_workload_base_configs.py)",
        "evidence": evidence,
        "assumptions": [
            "the recipe's other settings as recipe-configs-26.02.json prices "
            "DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_BF16_V1 (force-balanced routing, flex dispatcher, "
            "DeepSeek-V3 without MTP, stages of 16/16/16/13 layers): see "
            "tests/validation/stated_settings.cpp "
            "with_bridge_moe",
            "TE CUDA graphs of attn, moe_router and moe_preprocess (cuda_graph_impl "
            "transformer_engine) as recipe-configs-26.02.json holds them, priced by their static "
            "buffers (cuda_graph_memory.cpp); HybridEP's buffers are not priced",
        ],
        "scenario": scenario_doc,
    }


# Megatron-Bridge's Qwen3 30B-A3B pretraining on one node of 8 B300 as v0.5.0 (2026-06-16, the
# NeMo 26.06 container's) scripts/performance/configs/qwen/qwen3_workload_base_configs.py sets
# QWEN3_30B_A3B_PRETRAIN_CONFIG_B300_{BF16,FP8_MX}_V1 (EP 8, micro-batch 8, global batch 512,
# HybridEP flex dispatcher; FP8_MX adds moe_a2a_overlap and full-iteration CUDA graphs) and
# qwen3_llm_pretrain.py set_qwen3_common_configs (no recompute, moe_router_fusion, sequence 4096,
# bf16 gradient reduction, forced load balancing); the other settings as recipe-configs-26.02.json
# holds the same recipes (scripts/validation/bridge_recipes.py).
QWEN3_30B_B300 = {
    "model": "qwen3-30b-a3b",
    "framework": "megatron-bridge",
    "training": {"global_batch_size": 512, "seq_length": 4096, "precision": "bf16"},
    "cluster": {"gpus_per_node": 8, "gpus": [{"type": "b300", "count": 8}]},
    "strategy": {
        "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1,
        "virtual_pipeline_model_parallel_size": 1, "context_parallel_size": 1,
        "expert_model_parallel_size": 8, "micro_batch_size": 8, "sequence_parallel": False,
        "zero_stage": 1, "overlap_grad_reduce": True, "overlap_param_gather": True,
        "use_flash_attn": True, "grad_reduce_in_bf16": True, "cross_entropy_loss_fusion": True,
        "cross_entropy_fusion_impl": "te", "expert_tensor_parallel_size": 1,
        "moe_router_force_load_balancing": True, "moe_grouped_gemm": True,
        "moe_permute_fusion": True, "moe_token_dispatcher_type": "flex",
        "moe_flex_dispatcher_backend": "hybridep", "moe_router_fusion": True,
        "cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["moe_router", "moe_preprocess"],
    },
}
QWEN3_30B_B300_SOURCE = (
    BRIDGE + "/issues/4587 ('Qwen3-30B-A3B fp8_mx pretrain OOMs with official defaults on 8x "
    "B300, while bf16 and nvfp4 run successfully', container nemo:26.06.00) and "
    "scripts/performance/configs/qwen/qwen3_workload_base_configs.py at v0.5.0")
QWEN3_30B_B300_ASSUMPTIONS = [
    "the recipe as Megatron-Bridge v0.5.0 (2026-06-16) sets it, the release of the thread's "
    "container; the settings recipe-configs-26.02.json holds for the same recipe where v0.5.0 "
    "does not change them",
    "HybridEP priced as the flex dispatcher (DeepEP's buffers); HybridEP's own buffers are not "
    "priced",
]


def qwen3_30b_b300(case_id, name, outcome, evidence, mxfp8, perf_environment=False):
    scenario_doc = copy.deepcopy(QWEN3_30B_B300)
    assumptions = list(QWEN3_30B_B300_ASSUMPTIONS)
    if mxfp8:
        scenario_doc["training"]["precision"] = "fp8"
        scenario_doc["strategy"].update({
            "fp8_recipe": "mxfp8", "fp8_param_gather": True, "overlap_param_gather": False,
            "overlap_moe_expert_parallel_comm": True, "delay_wgrad_compute": True,
            "cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"]})
        assumptions.append(
            "FP8_MX_V1 = replace(FP8_CS_V1, moe_a2a_overlap=True, cuda_graph_impl="
            "'full_iteration', cuda_graph_scope=[], cutedsl_fused_grouped_mlp=True, "
            "fp8_dot_product_attention=True): the A2A overlap with delay_wgrad_compute as "
            "Bridge's _set_moe_a2a_overlap_overrides sets it, the full-iteration graph as "
            "cuda_graph_scope full_iteration; the CuTe DSL grouped MLP and fp8 attention are not "
            "expressible (priced as TE's grouped GEMM and bf16 attention)")
    if perf_environment:
        scenario_doc["strategy"]["graph_capture_record_stream_reuse"] = True
        assumptions.append(
            "the performance executor's PerfEnvPlugin launches it with PYTORCH_CUDA_ALLOC_CONF="
            "expandable_segments:True,graph_capture_record_stream_reuse:True (issue #4587; "
            "Megatron-Bridge perf_recipes/qwen/gb200/qwen3_moe.py _FULL_ITER_ENV_VARS): "
            "graph_capture_record_stream_reuse stated")
    return {
        "id": case_id, "name": name, "outcome": outcome,
        "source": QWEN3_30B_B300_SOURCE,
        "evidence": evidence,
        "assumptions": assumptions,
        "scenario": scenario_doc,
    }


def mindspeed(git_dir, case_id, name, outcome, commit, path, evidence, assumptions=(),
              **overrides):
    text, values = expand(git(git_dir, "show", f"{commit}:{path}"))
    scenario_doc = scenario(path, flags(text), values)
    for key, value in overrides.items():
        section, field = key.split("__")
        scenario_doc[section][field] = value
    return {
        "id": case_id, "name": name, "outcome": outcome,
        "source": f"{MINDSPEED} commit {commit} {path}",
        "evidence": evidence,
        "assumptions": list(assumptions),
        "scenario": scenario_doc,
    }


# Threads read and left out, and why.
SKIPPED = [
    MINDSPEED + " !2794 (7866e769) 'fix oom of tune of qwen25-32b', "
    "examples/mcore/qwen25/tune_qwen25_32b_4k_full_ptd.sh: the launch passes "
    "--variable-seq-lengths (each micro-batch padded to its longest sample, not to --seq-length "
    "4096), so the sequence length that ran out of memory, and the one that then fitted with "
    "--swap-attention, depend on the data set and are not stated",
    BRIDGE + " #2971 and #3188 (Llama 3 70B SFT on GB300/H100, Llama 3.1 405B pretraining on "
    "GB300): the fix is PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True and "
    "NCCL_GRAPH_REGISTER=0 alone, with the configuration unchanged; the failing runs' peak is "
    "not published",
    BRIDGE + " Llama 3 70B LoRA OOM fixes (#3223 and siblings): LoRA (frozen base weights, no "
    "optimizer state for them) is not an input of Paraplan",
    BRIDGE + " #5356 (Qwen3-30B-A3B on B200, fp8-mx): out of memory from full-iteration CUDA "
    "graphs, which Paraplan does not take as an input",
    BRIDGE + " skills/nemo-mbridge-perf-activation-recompute/SKILL.md's Nemotron 3 Nano "
    "table (OOM without moe recompute, 16 H100): hybrid Mamba model, no preset and no Mamba "
    "layers in Paraplan",
    "https://github.com/NVIDIA/Megatron-LM/issues/1308 (Llama 3 70B on 16 x 80 GB 'tried all "
    "possible settings'), #783 (Llama 2 70B on one H100), #525 (GPT-2 774M on V100, launch "
    "script behind a link), #637 (GPT-30B fp8 OOM after 10 iterations: no parallel sizes), "
    "microsoft/DeepSpeed #4385 (1.7B model: shape not in the thread): configuration not stated",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mindspeed_git_dir")
    args = parser.parse_args()
    ms = args.mindspeed_git_dir
    cases = [
        llama3_70b_sft(
            "OOM01", "Llama 3 70B SFT, 32 H100, fp8-cs, TP4 PP4 VPP5 DP2, recompute core_attn",
            "oom",
            "PR #3107: 'Fix OOM on llama3_70b_32gpu_h100_fp8_cs_50steps_perf_finetune_sft ... "
            "flaky OOMing ~30-60% of runs on H100 80GB ... a pre-existing borderline memory "
            "issue, not a commit regression'; skill table: 'Baseline | 4 | 4 | 5 | 2 | ~704 | "
            "-0.8% | 58.8 | OOM (fragmentation)', 'the actual OOM fix was "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True'",
            58.8),
        llama3_70b_sft(
            "OOM02", "Llama 3 70B SFT, 32 H100, fp8-cs, TP4 PP4 VPP5, recompute core_attn+layernorm",
            "oom",
            "activation-recompute skill: 'Exp 3 | [core_attn, layernorm] | ~702 | -1.1% | 59.6 "
            "(OOM rank0) | OOM'",
            59.6, recompute_modules=["core_attn", "layernorm"]),
        llama3_70b_sft(
            "RAN03", "Llama 3 70B SFT, 32 H100, fp8-cs, TP4 PP4 VPP5, recompute mlp", "ran",
            "activation-recompute skill: 'Exp 1 | [mlp] | 593.6 | -16.4% | 55.6 | Perf "
            "regression'",
            55.6, recompute_modules=["mlp"]),
        llama3_70b_sft(
            "RAN04", "Llama 3 70B SFT, 32 H100, fp8-cs, TP4 PP8 VPP5 DP1, recompute core_attn",
            "ran", "memory-tuning skill: 'More PP | 4 | 8 | 5 | 1 | 668.0 | -5.9% | 53.2 | "
            "Borderline perf'",
            53.2, pipeline_model_parallel_size=8),
        llama3_70b_sft(
            "RAN05", "Llama 3 70B SFT, 32 H100, fp8-cs, TP8 PP4 VPP5 DP1, recompute core_attn",
            "ran", "memory-tuning skill: 'More TP | 8 | 4 | 5 | 1 | 508.7 | -28.4% | 50.2 | "
            "Severe regression'",
            50.2, tensor_model_parallel_size=8),
        llama3_70b_sft(
            "RAN06", "Llama 3 70B SFT, 32 H100, fp8-cs, TP4 PP4 VPP10 DP2, recompute core_attn",
            "ran", "PR #3107: '**TP=4 PP=4 VPP=10 (DP=2)** | **Passed**'; memory-tuning skill: "
            "'The VPP=10 run actually used slightly **more** peak memory (60.2 GB vs 58.8 GB)'",
            60.2, virtual_pipeline_model_parallel_size=10),
        deepseek_v3_gb200(
            "OOM07", "DeepSeek-V3, 256 GB200, bf16, PP4 VPP4 EP64, recompute mlp", "oom",
            "PR #3067 'restore bf16 mapping for OOM': 'recompute mlp OOM for bf16, revert back "
            "to recompute mla_up_proj' (DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_V1 set "
            "recompute_modules=[\"mlp\"])",
            ["mlp"]),
        deepseek_v3_gb200(
            "RAN08", "DeepSeek-V3, 256 GB200, bf16, PP4 VPP4 EP64, recompute mla_up_proj", "ran",
            "PR #3067's fix: DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_BF16_V1 = replace(..., "
            "recompute_modules=[\"mla_up_proj\"]); the v0.3.0 release's performance table has "
            "its row",
            ["mla_up_proj"]),
        mindspeed(
            ms, "OOM09", "Mixtral 8x22B 32k, 64 Ascend 910B, TP8 PP4 VPP7 CP2, swap-attention, "
            "no recompute", "oom", "af8fab41^",
            "examples/mcore/mixtral/pretrain_mixtral_8x22b_32k_ptd.sh",
            "MindSpeed-LLM !2517 'fix mixtral oom' (af8fab41, 2025-04-09; also !2460 '[BugFix] "
            "Mixtral OOM' on master): removes '--swap-attention --recompute-method block "
            "--recompute-num-layers 30'",
            ["--recompute-method block --recompute-num-layers 30 without --recompute-granularity"
             " recomputes nothing (Megatron-LM arguments.py: recompute_method applies only with "
             "recompute_granularity full)"]),
        mindspeed(
            ms, "RAN10", "Mixtral 8x22B 32k, 64 Ascend 910B, TP8 PP4 VPP7 CP2, full recompute",
            "ran", "af8fab41", "examples/mcore/mixtral/pretrain_mixtral_8x22b_32k_ptd.sh",
            "!2517's fix: '--recompute-granularity full --recompute-method uniform "
            "--recompute-num-layers 1'"),
        mindspeed(
            ms, "OOM11", "Llama 3.1 405B 128k, 768 Ascend 910B, TP16 PP12 CP4, no distributed "
            "optimizer, no recompute", "oom", "aec316b9^",
            "examples/mcore/llama31/pretrain_llama31_405b_128k_ptd.sh",
            "MindSpeed-LLM !2821 '[pytorch][bugfix]fix 405b-128k oom' (aec316b9, 2025-06-16)",
            ["vocabulary 128256: the script reads it from Llama 3.1's tokenizer "
             "(--tokenizer-type PretrainedFromHF, --make-vocab-size-divisible-by 1)",
             "--num-layer-list 8,11,...,11,8 as pipeline_stage_layers"],
            model__vocab_size=128256,
            strategy__pipeline_stage_layers=[8, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 8]),
        mindspeed(
            ms, "RAN12", "Llama 3.1 405B 128k, 576 Ascend 910B, TP16 PP9 CP4, distributed "
            "optimizer, swap-attention, full recompute", "ran", "aec316b9",
            "examples/mcore/llama31/pretrain_llama31_405b_128k_ptd.sh",
            "!2821's fix: NNODES 48->36, PP 12->9, '--num-layer-list 12,12,12,15,15,15,15,15,15',"
            " '--reuse-fp32-param ... --use-distributed-optimizer --swap-attention "
            "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1', "
            "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
            ["vocabulary 128256 (Llama 3.1's tokenizer)",
             "--num-layer-list as pipeline_stage_layers"],
            model__vocab_size=128256,
            strategy__pipeline_stage_layers=[12, 12, 12, 15, 15, 15, 15, 15, 15]),
        {
            "id": "OOM13",
            "name": "Llama 2 7B, 8 A100 40GB, TP1 PP1, seq 64, micro-batch 1",
            "outcome": "oom",
            "source": "https://github.com/NVIDIA/Megatron-LM/issues/606",
            "evidence": "'[QUESTION] CUDA OOM error when finetuning LLAMA2-7b with A100 40G and "
                        "seq_length 64.': 'TP=1 PP=1 GPUS_PER_NODE=8 ... HIDDEN_SIZE=4096 "
                        "FFN_HIDDEN_SIZE=11008 NUM_LAYERS=32 NUM_HEADS=32 SEQ_LENGTH=64 "
                        "NUM_KV_HEADS=32 MICRO_BATCH_SIZE=1 GLOBAL_BATCH_SIZE=8'",
            "assumptions": [
                "one node of 8 GPUs (GPUS_PER_NODE=8; NNODES=${WORLD_SIZE} of the job, not "
                "stated): data parallel 8",
                "bf16 and no --use-distributed-optimizer: the thread's excerpt ends before the "
                "precision and optimizer flags (Megatron-LM defaults: fp32 without --bf16, no "
                "distributed optimizer); either way 7B parameters need more than 40 GB",
            ],
            "scenario": {
                "model": "llama2-7b",
                "framework": "megatron",
                "training": {"global_batch_size": 8, "seq_length": 64, "precision": "bf16"},
                "cluster": {"gpus_per_node": 8, "gpus": [{"type": "a100-40g", "count": 8}]},
                "strategy": {"tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1,
                             "micro_batch_size": 1, "zero_stage": 0,
                             "recompute_granularity": "none", "use_flash_attn": False},
            },
        },
        qwen3_30b_b300(
            "OOM14", "Qwen3 30B-A3B, 8 B300, mxfp8, EP8, full-iteration CUDA graph, default "
            "allocator", "oom",
            "issue #4587: 'the same official recipe with --compute_dtype fp8_mx consistently runs "
            "into CUDA OOM'; maintainer: 'after iteration 1, the failing run reports about 60.9 GB "
            "inactive and 268.9 GB reserved, then falls roughly 2.2 GiB short on the next 9.27 GiB "
            "allocation', launched by run_script.py directly, which 'bypasses the performance "
            "executor and PerfEnvPlugin, which normally inject the allocator and CUDA-graph "
            "environment' (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,"
            "graph_capture_record_stream_reuse:True)",
            True),
        qwen3_30b_b300(
            "RAN15", "Qwen3 30B-A3B, 8 B300, mxfp8, EP8, full-iteration CUDA graph, expandable "
            "segments", "ran",
            "issue #4587, maintainer: 'The resolved workload configuration is the same in both "
            "cases ... The reference run has 0 inactive memory at the same point and completes "
            "all 50 steps'",
            True, perf_environment=True),
        qwen3_30b_b300(
            "RAN16", "Qwen3 30B-A3B, 8 B300, bf16, EP8, TE graphs of the router, default "
            "allocator", "ran",
            "issue #4587: 'With the official/default configuration, bf16 and nvfp4 pretraining "
            "can run successfully', launched the same way (run_script.py without the perf "
            "executor's environment)",
            False),
        llama3_70b_sft(
            "RAN17", "Llama 3 70B SFT, 32 H100, fp8-cs, TP4 PP4 VPP5 DP2, recompute core_attn, "
            "expandable segments", "ran",
            "memory-tuning skill: 'Baseline + expandable_segments | 4 | 4 | 5 | 2 | ~704 | -0.8% "
            "| ~59 | **Passed**' (OOM01's configuration; the skill gives the peak as ~59 GB)",
            59.0),
    ]
    document = {
        "source": "Real out-of-memory outcomes and the fixes that ran, from public threads and "
                  "the commits that changed a launch to stop an out-of-memory; made by "
                  "scripts/validation/oom_outcomes.py",
        "cases": cases,
        "skipped": SKIPPED,
    }
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
