r"""Step 3 of the walkthrough: why the scores are divided by :math:`\sqrt d`.

Unscaled dot products of random vectors spread out like :math:`\sqrt d`, and
softmax turns them nearly one-hot; the table shows it width by width.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.api import softmax
from attention_core.boundary.limits import MAX_WALKTHROUGH_KEYS
from attention_core.boundary.validation import check_positive_int


@dataclass(frozen=True)
class SaturationTable:
    r"""Softmax of random scores, unscaled vs scaled, one entry per width d.

    All arrays have shape ``(len(widths),)`` and hold means over the trials.
    """

    widths: np.ndarray
    n_keys: int
    score_std_unscaled: np.ndarray  #: spread of q . k, grows like sqrt(d)
    score_std_scaled: np.ndarray  #: spread of q . k / sqrt(d), stays near 1
    max_weight_unscaled: np.ndarray  #: largest weight in a row (1 = one-hot)
    max_weight_scaled: np.ndarray
    entropy_unscaled: np.ndarray  #: -sum a log a (0 = one-hot, log n = uniform)
    entropy_scaled: np.ndarray
    gradient_unscaled: np.ndarray  #: Frobenius norm of the softmax Jacobian
    gradient_scaled: np.ndarray

    @property
    def uniform_entropy(self) -> float:
        r"""Entropy of equal weights, :math:`\ln n`: the largest possible."""
        return float(np.log(self.n_keys))


def _softmax_summary(scores: np.ndarray) -> tuple[float, float, float]:
    """Mean max weight, entropy and softmax-Jacobian norm of ``scores (trials, n)``."""
    weights = softmax(scores, axis=-1)
    log_weights = np.log(np.where(weights > 0, weights, 1.0))  # 0 log 0 = 0
    entropy = -np.sum(weights * log_weights, axis=-1)
    # ||diag(a) - a a^T||_F^2 = sum a^2 - 2 sum a^3 + (sum a^2)^2
    square, cube = np.sum(weights**2, axis=-1), np.sum(weights**3, axis=-1)
    jacobian_norm = np.sqrt(np.maximum(square - 2 * cube + square**2, 0.0))
    return float(weights.max(axis=-1).mean()), float(entropy.mean()), float(jacobian_norm.mean())


def softmax_saturation(
    widths: tuple[int, ...] = (4, 16, 64, 256, 512),
    n_keys: int = 8,
    n_trials: int = 500,
    seed: int = 0,
) -> SaturationTable:
    r"""How the softmax of :math:`q \cdot k` saturates as the width d grows.

    With :math:`q, k_j \sim \mathcal N(0, I_d)`,
    :math:`\mathrm{Var}(q \cdot k_j) = d`: unscaled scores spread out like
    :math:`\sqrt d` and softmax turns nearly one-hot (its gradient vanishes).
    Dividing by :math:`\sqrt d` keeps the variance at 1 for every d.
    ``n_trials`` random queries, each against ``n_keys`` random keys.
    """
    n_keys = check_positive_int(n_keys, "Number of keys", MAX_WALKTHROUGH_KEYS)
    n_trials = check_positive_int(n_trials, "Number of trials", 10_000)
    rng = np.random.default_rng(seed)
    rows: list[tuple[float, ...]] = []
    for width in widths:
        width = check_positive_int(width, "Width d", 4096)
        queries = rng.standard_normal((n_trials, width))  # (N, d)
        keys = rng.standard_normal((n_trials, n_keys, width))  # (N, n, d)
        scores = np.einsum("nd,nkd->nk", queries, keys)  # (N, n)
        scaled = scores / np.sqrt(width)
        rows.append(
            (
                float(scores.std()),
                float(scaled.std()),
                *_softmax_summary(scores),
                *_softmax_summary(scaled),
            )
        )
    table = np.array(rows).T  # (8, len(widths))
    return SaturationTable(
        np.asarray(widths),
        n_keys,
        score_std_unscaled=table[0],
        score_std_scaled=table[1],
        max_weight_unscaled=table[2],
        entropy_unscaled=table[3],
        gradient_unscaled=table[4],
        max_weight_scaled=table[5],
        entropy_scaled=table[6],
        gradient_scaled=table[7],
    )
