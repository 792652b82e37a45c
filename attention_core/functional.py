r"""Scaled dot-product attention and its building blocks, in NumPy.

Conventions used throughout the core:

* Row vectors: a sequence is a matrix ``(T, d)``, one token or time step a row.
* Masks are boolean and ``True`` means *may attend* (query row i, key column j).
* A query with no allowed key gets all-zero weights and a zero context row,
  never NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .limits import MAX_MASK_SIZE
from .validation import (
    as_matrix,
    as_scores,
    check_axis,
    check_broadcast_mask,
    check_finite,
    check_mask_shape,
    check_number,
    check_positive_int,
)

__all__ = [
    "AttentionTrace",
    "causal_mask",
    "hardmax",
    "masked_fill",
    "multiplicative_mask_pitfall",
    "padding_mask",
    "scaled_dot_product_attention",
    "sequence_length_scale_pitfall",
    "sliding_window_mask",
    "softmax",
    "with_temperature",
    "wrong_axis_softmax_pitfall",
]


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    r"""Numerically stable softmax along ``axis``.

    .. math:: \mathrm{softmax}(x)_j = \frac{e^{x_j - m}}{\sum_k e^{x_k - m}},
              \quad m = \max_k x_k

    Subtracting the maximum changes nothing mathematically and keeps every
    exponent at or below zero, so scores of 1e300 do not overflow. Entries equal
    to ``-inf`` (masked) get weight exactly 0; a slice that is entirely ``-inf``
    gets all zeros instead of NaN. Shape in = shape out.
    """
    x = as_scores(x, "softmax input")
    return _softmax(x, check_axis(axis, x.ndim))


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """:func:`softmax` without argument checks, for the core's own validated arrays."""
    row_max = np.max(x, axis=axis, keepdims=True)
    # A fully masked slice has max -inf; shifting by 0 keeps exp(-inf) = 0.
    row_max[np.isneginf(row_max)] = 0.0
    exp = np.subtract(x, row_max)
    np.exp(exp, out=exp)
    total = np.sum(exp, axis=axis, keepdims=True)
    total[total == 0] = 1.0  # all weights are 0 there; keep them 0, not NaN
    exp /= total
    return exp


def hardmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    r"""Hard attention: a one-hot vector at the maximum of each slice.

    .. math:: \mathrm{hardmax}(x)_j = [\, j = \arg\max_k x_k \,]

    Ties go to the first maximum. A slice that is entirely ``-inf`` (every key
    masked) stays all zeros. Shape in = shape out.
    """
    x = as_scores(x, "hardmax input")
    return _hardmax(x, check_axis(axis, x.ndim))


def _hardmax(x: np.ndarray, axis: int) -> np.ndarray:
    """:func:`hardmax` without argument checks."""
    winner = np.argmax(x, axis=axis)
    one_hot = np.zeros_like(x)
    np.put_along_axis(one_hot, np.expand_dims(winner, axis), 1.0, axis=axis)
    any_allowed = np.any(~np.isneginf(x), axis=axis, keepdims=True)
    return np.where(any_allowed, one_hot, 0.0)


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    r"""Causal mask ``(n_q, n_k)``: query i may attend key j when j <= i.

    .. math:: M_{ij} = [\, j \le i \,]
    """
    n_q = check_positive_int(n_q, "n_q", MAX_MASK_SIZE)
    n_k = n_q if n_k is None else check_positive_int(n_k, "n_k", MAX_MASK_SIZE)
    return np.tri(n_q, n_k, dtype=bool)


def sliding_window_mask(
    n: int, window: int, causal: bool = True, n_k: int | None = None
) -> np.ndarray:
    r"""Local attention ``(n, n_k)``: each query sees only the ``window`` nearest keys.

    Causal (default): :math:`M_{ij} = [\, 0 \le i - j < w \,]`, the current step
    and the ``window - 1`` before it. Two-sided: :math:`M_{ij} = [\, |i - j| < w \,]`.
    ``n_k`` defaults to ``n`` (self-attention).
    """
    n = check_positive_int(n, "sequence length", MAX_MASK_SIZE)
    n_k = n if n_k is None else check_positive_int(n_k, "n_k", MAX_MASK_SIZE)
    window = check_positive_int(window, "window")
    offset = np.arange(n)[:, None] - np.arange(n_k)[None, :]
    if causal:
        return (offset >= 0) & (offset < window)
    return np.abs(offset) < window


def padding_mask(valid: np.ndarray | list[bool], n_q: int | None = None) -> np.ndarray:
    r"""Key-padding mask ``(n_q, n_k)`` from a boolean vector ``valid (n_k,)``.

    :math:`M_{ij} = \mathrm{valid}_j`: every query may attend every real key and
    no padding key. ``n_q`` defaults to ``n_k`` (self-attention).
    """
    valid = np.asarray(valid)
    if valid.ndim != 1 or valid.size == 0 or valid.size > MAX_MASK_SIZE:
        raise InputError("A padding mask needs a non-empty list of True/False, one per key.")
    if valid.dtype != bool:
        raise InputError("A padding mask must be True (real token) or False (padding) per key.")
    n_q = valid.size if n_q is None else check_positive_int(n_q, "n_q", MAX_MASK_SIZE)
    return np.broadcast_to(valid, (n_q, valid.size)).copy()


def masked_fill(scores: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    r"""Set disallowed scores to :math:`-\infty` so softmax gives them weight 0.

    .. math:: \tilde S_{ij} = S_{ij} \text{ if } M_{ij} \text{ else } -\infty

    ``scores (..., T, S)``; ``mask`` broadcasts to it. Without a mask the
    scores are returned unchanged (the same array, no copy).
    """
    if mask is None:
        return scores
    scores = np.asarray(scores)
    mask = check_broadcast_mask(mask, scores.shape)
    return np.where(mask, scores, -np.inf)


def with_temperature(scores: np.ndarray, temperature: float) -> np.ndarray:
    r"""Divide scores by a temperature :math:`\tau > 0` before softmax.

    .. math:: \mathrm{softmax}(S / \tau)

    :math:`\tau < 1` sharpens the weights towards one-hot, :math:`\tau > 1`
    flattens them towards uniform. Shape in = shape out.
    """
    temperature = check_number(temperature, "Temperature")
    if not np.isfinite(temperature) or temperature <= 0:
        raise InputError(f"Temperature must be a positive number, got {temperature}.")
    return as_scores(scores, "scores") / temperature


@dataclass(frozen=True)
class AttentionTrace:
    """Every intermediate of one scaled dot-product attention.

    Shapes for ``q (Tq, dk)``, ``k (Tk, dk)``, ``v (Tk, dv)``; a leading head
    axis ``H`` is kept when the inputs have one.
    """

    scores: np.ndarray  #: (Tq, Tk) raw q @ k.T
    scaled: np.ndarray  #: (Tq, Tk) scores * scale
    masked: np.ndarray  #: (Tq, Tk) scaled with -inf where the mask forbids
    weights: np.ndarray  #: (Tq, Tk) row softmax (or hardmax) of masked
    context: np.ndarray  #: (Tq, dv) weights @ v
    mask: np.ndarray | None  #: (Tq, Tk) bool, True = may attend; None = all allowed
    scale: float  #: the factor applied to the scores


def attend(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None,
    scale: float,
    activation: str = "softmax",
) -> AttentionTrace:
    r"""Attention on already validated arrays, with or without a head axis.

    .. math:: C = \mathrm{softmax}\big(\mathrm{mask}(s \cdot Q K^\top)\big)\, V

    ``q (..., Tq, dk)``, ``k (..., Tk, dk)``, ``v (..., Tk, dv)``; ``mask``
    broadcasts to ``(..., Tq, Tk)``. This is the shared inner loop of
    :func:`scaled_dot_product_attention` and multi-head attention.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scores = q @ np.swapaxes(k, -1, -2)
        scaled = scores * scale
    if not np.all(np.isfinite(scaled)):
        # Finite inputs can still overflow: inf - inf in softmax would give NaN weights.
        raise InputError(
            "The scores q·k overflow to infinity: the inputs (or the scale) are too large; "
            "use smaller numbers."
        )
    masked = masked_fill(scaled, mask)
    if activation == "softmax":
        weights = _softmax(masked, axis=-1)
    elif activation == "hardmax":
        weights = _hardmax(masked, axis=-1)
    else:
        raise InputError(f"Activation must be 'softmax' or 'hardmax', got {activation!r}.")
    context = weights @ v
    return AttentionTrace(scores, scaled, masked, weights, context, mask, float(scale))


def resolve_scale(scale: float | None, d_k: int) -> float:
    r"""The score scale: :math:`1/\sqrt{d_k}` unless given explicitly."""
    if scale is None:
        return 1.0 / math.sqrt(d_k)  # a Python float keeps float32 input float32
    scale = check_number(scale, "The scale")
    if not np.isfinite(scale):
        raise InputError(f"The scale must be a finite number, got {scale}.")
    return scale


def scaled_dot_product_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None = None,
    scale: float | None = None,
    activation: str = "softmax",
) -> AttentionTrace:
    r"""Single-head scaled dot-product attention (Vaswani et al. 2017).

    .. math:: \mathrm{Attention}(Q, K, V) =
              \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V

    ``q (Tq, dk)``, ``k (Tk, dk)``, ``v (Tk, dv)``, optional boolean
    ``mask (Tq, Tk)`` (True = may attend). ``scale`` defaults to
    :math:`1/\sqrt{d_k}`. Returns an :class:`AttentionTrace` with ``scores``,
    ``scaled``, ``masked``, ``weights (Tq, Tk)`` and ``context (Tq, dv)``.
    """
    q = as_matrix(q, "q")
    k = as_matrix(k, "k")
    v = as_matrix(v, "v")
    if q.shape[1] != k.shape[1]:
        raise InputError(
            f"Queries and keys must have the same width: q has {q.shape[1]} columns, "
            f"k has {k.shape[1]}."
        )
    if k.shape[0] != v.shape[0]:
        raise InputError(
            f"Keys and values need one row per key: k has {k.shape[0]} rows, v has {v.shape[0]}."
        )
    if mask is not None:
        mask = check_mask_shape(mask, (q.shape[0], k.shape[0]))
    return attend(q, k, v, mask, resolve_scale(scale, q.shape[1]), activation)


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
    return _softmax(scaled * mask, axis=-1)


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
    return _softmax(scores / np.sqrt(scores.shape[-2]), axis=-1)


def wrong_axis_softmax_pitfall(scaled: np.ndarray) -> np.ndarray:
    r"""The pitfall of normalising over queries (columns) instead of keys (rows).

    .. math:: W^{\text{wrong}}_{ij} = \frac{e^{S_{ij}}}{\sum_{i'} e^{S_{i'j}}}

    Each *column* then sums to 1, so a query's weights are no longer an average
    over keys. One source notebook gets this by dividing ``exp(x)`` by
    ``sum(exp(x), axis=1)`` without ``keepdims``, which broadcasts the sums
    along the wrong axis. ``scaled (..., T, S)``.
    """
    scaled = as_scores(scaled, "scores", min_ndim=2)
    return _softmax(scaled, axis=-2)
