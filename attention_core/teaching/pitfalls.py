r"""The course notes' mistakes, computed as they made them, to show wrong beside right.

Each function takes the scores a correct run computed and returns the weights
the mistake would give; the right way is :mod:`attention_core.maths.attention`
(``mask_scores`` then ``softmax`` over keys, scaled by :math:`1/\sqrt{d_k}`).
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.validation import as_scores, check_broadcast_mask, check_finite
from attention_core.maths.attention import softmax


def multiplicative_mask_pitfall(scaled: np.ndarray, mask: np.ndarray) -> np.ndarray:
    r"""The pitfall of multiplying scores by a 0/1 mask before softmax.

    .. math:: W^{\text{wrong}} = \mathrm{softmax}(S \odot M)

    A masked score becomes 0, not :math:`-\infty`, and :math:`e^0 = 1`, so the
    forbidden keys still get weight (and a forbidden *negative* score even gains
    weight). One of the source notebooks does exactly this. The correct way is
    :func:`masked_fill` before softmax. ``scaled (..., T, S)``, ``mask`` broadcastable.
    """
    scaled = check_finite(as_scores(scaled, "scores", min_ndim=2), "scores")
    mask = check_broadcast_mask(mask, scaled.shape)
    return softmax(scaled * mask, axis=-1)


def sequence_length_scale_pitfall(scores: np.ndarray) -> np.ndarray:
    r"""The pitfall of scaling by the sequence length instead of the key width.

    .. math:: W^{\text{wrong}} = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{T}}\right)
              \quad\text{instead of}\quad
              \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)

    Taking ``q.shape[0]`` (the number of tokens T) where ``q.shape[-1]`` (the
    width d_k) is meant makes the weights depend on how long the sentence is.
    ``scores (..., T, S)`` are the raw :math:`QK^\top`.
    """
    scores = check_finite(as_scores(scores, "scores", min_ndim=2), "scores")
    return softmax(scores / np.sqrt(scores.shape[-2]), axis=-1)


def wrong_axis_softmax_pitfall(scaled: np.ndarray) -> np.ndarray:
    r"""The pitfall of normalising over queries (columns) instead of keys (rows).

    .. math:: W^{\text{wrong}}_{ij} = \frac{e^{S_{ij}}}{\sum_{i'} e^{S_{i'j}}}

    Each *column* then sums to 1, so a query's weights are no longer an average
    over keys. One source notebook gets this by dividing ``exp(x)`` by
    ``sum(exp(x), axis=1)`` without ``keepdims``, which broadcasts the sums
    along the wrong axis. ``scaled (..., T, S)``.
    """
    scaled = as_scores(scaled, "scores", min_ndim=2)
    return softmax(scaled, axis=-2)
