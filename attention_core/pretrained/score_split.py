r"""Why a head attends: its raw score :math:`QK^\top` split exactly by where its input came from.

A head reads a normalisation of the residual stream :math:`x = \sum_c x_c` ``(T, d)``,
the sum of components :math:`c` such as the token embedding, the position embedding and
the rest (what earlier layers wrote). LayerNorm is linear in :math:`x` once each row's
:math:`\sigma(x) = \sqrt{\mathrm{var}(x) + \epsilon}` is fixed at its actual value:

.. math::
    \mathrm{LN}(x) = \gamma \odot \frac{x - \bar x}{\sigma(x)} + \beta
    = \sum_c \underbrace{\gamma \odot \frac{x_c - \bar x_c}{\sigma(x)}}_{\text{part } c}
    + \underbrace{\beta}_{\text{bias}}

so :math:`q = \mathrm{LN}(x) W_q + b_q = \sum_a q_a` (with :math:`q_{\text{bias}} = \beta
W_q + b_q`), the same for :math:`k`, and the score splits into one term per pair

.. math::
    q_i \cdot k_j = \sum_{a, b} q_{a,i} \cdot k_{b,j}

(token-token, token-position, position-token, position-position, ..., and the terms with
the input-independent "bias" part). A term whose key part is "bias" is the same for every
key of a query, so softmax ignores it (:func:`share` with ``centre_rows``). Nothing is
approximated: the terms sum to the real score to float rounding. The scores are raw,
before the :math:`1/\sqrt{d_k}` scale, which multiplies every term alike.

Where the split is exact: GPT-2 at every layer, with ``token = wte[ids]``, ``position =
wpe[0..T-1]`` and ``rest = x_l - token - position`` (:func:`absolute_position_components`;
``rest`` is 0 at layer 0); BERT at layer 0 (its embedding LayerNorm, ``rest`` = the segment
embedding). Rotary models (Llama family) add positions by rotating q and k, not as a part
of :math:`x`, so this split does not apply to them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from attention_core.boundary.errors import InputError

#: the name of the input-independent part: LayerNorm's beta and the projection's bias
BIAS = "bias"


def absolute_position_components(
    residual: np.ndarray, token: np.ndarray, position: np.ndarray
) -> dict[str, np.ndarray]:
    r"""The residual stream ``x_l (T, d)`` as token + position + rest, each ``(T, d)``.

    ``token = wte[ids]`` and ``position = wpe[0..T-1]`` (GPT-2's embeddings, which the
    first layer's input is the sum of); ``rest = x_l - token - position`` is what the
    layers before ``l`` wrote (zero, to rounding, at layer 0).
    """
    residual, token, position = (
        np.asarray(a, dtype=np.float64) for a in (residual, token, position)
    )
    return {"token": token, "position": position, "rest": residual - token - position}


def linearised_parts(
    parts: Mapping[str, np.ndarray], gain: np.ndarray, bias: np.ndarray, eps: float
) -> dict[str, np.ndarray]:
    r"""Each part's share of :math:`\mathrm{LN}(\sum_c x_c)`, and :math:`\beta` as ``"bias"``.

    ``parts``: name -> ``(T, d)``; ``gain`` :math:`\gamma` and ``bias`` :math:`\beta` ``(d,)``.
    Part :math:`c` becomes :math:`\gamma \odot (x_c - \bar x_c) / \sigma(x)` with the whole
    sum's :math:`\sigma(x)` per row; the values sum to ``layer_norm(sum(parts))``.
    """
    components = _check_parts(parts, "parts")
    if BIAS in components:
        raise InputError(f'"{BIAS}" names LayerNorm\'s beta here; call that part another name.')
    x = np.sum(list(components.values()), axis=0)  # (T, d)
    centred = x - x.mean(axis=-1, keepdims=True)
    sigma = np.sqrt(np.square(centred).mean(axis=-1, keepdims=True) + eps)  # (T, 1)
    shares = {
        name: (part - part.mean(axis=-1, keepdims=True)) / sigma * gain
        for name, part in components.items()
    }
    shares[BIAS] = np.broadcast_to(np.asarray(bias, dtype=np.float64), x.shape)
    return shares


def split_scores(
    parts_q: Mapping[str, np.ndarray],
    parts_k: Mapping[str, np.ndarray],
    w_q: np.ndarray,
    b_q: np.ndarray | None,
    w_k: np.ndarray,
    b_k: np.ndarray | None,
) -> dict[tuple[str, str], np.ndarray]:
    r"""One head's score :math:`(\sum_a q_a)(\sum_b k_b)^\top` as its terms
    :math:`q_a k_b^\top` ``(T, S)``, keyed ``(query part, key part)``.

    ``parts_q`` ``(T, d)`` and ``parts_k`` ``(S, d)`` sum to the normalised input of queries
    and keys (:func:`linearised_parts`); ``w_q``, ``w_k`` ``(d, dk)`` and ``b_q``, ``b_k``
    ``(dk,)`` or None are one head's projections (:func:`head_columns`). A bias ``b`` is
    added to the ``"bias"`` part, so every term without the input is keyed with ``"bias"``.
    The terms sum to :math:`(\mathrm{LN}(x) W_q + b_q)(\mathrm{LN}(x) W_k + b_k)^\top`.
    """
    queries = _project(_check_parts(parts_q, "parts_q"), w_q, b_q)  # name -> (T, dk)
    keys = _project(_check_parts(parts_k, "parts_k"), w_k, b_k)  # name -> (S, dk)
    return {
        (query_name, key_name): query @ key.T  # (T, dk) @ (dk, S) -> (T, S)
        for query_name, query in queries.items()
        for key_name, key in keys.items()
    }


def self_attention_split(
    parts: Mapping[str, np.ndarray],
    gain: np.ndarray,
    bias: np.ndarray,
    eps: float,
    w_q: np.ndarray,
    b_q: np.ndarray | None,
    w_k: np.ndarray,
    b_k: np.ndarray | None,
) -> dict[tuple[str, str], np.ndarray]:
    """:func:`split_scores` of a pre-LayerNorm self-attention head (GPT-2): the residual's
    ``parts (T, d)`` normalised by ``gain``, ``bias``, ``eps``, then one head's projections.
    """
    normalised = linearised_parts(parts, gain, bias, eps)
    return split_scores(normalised, normalised, w_q, b_q, w_k, b_k)


def head_columns(matrix: np.ndarray, head: int, n_heads: int) -> np.ndarray:
    """Head ``head``'s columns ``head*dk : (head+1)*dk`` of ``(d, H*dk)`` weights or ``(H*dk,)``
    biases, the split of :func:`attention_core.maths.attention.split_heads`.
    """
    width = matrix.shape[-1] // n_heads
    return matrix[..., head * width : (head + 1) * width]


def term_label(term: tuple[str, str]) -> str:
    """``("token", "position")`` -> ``"token-position"``: query part first, then key part."""
    return f"{term[0]}-{term[1]}"


def share(
    split: Mapping[tuple[str, str], np.ndarray],
    mask: np.ndarray | None = None,
    centre_rows: bool = False,
) -> dict[str, float]:
    r"""Each term's share of the total absolute score mass, :math:`\sum|S_{ab}| / \sum_{a,b}
    \sum|S_{ab}|`, keyed by :func:`term_label`; the shares sum to 1 (all 0 for zero scores).

    ``mask (T, S)`` bool, True = may attend: count only those cells (a causal head never
    uses the scores above the diagonal). ``centre_rows``: first subtract each term's mean
    over a query's allowed keys. Softmax ignores anything the same for every key of a
    query, such as every term whose key part is ``"bias"``, so centred shares tell what
    decides *where* the head looks (for a previous-token head, position-position).
    """
    allowed = np.ones(next(iter(split.values())).shape, dtype=bool) if mask is None else mask
    masses = {
        term_label(term): _mass(scores, allowed, centre_rows) for term, scores in split.items()
    }
    total = sum(masses.values())
    return {label: mass / total if total > 0 else 0.0 for label, mass in masses.items()}


def _mass(scores: np.ndarray, allowed: np.ndarray, centre_rows: bool) -> float:
    r""":math:`\sum |S|` over the ``allowed`` cells, each row centred first if asked."""
    counted = _centred(scores, allowed) if centre_rows else scores
    return float(np.abs(counted[allowed]).sum())


def _centred(scores: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``scores (T, S)`` minus each row's mean over its ``allowed (T, S)`` cells."""
    counts = np.maximum(allowed.sum(axis=-1, keepdims=True), 1)  # (T, 1); no key: nothing
    means = np.where(allowed, scores, 0.0).sum(axis=-1, keepdims=True) / counts
    return scores - means


def _project(
    parts: dict[str, np.ndarray], w: np.ndarray, b: np.ndarray | None
) -> dict[str, np.ndarray]:
    """Each part times ``w (d, dk)``; the bias ``b (dk,)`` joins the ``"bias"`` part."""
    weights = np.asarray(w, dtype=np.float64)
    projected = {name: part @ weights for name, part in parts.items()}  # name -> (T, dk)
    if b is not None:
        length = next(iter(parts.values())).shape[0]
        bias = np.broadcast_to(np.asarray(b, dtype=np.float64), (length, weights.shape[1]))
        projected[BIAS] = projected[BIAS] + bias if BIAS in projected else bias
    return projected


def _check_parts(parts: Mapping[str, np.ndarray], name: str) -> dict[str, np.ndarray]:
    """``parts`` as float64 arrays of one ``(T, d)`` shape, at least one, or InputError."""
    arrays = {part_name: np.asarray(part, dtype=np.float64) for part_name, part in parts.items()}
    shapes = {part.shape for part in arrays.values()}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise InputError(f"{name} must be one or more (T, d) arrays of one shape, got {shapes}.")
    return arrays
