"""Megatron-LM's own checks of one launch: for each torchrun line (each host type), as
pretrain_gpt.py runs them -- parse_args() (argparse: an unknown flag is fatal), validate_args()
with pretrain_gpt.py's defaults, core_transformer_config_from_args() (TransformerConfig's
__post_init__), and the pipeline layout's validate_layer_layout() where a layout is given.
WORLD_SIZE = NNODES x processes per host, RANK the host type's first global rank.

usage: validate_megatron.py SRC_DIR LAUNCH_DIR   (SRC_DIR/Megatron-LM: the tree at the pinned commit)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

src, launch_dir = sys.argv[1], sys.argv[2]
exports, lines = common.read_launch(launch_dir)
if not lines:
    sys.exit("no torchrun line")
common.setup_shims(src)
sys.path.insert(0, os.path.join(src, "Megatron-LM"))

from megatron.training.arguments import parse_args, validate_args  # noqa: E402
from megatron.training.arguments import core_transformer_config_from_args  # noqa: E402

for gpu, first_rank, words in lines:
    options, program, arguments = common.torchrun_options(words)
    if program != "pretrain_gpt.py":
        sys.exit(f"program {program}, not pretrain_gpt.py")
    common.apply_environment(exports, gpu)
    os.environ["WORLD_SIZE"] = str(common.world_size(exports, words))
    os.environ["RANK"] = str(first_rank)
    os.environ["LOCAL_RANK"] = "0"
    sys.argv = [program] + arguments
    args = parse_args()
    validate_args(args, {"tokenizer_type": "GPT2BPETokenizer"})  # pretrain_gpt.py's defaults
    config = core_transformer_config_from_args(args)
    layout = getattr(config, "pipeline_model_parallel_layout", None)
    if layout is not None and not isinstance(layout, str):
        layout.validate_layer_layout(config.num_layers, config.mtp_num_layers)
    print(f"{gpu or 'all'} hosts: accepted (world {os.environ['WORLD_SIZE']})")
