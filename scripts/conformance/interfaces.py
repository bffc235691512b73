#!/usr/bin/env python3
"""Writes what CI checks launches against without the frameworks: flag choices, config keys,
constructor keywords and recipe names, read from each framework's source at a pinned commit.

Reads bare git repositories (the `fetch` tool's mirrors, or any clone) with `git show`; runs
nothing of theirs. The cross-flag rules are the frameworks' own checks, transcribed with the
file and message that state them (CROSS_FLAG_RULES below); tests/unit/output/launch_test.cpp
applies all of it to every launch Paraplan writes.

usage: scripts/conformance/interfaces.py MIRRORS_DIR [WORK] > tests/unit/data/framework-interfaces.json
  MIRRORS_DIR holds NVIDIA+Megatron-LM/repo, NVIDIA-NeMo+Megatron-Bridge/repo,
  pytorch+torchtitan/repo and hpcaitech+ColossalAI/repo (git directories).
  WORK (default /tmp/paraplan-conformance) is where run.py unpacked the sources and wrote the
  launches: the option lists of Megatron-DeepSpeed's and MindSpeed-LLM's parsers are taken from
  the parsers their own code builds (validators/common.py dump_parser_if_asked), since
  MindSpeed's features add and redefine flags of Megatron-LM core_v0.12.1 at run time.
"""
import ast
import json
import re
import subprocess
import sys

MIRRORS = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror"
WORK = sys.argv[2] if len(sys.argv) > 2 else "/tmp/paraplan-conformance"

# (repository directory under MIRRORS, commit) per source; the commits the launches target
# (core/src/output/launch/*.cpp first lines) where they exist, else the release nearest.
MEGATRON = ("NVIDIA+Megatron-LM", "5be9626709af2722333bf54797c954c09edeada3")  # core_v0.19.0
MEGATRON_012 = ("NVIDIA+Megatron-LM", "a845aa7e12b3a117e24c2352b9e3e60bad2e3a17")  # core_v0.12.1
BRIDGE = ("NVIDIA-NeMo+Megatron-Bridge", "067f987df03b8355b03192d88d70f1709fedf51a")
TORCHTITAN = ("pytorch+torchtitan", "73a0e6979dd10b6b1904098eb3c8f62c18ab87ce")  # v0.2.2
COLOSSALAI = ("hpcaitech+ColossalAI", "d322ff8cd9bf81d5d85bc7ef9c910184cd9e2057")  # v0.5.0
DEEPSPEED = ("deepspeedai+DeepSpeed", "edaa7221267243c7be7fb49c5d5f5c4fb97b4641")  # 0.19.6
MEGATRON_DEEPSPEED = ("deepspeedai+Megatron-DeepSpeed", "4efb479d5317ce9b86096b9d8e3e8030b0b5263b")
MINDSPEED_LLM = ("Ascend+MindSpeed-LLM", "c77308a14bfcb1aa7ca61da9c1aa24a893cb1b91")
MINDSPEED = ("Ascend+MindSpeed", "028de58ca629d035185b00ff7d1eb7eff4f7fd48")

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
    {"target": "deepspeed",
     "source": "DeepSpeed edaa7221 deepspeed/runtime/engine.py _validate_zero3_moe_compatibility: "
               "\"Native DeepSpeed MoE is not supported with ZeRO Stage 3\" (Megatron-DeepSpeed "
               "builds deepspeed.moe.layer.MoE for --num-experts)",
     "when": [{"flag": "--num-experts"}],
     "then": [{"flag": "--zero-stage", "in": ["0", "1", "2"], "default": "0"}]},
    {"target": "megatron",
     "source": "Megatron-LM core_v0.19.0 megatron/training/arguments.py: --swiglu and "
               "--squared-relu set one activation",
     "when": [{"flag": "--swiglu"}],
     "then": [{"flag": "--squared-relu", "absent": True}]},
]

# Keyword values a Colossal-AI plugin refuses or silently changes, as data (the same condition
# form, on the plugin's keywords; a keyword left out has value `default`).
PLUGIN_RULES = [
    {"plugin": "MoeHybridParallelPlugin",
     "source": "ColossalAI v0.5.0 colossalai/booster/plugin/moe_hybrid_parallel_plugin.py: "
               "\"overlap_communication and zero_stage are set to False and 1 because ZeRO-2 or "
               "comm overlap cause program hang\" (a warning; what runs is not what was asked)",
     "when": [],
     "then": [{"flag": "zero_stage", "in": ["0", "1"], "default": "0"},
              {"flag": "overlap_communication", "in": ["False"], "default": "False"}]},
    {"plugin": "MoeHybridParallelPlugin",
     "source": "ColossalAI v0.5.0 moe_hybrid_parallel_plugin.py sets dp_size only for "
               "split_gather/ring and all_to_all: ring_attn fails on 'dp_size'",
     "when": [{"flag": "enable_sequence_parallelism", "in": ["True"], "default": "False"}],
     "then": [{"flag": "sequence_parallelism_mode",
               "in": ["\"split_gather\"", "\"ring\"", "\"all_to_all\""],
               "default": "\"all_to_all\""}]},
]


def parser_options(target):
    """{flag: [choices] or None} of TARGET's parser as its code builds it: the target's validator
    run with PARAPLAN_DUMP_PARSER on its first launch under WORK (run.py --generate-only and an
    unpack of the sources first)."""
    import glob
    import os
    launches = sorted(glob.glob(f"{WORK}/launches/*/{target}/r*/launch.sh"))
    if not launches:
        raise SystemExit(f"no {target} launch under {WORK}/launches: run run.py first")
    here = os.path.dirname(os.path.abspath(__file__))
    result = subprocess.run(
        ["/usr/bin/python3", f"{here}/validators/validate_{target.replace('-', '_')}.py",
         f"{WORK}/src/{target}", os.path.dirname(launches[0])], capture_output=True, text=True,
        env={**os.environ, "PARAPLAN_DUMP_PARSER": "1", "PYTHONDONTWRITEBYTECODE": "1"})
    line = [l for l in result.stdout.splitlines() if l.startswith("PARSER ")]
    if not line:
        raise SystemExit(f"{target}'s parser: {result.stderr[-2000:]}")
    return json.loads(line[0][len("PARSER "):])


def policy_classes():
    """The model classes ShardFormer has a policy for (auto_policy.py _POLICY_LIST keys)."""
    tree = ast.parse(show(COLOSSALAI, "colossalai/shardformer/policies/auto_policy.py"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_POLICY_LIST" \
                or isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_POLICY_LIST"
                                                        for t in node.targets):
            return sorted(literal(k) for k in node.value.keys)
    raise SystemExit("_POLICY_LIST not found")


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


# torchtitan's model families the launch registers a flavor in (torchtitan_launch.cpp
# kFamilyModules): package, the args dataclass and its module, the flavor dictionary.
TORCHTITAN_FAMILIES = {
    "llama3": ("TransformerModelArgs", "llama3_args"),
    "qwen3": ("Qwen3ModelArgs", "qwen3_args"),
    "deepseek_v3": ("DeepSeekV3ModelArgs", "deepseekv3_args"),
    "gpt_oss": ("GptOssModelArgs", "gptoss_configs"),
}


def dataclass_fields(src, class_name):
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return sorted(item.target.id for item in node.body
                          if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name))
    raise SystemExit(f"{class_name} not found")


def torchtitan_model_families():
    """{family: {args_class, flavors, fields}} and MoEArgs's fields: the keywords a registered
    flavor may pass (models/<family>/model/args.py, models/moe/moe.py), and that the family's
    __init__.py defines the flavor dictionary."""
    out = {}
    for family, (args_class, flavors) in TORCHTITAN_FAMILIES.items():
        init = show(TORCHTITAN, f"torchtitan/models/{family}/__init__.py")
        if not re.search(rf"^{flavors} = {{", init, re.M):
            raise SystemExit(f"{flavors} not in models/{family}/__init__.py")
        out[family] = {
            "args_class": args_class, "flavors": flavors,
            "fields": dataclass_fields(
                show(TORCHTITAN, f"torchtitan/models/{family}/model/args.py"), args_class)}
    return {"families": out,
            "MoEArgs": dataclass_fields(show(TORCHTITAN, "torchtitan/models/moe/moe.py"),
                                        "MoEArgs")}


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
    mindspeed, deepspeed = parser_options("mindspeed-llm"), parser_options("deepspeed")
    out = {
        "about": "scripts/conformance/interfaces.py: read from the frameworks' sources at the "
                 "commits given; do not edit by hand",
        "megatron": {
            "repository": "NVIDIA/Megatron-LM", "commit": MEGATRON[1],
            "choices": megatron_choices(MEGATRON)},
        "mindspeed-llm": {
            "repository": "Ascend/MindSpeed-LLM", "commit": MINDSPEED_LLM[1],
            "mindspeed_commit": MINDSPEED[1], "megatron_commit": MEGATRON_012[1],
            "about": "the options of MindSpeed-LLM's patched parser (Megatron-LM core_v0.12.1's "
                     "and the registered MindSpeed features'), as its code builds it",
            "choices": {f: c for f, c in mindspeed.items() if c},
            "flags": sorted(mindspeed)},
        "deepspeed": {
            "repository": "deepspeedai/Megatron-DeepSpeed", "commit": MEGATRON_DEEPSPEED[1],
            "deepspeed_commit": DEEPSPEED[1],
            "about": "the options of Megatron-DeepSpeed's parser with "
                     "deepspeed.add_config_arguments, as its code builds it",
            "choices": {f: c for f, c in deepspeed.items() if c},
            "flags": sorted(deepspeed)},
        "megatron-bridge": {
            "repository": "NVIDIA-NeMo/Megatron-Bridge", "commit": BRIDGE[1],
            "mixed_precision_recipes": bridge_recipes()},
        "torchtitan": {
            "repository": "pytorch/torchtitan", "commit": TORCHTITAN[1],
            "sections": torchtitan_sections(), "models": torchtitan_model_families()},
        "colossalai": {
            "repository": "hpcaitech/ColossalAI", "commit": COLOSSALAI[1],
            "HybridParallelPlugin": init_keywords(
                show(COLOSSALAI, plugins + "hybrid_parallel_plugin.py"), "HybridParallelPlugin"),
            "MoeHybridParallelPlugin": init_keywords(
                show(COLOSSALAI, plugins + "moe_hybrid_parallel_plugin.py"),
                "MoeHybridParallelPlugin"),
            "GeminiPlugin": init_keywords(show(COLOSSALAI, plugins + "gemini_plugin.py"),
                                          "GeminiPlugin"),
            "LowLevelZeroPlugin": init_keywords(
                show(COLOSSALAI, plugins + "low_level_zero_plugin.py"), "LowLevelZeroPlugin"),
            "shardformer_policies": policy_classes(),
            "plugin_rules": PLUGIN_RULES},
        "cross_flag_rules": CROSS_FLAG_RULES,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
