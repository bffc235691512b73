"""Colossal-AI's own checks of one launch: train.py executed as torchrun runs it, for each
torchrun line, up to the model (the plugin built by Colossal-AI's real constructor:
HybridParallelPlugin / MoeHybridParallelPlugin / GeminiPlugin / LowLevelZeroPlugin with the
generated keywords: ProcessGroupMesh, the stage manager, the pipeline schedule, the shard
config), then the model class looked up in ShardFormer's policy list
(colossalai/shardformer/policies/auto_policy.py get_autopolicy, as booster.boost does) and the
policy built.

No process group exists: torch.distributed answers the launch's world size and rank, and
new_group returns a stand-in group. transformers is not installed: its config and model classes
are stand-ins carrying the module path transformers defines them in (TRANSFORMERS_MODULES), which
is what the policy lookup reads. A plugin that silently changes what it was given (the MoE
plugin turns ZeRO-2 and overlap_communication off with a warning) is reported as a rejection:
what runs would not be what was priced.

usage: validate_colossalai.py SRC_DIR LAUNCH_DIR...   (SRC_DIR/ColossalAI: v0.5.0)
  One launch: its result is the exit status. Several: each in a forked child
  (common.check_each: DIR/validation.out, DIR/validation.rc).
"""
import importlib.abc
import importlib.machinery
import os
import re
import sys
import traceback
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

# Where transformers defines the classes a launch imports (huggingface/transformers
# src/transformers/models/NAME/{configuration,modeling}_NAME.py).
TRANSFORMERS_MODULES = {
    "LlamaConfig": "transformers.models.llama.configuration_llama",
    "LlamaForCausalLM": "transformers.models.llama.modeling_llama",
    "MixtralConfig": "transformers.models.mixtral.configuration_mixtral",
    "MixtralForCausalLM": "transformers.models.mixtral.modeling_mixtral",
    "Qwen2Config": "transformers.models.qwen2.configuration_qwen2",
    "Qwen2ForCausalLM": "transformers.models.qwen2.modeling_qwen2",
    "Qwen3MoeConfig": "transformers.models.qwen3_moe.configuration_qwen3_moe",
    "Qwen3MoeForCausalLM": "transformers.models.qwen3_moe.modeling_qwen3_moe",
    "DeepseekV3Config": "transformers.models.deepseek_v3.configuration_deepseek_v3",
    "DeepseekV3ForCausalLM": "transformers.models.deepseek_v3.modeling_deepseek_v3",
}

src, launch_dirs = sys.argv[1], sys.argv[2:]
os.environ["PARAPLAN_STUBBED"] = "transformers,peft,bitsandbytes,datasets,safetensors," \
    "tensornvme,galore_torch,flash_attn,apex,fused_layer_norm,tqdm,rpyc,diffusers,fabric," \
    "contexttimer,ninja,click,sentencepiece,google"
common.setup_shims(src)
sys.path[:0] = [os.path.join(src, d) for d in ("ColossalAI", "einops")]

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def transformers_class(name, module=None):
    """A stand-in for transformers.NAME defined where transformers defines it (`module` when
    imported from the defining submodule)."""
    module = module or TRANSFORMERS_MODULES.get(name)
    if module is None:
        sys.exit(f"transformers.{name}: not in TRANSFORMERS_MODULES (add where it is defined)")

    def init(self, *args, **kwargs):
        if isinstance(self, torch.nn.Module):
            torch.nn.Module.__init__(self)
            self.config = args[0]
        self.kwargs = kwargs

    base = torch.nn.Module if "For" in name else object
    return type(name, (base,), {"__module__": module, "__init__": init,
                                "__getattr__": lambda self, a: _missing(self, a)})


def _missing(self, name):
    if name.startswith("__") or name in ("config", "kwargs") or name.startswith("_"):
        raise AttributeError(name)
    return self.kwargs.get(name)


CLASSES = {}


class Transformers(types.ModuleType):
    """transformers and any submodule of it: a class name resolves to the one stand-in class
    (the same object from every module), anything else to a stand-in."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name[0].isupper():
            module = TRANSFORMERS_MODULES.get(name) if self.__name__ == "transformers" else \
                self.__name__
            if (module, name) not in CLASSES:
                CLASSES[module, name] = transformers_class(name, module)
            return CLASSES[module, name]
        return sys.modules["shims"].Anything(f"{self.__name__}.{name}")


class TransformersFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name == "transformers" or name.startswith("transformers."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return Transformers(spec.name)

    def exec_module(self, module):
        pass


class Group:
    """A process group that is never used for communication."""

    def __init__(self, ranks):
        self.ranks = list(ranks)

    def size(self):
        return len(self.ranks)

    def rank(self):
        return 0


# No process group: the launch's world and rank (STATE, set per torchrun line), stand-in groups.
STATE = {"world": 1, "rank": 0}
dist.is_initialized = lambda: True
dist.get_world_size = lambda group=None: STATE["world"] if group is None else group.size()
dist.get_rank = lambda group=None: STATE["rank"] if group is None else 0
dist.new_group = lambda ranks=None, backend=None, **k: Group(ranks or range(STATE["world"]))
dist.get_process_group_ranks = lambda group: group.ranks
dist.barrier = dist.destroy_process_group = lambda *a, **k: None
sys.meta_path.insert(0, TransformersFinder())
import colossalai  # noqa: E402
from colossalai.shardformer.policies.auto_policy import get_autopolicy  # noqa: E402

colossalai.launch_from_torch = lambda *a, **k: None


def check(launch_dir):
    exports, lines = common.read_launch(launch_dir)
    if not lines:
        sys.exit("no torchrun line")
    text = open(os.path.join(launch_dir, "train.py")).read()
    # Up to the model: the plugin and the model class are what this checks; the training loop
    # needs GPUs and the materialised model.
    cut = re.search(r"^(with LazyInitContext|model = )", text, re.M)
    if cut is None:
        sys.exit("train.py: no model construction found")
    prefix = text[:cut.start()]
    model_line = re.search(r"^\s+model = (\w+)\((\w+)\)", text[cut.start():], re.M)
    for gpu, first_rank, words in lines:
        options, program, arguments = common.torchrun_options(words)
        if program != "train.py":
            sys.exit(f"program {program}, not train.py")
        common.apply_environment(exports, gpu)
        STATE["world"], STATE["rank"] = common.world_size(exports, words), first_rank
        os.environ.update(WORLD_SIZE=str(STATE["world"]), RANK=str(first_rank), LOCAL_RANK="0",
                          LOCAL_WORLD_SIZE=options.get("nproc_per_node", "8"))
        namespace = {"__name__": "__main__", "__file__": os.path.join(launch_dir, "train.py")}
        try:
            exec(compile(prefix, "train.py", "exec"), namespace)
        except Exception:  # noqa: BLE001 -- reported as it is, then no __del__ of a half-built
            traceback.print_exc()  # plugin (its own error would hide this one)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)
        plugin = namespace["plugin"]
        # Keywords the constructor changed with only a warning: what runs is not what was priced.
        given = dict(re.findall(r"^    (\w+)=(.+),$", prefix, re.M))
        changed = [f"{k}: given {given[k]}, plugin has {getattr(plugin, k)!r}"
                   for k in ("zero_stage", "overlap_communication")
                   if k in given and hasattr(plugin, k) and repr(getattr(plugin, k)) != given[k]]
        if changed:
            sys.exit(f"{type(plugin).__name__} changed its arguments with only a warning "
                     f"({'; '.join(changed)}): what runs is not what was priced")
        policy = None
        if model_line is not None:
            model = namespace[model_line.group(1)](namespace[model_line.group(2)])
            policy = get_autopolicy(model)
        print(f"{gpu or 'all'} hosts: accepted ({type(plugin).__name__}, world {STATE['world']}, "
              f"policy {type(policy).__name__ if policy else '-'})")


if len(launch_dirs) == 1:
    check(launch_dirs[0])
else:
    common.check_each(check, launch_dirs)
