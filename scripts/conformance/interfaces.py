#!/usr/bin/env python3
"""Writes what CI checks launches against without the frameworks: flag choices, config keys,
constructor keywords and recipe names, read from each framework's source at a pinned commit.

Reads bare git repositories (the `fetch` tool's mirrors, or any clone) with `git show`; runs
nothing of theirs. The cross-flag rules are the frameworks' own checks, transcribed with the
file and message that state them (CROSS_FLAG_RULES below); tests/unit/output/launch_test.cpp
applies all of it to every launch Paraplan writes.

usage: scripts/conformance/interfaces.py MIRRORS_DIR > tests/unit/data/framework-interfaces.json
  MIRRORS_DIR holds NVIDIA+Megatron-LM/repo, NVIDIA-NeMo+Megatron-Bridge/repo,
  pytorch+torchtitan/repo and hpcaitech+ColossalAI/repo (git directories).
"""
import ast
import json
import re
import subprocess
import sys

MIRRORS = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror"

# (repository directory under MIRRORS, commit) per source; the commits the launches target
# (core/src/output/launch/*.cpp first lines) where they exist, else the release nearest.
MEGATRON = ("NVIDIA+Megatron-LM", "5be9626709af2722333bf54797c954c09edeada3")  # core_v0.19.0
MEGATRON_012 = ("NVIDIA+Megatron-LM", "a845aa7e12b3a117e24c2352b9e3e60bad2e3a17")  # core_v0.12.1
BRIDGE = ("NVIDIA-NeMo+Megatron-Bridge", "067f987df03b8355b03192d88d70f1709fedf51a")
TORCHTITAN = ("pytorch+torchtitan", "73a0e6979dd10b6b1904098eb3c8f62c18ab87ce")  # v0.2.2
COLOSSALAI = ("hpcaitech+ColossalAI", "d322ff8cd9bf81d5d85bc7ef9c910184cd9e2057")  # v0.5.0

# Checks the frameworks make across flags, as data: when every `when` holds, every `then` must.
# A condition is {"flag": F} (present), {"flag": F, "in": [...]} (its value one of them; a
# flag left out has value `default`), or {"flag": F, "absent": true}.
CROSS_FLAG_RULES = [
    {"target": "megatron",
     "source": "Megatron-LM core_v0.19.0 megatron/core/transformer/transformer_config.py: "
               "\"Expert bias for aux-loss-free routing only supports 'sigmoid' and "
               "'sqrtsoftplus' score functions\"",
     "when": [{"flag": "--moe-router-enable-expert-bias"}],
     "then": [{"flag": "--moe-router-score-function", "in": ["sigmoid", "sqrtsoftplus"],
               "default": "softmax"}]},
    {"target": "megatron",
     "source": "Megatron-LM core_v0.19.0 transformer_config.py: \"moe_shared_expert_overlap "
               "only works with alltoall or flex token dispatcher\"",
     "when": [{"flag": "--moe-shared-expert-overlap"}],
     "then": [{"flag": "--moe-token-dispatcher-type", "in": ["alltoall", "flex"],
               "default": "allgather"}]},
    {"target": "mindspeed-llm",
     "source": "Megatron-LM core_v0.12.1 transformer_config.py: \"moe_shared_expert_overlap "
               "only works with alltoall token dispatcher\"",
     "when": [{"flag": "--moe-shared-expert-overlap"}],
     "then": [{"flag": "--moe-token-dispatcher-type", "in": ["alltoall"],
               "default": "allgather"}]},
    {"target": "mindspeed-llm",
     "source": "MindSpeed 028de58 mindspeed/features_manager/fusions/fused_moe_permute.py: "
               "\"Only alltoall and alltoall_seq dispatcher supports --moe-permute-fusion\"",
     "when": [{"flag": "--moe-permute-fusion"}],
     "then": [{"flag": "--moe-token-dispatcher-type", "in": ["alltoall", "alltoall_seq"],
               "default": "allgather"}]},
    {"target": "mindspeed-llm",
     "source": "Megatron-LM core_v0.12.1 transformer_config.py: \"MXFP8 currently does not "
               "support fp8_param\"",
     "when": [{"flag": "--fp8-recipe", "in": ["mxfp8"], "default": "delayed"}],
     "then": [{"flag": "--fp8-param-gather", "absent": True}]},
    {"target": "megatron",
     "source": "Megatron-LM core_v0.19.0 megatron/training/arguments.py: --swiglu and "
               "--squared-relu set one activation",
     "when": [{"flag": "--swiglu"}],
     "then": [{"flag": "--squared-relu", "absent": True}]},
]


def show(repo, path):
    git_dir = f"{MIRRORS}/{repo[0]}/repo"
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{repo[1]}:{path}"],
                          check=True, capture_output=True, text=True).stdout


def literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError):
        return None


def megatron_choices(repo):
    """{flag: [choices]} of Megatron-LM's parser at the commit: scripts/megatron_lm_flags.py."""
    script = f"{sys.path[0]}/../megatron_lm_flags.py"
    text = subprocess.run([sys.executable, script, f"{MIRRORS}/{repo[0]}/repo", repo[1],
                           "--choices"], check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def literal_choices(annotation):
    """The strings of a Literal[...] annotation (inside | None or Optional too), else None."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Subscript) and getattr(node.value, "id", "") == "Literal":
            values = literal(node.slice)
            values = values if isinstance(values, tuple) else (values,)
            if all(isinstance(v, str) for v in values):
                return sorted(values)
    return None


def torchtitan_sections():
    """{section: {key: [choices] or None}} of JobConfig (config/job_config.py): the TOML keys
    ConfigManager accepts, and the Literal choices tyro enforces."""
    tree = ast.parse(show(TORCHTITAN, "torchtitan/config/job_config.py"))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def fields(cls):
        out = {}
        for item in cls.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                out[item.target.id] = item
        return out

    sections = {}
    for name, item in fields(classes["JobConfig"]).items():
        type_name = ast.unparse(item.annotation)
        cls = classes.get(type_name)
        if cls is None:
            continue
        section = {}
        for key, field in fields(cls).items():
            nested = classes.get(ast.unparse(field.annotation))
            if nested is not None:  # a table inside the section ([quantize.linear.float8])
                for sub, sub_field in fields(nested).items():
                    sub_cls = classes.get(ast.unparse(sub_field.annotation))
                    if sub_cls is not None:
                        sections[f"{name}.{key}.{sub}"] = {
                            k: literal_choices(f.annotation) for k, f in fields(sub_cls).items()}
                    else:
                        sections.setdefault(f"{name}.{key}", {})[sub] = literal_choices(
                            sub_field.annotation)
                continue
            section[key] = literal_choices(field.annotation)
        sections[name] = section
    return sections


def init_keywords(src, class_name):
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    return sorted(a.arg for a in item.args.args + item.args.kwonlyargs
                                  if a.arg != "self")
    raise SystemExit(f"{class_name}.__init__ not found")


def bridge_recipes():
    src = show(BRIDGE, "src/megatron/bridge/training/mixed_precision.py")
    return sorted(re.findall(r"@register\s*\ndef (\w+)\(", src))


def main():
    plugins = "colossalai/booster/plugin/"
    out = {
        "about": "scripts/conformance/interfaces.py: read from the frameworks' sources at the "
                 "commits given; do not edit by hand",
        "megatron": {
            "repository": "NVIDIA/Megatron-LM", "commit": MEGATRON[1],
            "choices": megatron_choices(MEGATRON)},
        "mindspeed-llm": {
            "repository": "NVIDIA/Megatron-LM", "commit": MEGATRON_012[1],
            "choices": megatron_choices(MEGATRON_012)},
        "megatron-bridge": {
            "repository": "NVIDIA-NeMo/Megatron-Bridge", "commit": BRIDGE[1],
            "mixed_precision_recipes": bridge_recipes()},
        "torchtitan": {
            "repository": "pytorch/torchtitan", "commit": TORCHTITAN[1],
            "sections": torchtitan_sections()},
        "colossalai": {
            "repository": "hpcaitech/ColossalAI", "commit": COLOSSALAI[1],
            "HybridParallelPlugin": init_keywords(
                show(COLOSSALAI, plugins + "hybrid_parallel_plugin.py"), "HybridParallelPlugin"),
            "MoeHybridParallelPlugin": init_keywords(
                show(COLOSSALAI, plugins + "moe_hybrid_parallel_plugin.py"),
                "MoeHybridParallelPlugin")},
        "cross_flag_rules": CROSS_FLAG_RULES,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
