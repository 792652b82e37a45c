r"""One window of a series, embedded and attended over: the view before any training.

Each row of a window ``X (T, p)`` is embedded (the notes' FeatureEmbeddings layer):

.. math:: \tilde X = g(X W + b), \qquad W \in \mathbb R^{p \times d_{model}}

and the core's :func:`~attention_core.run_attention` adds positions and attends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.config import AttentionConfig
from attention_core.boundary.pipeline import AttentionRun, build_mask, run_attention
from attention_core.boundary.registry import choose
from attention_core.maths.projections import glorot_uniform
from attention_core.timeseries.options import FEATURE_ACTIVATIONS


def activate(z: np.ndarray, name: str) -> np.ndarray:
    """The embedding's activation ``name`` (see :data:`FEATURE_ACTIVATIONS`) applied to ``z``."""
    return choose(FEATURE_ACTIVATIONS, name, "activation").build(z)


@dataclass(frozen=True)
class FeatureEmbedding:
    """One dense layer ``w (p, d_model)``, ``b (d_model,)`` and its activation."""

    w: np.ndarray
    b: np.ndarray
    activation: str

    def __call__(self, x: np.ndarray) -> np.ndarray:
        r""":math:`g(XW + b)`: ``x (T, p)`` -> ``(T, d_model)``."""
        return activate(np.asarray(x, dtype=float) @ self.w + self.b, self.activation)


def init_feature_embedding(
    n_features: int, d_model: int, activation: str = "relu", seed: int = 0
) -> FeatureEmbedding:
    """Glorot-uniform ``W (p, d_model)`` and zero bias, from ``default_rng([seed, 0xFE])``."""
    choose(FEATURE_ACTIVATIONS, activation, "activation")
    rng = np.random.default_rng([int(seed), 0xFE])
    return FeatureEmbedding(glorot_uniform(rng, n_features, d_model), np.zeros(d_model), activation)


@dataclass(frozen=True)
class SeriesAttention:
    """Attention over one window: ``x (T, p)`` -> ``embedded (T, d_model)`` -> ``run``."""

    x: np.ndarray
    embedding: FeatureEmbedding
    embedded: np.ndarray
    run: AttentionRun


def series_attention(
    x: np.ndarray, config: AttentionConfig, activation: str = "relu"
) -> SeriesAttention:
    """Embed the window ``x (T, p)`` and run the core's attention with ``config``'s mask.

    The mask comes from ``config.mask`` ('causal': each day sees only itself
    and the past). Weights are seeded by ``config.seed``.
    """
    x = np.asarray(x, dtype=float)
    embedding = init_feature_embedding(x.shape[1], config.d_model, activation, config.seed)
    embedded = embedding(x)
    mask = build_mask(config, x.shape[0], x.shape[0])
    return SeriesAttention(x, embedding, embedded, run_attention(embedded, config, mask=mask))
