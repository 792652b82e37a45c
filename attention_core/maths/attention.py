r"""Multi-head scaled dot-product attention, read top to bottom.

.. math::
    Q = X W^Q,\; K = X_{kv} W^K,\; V = X_{kv} W^V \qquad
    A_h = \mathrm{softmax}\Big(\mathrm{mask}\big(\tfrac{Q_h K_h^\top}{\sqrt{d_k}}\big)\Big)
    \qquad C_h = A_h V_h \qquad O = [\,C_1 \cdots C_H\,]\, W^O

One small function per step, in the order they run. ``T`` queries, ``S`` keys,
``H`` heads of width ``dk`` (queries, keys) and ``dv`` (values); one token is one
row. Masks are boolean, ``True`` = may attend. Nothing here checks its inputs:
the public entry points (:mod:`attention_core.boundary.api`, ``AttentionConfig``) check
them once, so the math reads like the formula.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention_core.maths.ablation import Ablation, ablate_heads
from attention_core.maths.positional import rotate
from attention_core.maths.projections import Projections


def split_heads(projected: np.ndarray, n_heads: int) -> np.ndarray:
    """Head h gets columns ``h*d:(h+1)*d`` (as in ``torch.nn.MultiheadAttention``).

    ``(T, H*d) -> (H, T, d)``; contiguous, since products on strided views are slow.
    """
    length, width = projected.shape
    per_head = projected.reshape(length, n_heads, width // n_heads)  # (T, H, d)
    return np.ascontiguousarray(per_head.transpose(1, 0, 2))  # (H, T, d)


def project(x: np.ndarray, w: np.ndarray, n_heads: int, b: np.ndarray | None = None) -> np.ndarray:
    r""":math:`Q = X W^Q + b^Q` (or K, V), split by head: ``(T, d_in) @ (d_in, H*d) -> (H, T, d)``.

    ``b (H*d,)``; None: no bias, :math:`Q = X W^Q`.
    """
    projected = x @ w if b is None else x @ w + b  # (T, H*d)
    return split_heads(projected, n_heads)  # (H, T, d)


def attention_scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    r""":math:`S = Q K^\top`, how well each query matches each key: ``(..., T, S)``."""
    return q @ np.swapaxes(k, -1, -2)  # (..., T, dk) @ (..., dk, S) -> (..., T, S)


def scale_scores(scores: np.ndarray, scale: float) -> np.ndarray:
    r""":math:`\tilde S = s\, S`, usually :math:`s = 1/\sqrt{d_k}`, so softmax does not saturate."""
    return scores * scale


def mask_scores(scaled: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    r""":math:`\hat S_{ij} = \tilde S_{ij}` where :math:`M_{ij}`, else :math:`-\infty` (weight 0).

    ``mask (T, S)`` broadcasts over heads; ``None`` keeps every score.
    """
    if mask is None:
        return scaled
    return np.where(mask, scaled, -np.inf)


def softmax(masked: np.ndarray, axis: int = -1) -> np.ndarray:
    r""":math:`A_{ij} = e^{\hat S_{ij} - m_i} / \sum_k e^{\hat S_{ik} - m_i}`, :math:`m_i = \max_k`.

    Each row becomes positive weights summing to 1. Subtracting the row maximum
    keeps every exponent <= 0 (no overflow); a fully masked row gets zeros, not NaN.
    """
    row_max = np.max(masked, axis=axis, keepdims=True)  # (..., T, 1)
    row_max[np.isneginf(row_max)] = 0.0  # fully masked row: exp(-inf) = 0
    weights = np.subtract(masked, row_max)
    np.exp(weights, out=weights)
    total = np.sum(weights, axis=axis, keepdims=True)  # (..., T, 1)
    total[total == 0] = 1.0  # fully masked row: weights stay 0
    weights /= total
    return weights


def hardmax(masked: np.ndarray, axis: int = -1) -> np.ndarray:
    r"""Hard attention :math:`A_{ij} = [\, j = \arg\max_k \hat S_{ik} \,]`, ties to the first.

    A fully masked row stays all zeros.
    """
    best = np.expand_dims(np.argmax(masked, axis=axis), axis)  # (..., T, 1)
    weights = np.zeros_like(masked)
    np.put_along_axis(weights, best, 1.0, axis=axis)
    any_allowed = np.any(~np.isneginf(masked), axis=axis, keepdims=True)  # (..., T, 1)
    return np.where(any_allowed, weights, 0.0)


def attention_context(weights: np.ndarray, v: np.ndarray) -> np.ndarray:
    r""":math:`C = A V`: each query's weighted average of the value rows."""
    return weights @ v  # (..., T, S) @ (..., S, dv) -> (..., T, dv)


def merge_heads(context: np.ndarray) -> np.ndarray:
    r""":math:`[\,C_1 \cdots C_H\,]`, the heads side by side: ``(H, T, dv) -> (T, H*dv)``."""
    n_heads, length, width = context.shape
    return context.transpose(1, 0, 2).reshape(length, n_heads * width)  # (T, H*dv)


def output_projection(context: np.ndarray, projections: Projections) -> np.ndarray:
    r""":math:`O = [\,C_1 \cdots C_H\,]\, W^O + b^O` mixes what every head found; the only use
    of W^O (``b^O (d_out,)`` only if the projections have it).
    """
    output = merge_heads(context) @ projections.w_o  # (T, H*dv) @ (H*dv, d_out) -> (T, d_out)
    return output if projections.b_o is None else output + projections.b_o


@dataclass(frozen=True)
class AttentionTrace:
    """Every intermediate of :func:`scaled_dot_product_attention` (``...``: head axes)."""

    scores: np.ndarray  #: (..., T, S) Q K^T
    scaled: np.ndarray  #: (..., T, S) scores * scale
    masked: np.ndarray  #: (..., T, S) -inf where the mask forbids
    weights: np.ndarray  #: (..., T, S) softmax (or hardmax) of masked
    context: np.ndarray  #: (..., T, dv) weights @ v
    mask: np.ndarray | None  #: (T, S) bool, True = may attend; None = all allowed
    scale: float  #: the factor on the scores


def scaled_dot_product_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    scale: float,
    mask: np.ndarray | None = None,
    normaliser: Callable[[np.ndarray], np.ndarray] = softmax,
) -> AttentionTrace:
    r""":math:`\mathrm{softmax}(\mathrm{mask}(s\, Q K^\top))\, V`, every step kept.

    ``q (..., T, dk)``, ``k (..., S, dk)``, ``v (..., S, dv)``, ``scale`` the factor
    :math:`s`, ``mask (T, S)`` bool or None, ``normaliser`` softmax or hardmax: the
    order and names of :func:`attention_core.boundary.api.scaled_dot_product_attention`.
    """
    scores = attention_scores(q, k)  # (..., T, S)
    scaled = scale_scores(scores, scale)
    masked = mask_scores(scaled, mask)
    weights = normaliser(masked)  # (..., T, S)
    context = attention_context(weights, v)  # (..., T, dv)
    return AttentionTrace(scores, scaled, masked, weights, context, mask, scale)


@dataclass(frozen=True)
class MultiHeadTrace(AttentionTrace):
    """The :class:`AttentionTrace` of every head ``(H, ...)``, plus Q, K, V and the output."""

    q: np.ndarray  #: (H, T, dk)
    k: np.ndarray  #: (H, S, dk)
    v: np.ndarray  #: (H, S, dv)
    #: (T, H*dv) the heads side by side, as combined: an ablated head's replaced output
    #: (``context`` keeps what every head computed)
    concat: np.ndarray
    output: np.ndarray  #: (T, d_out) the heads combined
    #: (H, T, dk), (H, S, dk) before RoPE turned them (``q``, ``k`` are after); None without RoPE
    q_unrotated: np.ndarray | None = None
    k_unrotated: np.ndarray | None = None


def kv_group(head: int, n_heads: int, kv_heads: int) -> int:
    r"""The K/V head that query head ``head`` reads: :math:`\lfloor h / (H / H_{kv}) \rfloor`.

    Grouped-query attention (Ainslie et al. 2023): ``n_heads // kv_heads`` neighbouring
    query heads share one key and one value head (query heads 0, 1 -> K/V head 0 ...).
    """
    return head // (n_heads // kv_heads)


def repeat_kv(x: np.ndarray, n_repeats: int) -> np.ndarray:
    """Each K/V head repeated for the query heads of its group: ``(Hkv, S, d) -> (Hkv*r, S, d)``.

    Head ``h`` of the result is head :func:`kv_group` (h) of ``x``; ``r = 1`` returns ``x``.
    """
    return x if n_repeats == 1 else np.repeat(x, n_repeats, axis=0)


def multi_head_attention(
    x: np.ndarray,
    x_kv: np.ndarray,
    projections: Projections,
    n_heads: int,
    scale: float,
    mask: np.ndarray | None = None,
    normaliser: Callable[[np.ndarray], np.ndarray] = softmax,
    combine: Callable[[np.ndarray, Projections], np.ndarray] = output_projection,
    rotary_base: float | None = None,
    kv_heads: int | None = None,
    ablation: Ablation | None = None,
    layer_index: int = 0,
) -> MultiHeadTrace:
    r"""Project, attend in every head, combine; ``x_kv`` is ``x`` in self-attention.

    ``normaliser``: softmax or hardmax (the function); ``combine``: :math:`W^O` or another way to
    merge heads; ``rotary_base``: rotate queries and keys by position first (RoPE), positions
    0, 1, ... of ``x`` and of ``x_kv``; ``kv_heads``: grouped-query attention, ``w_k, w_v
    (d_in, Hkv*dk)`` make ``kv_heads`` K/V heads, each read by ``n_heads // kv_heads`` query
    heads (:func:`repeat_kv`). The trace's ``k`` and ``v`` are per *query* head ``(H, S, dk)``,
    a group's heads holding the same copy, so head h's keys are always ``k[h]``; the
    ``weights`` are ``(H, T, S)``. ``ablation``: the heads of layer ``layer_index`` it names
    are off, their outputs replaced before they are combined
    (:func:`attention_core.maths.ablation.ablate_heads`); the trace's ``context`` keeps what
    they computed, ``concat`` and ``output`` are what was combined. None: every head on.
    """
    kv_count = n_heads if kv_heads is None else kv_heads
    q = project(x, projections.w_q, n_heads, projections.b_q)  # (H, T, dk)
    k = project(x_kv, projections.w_k, kv_count, projections.b_k)  # (Hkv, S, dk)
    v = project(x_kv, projections.w_v, kv_count, projections.b_v)  # (Hkv, S, dv)
    if kv_heads is not None:  # each K/V head for each query head of its group
        k, v = repeat_kv(k, n_heads // kv_heads), repeat_kv(v, n_heads // kv_heads)  # (H, S, ·)
    q_unrotated = k_unrotated = None
    if rotary_base is not None:
        q_unrotated, k_unrotated = q, k
        q, k = rotate(q, rotary_base), rotate(k, rotary_base)
    heads = scaled_dot_product_attention(q, k, v, scale, mask, normaliser)  # (H, T, ·)
    combined = ablate_heads(heads.context, ablation, layer_index)  # (H, T, dv)
    output = combine(combined, projections)  # (T, d_out)
    concat = merge_heads(combined)  # (T, H*dv)
    return MultiHeadTrace(
        **vars(heads),
        q=q,
        k=k,
        v=v,
        concat=concat,
        output=output,
        q_unrotated=q_unrotated,
        k_unrotated=k_unrotated,
    )
