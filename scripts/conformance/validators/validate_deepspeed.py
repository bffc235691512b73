"""DeepSpeed's and Megatron-DeepSpeed's own checks of one launch, for each torchrun line, as
Megatron-DeepSpeed's pretrain_gpt.py runs them up to deepspeed.initialize:
parse_args() (Megatron-DeepSpeed's parser with deepspeed.add_config_arguments; an unknown flag is
fatal), validate_args() with pretrain_gpt.py's defaults, the num-microbatches calculator,
core_transformer_config_from_args(), then DeepSpeedConfig(ds_config.json, mpu) with Megatron's
data-parallel world (its batch assertion: train = micro x accumulation x data parallel), and,
under ZeRO-3 with MoE layers (--num-experts > 1: Megatron-DeepSpeed builds deepspeed.moe.layer.MoE),
DeepSpeedEngine._validate_zero3_moe_compatibility, which deepspeed.initialize calls for stage 3.
WORLD_SIZE = NNODES x processes per host, RANK the host type's first global rank.

usage: validate_deepspeed.py SRC_DIR LAUNCH_DIR...   (SRC_DIR/DeepSpeed, SRC_DIR/Megatron-DeepSpeed)
  One launch: its result is the exit status. Several: each in a forked child
  (common.check_each: DIR/validation.out, DIR/validation.rc).
"""
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

src, launch_dirs = sys.argv[1], sys.argv[2:]
# Imported at module level by Megatron-DeepSpeed, used only for data, logging and kernels.
os.environ["PARAPLAN_STUBBED"] = "tensorboard,wandb,cpuinfo,tqdm,apex,flash_attn,ninja," \
    "sentencepiece,tiktoken,transformers,mpi4py,nltk,msgpack,filelock,intel_extension_for_pytorch"
common.setup_shims(src)
# DeepSpeed imports Triton only where it is installed (deepspeed/__init__.py HAS_TRITON): as on a
# host without it, not a stand-in.
sys.modules["shims"].STUBBED.discard("triton")
sys.path[:0] = [os.path.join(src, d) for d in (
    "Megatron-DeepSpeed", "DeepSpeed", "hjson-py", "einops")]
import torch  # noqa: E402
import deepspeed  # noqa: E402
from deepspeed.runtime.config import DeepSpeedConfig  # noqa: E402
from deepspeed.runtime.engine import DeepSpeedEngine  # noqa: E402
from deepspeed.moe.layer import MoE  # noqa: E402
from megatron.arguments import parse_args, validate_args  # noqa: E402
from megatron.arguments import core_transformer_config_from_args  # noqa: E402
from megatron.microbatches import build_num_microbatches_calculator  # noqa: E402


class DataParallelOnly:
    """What DeepSpeedConfig asks of an mpu: Megatron's data-parallel group (world over TP x PP x
    sequence parallel, megatron/core/parallel_state.py), as deepspeed.initialize passes it."""

    def __init__(self, args):
        self.dp = args.world_size // (args.tensor_model_parallel_size *
                                      args.pipeline_model_parallel_size *
                                      args.ds_sequence_parallel_size)

    def get_data_parallel_world_size(self):
        return self.dp

    def get_sequence_parallel_world_size(self):
        return 1

    def get_sequence_data_parallel_world_size(self):
        return self.dp


def check(launch_dir):
    exports, lines = common.read_launch(launch_dir)
    if not lines:
        sys.exit("no torchrun line")
    # The launch runs from Megatron-DeepSpeed's root with ds_config.json beside it (launch.sh).
    os.chdir(launch_dir)
    for gpu, first_rank, words in lines:
        options, program, arguments = common.torchrun_options(words)
        if program != "pretrain_gpt.py":
            sys.exit(f"program {program}, not pretrain_gpt.py")
        common.apply_environment(exports, gpu)
        world = common.world_size(exports, words)
        os.environ.update(WORLD_SIZE=str(world), RANK=str(first_rank), LOCAL_RANK="0")
        # deepspeed.comm without a process group: the launch's world and rank.
        deepspeed.comm.get_world_size = lambda group=None: world
        deepspeed.comm.get_rank = lambda group=None: first_rank
        deepspeed.comm.is_initialized = lambda: True
        sys.argv = [program] + arguments
        common.dump_parser_if_asked()
        args = parse_args()
        validate_args(args, {"tokenizer_type": "GPT2BPETokenizer"})  # pretrain_gpt.py's defaults
        build_num_microbatches_calculator(args)
        core_transformer_config_from_args(args)
        common.check_model_args(args, launch_dir)
        config = DeepSpeedConfig(args.deepspeed_config, mpu=DataParallelOnly(args))
        moe = max(args.num_experts) > 1
        if config.zero_optimization_stage == 3 and moe:  # deepspeed/runtime/engine.py
            engine = types.SimpleNamespace(has_moe_layers=True, autotp_size=lambda: 0)
            layer = MoE.__new__(MoE)  # what Megatron-DeepSpeed's ParallelMLP becomes with experts
            engine.module = types.SimpleNamespace(named_modules=lambda: [("mlp.moe", layer)])
            DeepSpeedEngine._validate_zero3_moe_compatibility(engine)
        # Paraplan's own check, not DeepSpeed's: with --deepspeed, Megatron-DeepSpeed hands DeepSpeed
        # the bare optimizer (megatron/optimizer/__init__.py), so only ds_config clips gradients;
        # it must clip at --clip-grad as the other targets do.
        if config.gradient_clipping != args.clip_grad:
            sys.exit(f"ds_config gradient_clipping {config.gradient_clipping} != --clip-grad "
                     f"{args.clip_grad}: DeepSpeed clips only by ds_config")
        print(f"{gpu or 'all'} hosts: accepted (world {world}, data parallel "
              f"{DataParallelOnly(args).dp}, ZeRO {config.zero_optimization_stage}, clipping "
              f"{config.gradient_clipping})")


if len(launch_dirs) == 1:
    check(launch_dirs[0])
else:
    common.check_each(check, launch_dirs)
