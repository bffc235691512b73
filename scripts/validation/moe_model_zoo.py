#!/usr/bin/env python3
"""The Megatron-MoE-ModelZoo's best-practice launches as Paraplan scenarios.

NVIDIA's MoE model zoo (github.com/yanring/Megatron-MoE-ModelZoo) keeps the Megatron-LM launches
it benchmarked in best_practice/*/*.sh: environment settings before `bash sbatch_benchmarking.sh`
and Megatron-LM flags after it. Each ran, so each must fit in memory; the validation test checks
that the model agrees. Only the configurations are read here, never a throughput.

    python3 scripts/validation/moe_model_zoo.py MODEL_ZOO_GIT_DIR [--commit e865051] \
        > tests/validation/data/moe-model-zoo-configs.json

A launch whose GPU no script name or comment names, or whose model has no preset (Qwen3-Next),
is left out and listed under "skipped"; so is one that passes --offload-optimizer-states
(run_deepseek_v3_gb200.sh:39, run_kimi_k2_gb200_128k_G128.sh:42; "requires dev branch",
run_deepseek_v3_gb200.sh:12): Megatron-LM's dev-branch OptimizerStateOffloader (PR #2760,
6b157e0071, 2026-01-16; megatron/core/optimizer/cpu_offloading/optimizer_state_offloader.py, the
same at 9050d4c5fb^) moves
exp_avg, exp_avg_sq and the master weights to host memory for the forward and backward passes
(training.py train_step: offload_states, release_offloaded_gpu_states before the forward;
reload in finalize_model_grads), which no Paraplan strategy key states and Megatron-LM main
(d98e8a64dd) cannot launch, so the scenario would price a launch that never ran.
"""

import argparse
import json
import re
import shlex
from pathlib import Path

from layouts import stage_layers
from recipe_io import git, write_recipes

PRESETS = Path(__file__).resolve().parents[2] / "presets" / "models"

MODELS = {
    "DeepSeek-V3": "deepseek-v3",
    "Kimi-K2": "kimi-k2",
    "Qwen3-235B-A22B": "qwen3-235b-a22b",
    "Qwen3-30B-A3B": "qwen3-30b-a3b",
    "Mixtral-8x22B": "mixtral-8x22b",
}
GPUS = ("gb300", "gb200", "b200", "h100")  # longest names first: "gb200" contains "b200"


def model_defaults(runtime_conf):
    """runtime_configs/benchmarking/runtime.conf BENCHMARKING_MODEL_CONFIGS: TP PP EP CP VPP MBS
    GBS LAYERS DISPATCHER GROUPED_GEMM NNODES RUN_TIME PRETRAIN SLEN DATASET [PP_FIRST PP_LAST]."""
    names = ["TP", "PP", "EP", "CP", "VPP", "MBS", "GBS", "NUM_LAYERS", "MOE_TOKEN_DISPATCHER",
             "MOE_GROUPED_GEMM", "NNODES", "RUN_TIME", "PRETRAIN", "SEQ_LEN", "DATASET",
             "PP_FIRST", "PP_LAST"]
    defaults = {}
    for model, values in re.findall(r'\[([\w.-]+)\]="\s*([^"]*)"', runtime_conf):
        defaults[model] = dict(zip(names, values.split()))
    return defaults


def flag_values(args):
    """--flag value... pairs of the command line, each flag's values as a list."""
    flags, current = {}, None
    for word in args:
        if word.startswith("--"):
            current = word[2:]
            flags[current] = []
        elif current is not None:
            flags[current].append(word.strip("'\""))
    return flags


def scenario(env, flags, gpu, per_node, num_layers):
    tp, pp, ep, cp = (int(env[k]) for k in ("TP", "PP", "EP", "CP"))
    vpp = int(env.get("VPP", 1))
    pr = env.get("PR", "bf16")  # common.conf: PR=${PR:-"bf16"}
    dispatcher = env.get("DISPATCHER", "deepep")  # sbatch_benchmarking.sh: DISPATCHER default
    s = {
        "tensor_model_parallel_size": tp, "pipeline_model_parallel_size": pp,
        "virtual_pipeline_model_parallel_size": vpp, "context_parallel_size": cp,
        "expert_model_parallel_size": ep, "micro_batch_size": int(env["MBS"]),
        # model_configs/benchmarking/*.yaml: --expert-tensor-parallel-size 1,
        # --use-distributed-optimizer, --overlap-grad-reduce, --overlap-param-gather,
        # --sequence-parallel, --moe-grouped-gemm, --moe-permute-fusion,
        # --cross-entropy-loss-fusion (native)
        "expert_tensor_parallel_size": 1, "zero_stage": 1, "overlap_grad_reduce": True,
        "overlap_param_gather": True, "sequence_parallel": tp > 1, "use_flash_attn": True,
        "moe_grouped_gemm": True, "moe_permute_fusion": True, "cross_entropy_loss_fusion": True,
        "moe_token_dispatcher_type": "alltoall" if dispatcher == "alltoall" else "flex",
        "moe_router_force_load_balancing": "moe-router-force-load-balancing" in flags,
    }
    if dispatcher in ("deepep", "hybridep"):  # sbatch_benchmarking.sh: --moe-flex-dispatcher-backend
        s["moe_flex_dispatcher_backend"] = dispatcher
    if env.get("A2A_OVERLAP") == "1":  # --delay-wgrad-compute --overlap-moe-expert-parallel-comm
        s["overlap_moe_expert_parallel_comm"] = True
    if env.get("OPTIMIZER_OFFLOAD") == "1":  # --optimizer-cpu-offload --overlap-cpu-optimizer-d2h-h2d
        s.update({"optimizer_cpu_offload": True, "overlap_cpu_optimizer_d2h_h2d": True,
                  "use_precision_aware_optimizer": True})
    if pr in ("fp8", "mxfp8"):
        # --fp8-recipe blockwise (fp8) or mxfp8, --fp8-param-gather without the optimizer
        # offload, --use-precision-aware-optimizer with bf16 moments
        s.update({"fp8_recipe": "blockwise" if pr == "fp8" else "mxfp8",
                  "use_precision_aware_optimizer": True, "exp_avg_dtype": "bf16",
                  "exp_avg_sq_dtype": "bf16",
                  "fp8_param_gather": env.get("OPTIMIZER_OFFLOAD") != "1"})
    elif tp > 1:
        s["tp_comm_overlap"] = True  # PR bf16: --tp-comm-overlap
    granularity = flags.get("recompute-granularity", [None])[0]
    if granularity == "full":
        s.update({"recompute_granularity": "full",
                  "recompute_method": flags.get("recompute-method", ["uniform"])[0],
                  "recompute_num_layers": int(flags.get("recompute-num-layers", ["1"])[0])})
    elif granularity == "selective":
        s.update({"recompute_granularity": "selective",
                  "recompute_modules": flags.get("recompute-modules", ["core_attn"])})
    # --cuda-graph-impl transformer_engine --cuda-graph-scope ...; --external-cuda-graph is its
    # deprecated spelling (Megatron-LM arguments.py: "use --cuda-graph-impl=transformer_engine").
    impl = flags.get("cuda-graph-impl", ["transformer_engine" if "external-cuda-graph" in flags
                                         else "none"])[0]
    if impl != "none":
        s.update({"cuda_graph_impl": impl, "cuda_graph_scope": flags.get("cuda-graph-scope", [])})
    if "fine-grained-activation-offloading" in flags:
        s["offload_modules"] = flags["offload-modules"]
    model_mtp = 0  # no --mtp-num-layers: no multi-token prediction
    if "pipeline-model-parallel-layout" in flags:
        layers, virtual, mtp = stage_layers(flags["pipeline-model-parallel-layout"][0], pp)
        s["pipeline_stage_layers"], s["virtual_pipeline_model_parallel_size"] = layers, virtual
        model_mtp = 1 if mtp else model_mtp
    elif env.get("PP_FIRST", "false") != "false" and num_layers % pp != 0:
        # --decoder-first-pipeline-num-layers PP_FIRST --decoder-last-pipeline-num-layers PP_LAST
        first, last = int(env["PP_FIRST"]), int(env["PP_LAST"])
        middle = (num_layers - first - last) // (pp - 2)
        s["pipeline_stage_layers"] = [first] + [middle] * (pp - 2) + [last]
    if "mtp-num-layers" in flags:
        model_mtp = int(flags["mtp-num-layers"][0])
    model = MODELS[env["MODEL"]]
    preset = json.load(open(PRESETS / f"{model}.json"))["model"]
    if preset.get("mtp_num_layers", 0) != model_mtp:
        model = dict(preset, mtp_num_layers=model_mtp)
    return {
        "model": model,
        "cluster": {"gpus_per_node": per_node,
                    "gpus": [{"type": gpu, "count": int(env["NNODES"]) * per_node}]},
        "training": {"global_batch_size": int(env["GBS"]), "seq_length": int(env["SEQ_LEN"]),
                     "precision": "bf16" if pr == "bf16" else "fp8"},
        "strategy": s,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", help="a clone (or bare git directory) of Megatron-MoE-ModelZoo")
    parser.add_argument("--commit", default="e865051", help="commit (e865051: 2026-05-16)")
    args = parser.parse_args()
    defaults = model_defaults(git(args.git_dir, "show",
                                  f"{args.commit}:runtime_configs/benchmarking/runtime.conf"))
    scripts = [path for path in git(args.git_dir, "ls-tree", "-r", "--name-only", args.commit,
                                    "best_practice/").split() if path.endswith(".sh")]
    launches, skipped = [], []
    for path in scripts:
        text = git(args.git_dir, "show", f"{args.commit}:{path}").replace("\\\n", " ")
        exported, gpu = {}, next((g for g in GPUS if g in path.lower()), None)
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if line.startswith("#"):
                named = next((g for g in GPUS if re.search(rf"\b{g}\b", line.lower())), None)
                gpu = named or gpu
                continue
            export = re.match(r"export (\w+)=(?:\$\{\w+:-\"?([^}\"]*)\"?\}|\"?([^\s\"]*)\"?)", line)
            if export:
                exported[export.group(1)] = export.group(2) if export.group(2) is not None \
                    else export.group(3)
                continue
            if "sbatch_benchmarking.sh" not in line:
                continue
            words = shlex.split(line, comments=True)
            at = next(i for i, w in enumerate(words) if w.endswith("sbatch_benchmarking.sh"))
            env = dict(exported)
            env.update(w.split("=", 1) for w in words[:at] if re.match(r"^\w+=", w))
            name = f"{path}:{number}"
            model = env.get("MODEL")
            if model not in MODELS or gpu is None:
                skipped.append(f"{name} ({model if model not in MODELS else 'no GPU named'})")
                continue
            flags = flag_values(words[at + 1:])
            if "offload-optimizer-states" in flags:
                skipped.append(f"{name} (--offload-optimizer-states: Megatron-LM dev branch)")
                continue
            base = defaults[model]
            for key, value in base.items():
                env.setdefault(key, value)
            # GB200_CLUSTER=1 and the comments ("GB200 ... 128 GPUs" for 32 nodes): 4 GPUs a
            # host on Grace-Blackwell, 8 on HGX.
            per_node = 4 if gpu in ("gb200", "gb300") else 8
            launches.append({"name": name, "scenario": scenario(
                env, flags, gpu, per_node, int(base["NUM_LAYERS"]))})
    write_recipes(f"yanring/Megatron-MoE-ModelZoo {args.commit} best_practice/*/*.sh "
                  "(configurations only), made by scripts/validation/moe_model_zoo.py",
                  launches, skipped)


if __name__ == "__main__":
    main()
