r"""Multi-head self-attention in PyTorch: the one module every trained model here uses.

.. math::
    A_h = \mathrm{softmax}\!\left(\mathrm{mask}\!\left(\frac{Q_h K_h^\top}{\sqrt{d_k}}\right)\right)
    V_h, \qquad O = [\,A_1, \dots, A_H\,]\, W^O

with :math:`Q = x W^Q`, :math:`K = x W^K`, :math:`V = x W^V`. Shapes: ``x (B, T, d)``,
each head ``(B, H, T, d_k)``, weights ``(B, H, T, T)``, output ``(B, T, d)``.

It is :func:`attention_core.maths.attention.multi_head_attention` with trainable
projections: ``Linear`` computes ``x @ weight.T``, so ``query.weight.T`` is the
core's ``w_q`` and head h uses columns ``h*d_k:(h+1)*d_k``, as
:func:`attention_core.maths.attention.split_heads` does
(:func:`attention_core.training.export.attention_matrices` hands the core those matrices).

Made for decoder models too: projection biases are optional (GPT-2 has them,
Llama does not) and the mask is any boolean ``(T, T)``, e.g. causal. Rotary
positions (RoPE) and grouped K/V heads (fewer key/value heads than query heads)
are not implemented; :meth:`MultiHeadAttention.forward` marks where each goes.

A head can be turned off (:mod:`attention_core.maths.ablation`): its context replaced by
:math:`R\, C_h` before :math:`W^O` (:func:`ablate_heads`, the core's
:func:`attention_core.maths.ablation.ablate_heads` on a batch).

Needs PyTorch; imported only by the models that train.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from attention_core.maths.ablation import Ablation, position_mix


def ablate_heads(
    context: torch.Tensor, ablation: Ablation | None, layer_index: int = 0
) -> torch.Tensor:
    r""":math:`\tilde C_h = R\, C_h` for the heads of layer ``layer_index`` that are off, in every
    sequence of the batch: ``context (B, H, T, dv) -> (B, H, T, dv)``.

    The same tensor when no head of this layer is off; ``R (T, T)`` is the core's
    :func:`attention_core.maths.ablation.position_mix` (the mean is over each sequence's own
    positions).
    """
    if ablation is None or not (heads := ablation.heads_in(layer_index)):
        return context
    length = context.shape[-2]
    mix = torch.from_numpy(position_mix(ablation, length)).to(context.dtype)  # (T, T)
    off = torch.zeros(context.shape[1], dtype=torch.bool)  # (H,)
    off[heads] = True
    return torch.where(off[:, None, None], mix @ context, context)  # (B, H, T, dv)


class MultiHeadAttention(nn.Module):
    """Masked multi-head self-attention ``(B, T, d) -> (B, T, d)``, returning its weights too.

    The four projections are created in the order query, key, value, output
    (the order the seeded initialisation draws them in).
    """

    query: nn.Linear
    key: nn.Linear
    value: nn.Linear
    output: nn.Linear

    def __init__(self, d_model: int, n_heads: int, bias: bool = False) -> None:
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        # Grouped K/V heads would give key and value n_kv_heads * d_head outputs.
        self.query = nn.Linear(d_model, d_model, bias=bias)  # W^Q = query.weight.T
        self.key = nn.Linear(d_model, d_model, bias=bias)  # W^K
        self.value = nn.Linear(d_model, d_model, bias=bias)  # W^V
        self.output = nn.Linear(d_model, d_model, bias=bias)  # W^O

    def split_heads(self, projected: torch.Tensor) -> torch.Tensor:
        """``(B, T, H*d) -> (B, H, T, d)``: head h gets columns ``h*d:(h+1)*d``."""
        batch, length, _ = projected.shape
        return projected.view(batch, length, self.n_heads, self.d_head).transpose(1, 2)

    def heads(
        self,
        x: torch.Tensor,
        mask: torch.Tensor,
        ablation: Ablation | None = None,
        layer_index: int = 0,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The heads side by side ``(B, T, H*d_v)`` (before :math:`W^O`), weights ``(B, H, T, T)``.

        ``x (B, T, d)``; ``mask (T, T)`` bool, True = may attend; ``ablation``: the heads of
        layer ``layer_index`` it names are off (:func:`ablate_heads`), None: all on.
        """
        q = self.split_heads(self.query(x))  # (B, H, T, dk)
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        # RoPE goes here: rotate q and k by their positions before the scores.
        # Grouped K/V heads go here: repeat each of k's and v's heads for its group of queries.
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (B, H, T, T)
        weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        context = ablate_heads(weights @ v, ablation, layer_index)  # (B, H, T, dv)
        batch, _, length, _ = context.shape
        return context.transpose(1, 2).reshape(batch, length, -1), weights  # (B, T, H*dv)

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor,
        ablation: Ablation | None = None,
        layer_index: int = 0,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)``, ``mask (T, T)`` True = may attend -> ``(B, T, d)``, ``(B, H, T, T)``;
        ``ablation``, ``layer_index``: see :meth:`heads`."""
        concat, weights = self.heads(x, mask, ablation, layer_index)
        return self.output(concat), weights
