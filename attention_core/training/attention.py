"""Multi-head self-attention in PyTorch, moved here from the learning page's model.

Needs PyTorch; imported only by the models that train.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    r""":func:`attention_core.maths.attention.multi_head_attention` with trainable projections.

    .. math:: O = [\,\mathrm{softmax}(\mathrm{mask}(Q_h K_h^\top / \sqrt{d_k}))\, V_h\,]_h\, W^O
    """

    query: nn.Linear
    key: nn.Linear
    value: nn.Linear
    output: nn.Linear

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.query = nn.Linear(d_model, d_model, bias=False)  # W^Q = query.weight.T
        self.key = nn.Linear(d_model, d_model, bias=False)
        self.value = nn.Linear(d_model, d_model, bias=False)
        self.output = nn.Linear(d_model, d_model, bias=False)  # W^O

    def split_heads(self, projected: torch.Tensor) -> torch.Tensor:
        """``(B, T, H*d) -> (B, H, T, d)``: head h gets columns ``h*d:(h+1)*d``."""
        batch, length, _ = projected.shape
        return projected.view(batch, length, self.n_heads, self.d_head).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)``, ``mask (T, T)`` True = may attend -> ``(B, T, d)``, ``(B, H, T, T)``."""
        q = self.split_heads(self.query(x))  # (B, H, T, dk)
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (B, H, T, T)
        weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        context = weights @ v  # (B, H, T, dv)
        batch, _, length, _ = context.shape
        merged = context.transpose(1, 2).reshape(batch, length, -1)  # (B, T, H*dv)
        return self.output(merged), weights
