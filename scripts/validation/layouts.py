"""Megatron-LM's --pipeline-model-parallel-layout, read as Paraplan's pipeline_stage_layers."""

import re


def stage_layers(layout, pp):
    """Layers per pipeline stage, the virtual pipeline size and whether it holds an MTP layer.

    'E', 'L' and 'm' are the embedding, the loss and a multi-token-prediction layer, 't' a
    transformer layer; '|' separates the virtual stages, ordered by virtual rank, then by
    pipeline rank (megatron/core/transformer/pipeline_parallel_layer_layout.py)."""
    text = layout
    while True:
        group = re.search(r"\(([^()]*)\)\*(\d+)", text)
        if not group:
            break
        text = text[:group.start()] + group.group(1) * int(group.group(2)) + text[group.end():]
    text = re.sub(r"t\*(\d+)", lambda m: "t" * int(m.group(1)), text)
    segments = text.split("|")
    return ([sum(segments[i].count("t") for i in range(p, len(segments), pp)) for p in range(pp)],
            len(segments) // pp, any("m" in s for s in segments))
