#!/usr/bin/env python3
"""Megatron-Bridge's shipped performance recipes as Paraplan scenarios.

Every configuration in a Megatron-Bridge release's scripts/performance/configs/*/
workload_base_configs.py was launched by NVIDIA for its performance tables, so each must fit in
memory; tests/validation/launches_fit_test.cpp checks that the model agrees. Only the
configurations are read here (parallelism, batch, recompute, offloading, dispatcher), never a
throughput.

    python3 scripts/validation/bridge_recipes.py MEGATRON_BRIDGE_GIT_DIR [--tag v0.2.0] \
        > tests/validation/data/recipe-configs.json
    python3 scripts/validation/bridge_recipes.py MEGATRON_BRIDGE_GIT_DIR --tag v0.3.0 \
        > tests/validation/data/recipe-configs-26.02.json

Each recipe-level setting below cites the file of the tag that sets it.
"""

import argparse
import dataclasses
import re
import sys
import types
from dataclasses import dataclass
from typing import List, Optional

from layouts import stage_layers
from recipe_io import git, write_recipes

# Model families of the release (scripts/performance/configs/<family>/), each with the Paraplan
# preset of its models and the sequence length its *_llm_pretrain.py sets.
FAMILIES = {
    # llama3_llm_pretrain.py, llama31_llm_pretrain.py: cfg.model.seq_length = 8192
    "llama3": {"LLAMA3_70B": "llama3-70b", "LLAMA3_8B": "llama3-8b"},
    "llama31": {"LLAMA31_405B": "llama3.1-405b"},
    # deepseek_llm_pretrain.py, qwen3_llm_pretrain.py (set_qwen3_common_configs):
    # cfg.model.seq_length = 4096; gpt_oss: recipes/gpt_oss/gpt_oss.py seq_length: int = 4096
    "deepseek": {"DEEPSEEK_V3": "deepseek-v3"},
    "qwen3": {"QWEN3_235B_A22B": "qwen3-235b-a22b", "QWEN3_30B_A3B": "qwen3-30b-a3b"},
    "gpt_oss": {"GPT_OSS_120B": "gpt-oss-120b"},
}
SEQ_LENGTH = {"llama3": 8192, "llama31": 8192, "deepseek": 4096, "qwen3": 4096, "gpt_oss": 4096}
MOE_FAMILIES = {"deepseek", "qwen3", "gpt_oss"}
# utils/helpers.py get_precision_config: fp8_cs is bf16_with_fp8_current_scaling_mixed()
# (tensorwise), fp8_mx bf16_with_mxfp8_mixed(), fp8_sc bf16_with_fp8_subchannel_scaling_mixed()
# (blockwise); all gather fp8 parameters (fp8_param_gather=True). NVFP4 is not modelled.
FP8_RECIPE = {"FP8_CS": "tensorwise", "FP8_MX": "mxfp8", "FP8_SC": "blockwise"}
# recipes/deepseek/deepseek_v3.py layout_map, (PP, VP) -> layers per pipeline stage, with
# mtp_num_layers: Optional[int] = 1 on the last stage; other shapes have no layout.
DEEPSEEK_STAGE_LAYERS = {
    (4, 1): [16, 16, 16, 13],
    (8, 1): [8] * 7 + [5],
    (4, 2): [16, 16, 16, 13],
    (16, 1): [4] * 15 + [1],
    (8, 2): [8] * 7 + [5],
    (4, 4): [16, 16, 16, 13],
}


@dataclass
class WorkloadBaseConfig:
    """utils/utils.py WorkloadBaseConfig of the tag (fields only)."""

    num_gpus: int = 1
    tensor_model_parallel_size: int = 1
    pipeline_model_parallel_size: int = 1
    context_parallel_size: int = 1
    virtual_pipeline_model_parallel_size: Optional[int] = None
    expert_model_parallel_size: int = 1
    expert_tensor_parallel_size: Optional[int] = None
    global_batch_size: int = 1
    micro_batch_size: int = 1
    use_megatron_fsdp: Optional[bool] = None
    cuda_graph_impl: Optional[str] = None
    cuda_graph_scope: Optional[str] = None
    cpu_offloading_num_layers: Optional[int] = None
    recompute_num_layers: Optional[int] = None
    recompute_modules: Optional[List[str]] = None
    moe_flex_dispatcher_backend: Optional[str] = None
    moe_a2a_overlap: Optional[bool] = False
    peft: Optional[str] = None
    nccl_ub: Optional[bool] = None  # v0.3.0: NCCL user buffers (no memory or time modelled)
    pp_layout: Optional[str] = None  # v0.3.0: --pipeline-model-parallel-layout


def load_configs(git_dir, tag, family):
    # configs/<family>/workload_base_configs.py (v0.2.0) or
    # configs/<group>/<family>_workload_base_configs.py (v0.3.0).
    files = git(git_dir, "ls-tree", "-r", "--name-only", tag, "scripts/performance/configs/").split()
    path = next(f for f in files if f.endswith((f"/{family}/workload_base_configs.py",
                                                f"/{family}_workload_base_configs.py")))
    text = git(git_dir, "show", f"{tag}:{path}")
    utils = types.ModuleType("utils.utils")
    utils.WorkloadBaseConfig = WorkloadBaseConfig
    sys.modules["utils"] = types.ModuleType("utils")
    sys.modules["utils.utils"] = utils
    namespace = {}
    exec(compile(text, f"{family}/workload_base_configs.py", "exec"), namespace)
    return {name: value for name, value in namespace.items()
            if isinstance(value, WorkloadBaseConfig)}


def strategy_of(family, c, dtype):
    """utils/helpers.py set_workload_base_configs, set_megatron_fsdp_overrides,
    set_recompute_overrides, set_moe_a2a_overlap_overrides, set_common_perf_overrides."""
    s = {
        "tensor_model_parallel_size": c.tensor_model_parallel_size,
        "pipeline_model_parallel_size": c.pipeline_model_parallel_size,
        "virtual_pipeline_model_parallel_size": c.virtual_pipeline_model_parallel_size or 1,
        "context_parallel_size": c.context_parallel_size,
        "expert_model_parallel_size": c.expert_model_parallel_size,
        "micro_batch_size": c.micro_batch_size,
        # WorkloadBaseConfig.sequence_parallel: tensor_model_parallel_size > 1
        "sequence_parallel": c.tensor_model_parallel_size > 1,
        # use_megatron_fsdp: data_parallel_sharding_strategy = "optim_grads_params"; else the
        # recipes' distributed optimizer with overlapped gradient and parameter sync
        "zero_stage": 3 if c.use_megatron_fsdp else 1,
        "overlap_grad_reduce": True,
        "overlap_param_gather": True,
        "use_flash_attn": True,
        # *_llm_pretrain.py: cfg.ddp.grad_reduce_in_fp32 = False
        "grad_reduce_in_bf16": True,
        # set_common_perf_overrides: recipe.model.cross_entropy_fusion_impl = "te"
        "cross_entropy_loss_fusion": True,
        "cross_entropy_fusion_impl": "te",
    }
    if c.expert_tensor_parallel_size is not None:
        s["expert_tensor_parallel_size"] = c.expert_tensor_parallel_size
    if family in MOE_FAMILIES:
        # *_llm_pretrain.py: moe_router_force_load_balancing = True; the model providers set
        # moe_grouped_gemm and moe_permute_fusion; a flex backend selects the flex dispatcher,
        # the providers' default is alltoall; the base configs set expert_tensor_parallel_size=1
        s.update({
            "moe_router_force_load_balancing": True,
            "moe_grouped_gemm": True,
            "moe_permute_fusion": True,
            "moe_token_dispatcher_type": "flex" if c.moe_flex_dispatcher_backend else "alltoall",
            "expert_tensor_parallel_size": 1,
        })
        # the base config's moe_flex_dispatcher_backend (deepep or hybridep), as
        # apply_flex_dispatcher_backend passes it to the model
        if c.moe_flex_dispatcher_backend:
            s["moe_flex_dispatcher_backend"] = c.moe_flex_dispatcher_backend
    elif c.tensor_model_parallel_size > 1:
        # recipes/llama/llama3.py: CommOverlapConfig(tp_comm_overlap=True)
        s["tp_comm_overlap"] = True
    if c.moe_a2a_overlap:
        s["overlap_moe_expert_parallel_comm"] = True
    # utils/helpers.py (v0.2.0) / utils/overrides.py (v0.3.0) set_cuda_graph_overrides:
    # recipe.model.cuda_graph_impl and, when given, cuda_graph_scope (a string becomes a list);
    # without a scope the model's default captures whole layers (an empty scope here).
    if c.cuda_graph_impl and c.cuda_graph_impl != "none":
        s["cuda_graph_impl"] = c.cuda_graph_impl
        scope = [c.cuda_graph_scope] if isinstance(c.cuda_graph_scope, str) else c.cuda_graph_scope
        if scope:
            s["cuda_graph_scope"] = list(scope)
    if c.cpu_offloading_num_layers:
        s["cpu_offloading_num_layers"] = c.cpu_offloading_num_layers
    if c.recompute_num_layers:
        s.update({"recompute_granularity": "full", "recompute_method": "block",
                  "recompute_num_layers": c.recompute_num_layers})
    # deepseek_llm_pretrain.py: recompute_granularity = "selective"; recompute_modules only act
    # under selective recompute
    if family == "deepseek" or c.recompute_modules:
        s["recompute_granularity"] = "selective"
        s["recompute_modules"] = c.recompute_modules or ["core_attn"]
    if c.pp_layout:
        layers, virtual, mtp = stage_layers(c.pp_layout, s["pipeline_model_parallel_size"])
        if family != "deepseek" or not mtp:
            raise ValueError(f"a layout the presets cannot take: {c.pp_layout}")
        s["pipeline_stage_layers"], s["virtual_pipeline_model_parallel_size"] = layers, virtual
    elif family == "deepseek":
        layers = DEEPSEEK_STAGE_LAYERS.get((s["pipeline_model_parallel_size"],
                                            s["virtual_pipeline_model_parallel_size"]))
        if layers:
            s["pipeline_stage_layers"] = layers
    if dtype in FP8_RECIPE:
        s["fp8_recipe"] = FP8_RECIPE[dtype]
        s["fp8_param_gather"] = True
    if dtype == "FP8_MX" and family != "gpt_oss":
        # *_llm_pretrain.py: 'if precision == "fp8_mx":  # keeping this eanbled causes NaN grad
        # norm' cfg.ddp.overlap_param_gather = False
        s["overlap_param_gather"] = False
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", help="a clone (or bare git directory) of Megatron-Bridge")
    parser.add_argument("--tag", default="v0.2.0",
                        help="release tag (v0.2.0: NeMo 25.11, v0.3.0: NeMo 26.02)")
    args = parser.parse_args()
    # MODEL_GPU_DTYPE_BASE_CONFIG (v0.2.0), MODEL_PRETRAIN_CONFIG_GPU_DTYPE_Vn (v0.3.0)
    pattern = re.compile(r"(.*?)_(?:PRETRAIN_CONFIG_)?(GB300|GB200|B300|B200|H100)_"
                         r"(BF16|FP8_CS|FP8_MX|FP8_SC)(?:_BASE_CONFIG|_V\d+)")
    recipes = []
    for family, models in FAMILIES.items():
        for name, config in load_configs(args.git_dir, args.tag, family).items():
            match = pattern.fullmatch(name)
            if not match or match.group(1) not in models:
                continue
            model, gpu, dtype = match.groups()
            recipes.append({
                "name": name,
                "scenario": {
                    "model": models[model],
                    "cluster": {"gpus": [{"type": gpu.lower(), "count": config.num_gpus}]},
                    "training": {"global_batch_size": config.global_batch_size,
                                 "seq_length": SEQ_LENGTH[family],
                                 "precision": "bf16" if dtype == "BF16" else "fp8"},
                    "strategy": strategy_of(family, config, dtype),
                },
            })
    write_recipes(f"NVIDIA-NeMo/Megatron-Bridge {args.tag} scripts/performance/configs/*/"
                  "workload_base_configs.py (configurations only), made by "
                  "scripts/validation/bridge_recipes.py", recipes)


if __name__ == "__main__":
    main()
