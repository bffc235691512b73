#!/usr/bin/env python3
"""MindSpeed-LLM's example pretraining launches for Atlas 800T A2 (Ascend 910B) as scenarios.

MindSpeed-LLM (github.com/Ascend/MindSpeed-LLM) keeps one launch script per model and size in
examples/mcore/*/pretrain_*.sh: shell variables (TP=8, MBS=2, ...) and the flags of
pretrain_gpt.py. The ones without an "_A3" suffix target Atlas 800T A2 (8 NPUs of 64 GB per
node); each is a configuration its maintainers ran, so each must fit in memory, which the
validation test checks. Only configurations are read, never a throughput.

    python3 scripts/validation/mindspeed_llm.py MINDSPEED_LLM_GIT_DIR [--commit c77308a1] \\
        > tests/validation/data/mindspeed-llm-configs.json

A launch using what Paraplan does not model (DualPipe, no-op layers, linear attention, logit
soft-capping, optimizer swapping) is left out and listed under "skipped" with why.
--swap-attention is Megatron-LM's fine-grained activation offloading of the attention block and
both norms; --reuse-fp32-param is reuse_fp32_param (the bf16 weights share the fp32 masters'
memory).
One memory saving is priced without, so the model can only over-estimate those launches:
--recompute-activation-function on a dense MLP.
"""

import argparse
import re
import shlex

from recipe_io import git, write_recipes

# Flags whose launches are left out, and why.
UNMODELLED = {
    "schedules-method": "DualPipe schedule",
    "noop-layers": "no-op layers",
    "swap-optimizer": "optimizer swapping to host memory",
    "interleave-sliding-window": "Gemma 2's layer spec (GeGLU from --gelu-tanh, soft-capping)",
    "gated-deltanet": "linear attention",
    "swap-modules": "--swap-attention with other modules than its default",
}


def expand(text):
    """The script with comments dropped and its simple NAME=value variables substituted."""
    lines = [line.split(" #")[0] for line in text.splitlines() if not line.lstrip().startswith("#")]
    text = "\n".join(lines)
    values = {}
    for name, value in re.findall(r"^([A-Z_][A-Z0-9_]*)=([^\s\"'$]+|'[^']*'|\"[^\"$]*\")\s*$", text,
                                  re.M):
        values[name] = value.strip("'\"")
    for _ in range(3):
        text = re.sub(r"\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)",
                      lambda m: values.get(m.group(1) or m.group(2), m.group(0)), text)
    return text, values


def flags(text):
    """--flag value... pairs of every argument block, each flag's values as a list."""
    # The argument blocks are quoted shell variables (GPT_ARGS="--num-layers 64 ..."): unquote.
    words = shlex.split(text.replace("\\\n", " ").replace('"', " "), posix=True)
    out, current = {}, None
    for word in words:
        if word.startswith("--"):
            current = word[2:]
            out[current] = []
        elif current is not None and not re.match(r"^[A-Z_]+=", word):
            out[current].append(word)
    return out


def number(f, name, default=None):
    values = f.get(name)
    if not values:
        return default
    return int(values[0])


def scenario(path, f, values):
    layers = number(f, "num-layers")
    heads = number(f, "num-attention-heads")
    hidden = number(f, "hidden-size")
    model = {
        "name": path.split("/")[-1],
        "num_layers": layers,
        "hidden_size": hidden,
        "ffn_hidden_size": number(f, "ffn-hidden-size"),
        "num_attention_heads": heads,
        "num_query_groups": number(f, "num-query-groups", heads) if "group-query-attention" in f
        or "num-query-groups" in f else heads,
        "vocab_size": number(f, "padded-vocab-size") or number(f, "vocab-size"),
        "activation": "swiglu" if "swiglu" in f else "gelu",
        "untie_embeddings_and_output_weights": "untie-embeddings-and-output-weights" in f,
        "add_bias_linear": "disable-bias-linear" not in f,
        "hidden_dropout": 0.0,
        "attention_dropout": 0.0,
    }
    if "kv-channels" in f:
        model["kv_channels"] = number(f, "kv-channels")
    if "num-experts" in f:
        first_dense = number(f, "first-k-dense-replace", 0)
        model["moe"] = {
            "num_experts": number(f, "num-experts"),
            "top_k": number(f, "moe-router-topk"),
            # Megatron-LM: moe_ffn_hidden_size defaults to ffn_hidden_size.
            "moe_ffn_hidden_size": number(f, "moe-ffn-hidden-size", number(f, "ffn-hidden-size")),
            "num_shared_experts": number(f, "n-shared-experts", 0),
            "first_k_dense_layers": max(0, first_dense),
            "moe_router_enable_expert_bias": "moe-router-enable-expert-bias" in f,
        }
    if "multi-latent-attention" in f:
        model["multi_latent_attention"] = {
            "q_lora_rank": number(f, "q-lora-rank", 0),
            "kv_lora_rank": number(f, "kv-lora-rank"),
            "qk_head_dim": number(f, "qk-head-dim"),
            "qk_pos_emb_head_dim": number(f, "qk-pos-emb-head-dim"),
            "v_head_dim": number(f, "v-head-dim"),
        }
    tp = number(f, "tensor-model-parallel-size", 1)
    pp = number(f, "pipeline-model-parallel-size", 1)
    per_virtual = number(f, "num-layers-per-virtual-pipeline-stage")
    strategy = {
        "tensor_model_parallel_size": tp,
        "pipeline_model_parallel_size": pp,
        "virtual_pipeline_model_parallel_size": layers // pp // per_virtual if per_virtual else 1,
        "context_parallel_size": number(f, "context-parallel-size", 1),
        "expert_model_parallel_size": number(f, "expert-model-parallel-size", 1),
        "micro_batch_size": number(f, "micro-batch-size"),
        "sequence_parallel": "sequence-parallel" in f,
        "use_flash_attn": "use-flash-attn" in f,
        "zero_stage": 1 if "use-distributed-optimizer" in f else 0,
        "overlap_grad_reduce": "overlap-grad-reduce" in f,
        "overlap_param_gather": "overlap-param-gather" in f,
    }
    # MindSpeed's parameter-copy reuse (mindspeed/features_manager/memory/reuse_fp32_param.py).
    if "reuse-fp32-param" in f:
        strategy["reuse_fp32_param"] = True
    if "moe" in model:
        dispatcher = (f.get("moe-token-dispatcher-type") or ["allgather"])[0]
        strategy["moe_token_dispatcher_type"] = "alltoall" if dispatcher.startswith(
            "alltoall") else dispatcher
        strategy["moe_grouped_gemm"] = "moe-grouped-gemm" in f
        strategy["moe_permute_fusion"] = "moe-permute-fusion" in f
        if "expert-tensor-parallel-size" in f:
            strategy["expert_tensor_parallel_size"] = number(f, "expert-tensor-parallel-size")
    granularity = (f.get("recompute-granularity") or ["none"])[0]
    strategy["recompute_granularity"] = granularity
    if granularity == "full":
        strategy["recompute_method"] = (f.get("recompute-method") or ["uniform"])[0]
        strategy["recompute_num_layers"] = number(f, "recompute-num-layers", 1)
    # --swap-attention: its default modules are Megatron-LM's offload modules below
    # (framework_rules.hpp kMindSpeedSwapAttentionModules).
    if "swap-attention" in f:
        strategy["offload_modules"] = ["attn_norm", "qkv_linear", "core_attn", "attn_proj",
                                       "mlp_norm"]
    if "recompute-activation-function" in f and "moe" in model:
        strategy["recompute_granularity"] = "selective"
        strategy["recompute_modules"] = ["core_attn", "moe_act"]
    nodes = int(values.get("NNODES", 1))
    per_node = int(values.get("NPUS_PER_NODE", values.get("GPUS_PER_NODE", 8)))
    return {
        "model": model,
        "framework": "mindspeed-llm",
        "training": {
            "global_batch_size": number(f, "global-batch-size"),
            "seq_length": number(f, "seq-length"),
            "precision": "fp16" if "fp16" in f else "bf16",
        },
        "cluster": {"gpus_per_node": per_node,
                    "gpus": [{"type": "ascend-910b", "count": nodes * per_node}]},
        "strategy": strategy,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--commit", default="c77308a1")
    args = parser.parse_args()
    commit = git(args.git_dir, "rev-parse", args.commit).strip()
    paths = [p for p in git(args.git_dir, "ls-tree", "-r", "--name-only", commit).splitlines()
             if re.match(r"^examples/mcore/[^/]+/pretrain_[^/]+\.sh$", p) and "_A3" not in p]
    recipes, skipped = [], []
    for path in sorted(paths):
        text, values = expand(git(args.git_dir, "show", f"{commit}:{path}"))
        f = flags(text)
        why = next((reason for flag, reason in UNMODELLED.items()
                    if flag in f or flag in path.replace("_", "-")), None)
        if why is None and number(f, "num-layers") is None:
            why = "no model dimensions in the script"
        if why is None and not (f.get("padded-vocab-size") or f.get("vocab-size")):
            why = "the vocabulary comes from the tokenizer files"
        if why:
            skipped.append(f"{path} ({why})")
            continue
        recipes.append({"name": path, "scenario": scenario(path, f, values)})
    write_recipes(f"Ascend/MindSpeed-LLM {commit[:8]} examples/mcore/*/pretrain_*.sh for Atlas "
                  "800T A2 (configurations only), made by scripts/validation/mindspeed_llm.py",
                  recipes, skipped)


if __name__ == "__main__":
    main()
