#!/usr/bin/env python3
"""Runs Paraplan's launches through the frameworks' own code (issue 31).

1. Generates the launches of a job suite (SUITE below) with build/native/paraplan: a search per
   job and target with --framework, top 3, each strategy's launch for that target.
2. Unpacks each framework's source at its pinned commit (git archive from a bare mirror, as the
   `fetch` tool brings them; nothing of theirs is committed here) into WORK/src.
3. Runs every launch through the target's validator (validators/TARGET.py, in a subprocess, on
   CPU: the framework's own parsers and config checks, with shims.py standing in for what
   torch 1.13 lacks), and each validator on its negative controls, which it must reject.
4. Writes report.md and report.json beside this script: the commits used and, per target, the
   launches accepted and rejected with the first error of each.

usage: scripts/conformance/run.py [--paraplan build/native/paraplan] [--mirrors /work/.mirror]
           [--work /tmp/paraplan-conformance] [--python PYTHON] [--targets megatron,torchtitan]
  PYTHON must import torch (Debian's python3-torch 1.13 is enough); --python defaults to
  /usr/bin/python3.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import importlib
import io

HERE = os.path.dirname(os.path.abspath(__file__))

# What each validator runs on: (mirror directory, commit, label). The launches name these
# versions in their first line (core/src/output/launch/*.cpp).
SOURCES = {
    "megatron": [("NVIDIA+Megatron-LM", "5be9626709af2722333bf54797c954c09edeada3",
                  "Megatron-LM core_v0.19.0")],
    "torchtitan": [("pytorch+torchtitan", "73a0e6979dd10b6b1904098eb3c8f62c18ab87ce",
                    "torchtitan v0.2.2"),
                   # tyro, the config parser torchtitan's ConfigManager uses, and its
                   # pure-Python dependencies (no Python registry is reachable here).
                   ("brentyi+tyro", "d0f2e3fb", "tyro 1.0.15"),
                   ("agronholm+typeguard", "4.5.2", "typeguard 4.5.2"),
                   ("rr-+docstring_parser", "87dca55", "docstring_parser 0.18.0")],
    "deepspeed": [("deepspeedai+DeepSpeed", "edaa7221267243c7be7fb49c5d5f5c4fb97b4641",
                   "DeepSpeed 0.19.6 (master)"),
                  ("deepspeedai+Megatron-DeepSpeed", "4efb479d5317ce9b86096b9d8e3e8030b0b5263b",
                   "Megatron-DeepSpeed (main)"),
                  # DeepSpeedConfig reads its JSON with hjson; Megatron-DeepSpeed imports einops.
                  ("hjson+hjson-py", "v3.0.2", "hjson-py 3.0.2"),
                  ("arogozhnikov+einops", "v0.8.1", "einops 0.8.1")],
    "mindspeed-llm": [("Ascend+MindSpeed-LLM", "c77308a14bfcb1aa7ca61da9c1aa24a893cb1b91",
                       "MindSpeed-LLM (master)"),
                      ("Ascend+MindSpeed", "028de58ca629d035185b00ff7d1eb7eff4f7fd48",
                       "MindSpeed (master)"),
                      ("NVIDIA+Megatron-LM", "a845aa7e12b3a117e24c2352b9e3e60bad2e3a17",
                       "Megatron-LM core_v0.12.1"),
                      ("arogozhnikov+einops", "v0.8.1", "einops 0.8.1")],
    "megatron-bridge": [("NVIDIA-NeMo+Megatron-Bridge", "067f987df03b8355b03192d88d70f1709fedf51a",
                         "Megatron-Bridge (main)"),
                        # its 3rdparty/Megatron-LM submodule's commit
                        ("NVIDIA+Megatron-LM", "2a75ac12c54ba6a42b34024756820bf819a2e25f",
                         "Megatron-LM (Megatron-Bridge's submodule)"),
                        ("arogozhnikov+einops", "v0.8.1", "einops 0.8.1")],
    "colossalai": [("hpcaitech+ColossalAI", "d322ff8cd9bf81d5d85bc7ef9c910184cd9e2057",
                    "ColossalAI v0.5.0"),
                   ("arogozhnikov+einops", "v0.8.1", "einops 0.8.1")],
}

# (name, module to copy it from); packaging is pip's vendored copy. pydantic (with its compiled
# core, built for CPython 3.11) for DeepSpeed's config models and Megatron-Bridge.
PYDEPS = [("typing_extensions", "typing_extensions"), ("packaging", "pip._vendor.packaging"),
          ("pydantic", "pydantic"), ("pydantic_core", "pydantic_core"),
          ("annotated_types", "annotated_types"), ("typing_inspection", "typing_inspection"),
          ("regex", "regex")]

# What installing a framework would write into its tree (setup.py), written into the unpacked
# source before it is imported.
INSTALLED_FILES = {
    "deepspeed": {
        # DeepSpeed's setup.py writes deepspeed/git_version_info_installed.py (version, commit,
        # no prebuilt ops), else deepspeed/git_version_info.py builds every op builder to probe it.
        "DeepSpeed/deepspeed/git_version_info_installed.py":
            'version = "0.19.6"\ngit_hash = "edaa7221"\ngit_branch = "master"\n'
            'installed_ops = {}\ncompatible_ops = {}\naccelerator_name = "cuda"\n'
            'torch_info = {"version": "2.9", "bf16_support": True, "cuda_version": "12.8", '
            '"nccl_version": "2.27", "hip_version": "0.0"}\n',
    },
}

# The job suite: the kinds of issue 31's conformance audit (docs/launch.md, "Last conformance
# result"): dense, MoE, fp8, CP, ZeRO/FSDP, offload, a mixed cluster, as `paraplan search`
# arguments.
H100 = ["--gpu-infos", "h100"]
SUITE = {
    "J01-llama3-70b-64": ["--model-name", "llama3-70b", "--num-gpus", "64", *H100,
                          "--global-batch-size", "512", "--sequence-length", "8192"],
    "J02-llama3-70b-256": ["--model-name", "llama3-70b", "--num-gpus", "256", *H100,
                           "--global-batch-size", "1024", "--sequence-length", "8192"],
    "J03-llama3.1-405b-1024": ["--model-name", "llama3.1-405b", "--num-gpus", "1024", *H100,
                               "--global-batch-size", "1024", "--sequence-length", "8192"],
    "J04-gpt3-175b-a100": ["--model-name", "gpt3-175b", "--num-gpus", "1024", "--gpu-infos",
                           "a100", "--global-batch-size", "1536", "--sequence-length", "2048"],
    "J05-llama2-70b-mixed": ["--model-name", "llama2-70b", "--num-gpus", "256", "--gpu-infos",
                             "a800:128,h800:160", "--global-batch-size", "512",
                             "--sequence-length", "4096"],
    "J06-mixtral-8x7b": ["--model-name", "mixtral-8x7b", "--num-gpus", "64", *H100,
                         "--global-batch-size", "256", "--sequence-length", "4096"],
    "J07-deepseek-v3": ["--model-name", "deepseek-v3", "--num-gpus", "1024", *H100,
                        "--global-batch-size", "4096", "--sequence-length", "4096"],
    "J08-qwen3-30b-a3b": ["--model-name", "qwen3-30b-a3b", "--num-gpus", "64", *H100,
                          "--global-batch-size", "512", "--sequence-length", "4096"],
    "J09-llama3-8b-fp8": ["--model-name", "llama3-8b", "--num-gpus", "64", *H100,
                          "--global-batch-size", "512", "--sequence-length", "8192",
                          "--precision", "fp8"],
    "J10-llama3-8b-128k": ["--model-name", "llama3-8b", "--num-gpus", "64", *H100,
                           "--global-batch-size", "64", "--sequence-length", "131072"],
    "J11-llama2-13b-32": ["--model-name", "llama2-13b", "--num-gpus", "32", *H100,
                          "--global-batch-size", "128", "--sequence-length", "4096"],
    "J12-qwen3-8b-fp8-b200": ["--model-name", "qwen3-8b", "--num-gpus", "64", "--gpu-infos",
                              "b200", "--global-batch-size", "512", "--sequence-length", "4096",
                              "--precision", "fp8"],
}
TARGETS = ["megatron", "megatron-bridge", "mindspeed-llm", "deepspeed", "colossalai",
           "torchtitan"]


def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


def expected_model(args):
    """The dimensions of the job's model preset (presets/models/NAME.json), which a launch
    must build."""
    name = args[args.index("--model-name") + 1]
    with open(os.path.join(HERE, "..", "..", "presets", "models", name + ".json")) as f:
        model = json.load(f)["model"]
    keys = ["hidden_size", "num_layers", "num_attention_heads", "ffn_hidden_size", "vocab_size"]
    out = {k: model[k] for k in keys}
    out["num_query_groups"] = model.get("num_query_groups") or model["num_attention_heads"]
    return out


def generate(paraplan, work):
    """WORK/launches/JOB/TARGET/rN/{launch.sh, files}; returns {target: [launch dirs]} and the
    pairs with no strategy."""
    out, empty = {t: [] for t in TARGETS}, []
    for job, args in SUITE.items():
        for target in TARGETS:
            result = run([paraplan, "search", *args, "--framework", target, "--top", "3",
                          "--json"])
            if result.returncode != 0:
                empty.append((job, target, result.stderr.strip().splitlines()[-1:]))
                continue
            strategies = json.loads(result.stdout).get("strategies", [])
            if not strategies:
                empty.append((job, target, ["no strategy"]))
            for rank, strategy in enumerate(strategies, 1):
                launch = strategy["launch"][target]
                directory = os.path.join(work, "launches", job, target, f"r{rank}")
                os.makedirs(directory, exist_ok=True)
                if "command" not in launch:
                    with open(os.path.join(directory, "unsupported.json"), "w") as f:
                        json.dump(launch, f)
                    continue
                with open(os.path.join(directory, "launch.sh"), "w") as f:
                    f.write(launch["command"])
                with open(os.path.join(directory, "expected_model.json"), "w") as f:
                    json.dump(expected_model(args), f)
                for name, text in launch["files"].items():
                    with open(os.path.join(directory, name), "w") as f:
                        f.write(text)
                out[target].append(directory)
    return out, empty


def extract_files(git_dir, commit, destination):
    """The files of `commit` one by one, skipping blobs the snapshot lacks (listed in
    MISSING_BLOBS there)."""
    listing = run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit]).stdout
    missing = []
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind != "blob":
            continue
        data = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "blob", blob],
                              capture_output=True)
        if data.returncode != 0:
            missing.append(path)
            continue
        target = os.path.join(destination, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if mode == "120000":
            os.symlink(data.stdout.decode(), target)
        else:
            with open(target, "wb") as f:
                f.write(data.stdout)
    with open(os.path.join(destination, "MISSING_BLOBS"), "w") as f:
        f.write("\n".join(missing) + "\n")


def unpack(mirrors, work, target):
    """The target's sources under WORK/src/TARGET/NAME; returns [(label, commit)]."""
    used = []
    for mirror, commit, label in SOURCES[target]:
        git_dir = os.path.join(mirrors, mirror, "repo")
        commit = run(["git", "--git-dir", git_dir, "rev-parse", f"{commit}^{{commit}}"]
                     ).stdout.strip()
        destination = os.path.join(work, "src", target, mirror.split("+")[1])
        if not os.path.isdir(destination):
            archive = subprocess.run(["git", "--git-dir", git_dir, "archive", commit],
                                     capture_output=True)
            os.makedirs(destination)
            if archive.returncode == 0:
                tarfile.open(fileobj=io.BytesIO(archive.stdout)).extractall(destination)
            else:  # a snapshot without its largest blobs: every file that is there
                extract_files(git_dir, commit, destination)
        used.append((label, commit))
    for path, text in INSTALLED_FILES.get(target, {}).items():
        with open(os.path.join(work, "src", target, path), "w") as f:
            f.write(text)
    # Pure-Python packages the frameworks import that Debian's python3-torch does not bring,
    # from this interpreter's site-packages (no Python registry is reachable here).
    pydeps = os.path.join(work, "src", target, "pydeps")
    os.makedirs(pydeps, exist_ok=True)
    for name, source in PYDEPS:
        module = importlib.import_module(source)
        origin = module.__file__
        if os.path.basename(origin) == "__init__.py":
            destination = os.path.join(pydeps, name)
            if not os.path.isdir(destination):
                shutil.copytree(os.path.dirname(origin), destination)
        else:
            shutil.copy(origin, pydeps)
    return used


def validate(python, work, target, directory, code, timeout_s=300):
    """(accepted, last error line) of one launch directory: the target's validator over the
    framework's code where SOURCES has it, else the source-derived checks
    (validators/interfaces.py)."""
    if code:
        validator = os.path.join(HERE, "validators", "validate_" + target.replace("-", "_") + ".py")
        command = [python, validator, os.path.join(work, "src", target), directory]
    else:
        command = [sys.executable, os.path.join(HERE, "validators", "validate_interfaces.py"), target,
                   directory]
    try:
        result = run(command, timeout=timeout_s,
                     env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout_s} s"
    if result.returncode == 0:
        return True, ""
    return False, first_error(result.stdout + result.stderr) or f"exit {result.returncode}"


# Validators that check several launches in one process (the framework imported once, each
# launch in a forked child: validators/common.py check_each).
BATCHED = {"deepspeed", "colossalai", "megatron-bridge", "mindspeed-llm"}


def validate_all(python, work, target, directories, code, timeout_s=300):
    """[(accepted, error)] of the launch directories, in order."""
    if not (code and target in BATCHED and len(directories) > 1):
        return [validate(python, work, target, d, code, timeout_s) for d in directories]
    validator = os.path.join(HERE, "validators", "validate_" + target.replace("-", "_") + ".py")
    try:
        run([python, validator, os.path.join(work, "src", target), *directories],
            timeout=timeout_s * len(directories),
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    except subprocess.TimeoutExpired:
        pass
    results = []
    for directory in directories:
        rc_path = os.path.join(directory, "validation.rc")
        if not os.path.exists(rc_path):
            results.append((False, "not validated (the batch stopped before it)"))
            continue
        with open(rc_path) as f:
            rc = int(f.read())
        with open(os.path.join(directory, "validation.out")) as f:
            output = f.read()
        results.append((True, "") if rc == 0 else
                       (False, first_error(output) or f"exit {rc}"))
    return results


def first_error(output):
    """The exception a validator ended with, its message lines joined (a pydantic error spans
    several), else the last line of its output."""
    lines = [l.rstrip() for l in output.strip().splitlines() if l.strip()]
    tracebacks = [i for i, l in enumerate(lines) if l.startswith("Traceback (most recent")]
    if not tracebacks:
        return lines[-1] if lines else ""
    tail = lines[tracebacks[-1] + 1:]
    start = next((i for i in range(len(tail) - 1, -1, -1)
                  if not tail[i].startswith(" ") and not tail[i].startswith("^")), 0)
    while start > 0 and not tail[start - 1].startswith(" "):
        start -= 1  # the exception's earlier message lines
    return " | ".join(l.strip() for l in tail[start:])[:600]


def negative_controls(work, target, accepted_dir, code):
    """Broken copies of an accepted launch that the validator must reject: (name, dir)."""
    module = __import__("negative_controls")
    return module.make(target, accepted_dir, os.path.join(work, "negctl", target),
                       code=code)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--paraplan", default="build/native/paraplan")
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("--work", default="/tmp/paraplan-conformance")
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--targets", default=",".join(SOURCES))
    parser.add_argument("--generate-only", action="store_true",
                        help="write the launches (and launches.json) and stop")
    parser.add_argument("--reuse", action="store_true",
                        help="validate the launches an earlier --generate-only wrote")
    parser.add_argument("--keep", action="store_true",
                        help="targets not in --targets keep their entry of the committed "
                             "report.json (with the Paraplan commit they were measured at)")
    options = parser.parse_args()
    sys.path.insert(0, HERE)
    index = os.path.join(options.work, "launches.json")
    if options.reuse:
        with open(index) as f:
            launches, empty = json.load(f)
    else:
        if os.path.isdir(os.path.join(options.work, "launches")):
            shutil.rmtree(os.path.join(options.work, "launches"))
        launches, empty = generate(options.paraplan, options.work)
        with open(index, "w") as f:
            json.dump([launches, empty], f)
    if options.generate_only:
        return
    paraplan_commit = run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"]).stdout.strip()
    torch_ok = run([options.python, "-c", "import torch"]).returncode == 0
    if not torch_ok:
        print(f"{options.python} cannot import torch: source-derived checks only", flush=True)
    report = {"paraplan": paraplan_commit, "torch": torch_ok, "jobs": len(SUITE), "targets": {}, "no_strategy": [
        {"job": j, "target": t, "why": w} for j, t, w in empty]}
    previous = {}
    if options.keep and os.path.exists(os.path.join(HERE, "report.json")):
        with open(os.path.join(HERE, "report.json")) as f:
            old = json.load(f)
        previous = {t: {"measured_at": old["paraplan"], **e} for t, e in old["targets"].items()}
    for target in TARGETS:
        if options.keep and target not in options.targets.split(",") and target in previous:
            report["targets"][target] = previous[target]  # as measured before, at its commit
            continue
        entry = {"launches": len(launches[target]), "measured_at": paraplan_commit}
        code = target in options.targets.split(",") and target in SOURCES and torch_ok
        if code:
            entry["sources"] = [{"label": l, "commit": c}
                                for l, c in unpack(options.mirrors, options.work, target)]
        else:  # the source-derived checks only (tests/unit/data/framework-interfaces.json)
            with open(os.path.join(HERE, "..", "..", "tests", "unit", "data",
                                   "framework-interfaces.json")) as f:
                interfaces = json.load(f)
            source = interfaces.get(target, {})
            entry["sources"] = [{"label": "source-derived checks only (framework-interfaces.json"
                                 + (f", {source['repository']}" if source else "") + ")",
                                 "commit": source.get("commit", "-")}]
            entry["framework_code"] = False
            if not source:  # nothing read from its sources yet (deepspeed): not validated
                entry["validated"] = False
                report["targets"][target] = entry
                continue
        accepted, rejected = [], []
        results = validate_all(options.python, options.work, target, launches[target], code)
        for directory, (ok, error) in zip(launches[target], results):
            name = os.path.relpath(directory, os.path.join(options.work, "launches"))
            (accepted if ok else rejected).append({"launch": name, "error": error})
            print(f"{target:16} {name:50} {'ok' if ok else 'REJECTED ' + error}", flush=True)
        entry.update(accepted=len(accepted), rejected=rejected, validated=True)
        controls = []
        if accepted:
            first = os.path.join(options.work, "launches", accepted[0]["launch"])
            made = negative_controls(options.work, target, first, code)
            results = validate_all(options.python, options.work, target, [d for _, d in made],
                                   code)
            for (control, directory), (ok, error) in zip(made, results):
                controls.append({"control": control, "rejected": not ok, "error": error})
                print(f"{target:16} negative control {control:34} "
                      f"{'REJECTED ' + error if not ok else 'ACCEPTED (validator cannot fail!)'}",
                      flush=True)
        entry["negative_controls"] = controls
        report["targets"][target] = entry
    with open(os.path.join(HERE, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, "report.md"), "w") as f:
        f.write(markdown(report))


def markdown(report):
    lines = [f"# Conformance report (scripts/conformance/run.py at Paraplan {report['paraplan']})",
             "", f"{report['jobs']} jobs, top 3 strategies per job and target.", "",
             "| target | launches | validated by | accepted | rejected | negative controls "
             "rejected | Paraplan commit |", "|---|---:|---|---:|---:|---:|---|"]
    for target, e in report["targets"].items():
        if not e.get("validated"):
            lines.append(f"| {target} | {e['launches']} | not validated | | | | |")
            continue
        sources = "; ".join(f"{s['label']} `{s['commit'][:12]}`" for s in e["sources"])
        if e.get("framework_code") is False:
            sources += " -- NOT the framework's code"
        controls = e["negative_controls"]
        lines.append(f"| {target} | {e['launches']} | {sources} | {e['accepted']} | "
                     f"{len(e['rejected'])} | {sum(c['rejected'] for c in controls)} of "
                     f"{len(controls)} | {e.get('measured_at', report['paraplan'])} |")
    lines += ["", "## Rejections", ""]
    for target, e in report["targets"].items():
        for r in e.get("rejected", []):
            lines.append(f"- {target} `{r['launch']}`: {r['error']}")
    lines += ["", "## Negative controls", "",
              "Broken copies of an accepted launch. A rejected control shows the validator can "
              "fail on that kind of error; an accepted one shows what the framework's own code "
              "does not check (torchtitan v0.2.2's ConfigManager does not hold job-file values to "
              "their Literal annotations: `mixed_precision_reduce = \"bfloat16\"` parses, though "
              "job_config.py declares `Literal[\"float32\"]`; Paraplan keeps to the declaration "
              "and CI's source-derived check rejects it).", ""]
    for target, e in report["targets"].items():
        for c in e.get("negative_controls", []):
            lines.append(f"- {target} {c['control']}: "
                         f"{'rejected: ' + c['error'] if c['rejected'] else 'ACCEPTED'}")
    lines += ["", "## Limits", "",
              "- torch is Debian's 1.13 with scripts/conformance/shims.py: torch 2.x modules and "
              "attributes it lacks, Triton, Transformer Engine (told 2.14), tokenizers, datasets "
              "and TensorBoard are stand-ins; the GPU is mocked by host type.",
              "- megatron: parse_args, validate_args, core_transformer_config_from_args and the "
              "layout's validate_layer_layout per host type; nothing past the config (no model, no "
              "process groups).",
              "- torchtitan: ConfigManager, custom_import, the train spec and flavor, the flavor's "
              "FeedForward width, ParallelDims and train.py's batch assertions; pipeline_llm's "
              "stage split is not run. The snapshot lacks tests/assets/c4_test/data.json (a large "
              "blob), which only loading data would read.",
              "- deepspeed: Megatron-DeepSpeed's parse_args (with deepspeed.add_config_arguments), "
              "validate_args, its num-microbatches calculator and core_transformer_config_from_args; "
              "DeepSpeedConfig(ds_config.json) with Megatron's data-parallel world (its batch "
              "assertion runs); under ZeRO-3 with experts, DeepSpeedEngine's own "
              "_validate_zero3_moe_compatibility on a module holding a deepspeed.moe.layer.MoE "
              "(deepspeed.initialize itself, the model and the optimizers are not run). Stand-ins: "
              "msgpack, filelock, intel_extension_for_pytorch (imported unconditionally by "
              "Megatron-DeepSpeed's fused_rmsnorm.py); Triton is absent, as DeepSpeed allows. "
              "Paraplan's own check on top: ds_config's gradient_clipping equals --clip-grad.",
              "- mindspeed-llm: `import mindspeed_llm` runs its megatron_adaptor (MindSpeed's "
              "feature patches chosen from the command line, applied to Megatron-LM core_v0.12.1), "
              "then Megatron's initialize_megatron steps as patched: parse_args, validate_args "
              "(features' pre/post validation), set_global_variables and "
              "core_transformer_config_from_args. torch_npu, torchair and CANN are stand-ins "
              "(MindSpeed's NPU operator registrations are made once each); no NPU kernel runs.",
              "- megatron-bridge: pretrain_paraplan.py executed with pretrain() stopped after "
              "runtime_config_update(cfg) (recipe resolution, data-parallel size, comm-overlap "
              "setup, ConfigContainer.validate finalising the provider), then the finalised "
              "model's dimensions against the model priced. nvidia-resiliency-ext (imported "
              "unconditionally by training/pretrain.py, told 0.6.0), transformers, "
              "megatron.energon, modelopt and data/logging packages are stand-ins.",
              "- colossalai: train.py executed up to the model with the real plugin constructor "
              "(ProcessGroupMesh with answered rank/world and stand-in groups, stage manager, "
              "schedule, shard config), a keyword the constructor silently resets (the MoE "
              "plugin's zero_stage/overlap_communication) reported as a rejection, then "
              "ShardFormer's get_autopolicy for the model class (transformers is a stand-in whose "
              "classes carry the module path transformers defines them in). booster.boost, "
              "sharding and the training loop are not run.",
              "", "## Job/target pairs with no strategy", ""]
    for n in report["no_strategy"]:
        lines.append(f"- {n['job']} / {n['target']}: {' '.join(n['why'])}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
