#!/usr/bin/env python3
"""The parallel-configuration sweeps of NVIDIA's MoE Parallel Folding paper as Paraplan scenarios.

Liu et al., "MoE Parallel Folding: Heterogeneous Parallelism Mappings for Efficient Large-Scale
MoE Model Training with Megatron Core" (arXiv:2504.14960), ran one MoE model under several
parallel mappings on one cluster and published the MFU of each: Table 3 (the best mapping of each
method, batch 256), Table 4 (the same mappings at batch 1024 on 64 to 1024 GPUs), Table 5 (with
and without folding at 16k to 128k tokens) and Table 2 (bf16 against fp8). The mappings are the
appendix's (section 6.4); the orders are the tables'. No throughput value is recorded: only
orders, with the table cells that show them quoted.

    python3 scripts/validation/moe_folding_sweeps.py > tests/validation/data/moe-folding-sweeps.json
"""

import json

PAPER = ("Liu et al., 'MoE Parallel Folding: Heterogeneous Parallelism Mappings for Efficient "
         "Large-Scale MoE Model Training with Megatron Core' (arXiv:2504.14960, the version with "
         "Jianbin Chang among the authors, v2 on), NVIDIA, Eos (DGX H100)")

# What every run shares. Section 4.1: "All performance measurements reported in TFLOPS and MFU
# are conducted using BF16 precision"; 4.2: "we use token drop training with a capacity factor
# equal to 1 for benchmarking". Megatron-Core r0.11.0 (February 2025) transformer_config.py:
# "moe_expert_capacity_factor only works with alltoall token dispatcher", and section 3.3
# describes that dispatcher (All-to-All-V over EP, AllGather-V/ReduceScatter-V over ETP).
BASE_STRATEGY = {
    "tensor_model_parallel_size": 1,
    "pipeline_model_parallel_size": 1,
    "virtual_pipeline_model_parallel_size": 1,
    "context_parallel_size": 1,
    "expert_model_parallel_size": 1,
    "micro_batch_size": 1,
    "sequence_parallel": False,
    "recompute_granularity": "none",
    "zero_stage": 1,
    "use_flash_attn": True,
    "overlap_grad_reduce": True,
    "overlap_param_gather": True,
    "moe_token_dispatcher_type": "alltoall",
    "moe_grouped_gemm": True,
    "moe_permute_fusion": True,
    "moe_router_force_load_balancing": True,
}

ASSUMPTIONS = [
    "gpu h100 (80 GB SXM), 8 per node: section 4.1, 'The Eos cluster consists of NVIDIA DGX H100 "
    "nodes, each equipped with eight NVIDIA H100 GPUs'",
    "moe_router_force_load_balancing=true: section 4.2, 'we use token drop training with a "
    "capacity factor equal to 1 for benchmarking'; Paraplan does not model token dropping, and "
    "a capacity of 1x the mean caps the busiest expert at the mean, as forced balancing does",
    "moe_token_dispatcher_type=alltoall: the capacity factor needs it (Megatron-Core r0.11.0 "
    "transformer_config.py, 'moe_expert_capacity_factor only works with alltoall token "
    "dispatcher'), and section 3.3 describes it",
    "expert_tensor_parallel_size = tensor_model_parallel_size where Table 3 leaves ETP empty "
    "(the methods without folding; Megatron-Core r0.11.0 --expert-tensor-parallel-size "
    "default None, which takes TP), 1 where it says 1",
    "sequence_parallel=true wherever TP > 1 (Megatron-LM requires it with tensor and expert "
    "parallelism); not stated",
    "micro_batch_size 1, no recompute, zero_stage 1 (distributed optimizer) with overlapped "
    "gradient reduce and parameter gather, sequence parallelism, flash attention, "
    "moe_grouped_gemm and moe_permute_fusion; Mixtral-8x22B and its G8T8 variant with "
    "tp_comm_overlap and no interleaving, Qwen2-57B-A14B with moe_shared_expert_overlap and "
    "virtual_pipeline_model_parallel_size 7 where PP is 4: not stated in the paper; NVIDIA/"
    "Megatron-MoE-ModelZoo 78fd4d6 (2025-04-03) launches the paper's folded Table 3 rows so "
    "(runtime.conf, model_configs/benchmarking/*.yaml), and every row of a model here takes "
    "its settings; the G8T8 variant, which the ModelZoo lacks, takes Mixtral-8x22B's",
    "FSDP and FSDP + EP as zero_stage 3 (Paraplan's Megatron-FSDP) over the TP and EP of Table 3, "
    "no pipeline: section 4.2, 'All baseline methods were implemented using the NVIDIA "
    "Megatron-Core framework'; which FSDP implementation is not stated",
]

TIE_RULE = ("Configurations whose published MFU differ by less than 3% of the larger are tied "
            "(Megatron-LM's throughput varies by about that between runs and releases); none "
            "of the sweeps here has such a pair unless its order groups them.")

MIXTRAL = "mixtral-8x22b"

# Hugging Face Qwen/Qwen2-57B-A14B config.json (as copied in NVIDIA/TensorRT-LLM
# tests/unittest/_torch/modeling/test_modeling_qwen_moe.py, QWEN2_57B_A14B_CONFIG): hidden_size
# 3584, num_hidden_layers 28, num_attention_heads 28, num_key_value_heads 4, num_experts 64,
# num_experts_per_tok 8, moe_intermediate_size 2560, shared_expert_intermediate_size 20480,
# vocab_size 151936, tie_word_embeddings false, decoder_sparse_step 1 (every layer MoE).
QWEN2 = {
    "name": "Qwen2-57B-A14B",
    "num_layers": 28,
    "hidden_size": 3584,
    "ffn_hidden_size": 18944,
    "num_attention_heads": 28,
    "num_query_groups": 4,
    "vocab_size": 151936,
    "activation": "swiglu",
    "untie_embeddings_and_output_weights": True,
    "add_bias_linear": False,
    "hidden_dropout": 0.0,
    "attention_dropout": 0.0,
    "moe": {"num_experts": 64, "top_k": 8, "moe_ffn_hidden_size": 2560, "num_shared_experts": 8},
}
QWEN2_ASSUMPTIONS = [
    "Qwen2-57B-A14B's one shared expert of intermediate 20480 as num_shared_experts 8 of the "
    "routed width 2560: Paraplan prices shared experts as one dense MLP of the summed width "
    "(moe_layer_cost.cpp), so weights, FLOPs and GEMM shapes are those of the 20480-wide MLP",
    "Qwen2's attention biases (q, k, v) and the shared expert's scalar gate are left out "
    "(Paraplan has no key for them; under 0.01% of the parameters)",
]

# Section 4.1: "we reparameterized the Mixtral 8x22B model to 64 experts and 8 active experts per
# token called Mixtral-8x22B-G8T8, with each expert possessing a hidden size that is one-eighth of
# the original model" (16384 / 8 = 2048).
G8T8 = {
    "name": "Mixtral-8x22B-G8T8",
    "num_layers": 56,
    "hidden_size": 6144,
    "ffn_hidden_size": 16384,
    "num_attention_heads": 48,
    "num_query_groups": 8,
    "vocab_size": 32768,
    "activation": "swiglu",
    "untie_embeddings_and_output_weights": True,
    "add_bias_linear": False,
    "hidden_dropout": 0.0,
    "attention_dropout": 0.0,
    "moe": {"num_experts": 64, "top_k": 8, "moe_ffn_hidden_size": 2048},
}

# Table 3 ("Detailed parallel mapping of models with optimal configurations", columns CP TP EP PP
# ETP): (method, TP, EP, PP, ETP); empty cells are 1 for EP and PP and TP for ETP. CP is 1
# throughout.
TABLE3 = {
    "Mixtral-8x22B": [("FSDP", 8, 1, 1, None), ("FSDP + EP", 2, 8, 1, None),
                      ("TP + EP + DP", 4, 8, 1, None), ("MCore", 2, 4, 8, None),
                      ("MCore w/ Folding", 2, 8, 8, 1)],
    "Qwen2-57B-A14B": [("FSDP", 2, 1, 1, None), ("FSDP + EP", 1, 8, 1, None),
                       ("TP + EP + DP", 4, 4, 1, None), ("MCore", 2, 4, 4, None),
                       ("MCore w/ Folding", 2, 4, 4, 1)],
    "Mixtral-8x22B-G8T8": [("FSDP", 8, 1, 1, None), ("FSDP + EP", 4, 8, 1, None),
                           ("TP + EP + DP", 8, 8, 1, None), ("MCore", 2, 8, 8, None),
                           ("MCore w/ Folding", 4, 8, 8, 1)],
}
MODELS = {"Mixtral-8x22B": (MIXTRAL, []), "Qwen2-57B-A14B": (QWEN2, QWEN2_ASSUMPTIONS),
          "Mixtral-8x22B-G8T8": (G8T8, [])}
TABLE3_GPUS = {"Mixtral-8x22B": 128, "Qwen2-57B-A14B": 64, "Mixtral-8x22B-G8T8": 128}
SHORT = {"Mixtral-8x22B": "mixtral", "Qwen2-57B-A14B": "qwen2", "Mixtral-8x22B-G8T8": "g8t8"}


def label(method, tp, ep, pp, etp, cp=1):
    parts = ([f"CP {cp}"] if cp > 1 else []) + [f"TP {tp}"]
    parts += [f"EP {ep}"] if ep > 1 else []
    parts += [f"PP {pp}"] if pp > 1 else []
    parts += [f"ETP {etp}"] if etp is not None else []
    return f"{method} ({', '.join(parts)})"


# How NVIDIA launched these models in Megatron-Core at the paper's time: NVIDIA/Megatron-MoE-
# ModelZoo 78fd4d6 (2025-04-03, by the paper's Megatron-Core MoE team), runtime_configs/
# benchmarking/runtime.conf: "[Mixtral-8x22B] TP 2 PP 8 EP 8 CP 1 VPP 1 MBS 1 GBS 256 ... alltoall
# true 16 (nodes)" and "[Qwen2-57B-A14B] TP 2 PP 4 EP 4 CP 1 VPP 7 MBS 1 GBS 256 ... alltoall true
# 8", the paper's folded rows of Table 3; sbatch_benchmarking.sh passes
# --num-layers-per-virtual-pipeline-stage NUM_LAYERS / PP / VPP (1 for Qwen2). model_configs/
# benchmarking/Mixtral-8x22B.yaml: --tp-comm-overlap, --use-distributed-optimizer,
# --overlap-grad-reduce, --overlap-param-gather, --sequence-parallel, --use-flash-attn,
# --moe-permute-fusion, no recompute; Qwen2-57B-A14B.yaml the same without --tp-comm-overlap and
# with --moe-shared-expert-overlap.
def model_keys(model_key, tp, pp):
    if model_key == "Qwen2-57B-A14B":
        return {"moe_shared_expert_overlap": True,
                "virtual_pipeline_model_parallel_size": 7 if pp == 4 else 1}
    return {"tp_comm_overlap": tp > 1}


def strategy(model_key, method, tp, ep, pp, etp, cp=1):
    s = dict(BASE_STRATEGY)
    s.update(model_keys(model_key, tp, pp))
    s.update({"tensor_model_parallel_size": tp, "expert_model_parallel_size": ep,
              "pipeline_model_parallel_size": pp, "context_parallel_size": cp,
              "expert_tensor_parallel_size": tp if etp is None else etp,
              "sequence_parallel": tp > 1})
    if method.startswith("FSDP"):
        s["zero_stage"] = 3
    return s


def config(model_key, method, tp, ep, pp, etp, cp=1):
    return {"name": label(method, tp, ep, pp, etp, cp),
            "strategy": strategy(model_key, method, tp, ep, pp, etp, cp),
            "published_feasible": True}


def sweep(sid, name, where, quote, model_key, gpus, batch, seq, configurations, order,
          precision="bf16", notes=()):
    model, model_notes = MODELS[model_key]
    return {
        "id": sid,
        "name": name,
        "source": f"{PAPER}; {where}",
        "quote": quote,
        "model": model,
        "training": {"global_batch_size": batch, "seq_length": seq, "precision": precision},
        "cluster": {"gpus_per_node": 8, "gpus": [{"type": "h100", "count": gpus}]},
        "configurations": configurations,
        "published_order": order,
        "assumptions": ASSUMPTIONS + model_notes + [TIE_RULE] + list(notes),
    }


def by_method(model_key, methods):
    """Configurations of Table 3's mappings for `methods`, and the names by method."""
    rows = {row[0]: row for row in TABLE3[model_key]}
    configurations = [config(model_key, *rows[m]) for m in methods]
    return configurations, {m: label(*rows[m]) for m in methods}


def main():
    sweeps = []

    # Table 3: batch 256, sequence 4096 ("In these experiments, the global batch size was fixed
    # at 256, and the sequence length was fixed at 4096").
    table3_quotes = {
        "Mixtral-8x22B": "FSDP 4.3%, FSDP + EP 23.4%, TP + EP + DP 36.6%, MCore 46.3%, "
                         "MCore w/ Folding 49.3%",
        "Qwen2-57B-A14B": "FSDP 9.9%, FSDP + EP 25.4%, TP + EP + DP 23.1%, MCore 35.3%, "
                          "MCore w/ Folding 39.0%",
        "Mixtral-8x22B-G8T8": "FSDP 2.2%, FSDP + EP 9.0%, TP + EP + DP 8.7%, MCore 17.1%, "
                              "MCore w/ Folding 28.8%",
    }
    table3_orders = {
        "Mixtral-8x22B": ["MCore w/ Folding", "MCore", "TP + EP + DP", "FSDP + EP", "FSDP"],
        "Qwen2-57B-A14B": ["MCore w/ Folding", "MCore", "FSDP + EP", "TP + EP + DP", "FSDP"],
        "Mixtral-8x22B-G8T8": ["MCore w/ Folding", "MCore", "FSDP + EP", "TP + EP + DP",
                               "FSDP"],
    }
    for model_key, gpus in TABLE3_GPUS.items():
        methods = [row[0] for row in TABLE3[model_key]]
        configurations, names = by_method(model_key, methods)
        sweeps.append(sweep(
            f"MPF-T3-{SHORT[model_key]}",
            f"{model_key} on {gpus} H100, batch 256: parallelism method (Table 3)",
            "Table 3 (appendix 6.4) and Table 1", f"Table 3, MFU: {table3_quotes[model_key]}",
            model_key, gpus, 256, 4096, configurations,
            [[names[m]] for m in table3_orders[model_key]]))

    # Table 4: "we fixed the parallel configuration and increased the number of GPUs ... All
    # parallel configurations are the same as those identified in the performance experiments";
    # section 4.3: "The global batch size is set to 1024 in the scaling experiments". FSDP has no
    # row there. The model's rows span a page break; Mixtral's TP + EP + DP at 512 and 1024 open
    # the table's second part.
    table4 = {
        ("Mixtral-8x22B", 128): ("MCore 49.4%, MCore w/ Folding 52.2%, FSDP + EP 23.9%, "
                                 "TP + EP + DP 40.4%"),
        ("Mixtral-8x22B", 256): ("MCore 48.0%, MCore w/ Folding 50.7%, FSDP + EP 25.5%, "
                                 "TP + EP + DP 39.1%"),
        ("Mixtral-8x22B", 512): ("MCore 45.5%, MCore w/ Folding 48.9%, FSDP + EP 24.4%, "
                                 "TP + EP + DP 36.0%"),
        ("Mixtral-8x22B", 1024): ("MCore 42.3%, MCore w/ Folding 44.9%, FSDP + EP 23.8%, "
                                  "TP + EP + DP 36.2%"),
        ("Qwen2-57B-A14B", 64): ("MCore 36.2%, MCore w/ Folding 39.9%, FSDP + EP 26.3%, "
                                 "TP + EP + DP 22.4%"),
        ("Qwen2-57B-A14B", 128): ("MCore 36.0%, MCore w/ Folding 39.7%, FSDP + EP 25.6%, "
                                  "TP + EP + DP 20.9%"),
        ("Qwen2-57B-A14B", 256): ("MCore 34.8%, MCore w/ Folding 38.1%, FSDP + EP 23.4%, "
                                  "TP + EP + DP 19.8%"),
        ("Qwen2-57B-A14B", 512): ("MCore 32.5%, MCore w/ Folding 36.6%, FSDP + EP 22.8%, "
                                  "TP + EP + DP 19.7%"),
        ("Qwen2-57B-A14B", 1024): ("MCore 29.8%, MCore w/ Folding 33.4%, FSDP + EP 21.6%, "
                                   "TP + EP + DP 17.9%"),
        ("Mixtral-8x22B-G8T8", 128): ("MCore 19.8%, MCore w/ Folding 30.0%, FSDP + EP 9.0%, "
                                      "TP + EP + DP 8.6%"),
        ("Mixtral-8x22B-G8T8", 256): ("MCore 18.4%, MCore w/ Folding 29.3%, FSDP + EP 8.5%, "
                                      "TP + EP + DP 8.5%"),
        ("Mixtral-8x22B-G8T8", 512): ("MCore 16.3%, MCore w/ Folding 26.7%, FSDP + EP 8.9%, "
                                      "TP + EP + DP 8.5%"),
        ("Mixtral-8x22B-G8T8", 1024): ("MCore 13.4%, MCore w/ Folding 25.5%, FSDP + EP 8.6%, "
                                       "TP + EP + DP 8.1%"),
    }
    methods4 = ["MCore w/ Folding", "MCore", "TP + EP + DP", "FSDP + EP"]
    for (model_key, gpus), quote in table4.items():
        configurations, names = by_method(model_key, methods4)
        if model_key == "Qwen2-57B-A14B":
            order = [["MCore w/ Folding"], ["MCore"], ["FSDP + EP"], ["TP + EP + DP"]]
        elif model_key == "Mixtral-8x22B":
            order = [["MCore w/ Folding"], ["MCore"], ["TP + EP + DP"], ["FSDP + EP"]]
        elif gpus == 256:  # 8.5% and 8.5%
            order = [["MCore w/ Folding"], ["MCore"], ["FSDP + EP", "TP + EP + DP"]]
        else:
            order = [["MCore w/ Folding"], ["MCore"], ["FSDP + EP"], ["TP + EP + DP"]]
        sweeps.append(sweep(
            f"MPF-T4-{SHORT[model_key]}-{gpus}",
            f"{model_key} on {gpus} H100, batch 1024: parallelism method (Table 4)",
            "Table 4 (appendix 6.4) and Figure 3", f"Table 4, MFU at {gpus} GPUs: {quote}",
            model_key, gpus, 1024, 4096, configurations,
            [[names[m] for m in group] for group in order]))

    # Table 5, Mixtral-8x22B: "increasing the sequence length while keeping the total number of
    # tokens per global batch constant"; (GPUs, sequence, batch, MCore CP TP EP PP, folded CP TP
    # EP PP with ETP 1).
    table5 = [
        (128, 16384, 1024, (4, 2, 4, 8), (4, 2, 8, 8), "Mcore 45.30%, Mcore w/ Folding 47.60%"),
        (256, 32768, 512, (8, 2, 4, 8), (8, 2, 8, 8), "Mcore 43.20%, Mcore w/ Folding 45.10%"),
        (512, 65536, 256, (16, 2, 4, 8), (8, 4, 8, 8), "Mcore 42.60%, Mcore w/ Folding 44.50%"),
        (1024, 131072, 128, (16, 4, 8, 8), (8, 8, 8, 8),
         "Mcore 38.20%, Mcore w/ Folding 42.90%"),
    ]
    for gpus, seq, batch, plain, folded, quote in table5:
        mcore = config("Mixtral-8x22B", "MCore", plain[1], plain[2], plain[3], None, cp=plain[0])
        folding = config("Mixtral-8x22B", "MCore w/ Folding", folded[1], folded[2], folded[3], 1,
                         cp=folded[0])
        sweeps.append(sweep(
            f"MPF-T5-mixtral-{seq // 1024}k",
            f"Mixtral-8x22B on {gpus} H100, sequence {seq}, batch {batch}: folding (Table 5)",
            "Table 5 (appendix 6.4) and Figure 4", f"Table 5, Mixtral-8x22B, {seq}: {quote}",
            "Mixtral-8x22B", gpus, batch, seq, [folding, mcore],
            [[folding["name"]], [mcore["name"]]],
            notes=["cp_comm_type p2p (Megatron-LM's default): not stated"]))

    # Table 2: Mixtral 8x22B on 128 H100, "FP8 delayed scaling"; its bf16 rows are Table 3's
    # MCore and folded rows (458.3 and 487.7 TFLOPS are 46.3% and 49.3% of 989.5).
    configurations, names = by_method("Mixtral-8x22B", ["MCore w/ Folding", "MCore"])
    table2 = sweep(
        "MPF-T2-mixtral-fp8", "Mixtral-8x22B on 128 H100, batch 256: bf16 against fp8 (Table 2)",
        "Table 2 (section 4.5)",
        "Table 2, TFLOPS: MCore BF16 458.3, MCore w/ Folding BF16 487.7, MCore FP8 575.1, "
        "MCore w/ Folding FP8 631.7", "Mixtral-8x22B", 128, 256, 4096, [], [],
        notes=["the batch of Table 2 is not stated: 256, as its bf16 TFLOPS are Table 3's MFU "
               "of the same mappings at 989.5 TFLOP/s", "fp8_recipe delayed: section 4.5, "
               "'FP8 delayed scaling'; fp8_param_gather as Paraplan's default (not stated)"])
    # Each configuration a whole scenario: the precision differs within the sweep.
    for precision in ("bf16", "fp8"):
        for c in configurations:
            s = dict(c["strategy"], **({"fp8_recipe": "delayed"} if precision == "fp8" else {}))
            training = {"global_batch_size": 256, "seq_length": 4096, "precision": precision}
            table2["configurations"].append({
                "name": f"{c['name']}, {precision}", "published_feasible": True,
                "scenario": {"model": table2["model"], "training": training,
                             "cluster": table2["cluster"], "strategy": s}})
    table2["published_order"] = [[f"{names['MCore w/ Folding']}, fp8"], [f"{names['MCore']}, fp8"],
                                 [f"{names['MCore w/ Folding']}, bf16"], [f"{names['MCore']}, bf16"]]
    sweeps.append(table2)

    data = {
        "source": PAPER + ", section 4, Table 2 and appendix 6.4 Tables 3-5",
        "tie_rule": TIE_RULE,
        "left_out": {
            "Llama3-8x70B (Tables 3 and 4)": "an upcycled Llama 3 70B whose router top-k the "
            "paper does not state; its folded row leaves ETP empty and its Table 4 rows are "
            "garbled (a 128-GPU folded row of a 256-GPU model)",
            "Table 5, Qwen2-57B-A14B": "its rows repeat Mixtral-8x22B's cell for cell, with PP 8 "
            "for a 28-layer model: a copy error, not a measurement",
            "Figures 5 and 6": "latency breakdowns of one MoE layer, not training throughput",
            "Figure 3 and Figure 4 across GPU counts": "the same runs as Tables 4 and 5; only "
            "configurations on one cluster size are compared",
        },
        "sweeps": sweeps,
    }
    print(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
