r"""The notes' decoder-style forecaster in PyTorch (trained by :mod:`.training`).

.. math::
    \tilde X = g(XW) \;\to\; E = \tilde X + P \;\to\;
    \big[\,\mathrm{concat}(A_1, \dots, A_H)\, W^O \;\to\; \mathrm{FFN}\,\big]^{\times N}
    \;\to\; \hat y = h_T\, w_{head}

Shapes: a batch of windows ``X (B, T, p)``; every layer works on ``(B, T, d_model)``;
the head reads the last time step, the only one that may attend to the whole
window under the causal mask, and forecasts the next target value ``(B,)``.

This module needs PyTorch and is imported only on demand
(``from attention_core.timeseries import model``); ``import attention_core`` stays
torch-free. The attention is :class:`attention_core.training.attention.MultiHeadAttention`,
``Linear(bias=False)`` Q/K/V/O projections, so that ``w_q = query.weight.T`` etc.
are exactly the matrices :func:`attention_core.multi_head_attention` takes (same head split).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import (
    MAX_D_MODEL,
    MAX_HEADS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_STEP_MACS,
    MAX_TRAIN_SECONDS,
    MAX_TRAIN_STEPS,
    MAX_WINDOW,
)
from attention_core.boundary.options import MASKS
from attention_core.boundary.registry import WINDOW
from attention_core.boundary.validation import check_heads_divide, check_positive_int
from attention_core.maths.ablation import Ablation
from attention_core.maths.positional import sinusoidal_encoding
from attention_core.timeseries.options import FEATURE_ACTIVATIONS
from attention_core.training.attention import MultiHeadAttention
from attention_core.training.config import TrainingConfig, TrainingLimits
from attention_core.training.feed_forward import FeedForward

#: The inputs the forecaster can give a mask besides its name: a sliding window's width
#: (a series has no padding tokens and no hand-drawn grid).
MODEL_MASK_INPUTS = frozenset({WINDOW})
MODEL_POSITIONAL = ("learned", "sinusoidal")
_ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "relu": nn.ReLU,
    "tanh": nn.Tanh,
    "identity": nn.Identity,
    "gelu": lambda: nn.GELU(approximate="tanh"),  # = FEATURE_ACTIVATIONS["gelu"] (gelu_tanh)
}


def model_masks() -> tuple[str, ...]:
    """The registered masks the forecaster can build: those needing no input but a window."""
    return MASKS.taking(MODEL_MASK_INPUTS)


def _choice(value: str, choices: tuple[str, ...], what: str) -> None:
    if value not in choices:
        raise InputError(f"Unknown {what} {value!r}; choose one of: {', '.join(choices)}.")


@dataclass(frozen=True)
class ForecasterConfig:
    """Architecture of :class:`SeriesForecaster` (hashable: part of the cache key)."""

    n_features: int
    window: int
    d_model: int = 16
    n_heads: int = 2
    n_layers: int = 1
    d_hidden: int = 32
    activation: str = "relu"
    positional: str = "learned"
    mask: str = "causal"
    sliding_window: int = 3

    def __post_init__(self) -> None:
        check_positive_int(self.n_features, "The number of features")
        check_positive_int(self.window, "The window", MAX_WINDOW)
        check_positive_int(self.d_model, "d_model", MAX_D_MODEL)
        check_positive_int(self.n_heads, "The number of heads", MAX_HEADS)
        check_heads_divide(self.d_model, self.n_heads, "d_model")
        check_positive_int(self.n_layers, "The number of layers", MAX_LAYERS)
        check_positive_int(self.d_hidden, "The hidden width", MAX_HIDDEN)
        check_positive_int(self.sliding_window, "The sliding window", MAX_WINDOW)
        _choice(self.activation, tuple(FEATURE_ACTIVATIONS), "activation")
        _choice(self.positional, MODEL_POSITIONAL, "positional encoding")
        _choice(self.mask, model_masks(), "mask")


#: The most the time-series page lets one run train.
LIMITS = TrainingLimits(steps=MAX_TRAIN_STEPS, batch_size=1024, seconds=MAX_TRAIN_SECONDS)
#: The forecaster's training: 300 Adam steps at most, stopping after 10 evaluations
#: (every 10 steps) without a lower validation loss; the best weights are kept.
FORECAST_TRAINING = TrainingConfig(
    steps=300, eval_every=10, max_seconds=MAX_TRAIN_SECONDS, patience=10
)


class TrainableFeatureEmbedding(nn.Module):
    r""":math:`\tilde X = g(XW + b)`: ``(B, T, p)`` -> ``(B, T, d_model)``."""

    def __init__(self, n_features: int, d_model: int, activation: str) -> None:
        super().__init__()
        self.linear = nn.Linear(n_features, d_model)
        self.activation = _ACTIVATIONS[activation]()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.activation(self.linear(x))


class PositionalEncoding(nn.Module):
    r""":math:`E = \tilde X + P`, ``P (T, d_model)``: a trainable table or fixed sinusoids."""

    def __init__(self, window: int, d_model: int, kind: str) -> None:
        super().__init__()
        if kind == "learned":
            self.table = nn.Parameter(0.1 * torch.randn(window, d_model))
        else:
            self.register_buffer(
                "table", torch.tensor(sinusoidal_encoding(window, d_model), dtype=torch.float32)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.table  # (B, T, d) + (T, d)


class AttentionLayer(nn.Module):
    """One of the N repeated layers: attention (heads, then W_O) -> feature engineering."""

    def __init__(self, config: ForecasterConfig) -> None:
        super().__init__()
        self.attention = MultiHeadAttention(config.d_model, config.n_heads)
        activation = _ACTIVATIONS[config.activation]()
        self.engineering = FeedForward(config.d_model, config.d_hidden, activation)

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor,
        ablation: Ablation | None = None,
        layer_index: int = 0,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        attended, weights = self.attention(x, mask, ablation, layer_index)
        return self.engineering(attended), weights


def attention_mask(config: ForecasterConfig) -> np.ndarray:
    """The ``(T, T)`` bool mask of ``config.mask``, True = may attend (the core's mask table)."""
    window = config.window
    mask = MASKS[config.mask].build(window, window, config.sliding_window, None, None)
    return np.ones((window, window), dtype=bool) if mask is None else mask


class SeriesForecaster(nn.Module):
    """The whole model: ``X (B, T, p)`` -> forecast ``(B,)``, weights per layer ``(B, H, T, T)``."""

    def __init__(self, config: ForecasterConfig) -> None:
        super().__init__()
        self.config = config
        self.embeddings = TrainableFeatureEmbedding(
            config.n_features, config.d_model, config.activation
        )
        self.positions = PositionalEncoding(config.window, config.d_model, config.positional)
        self.layers = nn.ModuleList(AttentionLayer(config) for _ in range(config.n_layers))
        self.head = nn.Linear(config.d_model, 1)
        self.register_buffer("mask", torch.from_numpy(attention_mask(config)))

    def forward(
        self, x: torch.Tensor, ablation: Ablation | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """``ablation``: the heads turned off (:mod:`attention_core.maths.ablation`), None: all on;
        a mean is over each window's own time steps."""
        hidden = self.positions(self.embeddings(x))  # (B, T, d)
        all_weights = []
        for index, layer in enumerate(self.layers):
            hidden, weights = layer(hidden, self.mask, ablation, index)
            all_weights.append(weights)
        return self.head(hidden[:, -1, :]).squeeze(-1), all_weights  # (B,), N x (B, H, T, T)


def step_macs(config: ForecasterConfig, batch_size: int) -> int:
    """Multiply-adds of one forward pass over a batch (projections, scores, FFN)."""
    rows = batch_size * config.window
    per_layer = rows * (4 * config.d_model**2 + 2 * config.d_model * config.d_hidden)
    per_layer += 2 * batch_size * config.window**2 * config.d_model
    return rows * config.n_features * config.d_model + config.n_layers * per_layer


def check_budget(config: ForecasterConfig, train: TrainingConfig) -> None:
    """Raise InputError when ``train`` is beyond the page's limits, or one step of this model
    would be too slow for the time budget."""
    if train.patience is None or train.target_accuracy is not None:
        raise ValueError("The forecaster trains with patience, to no target accuracy.")
    LIMITS.check(train)
    macs = step_macs(config, train.batch_size)
    if macs > MAX_STEP_MACS:
        raise InputError(
            f"This model is too big to train here (about {macs / 1e6:,.0f} million "
            f"multiply-adds per step; the limit is {MAX_STEP_MACS / 1e6:,.0f} million). "
            "Choose a smaller d_model, hidden width, window or fewer layers."
        )
