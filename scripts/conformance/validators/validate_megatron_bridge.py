"""Megatron-Bridge's own checks of one launch, for each torchrun line: pretrain_paraplan.py executed
as torchrun runs it, with pretrain() stopped after its first step, runtime_config_update(cfg)
(training/config.py: the mixed-precision recipe resolved and applied, the data-parallel size
from WORLD_SIZE, comm-overlap setup, then ConfigContainer.validate(), which finalises the model
provider: TransformerConfig's __post_init__ and Megatron-Core's checks). The finalised model's
dimensions are then compared with the model priced (expected_model.json).

Transformer Engine is a stand-in told 2.14; transformers, the Hub and GPU kernels are not used
(the launch defines its model on a provider, so nothing is downloaded).

usage: validate_megatron_bridge.py SRC_DIR LAUNCH_DIR...
  (SRC_DIR/Megatron-Bridge and SRC_DIR/Megatron-LM at Bridge's submodule commit)
  One launch: its result is the exit status. Several: each in a forked child
  (common.check_each: DIR/validation.out, DIR/validation.rc).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

src, launch_dirs = sys.argv[1], sys.argv[2:]
os.environ["PARAPLAN_STUBBED"] = ",".join(filter(None, [
    "transformers", "tensorboard", "wandb", "safetensors", "rich", "omegaconf", "filelock",
    "nvidia_resiliency_ext", "datasets", "PIL", "google", "modelopt", "tqdm", "diffusers",
    "megatron.energon",
    *os.environ.get("EXTRA_STUBS", "").split(",")]))
common.setup_shims(src)
# Megatron-Bridge's training/pretrain.py imports nvidia-resiliency-ext unconditionally; its
# stand-in is told the version Megatron-Core's nvrx.py requires of it.
sys.modules["shims"].VERSIONS["nvidia_resiliency_ext"] = "0.6.0"
sys.path[:0] = [os.path.join(src, d) for d in (os.path.join("Megatron-Bridge", "src"),
                                                "Megatron-LM", "einops")]

import megatron.bridge.training.pretrain as bridge_pretrain  # noqa: E402
from megatron.bridge.training.config import runtime_config_update  # noqa: E402
# What the launch scripts import, imported once before the launches are checked.
import megatron.bridge.models.gpt_provider  # noqa: E402,F401
import megatron.bridge.models.mla_provider  # noqa: E402,F401
import megatron.bridge.recipes.common  # noqa: E402,F401
import megatron.bridge.training.gpt_step  # noqa: E402,F401

def check(launch_dir):
    exports, lines = common.read_launch(launch_dir)
    if not lines:
        sys.exit("no torchrun line")
    with open(os.path.join(launch_dir, "pretrain_paraplan.py")) as f:
        script = f.read()
    expected_path = os.path.join(launch_dir, "expected_model.json")
    expected = json.load(open(expected_path)) if os.path.exists(expected_path) else {}

    for gpu, first_rank, words in lines:
        options, program, arguments = common.torchrun_options(words)
        if program != "pretrain_paraplan.py" or arguments:
            sys.exit(f"program {program} {arguments}, not pretrain_paraplan.py")
        common.apply_environment(exports, gpu)
        if "PARAPLAN_GPU_TYPE=" in open(os.path.join(launch_dir, "launch.sh")).read():
            os.environ["PARAPLAN_GPU_TYPE"] = gpu  # set before torchrun on each host type's line
        world = common.world_size(exports, words)
        os.environ.update(WORLD_SIZE=str(world), RANK=str(first_rank), LOCAL_RANK="0")
        finalised = {}

        def first_step(cfg, forward_step_func, callbacks=None):
            runtime_config_update(cfg)  # pretrain()'s first step (training/pretrain.py)
            finalised["cfg"] = cfg

        bridge_pretrain.pretrain = first_step
        exec(compile(script, "pretrain_paraplan.py", "exec"), {"__name__": "__main__"})
        model = finalised["cfg"].model
        built = {"hidden_size": model.hidden_size, "num_layers": model.num_layers,
                 "num_attention_heads": model.num_attention_heads,
                 "num_query_groups": model.num_query_groups or model.num_attention_heads,
                 "ffn_hidden_size": model.ffn_hidden_size, "vocab_size": model.vocab_size}
        wrong = {k: (v, expected[k]) for k, v in built.items() if k in expected and expected[k] != v}
        if wrong:
            sys.exit(f"the provider builds another model (built, priced): {wrong}")
        print(f"{gpu or 'all'} hosts: accepted (world {world}, data parallel "
              f"{finalised['cfg'].data_parallel_size}, {type(model).__name__})")


if len(launch_dirs) == 1:
    check(launch_dirs[0])
else:
    common.check_each(check, launch_dirs)
