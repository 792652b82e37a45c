r"""The feed-forward block after attention in PyTorch, :math:`g(Z W_1 + b_1) W_2 + b_2`.

Needs PyTorch; imported only by the models that train.
"""

from __future__ import annotations

import torch
from torch import nn


class FeedForward(nn.Module):
    r"""The feed-forward block after attention: :math:`g(Z W_1 + b_1) W_2 + b_2`, ``(B, T, d)``.

    ``activation``: the module :math:`g` (e.g. ``nn.ReLU()``); ``d_hidden``: the width of
    :math:`Z W_1`.
    """

    def __init__(self, d_model: int, d_hidden: int, activation: nn.Module) -> None:
        super().__init__()
        self.hidden = nn.Linear(d_model, d_hidden)
        self.activation = activation
        self.output = nn.Linear(d_hidden, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(self.activation(self.hidden(x)))
