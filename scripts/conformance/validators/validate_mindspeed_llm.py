"""MindSpeed-LLM's own checks of one launch, for each torchrun line, as its pretrain_gpt.py runs
them on Megatron-LM core_v0.12.1: `import mindspeed_llm` applies the megatron_adaptor (MindSpeed's
feature patches, chosen from the command line) to Megatron-LM, then initialize_megatron's
parse_args (MindSpeed-LLM's parse_args_decorator around Megatron's: an unknown flag is fatal), the patched validate_args (each
feature's pre/post validation around Megatron's), both as Megatron's initialize_megatron calls them, set_global_variables (num-microbatches
calculator) and core_transformer_config_from_args (TransformerConfig's __post_init__).

torch_npu (Ascend's torch backend, a C++ extension) and CANN are stand-ins: what the features
check of their arguments runs, what they would do on an NPU does not.

usage: validate_mindspeed_llm.py SRC_DIR LAUNCH_DIR...   (SRC_DIR/{MindSpeed-LLM,MindSpeed,Megatron-LM})
  One launch: its result is the exit status. Several: each in a forked child
  (common.check_each: DIR/validation.out, DIR/validation.rc).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

src, launch_dirs = sys.argv[1], sys.argv[2:]
os.environ["PARAPLAN_STUBBED"] = "torch_npu,apex,tensorboard,wandb,tqdm,transformers,datasets," \
    "safetensors,sentencepiece,tiktoken,mindspore,acl,te,peft,accelerate,flash_attn,nltk,torchair,scipy"
common.setup_shims(src)
import torch_npu  # noqa: E402  (a stand-in: MindSpeed's op builders ask where it is installed)

torch_npu.__file__ = "/nonexistent/torch_npu/__init__.py"
import torchair  # noqa: E402  (a stand-in; its converter registry is a decorator factory)
import torchair.ge_concrete_graph.fx2ge_converter  # noqa: E402

torchair.register_fx_node_ge_converter = lambda *a, **k: (lambda f: f)
torchair.ge_concrete_graph.fx2ge_converter.register_fx_node_ge_converter = \
    torchair.register_fx_node_ge_converter
import torch.library  # noqa: E402

def _once(method):
    """MindSpeed's op builders declare (and give Meta kernels to) the same NPU operators more than
    once (GMM v1 and v2); torch 1.13 refuses a second declaration or kernel, which the NPU build
    does not meet here. The repeat is skipped; the first stays."""
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except RuntimeError as error:
            if self.ns != "mindspeed" or not ("multiple times" in str(error) or
                                              "already a kernel registered" in str(error)):
                raise
            return None
    return wrapper


torch.library.Library.define = _once(torch.library.Library.define)
torch.library.Library.impl = _once(torch.library.Library.impl)
sys.path[:0] = [os.path.join(src, d) for d in ("MindSpeed-LLM", "MindSpeed", "Megatron-LM",
                                                "einops")]


def check_line(gpu, first_rank, words, exports, launch_dir):
    """One torchrun line in its own process: the adaptor patches Megatron once, from that
    process's command line (mindspeed_llm/tasks/megatron_adaptor_v2.py)."""
    options, program, arguments = common.torchrun_options(words)
    if program != "pretrain_gpt.py":
        sys.exit(f"program {program}, not pretrain_gpt.py")
    common.apply_environment(exports, gpu)
    world = common.world_size(exports, words)
    os.environ.update(WORLD_SIZE=str(world), RANK=str(first_rank), LOCAL_RANK="0")
    sys.argv = [program] + arguments
    os.chdir(os.path.join(src, "MindSpeed-LLM"))  # its repository root, as launch.sh says

    import mindspeed_llm  # noqa: F401  (the megatron_adaptor: features patch Megatron-LM)
    import megatron.training.initialize as initialize
    from megatron.training.arguments import core_transformer_config_from_args
    from megatron.training.global_vars import set_global_variables

    # What Megatron's initialize_megatron (pretrain's first step) calls, as the features patched
    # it.
    common.dump_parser_if_asked()
    args = initialize.parse_args(None, False)
    initialize.validate_args(args, {})  # pretrain_gpt.py passes no defaults
    set_global_variables(args, build_tokenizer=False)
    core_transformer_config_from_args(args)
    common.check_model_args(args, launch_dir)
    print(f"{gpu or 'all'} hosts: accepted (world {world})")


def check(launch_dir):
    exports, lines = common.read_launch(launch_dir)
    if not lines:
        sys.exit("no torchrun line")
    if len(lines) == 1:
        check_line(*lines[0], exports, launch_dir)
        return
    for gpu, first_rank, words in lines:  # each host type's line in a child of its own
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            try:
                check_line(gpu, first_rank, words, exports, launch_dir)
            except SystemExit as stop:
                print(stop.code, file=sys.stderr)
                sys.stderr.flush()
                os._exit(1)
            except BaseException:  # noqa: BLE001
                import traceback

                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
            sys.stdout.flush()
            os._exit(0)
        if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
            sys.exit(1)


if len(launch_dirs) == 1:
    check(launch_dirs[0])
else:
    common.check_each(check, launch_dirs)
