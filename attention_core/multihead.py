r"""Multi-head attention and the ways to combine heads.

.. math::
    \mathrm{head}_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{d_k}}\right) V_h,
    \qquad
    \mathrm{MHA}(X) = \mathrm{concat}(\mathrm{head}_1, \dots, \mathrm{head}_H)\, W^O

with :math:`Q = X W^Q`, :math:`K = X_{kv} W^K`, :math:`V = X_{kv} W^V` and head h
taking its own block of columns, the same split as ``torch.nn.MultiheadAttention``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .functional import attend, resolve_scale
from .positional import rotary_embedding
from .validation import as_matrix, check_mask_shape, check_positive_int

COMBINE_STRATEGIES = ("concat", "mean", "max", "learned")


def valid_head_counts(width: int, maximum: int | None = None) -> list[int]:
    """All head counts that divide ``width`` evenly (optionally up to ``maximum``)."""
    width = check_positive_int(width, "width")
    limit = width if maximum is None else min(width, maximum)
    return [h for h in range(1, limit + 1) if width % h == 0]


def check_heads_divide(width: int, n_heads: int, what: str) -> int:
    """Return the per-head width ``width // n_heads``, or raise naming valid counts."""
    n_heads = check_positive_int(n_heads, "The number of heads")
    if width % n_heads:
        choices = ", ".join(str(h) for h in valid_head_counts(width))
        raise InputError(
            f"{n_heads} heads do not divide {what} = {width} evenly; choose one of: {choices}."
        )
    return width // n_heads


@dataclass(frozen=True)
class MultiHeadTrace:
    """Every intermediate of multi-head attention, per head.

    ``H`` heads, ``T`` queries, ``S`` keys.
    """

    q: np.ndarray  #: (H, T, dk)
    k: np.ndarray  #: (H, S, dk)
    v: np.ndarray  #: (H, S, dv)
    scores: np.ndarray  #: (H, T, S) raw Q_h K_h^T
    scaled: np.ndarray  #: (H, T, S)
    masked: np.ndarray  #: (H, T, S) -inf where masked
    weights: np.ndarray  #: (H, T, S)
    context: np.ndarray  #: (H, T, dv)
    concat: np.ndarray  #: (T, H*dv)
    output: np.ndarray  #: (T, d_out): concat @ w_o, or concat when w_o is None
    mask: np.ndarray | None  #: (T, S) bool, True = may attend
    scale: float


def split_heads(projected: np.ndarray, n_heads: int) -> np.ndarray:
    """``(T, H*d)`` -> ``(H, T, d)``: head h gets columns ``h*d:(h+1)*d``.

    The result is made contiguous: batched matrix products on strided views
    fall off NumPy's BLAS path and run several times slower.
    """
    projected = as_matrix(projected, "projected")
    n_heads = check_positive_int(n_heads, "The number of heads")
    check_heads_divide(projected.shape[1], n_heads, "the width")
    length, width = projected.shape
    heads = projected.reshape(length, n_heads, width // n_heads).transpose(1, 0, 2)
    return np.ascontiguousarray(heads)


def merge_heads(per_head: np.ndarray) -> np.ndarray:
    """``(H, T, d)`` -> ``(T, H*d)``, the inverse of :func:`split_heads`."""
    per_head = as_matrix(per_head, "per-head matrices", ndim=3)
    n_heads, length, width = per_head.shape
    return per_head.transpose(1, 0, 2).reshape(length, n_heads * width)


def _check_projection(w: object, name: str, rows: int) -> np.ndarray:
    w = as_matrix(w, name)
    if w.shape[0] != rows:
        raise InputError(f"{name} must have {rows} rows (the input width), got shape {w.shape}.")
    return w


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
    activation: str = "softmax",
    rotary: bool = False,
    rotary_base: float = 10_000.0,
) -> MultiHeadTrace:
    r"""Multi-head (self- or cross-) attention with every intermediate kept.

    .. math:: Q = X W^Q,\; K = X_{kv} W^K,\; V = X_{kv} W^V,\;
              C_h = \mathrm{softmax}(s\, Q_h K_h^\top)\, V_h,\;
              O = [C_1 \dots C_H]\, W^O

    Shapes: ``x (T, d_in)``, ``x_kv (S, d_in)`` (defaults to ``x``),
    ``w_q, w_k (d_in, H*dk)``, ``w_v (d_in, H*dv)``, ``w_o (H*dv, d_out)`` or
    None, ``mask (T, S)`` bool. ``scale`` defaults to :math:`1/\sqrt{d_k}`.
    With ``rotary=True`` each head's queries and keys are rotated by position
    (RoPE) before the scores. Returns a :class:`MultiHeadTrace`.
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

    q = split_heads(x @ w_q, n_heads)  # (H, T, dk)
    k = split_heads(x_kv @ w_k, n_heads)  # (H, S, dk)
    v = split_heads(x_kv @ w_v, n_heads)  # (H, S, dv)
    if rotary:
        q = rotary_embedding(q, base=rotary_base)
        k = rotary_embedding(k, base=rotary_base)
    head = attend(q, k, v, mask, resolve_scale(scale, d_k), activation)
    concat = merge_heads(head.context)  # (T, H*dv)
    if w_o is None:
        output = concat
    else:
        w_o = _check_projection(w_o, "w_o", concat.shape[1])
        output = concat @ w_o
    return MultiHeadTrace(
        q,
        k,
        v,
        head.scores,
        head.scaled,
        head.masked,
        head.weights,
        head.context,
        concat,
        output,
        mask,
        head.scale,
    )


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
    if strategy == "concat":
        concat = merge_heads(context)
        if w_o is None:
            return concat
        return concat @ _check_projection(w_o, "w_o", concat.shape[1])
    if strategy == "mean":
        return context.mean(axis=0)
    if strategy == "max":
        return context.max(axis=0)
    if strategy == "learned":
        if head_weights is None:
            raise InputError("The 'learned' combination needs one weight per head.")
        head_weights = as_matrix(head_weights, "head_weights", ndim=1)
        if head_weights.shape[0] != context.shape[0]:
            raise InputError(
                f"Need one weight per head ({context.shape[0]}), got {head_weights.shape[0]}."
            )
        return np.tensordot(head_weights, context, axes=1)
    raise InputError(
        f"Unknown head combination {strategy!r}; choose one of {', '.join(COMBINE_STRATEGIES)}."
    )
