"""torchtitan's own checks of one launch, as `torchrun -m torchtitan.train --job.config_file
job.toml` runs them from the repository root (the launch's files copied there):
ConfigManager().parse_args() (tyro: an unknown TOML key or a value outside a Literal is fatal),
[experimental] custom_import, get_train_spec(model.name) and the flavor in its model_args, the
flavor's FeedForward width built by torchtitan's own FeedForward on the meta device (compared with
expected_model.json), ParallelDims(...) at the world size, and train.py's batch assertions.

usage: validate_torchtitan.py SRC_DIR LAUNCH_DIR   (SRC_DIR/torchtitan and SRC_DIR/tyro: the trees)
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

src, launch_dir = sys.argv[1], sys.argv[2]
exports, lines = common.read_launch(launch_dir)
if not lines or len({tuple(w) for _, _, w in lines}) != 1:
    sys.exit("no torchrun line, or host types with different commands")
gpu, _, words = lines[0]
options, program, arguments = common.torchrun_options(words)
if program != "torchtitan.train" or arguments[:1] != ["--job.config_file"]:
    sys.exit(f"not torchtitan.train --job.config_file: {program} {arguments}")
common.apply_environment(exports, gpu)
world = common.world_size(exports, words)
# Imported at module level by torchtitan's components, used only to load data, tokenizers and
# logs: stand-ins (shims.py).
os.environ["PARAPLAN_STUBBED"] = "tokenizers,datasets,safetensors,torchdata,tensorboard,wandb," \
    "torchao,fsspec,blobfile,tiktoken,sentencepiece,google"
common.setup_shims(src)
# The repository root is the working directory, as the launch says: its tests/assets and the
# launch's files (job.toml, paraplan_flavor.py) are found from there.
root = tempfile.mkdtemp()
repo = os.path.join(src, "torchtitan")
for name in os.listdir(repo):
    os.symlink(os.path.join(repo, name), os.path.join(root, name))
for name in os.listdir(launch_dir):
    if name != "launch.sh":
        shutil.copy(os.path.join(launch_dir, name), os.path.join(root, name))
os.chdir(root)
sys.path[:0] = [root] + [os.path.join(src, *d) for d in (
    ("tyro", "src"), ("tyro",), ("typeguard", "src"), ("docstring_parser",))]

import importlib  # noqa: E402

from torchtitan.config import ConfigManager  # noqa: E402
from torchtitan.distributed.parallel_dims import ParallelDims  # noqa: E402
from torchtitan.protocols.train_spec import get_train_spec  # noqa: E402

config = ConfigManager().parse_args(arguments)
if config.experimental.custom_import:
    importlib.import_module(config.experimental.custom_import)
spec = get_train_spec(config.model.name)
if config.model.flavor not in spec.model_args:
    sys.exit(f"flavor {config.model.flavor!r} not in {config.model.name}'s model_args")
args = spec.model_args[config.model.flavor]
p = config.parallelism
dims = ParallelDims(dp_replicate=p.data_parallel_replicate_degree,
                    dp_shard=p.data_parallel_shard_degree, cp=p.context_parallel_degree,
                    tp=p.tensor_parallel_degree, pp=p.pipeline_parallel_degree,
                    ep=p.expert_parallel_degree, etp=p.expert_tensor_parallel_degree,
                    world_size=world)
# train.py: the batch over the data-parallel degree.
batch_degree = dims.dp_replicate * dims.dp_shard
t = config.training
assert t.global_batch_size % (t.local_batch_size * batch_degree) == 0, (
    f"global batch size must be multiple of local batch size times data-parallel degree "
    f"({t.global_batch_size} % ({t.local_batch_size} * {batch_degree}) != 0)")
# The model the flavor builds, against the model priced.
import torch  # noqa: E402

_linear = torch.nn.Linear.__init__


def _meta_linear(self, *a, **k):
    k.setdefault("device", "meta")
    _linear(self, *a, **k)


torch.nn.Linear.__init__ = _meta_linear
model_module = importlib.import_module(f"torchtitan.models.{config.model.name}.model.model")
ffn = model_module.FeedForward(dim=args.dim, hidden_dim=4 * args.dim,
                               multiple_of=args.multiple_of,
                               ffn_dim_multiplier=args.ffn_dim_multiplier)
built = {"hidden_size": args.dim, "num_layers": args.n_layers,
         "num_attention_heads": args.n_heads,
         "num_query_groups": args.n_kv_heads or args.n_heads,
         "ffn_hidden_size": ffn.w1.weight.shape[0], "vocab_size": args.vocab_size}
expected_path = os.path.join(launch_dir, "expected_model.json")
if os.path.exists(expected_path):
    with open(expected_path) as f:
        expected = json.load(f)
    wrong = {k: (v, expected[k]) for k, v in built.items() if k in expected and expected[k] != v}
    if wrong:
        sys.exit(f"the flavor builds another model (built, priced): {wrong}")
print(f"accepted: {config.model.name} {config.model.flavor} {built}, world {world}")
