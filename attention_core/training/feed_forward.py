r"""The feed-forward block after attention in PyTorch, :math:`g(Z W_1 + b_1) W_2 + b_2`.

The one such module both trained models use: the tiny transformer's MLP
(:mod:`attention_core.learning.model`, ReLU, width ``4 d_model``) and the
forecaster's feature engineering (:mod:`attention_core.timeseries.model`, the
chosen activation and width). It is :func:`attention_core.maths.layers.mlp`'s
computation with trainable weights (``hidden.weight.T`` is its :math:`W_1`).

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

    hidden: nn.Linear
    activation: nn.Module
    output: nn.Linear

    def __init__(self, d_model: int, d_hidden: int, activation: nn.Module) -> None:
        super().__init__()
        self.hidden = nn.Linear(d_model, d_hidden)
        self.activation = activation
        self.output = nn.Linear(d_hidden, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(self.activation(self.hidden(x)))
