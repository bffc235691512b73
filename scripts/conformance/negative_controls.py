"""Broken copies of an accepted launch, one per kind of check a validator makes; each must be
rejected, or the validator proves nothing."""
import os
import re
import shutil


def _copy(source, destination, edit_file, edit):
    if os.path.isdir(destination):
        shutil.rmtree(destination)
    shutil.copytree(source, destination)
    path = os.path.join(destination, edit_file)
    with open(path) as f:
        text = f.read()
    changed = edit(text)
    assert changed != text, f"control did not change {edit_file}"
    with open(path, "w") as f:
        f.write(changed)
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


# What the source-derived checks (validators/interfaces.py) must catch, per target.
INTERFACES = {
    "megatron": {"dispatcher a2a (not a choice)": ("launch.sh", lambda t: _flag(
        t, "--moe-token-dispatcher-type", "a2a"))},
    "mindspeed-llm": {"blockwise fp8 (not a core_v0.12.1 choice)": ("launch.sh", lambda t: _flag(
        t, "--fp8-recipe", "blockwise"))},
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
    elif code and target == "torchtitan":
        edits = TORCHTITAN
    else:
        edits = INTERFACES.get(target, {})
    return [(name, _copy(accepted_dir, os.path.join(out_dir, str(i)), path, edit))
            for i, (name, (path, edit)) in enumerate(edits.items())]
