"""Broken copies of an accepted launch, one per kind of check a validator makes; each must be
rejected, or the validator proves nothing."""
import json
import os
import re
import shutil


def _copy(source, destination, edits):
    """A copy of `source` with each (file, edit) applied: one pair or a list of them."""
    if os.path.isdir(destination):
        shutil.rmtree(destination)
    shutil.copytree(source, destination)
    changed_any = False
    for edit_file, edit in edits if isinstance(edits, list) else [edits]:
        path = os.path.join(destination, edit_file)
        with open(path) as f:
            text = f.read()
        changed = edit(text)
        changed_any |= changed != text
        with open(path, "w") as f:
            f.write(changed)
    assert changed_any, f"control changed nothing in {destination}"
    return destination


def _flag(text, flag, value):
    """Sets `flag`'s value on every torchrun line (adds it where absent)."""
    if re.search(rf" {flag} \S+", text):
        return re.sub(rf" {flag} \S+", f" {flag} {value}", text)
    return re.sub(r"(pretrain_gpt\.py)", rf"\1 {flag} {value}", text)


MEGATRON = {
    "unknown flag": lambda t: t.replace("pretrain_gpt.py", "pretrain_gpt.py --no-such-flag"),
    "TP 3 (does not divide the world)": lambda t: _flag(t, "--tensor-model-parallel-size", "3"),
    "global batch 501 (not a multiple)": lambda t: _flag(t, "--global-batch-size", "501"),
    "expert bias with softmax": lambda t: _flag(
        _flag(t, "--num-experts", "8"), "--moe-router-enable-expert-bias --moe-router-topk 2 "
        "--moe-router-score-function", "softmax"),
}

TORCHTITAN = {
    "unknown TOML key": ("job.toml", lambda t: t.replace("[training]\n",
                                                         "[training]\nno_such_key = 1\n")),
    "mixed_precision_reduce bfloat16": ("job.toml", lambda t: re.sub(
        r'mixed_precision_reduce = "float32"', 'mixed_precision_reduce = "bfloat16"', t)),
    "TP 3": ("job.toml", lambda t: re.sub(r"tensor_parallel_degree = \d+",
                                          "tensor_parallel_degree = 3", t)),
    "unknown flavor": ("job.toml", lambda t: re.sub(r'flavor = "[^"]+"', 'flavor = "no_such"', t)),
}



def _json_key(key, value):
    """Sets a top-level or "a.b" key of ds_config.json."""
    def edit(text):
        config = json.loads(text)
        *parents, last = key.split(".")
        node = config
        for parent in parents:
            node = node.setdefault(parent, {})
        node[last] = value
        return json.dumps(config, indent=2) + "\n"
    return edit


DEEPSPEED = {
    "unknown flag": ("launch.sh", MEGATRON["unknown flag"]),
    "train_batch_size 1000 (not micro x accumulation x DP)": (
        "ds_config.json", _json_key("train_batch_size", 1000)),
    "MoE with ZeRO-3": [("launch.sh", lambda t: _flag(_flag(t, "--num-experts", "8"),
                                                      "--zero-stage", "3")),
                        ("ds_config.json", _json_key("zero_optimization.stage", 3))],
    "zero_optimization.stage 4 (no such stage)": (
        "ds_config.json", _json_key("zero_optimization.stage", 4)),
}


def _keyword(name, value):
    """Sets a keyword of the plugin constructor in train.py (adds it where absent)."""
    def edit(text):
        if re.search(rf"^    {name}=", text, re.M):
            return re.sub(rf"^    {name}=.*,$", f"    {name}={value},", text, flags=re.M)
        return re.sub(r"^(plugin = \w+\(\n)", rf"\1    {name}={value},\n", text, flags=re.M)
    return edit


COLOSSALAI = {
    "unknown plugin keyword": ("train.py", _keyword("no_such_keyword", "1")),
    "tp_size 3 (does not divide the world)": ("train.py", _keyword("tp_size", "3")),
    "split_gather sequence parallelism without TP": [
        ("train.py", _keyword("tp_size", "1")),
        ("train.py", _keyword("enable_sequence_parallelism", "True")),
        ("train.py", _keyword("sequence_parallelism_mode", '"split_gather"'))],
    "a model class with no ShardFormer policy": ("train.py", lambda t: re.sub(
        r"(\w+)ForCausalLM as Model", "DeepseekV3ForCausalLM as Model", t)),
}

MINDSPEED_LLM = {
    "unknown flag": ("launch.sh", MEGATRON["unknown flag"]),
    "TP 3 (does not divide the world)": ("launch.sh", MEGATRON["TP 3 (does not divide the world)"]),
    # MindSpeed's fused_moe_permute feature (proves the features' validation runs)
    "moe permute fusion with the allgather dispatcher": ("launch.sh", lambda t: _flag(
        _flag(t, "--num-experts", "8"), "--moe-permute-fusion --moe-router-topk 2 "
        "--moe-token-dispatcher-type", "allgather")),
    # Megatron-LM core_v0.12.1's TransformerConfig (proves it is 0.12.1's, not 0.19's)
    "mxfp8 with fp8 parameter gather": ("launch.sh", lambda t: _flag(_flag(
        _flag(t, "--transformer-impl", "transformer_engine"), "--fp8-format", "e4m3"),
        "--fp8-param-gather --fp8-recipe", "mxfp8")),
}


def _assign(name, value):
    """Sets `name = value` in pretrain_paraplan.py (adds it before pretrain() where absent)."""
    def edit(text):
        if re.search(rf"^{re.escape(name)} = ", text, re.M):
            return re.sub(rf"^{re.escape(name)} = .*$", f"{name} = {value}", text, flags=re.M)
        return text.replace("\npretrain(cfg", f"\n{name} = {value}\npretrain(cfg")
    return edit


MEGATRON_BRIDGE = {
    "recipe bf16_with_fp8_mixed (no such recipe)": (
        "pretrain_paraplan.py", _assign("cfg.mixed_precision", '"bf16_with_fp8_mixed"')),
    "TP 3 (does not divide the world)": (
        "pretrain_paraplan.py", _assign("m.tensor_model_parallel_size", "3")),
    "global batch 501 (not a multiple)": (
        "pretrain_paraplan.py", _assign("cfg.train.global_batch_size", "501")),
    "full recompute without a method (TransformerConfig)": [
        ("pretrain_paraplan.py", _assign("m.recompute_granularity", '"full"')),
        ("pretrain_paraplan.py", _assign("m.recompute_method", "None"))],
}

CODE = {"torchtitan": TORCHTITAN, "megatron-bridge": MEGATRON_BRIDGE, "deepspeed": DEEPSPEED, "colossalai": COLOSSALAI,
        "mindspeed-llm": MINDSPEED_LLM}

# What the source-derived checks (validators/interfaces.py) must catch, per target.
INTERFACES = {
    "megatron": {"dispatcher a2a (not a choice)": ("launch.sh", lambda t: _flag(
        t, "--moe-token-dispatcher-type", "a2a"))},
    "mindspeed-llm": {"context-parallel-algo ring (not a choice)": ("launch.sh", lambda t: _flag(
        t, "--context-parallel-algo", "ring"))},
    "deepspeed": {"unknown flag": ("launch.sh", MEGATRON["unknown flag"])},
    "megatron-bridge": {"recipe bf16_with_fp8_mixed": ("pretrain_paraplan.py", lambda t: re.sub(
        r'cfg\.mixed_precision = "[^"]+"', 'cfg.mixed_precision = "bf16_with_fp8_mixed"', t))},
    "colossalai": {"unknown plugin keyword": ("train.py", lambda t: t.replace(
        "    tp_size=", "    no_such_keyword=1,\n    tp_size=", 1))},
    "torchtitan": {"unknown TOML key": TORCHTITAN["unknown TOML key"]},
}


def make(target, accepted_dir, out_dir, code=True):
    """[(control name, directory)] for `target`: its code validator's controls where `code`,
    else the source-derived checks'."""
    if code and target == "megatron":
        edits = {name: ("launch.sh", edit) for name, edit in MEGATRON.items()}
    elif code and target in CODE:
        edits = CODE[target]
    else:
        edits = INTERFACES.get(target, {})
    return [(name, _copy(accepted_dir, os.path.join(out_dir, str(i)), edit))
            for i, (name, edit) in enumerate(edits.items())]
