"""The checks CI makes without the frameworks (tests/unit/data/framework-interfaces.json, read
from their sources by scripts/conformance/interfaces.py), applied to one launch of any target:
Megatron-family flag choices and cross-flag rules, torchtitan job-file keys and Literal values,
Colossal-AI plugin keywords, Megatron-Bridge recipe names. Not the frameworks' code: run.py
uses it for the targets whose code it does not run yet, and says so in the report.

usage: validate_interfaces.py TARGET LAUNCH_DIR
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "..", "..", "tests", "unit", "data",
                       "framework-interfaces.json")) as f:
    DATA = json.load(f)


def flag_values(arguments):
    flags = {}
    for i, word in enumerate(arguments):
        if word.startswith("--"):
            valued = i + 1 < len(arguments) and not arguments[i + 1].startswith("--")
            flags[word] = arguments[i + 1] if valued else ""
    return flags


def holds(condition, flags):
    present = condition["flag"] in flags
    if condition.get("absent"):
        return not present
    if "in" not in condition:
        return present
    return flags.get(condition["flag"], condition.get("default")) in condition["in"]


def megatron_problems(target, arguments):
    flags, problems = flag_values(arguments), []
    for flag, value in flags.items():
        listed = DATA[target]["choices"].get(flag)
        if listed and value and value not in listed:
            problems.append(f"{flag} {value}: not one of {listed}")
    known = DATA[target].get("flags")
    problems += [f"{flag}: not an option of {target}'s parser" for flag in flags
                 if known is not None and flag not in known]
    for rule in DATA["cross_flag_rules"]:
        if rule["target"] == target and all(holds(c, flags) for c in rule["when"]):
            problems += [f"{c['flag']}: {rule['source']}" for c in rule["then"]
                         if not holds(c, flags)]
    return problems


def toml_problems(text):
    sections, problems, section = DATA["torchtitan"]["sections"], [], ""
    for line in text.splitlines():
        line = line.split("  #")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line[1:line.index("]")]
            continue
        key, _, value = line.partition(" = ")
        if key not in sections.get(section, {}):
            problems.append(f"{section}.{key}: not a JobConfig field")
        elif sections[section][key] and value.strip('"') not in sections[section][key]:
            problems.append(f"{section}.{key} = {value}: not one of {sections[section][key]}")
    return problems


def main():
    target, directory = sys.argv[1], sys.argv[2]
    exports, lines = common.read_launch(directory)
    problems = []
    if target in ("megatron", "mindspeed-llm", "deepspeed"):
        for _, _, words in lines:
            problems += megatron_problems(target, common.torchrun_options(words)[2])
    elif target == "torchtitan":
        with open(os.path.join(directory, "job.toml")) as f:
            problems = toml_problems(f.read())
    elif target == "colossalai":
        with open(os.path.join(directory, "train.py")) as f:
            text = f.read()
        match = re.search(r"plugin = (\w+)\(\n(.*?)\n\)\n", text, re.S)
        plugin, keywords = match.group(1), DATA["colossalai"][match.group(1)]
        given = dict(re.findall(r"^    (\w+)=(.*),$", match.group(2), re.M))
        problems = [f"{plugin}({k}=): no such keyword" for k in given if k not in keywords]
        for rule in DATA["colossalai"]["plugin_rules"]:
            if rule["plugin"] == plugin and all(holds(c, given) for c in rule["when"]):
                problems += [f"{plugin}({c['flag']}=): {rule['source']}" for c in rule["then"]
                             if not holds(c, given)]
        model = re.search(r"(\w+) as Model\n", text)
        if model and not any(p.startswith("transformers.models.") and
                             p.endswith("." + model.group(1))
                             for p in DATA["colossalai"]["shardformer_policies"]):
            problems.append(f"transformers.{model.group(1)}: no ShardFormer policy")
    elif target == "megatron-bridge":
        with open(os.path.join(directory, "pretrain_paraplan.py")) as f:
            names = re.findall(r'cfg\.mixed_precision = "([^"]+)"', f.read())
        recipes = DATA["megatron-bridge"]["mixed_precision_recipes"]
        problems = [f"mixed precision {n}: no such recipe" for n in names if n not in recipes]
    if problems:
        sys.exit("; ".join(problems))
    print("accepted")


if __name__ == "__main__":
    main()
