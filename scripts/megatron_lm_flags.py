#!/usr/bin/env python3
"""Lists every command-line flag Megatron-LM's pretrain parser accepts at one commit.

Reads megatron/training/arguments.py from a bare Megatron-LM repository: the flags written out
in add_argument calls, and those ArgumentGroupFactory (megatron/training/argument_utils.py)
generates from dataclass fields: --field-name; --no-field-name and --disable-field-name for a
bool that defaults to True; metadata["argparse_meta"]["arg_names"] instead where given; fields
in the factory's exclude list or with init=False left out.

usage: scripts/megatron_lm_flags.py GIT_DIR COMMIT > tests/unit/data/megatron-lm-flags.txt
       scripts/megatron_lm_flags.py GIT_DIR COMMIT --choices   (JSON: {flag: [choices]}, from
       add_argument's literal choices and the dataclass fields' Literal[...] annotations;
       scripts/conformance/interfaces.py writes them into framework-interfaces.json)
"""
import ast
import re
import subprocess
import sys

git_dir, commit = sys.argv[1], sys.argv[2]
want_choices = "--choices" in sys.argv[3:]
choices = {}


def literal_strings(node):
    """The strings of a literal list/tuple, or of a Literal[...] annotation, else None."""
    if node is None:
        return None
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and getattr(sub.value, "id", "") == "Literal":
            node = sub.slice
            break
    try:
        values = ast.literal_eval(node)
    except (ValueError, SyntaxError):
        return None
    values = values if isinstance(values, (tuple, list)) else (values,)
    return sorted(values) if values and all(isinstance(v, str) for v in values) else None


def show(path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
                          check=True, capture_output=True, text=True).stdout


files = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", commit,
                        "megatron/"], check=True, capture_output=True, text=True).stdout.split()
arguments_src = show("megatron/training/arguments.py")
flags = set(re.findall(r"""["'](--[A-Za-z0-9][A-Za-z0-9_-]*)["']""", arguments_src))

class_cache = {}


def find_class(name):
    if name in class_cache:
        return class_cache[name]
    pattern = re.compile(rf"^class {name}\b", re.M)
    for path in files:
        if not path.endswith(".py"):
            continue
        src = show(path) if path not in text_cache else text_cache[path]
        text_cache[path] = src
        if pattern.search(src):
            for node in ast.walk(ast.parse(src)):
                if isinstance(node, ast.ClassDef) and node.name == name:
                    class_cache[name] = node
                    return node
    class_cache[name] = None
    return None


text_cache = {}


def fields(name):
    node = find_class(name)
    if node is None:
        raise SystemExit(f"class {name} not found")
    out = []
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id not in ("object",):
            if find_class(base.id) is not None:
                out += fields(base.id)
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out = [f for f in out if f[0] != stmt.target.id]
            out.append((stmt.target.id, stmt.annotation, stmt.value))
    return out


def keyword(call, name):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def generated(field_name, annotation, value):
    default, arg_names, init = value, None, True
    if isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", "")) == "field":
        default = keyword(value, "default")
        init_node = keyword(value, "init")
        if isinstance(init_node, ast.Constant) and init_node.value is False:
            init = False
        meta = keyword(value, "metadata")
        if isinstance(meta, ast.Dict):
            for k, v in zip(meta.keys, meta.values):
                if isinstance(k, ast.Constant) and k.value == "argparse_meta" and isinstance(v, ast.Dict):
                    for k2, v2 in zip(v.keys, v.values):
                        if isinstance(k2, ast.Constant) and k2.value == "arg_names":
                            arg_names = [e.value for e in v2.elts]
    if not init:
        return []
    if arg_names:
        return arg_names
    dashed = field_name.replace("_", "-")
    is_bool = isinstance(annotation, ast.Name) and annotation.id == "bool"
    if is_bool and isinstance(default, ast.Constant) and default.value is True:
        return [f"--no-{dashed}", f"--disable-{dashed}"]
    return [f"--{dashed}"]


tree = ast.parse(arguments_src)
for function in ast.walk(tree):
    if not isinstance(function, ast.FunctionDef):
        continue
    assigned = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if isinstance(node.value, ast.List):
                assigned[node.targets[0].id] = node.value
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "ArgumentGroupFactory":
            cls = node.args[0].id
            exclude_node = keyword(node, "exclude")
            if isinstance(exclude_node, ast.Name):
                exclude_node = assigned.get(exclude_node.id)
            exclude = {e.value for e in exclude_node.elts} if exclude_node is not None else set()
            for name, annotation, value in fields(cls):
                if name not in exclude and not name.startswith("_"):
                    names = generated(name, annotation, value)
                    flags.update(names)
                    if literal_strings(annotation) and len(names) == 1:
                        choices[names[0]] = literal_strings(annotation)

# add_argument(..., choices=[...]) with literal names and choices.
for node in ast.walk(tree):
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
        listed = literal_strings(keyword(node, "choices"))
        for arg in node.args:
            if listed and isinstance(arg, ast.Constant) and str(arg.value).startswith("--"):
                choices[arg.value] = listed

if want_choices:
    import json

    json.dump(choices, sys.stdout, indent=1, sort_keys=True)
    sys.exit(0)

print(f"# Megatron-LM {commit}: flags of megatron/training/arguments.py "
      "(scripts/megatron_lm_flags.py)")
for flag in sorted(flags):
    print(flag)
