r"""The public entry points: check the caller's arrays once, then run the pure math.

Every function here turns bad input into an :class:`InputError` that says what
to change, then hands trusted arrays to :mod:`attention_core.maths.attention`, where
the computation reads like the formula. A sequence is a matrix ``(T, d)``, one
token a row; masks are boolean, ``True`` = may attend.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.options import COMBINATIONS, NORMALISERS
from attention_core.boundary.registry import choose
from attention_core.boundary.validation import (
    as_matrix,
    as_scores,
    check_axis,
    check_broadcast_mask,
    check_heads_divide,
    check_mask_shape,
    check_number,
    check_one_row_per_key,
    check_same_width,
)
from attention_core.maths import attention
from attention_core.maths.ablation import Ablation, check_ablation
from attention_core.maths.attention import AttentionTrace, MultiHeadTrace
from attention_core.maths.positional import check_base
from attention_core.maths.projections import Projections


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    r"""Numerically stable softmax along ``axis`` (:func:`attention.softmax`).

    Entries equal to ``-inf`` (masked) get weight exactly 0; a slice that is
    entirely ``-inf`` gets all zeros instead of NaN. Shape in = shape out.
    """
    x = as_scores(x, "softmax input")
    return attention.softmax(x, check_axis(axis, x.ndim))


def hardmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    r"""One-hot at the maximum of each slice (:func:`attention.hardmax`)."""
    x = as_scores(x, "hardmax input")
    return attention.hardmax(x, check_axis(axis, x.ndim))


def masked_fill(scores: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    r"""Set disallowed scores to :math:`-\infty` (:func:`attention.mask_scores`).

    ``scores (..., T, S)``; ``mask`` broadcasts to it. Without a mask the
    scores are returned unchanged (the same array, no copy).
    """
    if mask is None:
        return scores
    scores = np.asarray(scores)
    return attention.mask_scores(scores, check_broadcast_mask(mask, scores.shape))


def with_temperature(scores: np.ndarray, temperature: float) -> np.ndarray:
    r"""Divide scores by a temperature :math:`\tau > 0` before softmax: softmax(S / τ).

    :math:`\tau < 1` sharpens the weights towards one-hot, :math:`\tau > 1`
    flattens them towards uniform. Shape in = shape out.
    """
    temperature = check_number(temperature, "Temperature")
    if not np.isfinite(temperature) or temperature <= 0:
        raise InputError(f"Temperature must be a positive number, got {temperature}.")
    return as_scores(scores, "scores") / temperature


def split_heads(projected: np.ndarray, n_heads: int) -> np.ndarray:
    """``(T, H*d)`` -> ``(H, T, d)`` (:func:`attention.split_heads`)."""
    projected = as_matrix(projected, "projected")
    check_heads_divide(projected.shape[1], n_heads, "the width")
    return attention.split_heads(projected, n_heads)


def merge_heads(per_head: np.ndarray) -> np.ndarray:
    """``(H, T, d)`` -> ``(T, H*d)``, the inverse of :func:`split_heads`."""
    return attention.merge_heads(as_matrix(per_head, "per-head matrices", ndim=3))


def normaliser_function(normaliser: object) -> Callable[[np.ndarray], np.ndarray]:
    """The function a normaliser's name stands for (softmax or hardmax), checked."""
    if not isinstance(normaliser, str) or normaliser not in NORMALISERS:
        names = " or ".join(repr(name) for name in NORMALISERS)
        raise InputError(f"The normaliser must be {names}, got {normaliser!r}.")
    return NORMALISERS[normaliser].build


def resolve_scale(scale: float | None, d_k: int) -> float:
    r"""The score scale: :math:`1/\sqrt{d_k}` unless given explicitly (a finite number)."""
    if scale is None:
        return 1.0 / math.sqrt(d_k)  # a Python float keeps float32 input float32
    scale = check_number(scale, "The scale")
    if not np.isfinite(scale):
        raise InputError(f"The scale must be a finite number, got {scale}.")
    return scale


def check_scores_finite(trace: AttentionTrace) -> None:
    """Finite inputs can still overflow to infinite scores; say so instead of giving NaN."""
    if not np.all(np.isfinite(trace.scaled)):
        raise InputError(
            "The scores q·k overflow to infinity: the inputs (or the scale) are too large; "
            "use smaller numbers."
        )


def scaled_dot_product_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    scale: float | None = None,
    mask: np.ndarray | None = None,
    normaliser: str = "softmax",
) -> AttentionTrace:
    r"""Single-head scaled dot-product attention (Vaswani et al. 2017), checked.

    .. math:: \mathrm{Attention}(Q, K, V) =
              \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V

    ``q (Tq, dk)``, ``k (Tk, dk)``, ``v (Tk, dv)``; ``scale`` defaults to
    :math:`1/\sqrt{d_k}`; optional boolean ``mask (Tq, Tk)`` (True = may attend);
    ``normaliser`` names the row normaliser (``"softmax"`` or ``"hardmax"``). The same
    arguments, in the same order, as :func:`attention.scaled_dot_product_attention`
    (which takes the normaliser's function); returns its :class:`AttentionTrace`.
    """
    q, k, v = as_matrix(q, "q"), as_matrix(k, "k"), as_matrix(v, "v")
    check_same_width(q, "q", k, "k")
    check_one_row_per_key(k, "k", v, "v")
    if mask is not None:
        mask = check_mask_shape(mask, (q.shape[0], k.shape[0]))
    with np.errstate(over="ignore", invalid="ignore"):
        trace = attention.scaled_dot_product_attention(
            q, k, v, resolve_scale(scale, q.shape[1]), mask, normaliser_function(normaliser)
        )
    check_scores_finite(trace)
    return trace


def _check_projection(w: object, name: str, rows: int) -> np.ndarray:
    w = as_matrix(w, name)
    if w.shape[0] != rows:
        raise InputError(f"{name} must have {rows} rows (the input width), got shape {w.shape}.")
    return w


def _concatenate_only(context: np.ndarray, projections: Projections) -> np.ndarray:
    """Without ``W^O`` the output is the heads side by side."""
    return attention.merge_heads(context)


def multi_head_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray | None = None,
    n_heads: int = 1,
    mask: np.ndarray | None = None,
    x_kv: np.ndarray | None = None,
    scale: float | None = None,
    normaliser: str = "softmax",
    rotary: bool = False,
    rotary_base: float = 10_000.0,
    ablation: Ablation | None = None,
) -> MultiHeadTrace:
    r"""Multi-head (self- or cross-) attention with every intermediate kept, checked.

    .. math:: Q = X W^Q,\; K = X_{kv} W^K,\; V = X_{kv} W^V,\;
              C_h = \mathrm{softmax}(s\, Q_h K_h^\top)\, V_h,\;
              O = [C_1 \dots C_H]\, W^O

    Shapes: ``x (T, d_in)``, ``x_kv (S, d_in)`` (defaults to ``x``),
    ``w_q, w_k (d_in, H*dk)``, ``w_v (d_in, H*dv)``, ``w_o (H*dv, d_out)`` or
    None (then the output is the concatenation), ``mask (T, S)`` bool. ``scale``
    defaults to :math:`1/\sqrt{d_k}`. ``rotary``: RoPE on queries and keys. ``ablation``:
    heads ``(0, h)`` turned off (:mod:`attention_core.maths.ablation`), None: all on.
    """
    x = as_matrix(x, "x")
    x_kv = x if x_kv is None else as_matrix(x_kv, "x_kv")
    d_in = x.shape[1]
    if x_kv.shape[1] != d_in:
        raise InputError(
            f"Queries and keys/values come from inputs of different widths "
            f"({d_in} and {x_kv.shape[1]}); both need the same width."
        )
    w_q = _check_projection(w_q, "w_q", d_in)
    w_k = _check_projection(w_k, "w_k", d_in)
    w_v = _check_projection(w_v, "w_v", d_in)
    if w_q.shape[1] != w_k.shape[1]:
        raise InputError(
            f"w_q and w_k must have the same number of columns (H*dk), got "
            f"{w_q.shape[1]} and {w_k.shape[1]}."
        )
    d_k = check_heads_divide(w_q.shape[1], n_heads, "the query/key width")
    check_heads_divide(w_v.shape[1], n_heads, "the value width")
    if mask is not None:
        mask = check_mask_shape(mask, (x.shape[0], x_kv.shape[0]))
    if w_o is not None:
        w_o = _check_projection(w_o, "w_o", w_v.shape[1])
    chosen_normaliser = normaliser_function(normaliser)
    base = check_base(rotary_base) if rotary else None
    combine = _concatenate_only if w_o is None else attention.output_projection
    ablation = check_ablation(ablation, 1, int(n_heads))
    with np.errstate(over="ignore", invalid="ignore"):
        trace = attention.multi_head_attention(
            x, x_kv, Projections(w_q, w_k, w_v, w_o), int(n_heads), resolve_scale(scale, d_k),
            mask, chosen_normaliser, combine, base, ablation=ablation,
        )  # fmt: skip
    check_scores_finite(trace)
    return trace


def combine_heads(
    context: np.ndarray,
    strategy: str = "concat",
    w_o: np.ndarray | None = None,
    head_weights: np.ndarray | None = None,
) -> np.ndarray:
    r"""Combine per-head context vectors ``context (H, T, dv)`` into one output.

    * ``"concat"``: :math:`[C_1 \dots C_H]\, W^O`, shape ``(T, d_out)``; without
      ``w_o`` just the concatenation ``(T, H*dv)``.
    * ``"mean"``: :math:`\frac{1}{H}\sum_h C_h`, shape ``(T, dv)``.
    * ``"max"``: element-wise :math:`\max_h C_h`, shape ``(T, dv)``.
    * ``"learned"``: :math:`\sum_h w_h C_h` with one trainable weight per head
      ``head_weights (H,)`` (the dmol.pub notebook's choice), shape ``(T, dv)``.
    """
    context = as_matrix(context, "context", ndim=3)
    combine = choose(COMBINATIONS, strategy, "head combination").build
    if strategy == "concat":
        if w_o is None:
            return attention.merge_heads(context)
        w_o = _check_projection(w_o, "w_o", context.shape[0] * context.shape[2])
    if strategy == "learned":
        if head_weights is None:
            raise InputError("The 'learned' combination needs one weight per head.")
        head_weights = as_matrix(head_weights, "head_weights", ndim=1)
        if head_weights.shape[0] != context.shape[0]:
            raise InputError(
                f"Need one weight per head ({context.shape[0]}), got {head_weights.shape[0]}."
            )
    no_matrix = np.empty((0, 0))  # combining heads reads only w_o and the head weights
    return combine(context, Projections(no_matrix, no_matrix, no_matrix, w_o, head_weights))
