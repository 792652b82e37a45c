"""Heads turned off in a transformers model by hooks, the way TransformerLens does it (tests only).

A forward pre-hook on each layer's W_O module sees the heads side by side ``(B, T, H*dk)``, head
h in columns ``h*dk:(h+1)*dk``, and replaces an ablated head's columns: by zeros, or by their mean
over the positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
import transformers

from attention_core.maths.ablation import Ablation


def output_projections(model: transformers.PreTrainedModel) -> list[torch.nn.Module]:
    """Each layer's W_O module: GPT-2's ``attn.c_proj``, BERT's ``attention.output.dense``,
    the Llama family's ``self_attn.o_proj``."""
    if isinstance(model, transformers.GPT2LMHeadModel):
        return [block.attn.c_proj for block in model.transformer.h]
    if isinstance(model, transformers.BertModel):
        return [layer.attention.output.dense for layer in model.encoder.layer]
    return [layer.self_attn.o_proj for layer in model.model.layers]


@contextmanager
def heads_replaced(
    model: transformers.PreTrainedModel, ablation: Ablation, d_head: int
) -> Iterator[None]:
    """Forward pre-hooks replacing each ablated head's columns of W_O's input ``(B, T, H*dk)``:
    by zeros, or by their mean over the positions."""

    def hook_for(heads: list[int]):
        def replace_heads(module: torch.nn.Module, args: tuple) -> tuple:
            concat = args[0].clone()  # (B, T, H*dk)
            for head in heads:
                columns = concat[..., head * d_head : (head + 1) * d_head]
                columns[:] = 0.0 if ablation.kind == "zero" else columns.mean(dim=1, keepdim=True)
            return (concat, *args[1:])

        return replace_heads

    modules = output_projections(model)
    handles = [
        module.register_forward_pre_hook(hook_for(ablation.heads_in(index)))
        for index, module in enumerate(modules)
        if ablation.heads_in(index)
    ]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()
