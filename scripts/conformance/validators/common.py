"""What every validator shares: the launch directory read as the command would run it."""
import os
import re
import shlex
import sys


# The compute capability of each GPU type the suite uses (NVIDIA's CUDA GPUs list).
CAPABILITY = {"a100": "8.0", "a800": "8.0", "h100": "9.0", "h800": "9.0", "h200": "9.0",
              "b200": "10.0"}


def read_launch(directory):
    """(exports {name: value}, [(gpu type, first global rank, torchrun argument list)]) of
    DIR/launch.sh; the host type and ranks from the comment above each torchrun line."""
    exports, lines = {}, []
    with open(os.path.join(directory, "launch.sh")) as f:
        text = f.read()
    gpu, first_rank = None, 0
    for line in text.splitlines():
        hosts = re.match(r"# (\S+) hosts: NODE_RANK .* \(global ranks (\d+)", line)
        if hosts:
            gpu, first_rank = hosts.group(1), int(hosts.group(2))
        line = line.split("  #")[0].strip()
        if line.startswith("unset "):
            exports[line.split()[1]] = None
        elif line.startswith("export "):
            line = re.sub(r"\$\{(\w+):[?-][^}]*\}", r"placeholder-\1", line)
            for word in shlex.split(line[len("export "):]):
                name, _, value = word.partition("=")
                exports[name] = value
        elif line.startswith("torchrun ") or " torchrun " in line:
            words = shlex.split(line[line.index("torchrun "):])
            lines.append((gpu, first_rank, words))
    return exports, lines


def apply_environment(exports, gpu):
    """The launch's exports in os.environ, and the host type's GPU for shims.py."""
    for name, value in exports.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    os.environ["PARAPLAN_GPU_CAPABILITY"] = CAPABILITY.get(gpu or "h100", "9.0")


def torchrun_options(words):
    """(torchrun options {name: value}, program, program arguments)."""
    options, i = {}, 1
    while i < len(words) and words[i].startswith("--"):
        name, _, value = words[i][2:].partition("=")
        if not value and i + 1 < len(words) and not words[i + 1].startswith("--"):
            value, i = words[i + 1], i + 1
        options[name.replace("-", "_")] = value
        i += 1
    if i < len(words) and words[i] == "-m":
        return options, words[i + 1], words[i + 2:]
    return options, words[i], words[i + 1:]


def world_size(exports, words):
    """NNODES x processes per host: the GPUs the launch starts."""
    options, _, _ = torchrun_options(words)
    nodes = options.get("nnodes", "1")
    nodes = exports.get("NNODES", "1") if nodes == "$NNODES" else nodes
    return int(nodes) * int(options.get("nproc_per_node", "1"))


def setup_shims(src):
    """SRC/pydeps ahead of the system's packages (torch imports typing_extensions), then the
    torch shims."""
    sys.path[:0] = [os.path.join(src, "pydeps"),
                    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    import shims  # noqa: F401


def dump_parser_if_asked():
    """With PARAPLAN_DUMP_PARSER set, the next ArgumentParser.parse_args call prints
    {flag: [choices] or null} of every option of that parser, as the framework's code built it,
    and exits (scripts/conformance/interfaces.py --parsers)."""
    if not os.environ.get("PARAPLAN_DUMP_PARSER"):
        return
    import argparse
    import json

    def dump(parser, *args, **kwargs):
        options = {}
        for action in parser._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    options[flag] = sorted(getattr(c, "name", None) or str(c)
                                           for c in action.choices) if action.choices else None
        print("PARSER " + json.dumps(options, sort_keys=True))
        sys.stdout.flush()
        os._exit(0)

    argparse.ArgumentParser.parse_args = dump


def check_each(check, directories):
    """check(directory) for each launch directory in a child forked after the framework was
    imported once by the caller; a child's output goes to DIR/validation.out and its exit status
    to DIR/validation.rc (run.py reads them). Exits 0."""
    import traceback

    for directory in directories:
        for name in ("validation.out", "validation.rc"):
            if os.path.exists(os.path.join(directory, name)):
                os.remove(os.path.join(directory, name))
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            out = os.open(os.path.join(directory, "validation.out"),
                          os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(out, 1)
            os.dup2(out, 2)
            status = 0
            try:
                check(directory)
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else 1
                if not isinstance(stop.code, int):
                    print(stop.code, file=sys.stderr)
            except BaseException:  # noqa: BLE001 -- the framework's error is the result
                traceback.print_exc()
                status = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
        _, wait_status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(wait_status)
        with open(os.path.join(directory, "validation.rc"), "w") as f:
            f.write(f"{code}\n")
        print(f"{directory}: exit {code}", flush=True)


def check_model_args(args, launch_dir):
    """Exits naming each dimension where Megatron-style parsed args build another model than the
    one priced (LAUNCH_DIR/expected_model.json, written by run.py from the model preset)."""
    import json

    path = os.path.join(launch_dir, "expected_model.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        expected = json.load(f)
    groups = getattr(args, "num_query_groups", None) if getattr(
        args, "group_query_attention", False) else None
    groups = groups or getattr(args, "num_key_value_heads", None) or args.num_attention_heads
    built = {"hidden_size": args.hidden_size, "num_layers": args.num_layers,
             "num_attention_heads": args.num_attention_heads, "num_query_groups": groups,
             "ffn_hidden_size": args.ffn_hidden_size}
    wrong = {k: (v, expected[k]) for k, v in built.items() if k in expected and expected[k] != v}
    if wrong:
        sys.exit(f"the arguments build another model (built, priced): {wrong}")
