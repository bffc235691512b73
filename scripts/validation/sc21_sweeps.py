#!/usr/bin/env python3
"""The parallel-configuration sweeps of Megatron-LM's SC21 paper as Paraplan scenarios.

Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC21 (arXiv:2104.04473), section 5, ran one model under several configurations
and published throughput for each. The configurations are those of the scripts NVIDIA released
to reproduce the figures (NVIDIA/Megatron-LM examples/sc21/run_figure_*.sh, CONFIG.sh at
de7dc40, 2021-08-10); the orders are the paper's, from its text where it states them and from
its figures otherwise. No throughput value is recorded: only orders.

    python3 scripts/validation/sc21_sweeps.py > tests/validation/data/published-sweeps.json
"""

import json

PAPER = ("Narayanan et al., 'Efficient Large-Scale Language Model Training on GPU Clusters "
         "Using Megatron-LM', SC21 (arXiv:2104.04473)")
SCRIPTS = "NVIDIA/Megatron-LM examples/sc21/run_figure_{}.sh and CONFIG.sh at de7dc40 (2021-08-10)"

# What every SC21 script shares (CONFIG.sh: --seq-length 2048 --fp16 --DDP-impl local; the
# scripts pass --checkpoint-activations, Megatron-LM's full recompute of every layer), in the
# form of the SC21 Table 1 entries of published-runs.json.
BASE_STRATEGY = {
    "tensor_model_parallel_size": 1,
    "pipeline_model_parallel_size": 1,
    "virtual_pipeline_model_parallel_size": 1,
    "context_parallel_size": 1,
    "expert_model_parallel_size": 1,
    "micro_batch_size": 1,
    "sequence_parallel": False,
    "recompute_granularity": "full",
    "recompute_method": "uniform",
    "recompute_num_layers": 1,
    "zero_stage": 0,
    "use_flash_attn": False,
    "overlap_grad_reduce": False,
    "overlap_param_gather": False,
    "deallocate_pipeline_outputs": False,
}

ASSUMPTIONS = [
    "vocab_size=51200: the Megatron-LM README of 2021 on the SC21 models, 'All models use a "
    "vocabulary size of 51,200 and a sequence length of 2048', as in the SC21 Table 1 entries",
    "activation=gelu, ffn_hidden_size=4h, one query group per head: GPT (SC21 section 5.1)",
    "gpu a100 (80 GB): SC21 section 5, 'All of our results are run with mixed precision on the "
    "Selene supercomputer. Each cluster node has 8 NVIDIA 80-GB A100 GPUs'",
    "no overlap of the gradient all-reduce: CONFIG.sh '--DDP-impl local' (2021: the all-reduce "
    "runs after the last backward)",
    "recompute full, uniform, 1 layer: '--checkpoint-activations' with Megatron-LM's default "
    "--checkpoint-num-layers 1 (2021), as in the SC21 Table 1 entries",
    "use_flash_attn=false: no FlashAttention in 2021",
    "deallocate_pipeline_outputs=false: de7dc40's megatron/schedules.py keeps every in-flight "
    "micro-batch's stage output (output_tensors.append(output_tensor), popped at its backward); "
    "freeing it after the send came with c1e4526bb3 (2022-01)",
]

TIE_RULE = ("Configurations whose points in the figure differ by less than 3% of their height "
            "are tied (the figures' reading resolution); a sentence of the text that names a "
            "best configuration overrides that.")


def gpt(name, layers, hidden, heads):
    return {"name": name, "num_layers": layers, "hidden_size": hidden,
            "ffn_hidden_size": 4 * hidden, "num_attention_heads": heads,
            "num_query_groups": heads, "vocab_size": 51200, "activation": "gelu"}


def strategy(**keys):
    s = dict(BASE_STRATEGY)
    s.update(keys)
    return s


def sweep(sid, name, figure, quote, model, gpus, batch, configurations, order, notes=()):
    return {
        "id": sid,
        "name": name,
        "source": f"{PAPER}; Figure {figure}; configurations from {SCRIPTS.format(figure)}",
        "quote": quote,
        "model": model,
        "training": {"global_batch_size": batch, "seq_length": 2048, "precision": "fp16"},
        "cluster": {"gpus_per_node": 8, "gpus": [{"type": "a100", "count": gpus}]},
        "configurations": configurations,
        "published_order": order,
        "assumptions": ASSUMPTIONS + list(notes),
    }


def config(name, published_feasible=True, global_batch_size=None, **keys):
    c = {"name": name, "strategy": strategy(**keys), "published_feasible": published_feasible}
    if global_batch_size is not None:
        c["global_batch_size"] = global_batch_size
    return c


def main():
    sweeps = []

    # Figure 12: run_figure_12.sh, TP=8 PP=12 MBS=1 NLS=96 HS=12288 NAH=96, 12 nodes, interleaved
    # '--num-layers-per-virtual-pipeline-stage 2' (96 / 12 / 2 = 4 chunks per GPU), batch sizes
    # 12 to 60 in steps of 12.
    gpt3 = gpt("GPT-3 175B", 96, 12288, 96)
    quote12 = ("SC21 5.3.2: 'The interleaved schedule with the scatter/gather communication "
               "optimization has higher computational performance than the non-interleaved "
               "(default) schedule. This gap closes as the batch size increases'")
    for batch in (12, 24, 36, 48, 60):
        sweeps.append(sweep(
            f"S12-b{batch}", f"GPT-3 175B on 96 A100, (t,p)=(8,12), batch {batch}: schedule",
            12, quote12, gpt3, 96, batch,
            [config("interleaved (4 chunks)", tensor_model_parallel_size=8,
                    pipeline_model_parallel_size=12, virtual_pipeline_model_parallel_size=4),
             config("non-interleaved", tensor_model_parallel_size=8,
                    pipeline_model_parallel_size=12)],
            [["interleaved (4 chunks)"], ["non-interleaved"]],
            ["both schedules ran with Megatron-LM 2021's scatter/gather of the pipeline's "
             "activations (on by default; Figure 18 turns it off), which Paraplan has no key for"]))

    # Figure 13: run_figure_13.sh, TP=64/PP, MBS=1 NLS=32 HS=20480 NAH=128, 8 nodes.
    m162 = gpt("GPT 162.2B", 32, 20480, 128)
    quote13 = ("SC21 5.4.1: 'we see peak performance when the tensor-parallel size is equal to "
               "the number of GPUs in a single node (8 with DGX A100 nodes)'")
    tp_pp = [(2, 32), (4, 16), (8, 8), (16, 4), (32, 2)]  # (pipeline, tensor), the figure's axis
    orders13 = {
        32: [["(p,t)=(8,8)"], ["(p,t)=(4,16)"], ["(p,t)=(16,4)"], ["(p,t)=(2,32)"],
             ["(p,t)=(32,2)"]],
        128: [["(p,t)=(8,8)"], ["(p,t)=(16,4)"], ["(p,t)=(32,2)", "(p,t)=(4,16)"],
              ["(p,t)=(2,32)"]],
    }
    for batch in (32, 128):
        sweeps.append(sweep(
            f"S13-b{batch}", f"GPT 162.2B on 64 A100, batch {batch}: tensor vs pipeline", 13,
            quote13, m162, 64, batch,
            [config(f"(p,t)=({p},{t})", tensor_model_parallel_size=t,
                    pipeline_model_parallel_size=p) for p, t in tp_pp],
            orders13[batch], [TIE_RULE]))

    # Figures 14 and 15: run_figure_14.sh (TP=1, PP in 2..32, DP=64/PP) and run_figure_15.sh
    # (PP=1, TP in 2..32, DP=64/TP), MBS=1 NLS=32 HS=3840 NAH=32, 8 nodes.
    m59 = gpt("GPT 5.9B", 32, 3840, 32)
    quote14 = ("SC21 5.4.2: 'We see that for each batch size, the throughput decreases as the "
               "pipeline-parallel size increases'")
    # run_figure_14.sh: 'Batch size (global batch size) options = [32, 512]'.
    for batch in (32, 512):
        names = [f"(p,d)=({p},{64 // p})" for p in (2, 4, 8, 16, 32)]
        sweeps.append(sweep(
            f"S14-b{batch}", f"GPT 5.9B on 64 A100, batch {batch}: pipeline vs data", 14,
            quote14, m59, 64, batch,
            [config(n, pipeline_model_parallel_size=p) for n, p in zip(names, (2, 4, 8, 16, 32))],
            [[n] for n in names],
            ["the caption says 'three different batch sizes'; the figure and the script have two, "
             "32 and 512"]))
    quote15 = ("SC21 5.4.3: 'as the tensor-model-parallel size increases, we perform smaller "
               "matrix multiplications on every GPU, decreasing utilization on each GPU'")
    names15 = [f"(t,d)=({t},{64 // t})" for t in (2, 4, 8, 16, 32)]
    orders15 = {32: [names15[0:3], [names15[3]], [names15[4]]],
                128: [[n] for n in names15], 512: [[n] for n in names15]}
    for batch in (32, 128, 512):
        sweeps.append(sweep(
            f"S15-b{batch}", f"GPT 5.9B on 64 A100, batch {batch}: tensor vs data", 15, quote15,
            m59, 64, batch,
            [config(n, tensor_model_parallel_size=t) for n, t in zip(names15, (2, 4, 8, 16, 32))],
            orders15[batch], [TIE_RULE]))

    # Figure 16: run_figure_16.sh, TP=8 PP=8, MBS in 1..8, NLS=32 HS=15360 NAH=128, 8 nodes.
    m91 = gpt("GPT 91B", 32, 15360, 128)
    quote16 = "SC21 5.5: 'We see that the best microbatch size is 2 for this model'"
    orders16 = {128: [["mbs 2"], ["mbs 1"], ["mbs 4"], ["mbs 8"]],
                512: [["mbs 2"], ["mbs 1", "mbs 4"], ["mbs 8"]]}
    for batch in (128, 512):
        sweeps.append(sweep(
            f"S16-b{batch}", f"GPT 91B on 64 A100, (t,p)=(8,8), batch {batch}: micro-batch size",
            16, quote16, m91, 64, batch,
            [config(f"mbs {b}", tensor_model_parallel_size=8, pipeline_model_parallel_size=8,
                    micro_batch_size=b) for b in (1, 2, 4, 8)],
            orders16[batch], [TIE_RULE]))

    # Figure 17: run_figure_17.sh, TP=8 PP=16 MBS=1 NLS=80 HS=12288 NAH=96, 16 nodes, batch sizes
    # 1 to 256, with '--checkpoint-activations' or without (no recompute). Without, the figure's
    # line stops at batch 8: 'activation recomputation is needed to support larger batch sizes'.
    m145 = gpt("GPT 145.6B", 80, 12288, 96)
    quote17 = ("SC21 5.6: 'For small batch sizes, activation recomputation leads to up to 33% "
               "lower throughput ... However, activation recomputation is needed to support "
               "larger batch sizes. Throughput at large batch sizes with activation recomputation "
               "is up to 2x higher than the best throughput achieved without activation "
               "recomputation (for a smaller batch size)'")
    configs17 = []
    for batch in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        configs17.append(config(f"recompute, batch {batch}", global_batch_size=batch,
                                tensor_model_parallel_size=8, pipeline_model_parallel_size=16))
    for batch in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        configs17.append(config(
            f"no recompute, batch {batch}", published_feasible=batch <= 8,
            global_batch_size=batch, tensor_model_parallel_size=8,
            pipeline_model_parallel_size=16, recompute_granularity="none"))
    order17 = [[f"recompute, batch {b}"] for b in (256, 128, 64, 32, 16)]
    for b in (8, 4, 2, 1):
        order17 += [[f"no recompute, batch {b}"], [f"recompute, batch {b}"]]
    sweeps.append(sweep(
        "S17", "GPT 145.6B on 128 A100, (t,p)=(8,16): recompute x batch size", 17, quote17, m145,
        128, 1, configs17, order17,
        ["throughput in sequences per second on 128 GPUs throughout, so its order is that of "
         "tokens/s per GPU", "no recompute at batch 16 and above: out of memory (the text, and "
         "the figure's line, which stops at batch 8); with 16 stages, 1F1B holds as many "
         "micro-batches from batch 16 on as at 16",
         "what the first stage holds without recompute, checked term by term against de7dc40 "
         "in SRUN.sh's container nvcr.io/nvidia/pytorch:20.12-py3: fp16 weights and fp16 "
         "gradients (--DDP-impl local without --use-contiguous-buffers-in-ddp keeps "
         "param.grad; the step's fp32 copies are freed by zero_grad before the next forward, "
         "training.py:354-358), fp32 master and Adam moments, Korthikanti et al.'s "
         "sbh(10 + 24/t) + 5as^2b/t per layer (fused causal softmax, one-byte masks), the "
         "embedding's dropout mask and the kept stage outputs: priced as held, 66.1 GiB of 80 "
         "with the reserve (memory_verdict_test.cpp); the out-of-memory outcome is not a term "
         "the source shows"]))

    print(json.dumps({
        "source": PAPER + ", section 5, and the scripts NVIDIA released to reproduce it",
        "tie_rule": TIE_RULE,
        "left_out": {
            "Figure 11": "weak scaling: the model grows with the pipeline (3 to 24 layers), "
                         "not one model under several configurations",
            "Figure 18": "with and without Megatron-LM 2021's scatter/gather of pipeline "
                         "activations (--no-scatter-gather-tensors-in-pipeline): Paraplan has no "
                         "key for it, so both configurations are the same scenario",
            "Korthikanti et al. 2022 (arXiv:2205.05198)": "its other comparisons (Table 4, "
                         "Figure 8) are times of one transformer layer, not throughput of "
                         "configurations; its end-to-end rows are Table 5, already in "
                         "published-runs.json",
        },
        "sweeps": sweeps,
    }, indent=1))


if __name__ == "__main__":
    main()
