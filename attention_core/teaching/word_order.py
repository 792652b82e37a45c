r"""Does attention know where a token is? The numbers behind the positional-encoding page.

Without a positional encoding, attention is *permutation equivariant*: swap two
tokens and the weights are the same numbers, swapped along with the tokens,

.. math:: W(\Pi X) = \Pi\, W(X)\, \Pi^\top, \qquad O(\Pi X) = \Pi\, O(X)

for a permutation matrix :math:`\Pi`. Adding :math:`P` (or rotating by position)
breaks this, which is the whole point of a positional encoding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.config import AttentionConfig
from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_D_MODEL, MAX_POSITIONS
from attention_core.boundary.pipeline import run_text_attention
from attention_core.boundary.validation import check_positive_int
from attention_core.maths.positional import learned_encoding, rotary_embedding, sinusoidal_encoding

#: Query positions of the rotary demonstration: far apart, even past MAX_POSITIONS,
#: so "the score depends only on the offset" is seen to hold everywhere.
ROTARY_START_POSITIONS = (0, 10, 100, 1000)


# --- What each encoding looks like ------------------------------------------


def rotary_reference(length: int, width: int, base: float = 10_000.0) -> np.ndarray:
    r"""What RoPE does to position p, as a matrix ``(length, width)``.

    Each pair of columns holds the point (1, 0) rotated by
    :math:`\theta_{p,i} = p\, b^{-2i/d}`, i.e. :math:`(\cos\theta_{p,i}, \sin\theta_{p,i})`.
    Rotary adds nothing to the token vectors; this shows the rotation it applies
    to the queries and keys. An odd last column is not rotated (stays 1).
    """
    length = check_positive_int(length, "Sequence length", MAX_POSITIONS)
    width = check_positive_int(width, "d_model", MAX_D_MODEL)
    unit = np.zeros((length, width))
    unit[:, 0::2] = 1.0  # (1, 0) in every pair
    return rotary_embedding(unit, base)


def position_matrix(
    kind: str, length: int, d_model: int, base: float = 10_000.0, seed: int = 0
) -> np.ndarray:
    """The ``(length, d_model)`` matrix that shows encoding ``kind``.

    Sinusoidal and learned: the encoding :math:`P` added to the token vectors.
    Rotary: :func:`rotary_reference`. None: zeros (every position looks the same).
    """
    if kind == "sinusoidal":
        return sinusoidal_encoding(length, d_model, base)
    if kind == "learned":
        return learned_encoding(length, d_model, seed)
    if kind == "rotary":
        return rotary_reference(length, d_model, base)
    if kind == "none":
        length = check_positive_int(length, "Sequence length", MAX_POSITIONS)
        d_model = check_positive_int(d_model, "d_model", MAX_D_MODEL)
        return np.zeros((length, d_model))
    raise InputError(f"Unknown positional encoding {kind!r}.")


def position_similarity(encoding: np.ndarray) -> np.ndarray:
    r"""Dot product of every position's vector with every other's, ``(T, T)``.

    .. math:: G = P P^\top, \qquad G_{pr} = \langle P_p, P_r \rangle

    For the sinusoidal encoding :math:`G_{pr} = \sum_i \cos\big((p - r)\,\omega_i\big)`
    (plus a sine term for an odd width): it depends only on the offset p - r.
    """
    encoding = np.asarray(encoding, dtype=float)
    return encoding @ encoding.T


# --- Rotary: the score depends only on the offset ---------------------------


@dataclass(frozen=True)
class RotaryOffsets:
    r"""Scores :math:`\langle \mathrm{rot}_p q,\ \mathrm{rot}_{p+o} k \rangle`.

    ``starts (P,)`` query positions p, ``offsets (O,)`` offsets o,
    ``scores (P, O)`` one row per query position.
    """

    starts: np.ndarray
    offsets: np.ndarray
    scores: np.ndarray

    @property
    def spread(self) -> float:
        """Largest difference between the rows: 0 up to rounding when only o matters."""
        return float(np.max(np.ptp(self.scores, axis=0)))


def rotary_offset_scores(
    width: int,
    max_offset: int,
    base: float = 10_000.0,
    seed: int = 0,
    starts: tuple[int, ...] = ROTARY_START_POSITIONS,
) -> RotaryOffsets:
    r"""Score of one fixed query and key, rotated to positions p and p + o.

    .. math:: s(p, o) = \langle R_p\, q,\ R_{p+o}\, k \rangle = \langle q,\ R_o\, k \rangle

    because rotations compose: :math:`R_p^\top R_{p+o} = R_o`. ``q, k (width,)``
    are drawn :math:`\mathcal N(0, 1)` from ``seed``; offsets run from 0 to
    ``max_offset``. Every row of the result should be the same curve.
    """
    width = check_positive_int(width, "d_model", MAX_D_MODEL)
    max_offset = check_positive_int(max_offset + 1, "Number of offsets", MAX_POSITIONS) - 1
    rng = np.random.default_rng([int(seed), 0x0F5E7])
    query, key = rng.standard_normal(width), rng.standard_normal(width)
    start_positions = np.asarray(starts, dtype=int)  # (P,)
    offsets = np.arange(max_offset + 1)  # (O,)
    n_positions = int(start_positions.max()) + max_offset + 1
    rotated_q = rotary_embedding(np.broadcast_to(query, (n_positions, width)), base)  # (N, d)
    rotated_k = rotary_embedding(np.broadcast_to(key, (n_positions, width)), base)  # (N, d)
    key_positions = start_positions[:, None] + offsets[None, :]  # (P, O)
    scores = np.einsum("pd,pod->po", rotated_q[start_positions], rotated_k[key_positions])
    return RotaryOffsets(start_positions, offsets, scores)


# --- Swapping two tokens -----------------------------------------------------


@dataclass(frozen=True)
class SwapComparison:
    """Attention on a sentence and on the same sentence with two tokens swapped.

    ``H`` heads, ``T`` tokens. ``order[k]`` is the original index of the token
    at position k of the swapped sentence.
    """

    config: AttentionConfig
    tokens: tuple[str, ...]  #: (T,) the original order
    swapped_tokens: tuple[str, ...]  #: (T,) with the two tokens exchanged
    order: np.ndarray  #: (T,) int
    weights: np.ndarray  #: (H, T, T) on the original sentence
    swapped_weights: np.ndarray  #: (H, T, T) on the swapped sentence, its own order
    realigned_weights: np.ndarray  #: (H, T, T) swapped weights, rows/columns put back
    weight_difference: float  #: max |realigned_weights - weights|
    output_difference: float  #: max |each word's output, swapped vs original|
    #: (H, T, T) the masked scores whose rows' softmax are ``weights``, and the swapped
    #: run's put back the same way (``realigned_weights``' rows are their softmax)
    masked: np.ndarray
    realigned_masked: np.ndarray


def swap_order(length: int, first: int, second: int) -> np.ndarray:
    """``(length,)`` indices that exchange positions ``first`` and ``second``."""
    length = check_positive_int(length, "Number of tokens")
    for name, position in (("first", first), ("second", second)):
        if isinstance(position, bool) or not isinstance(position, (int, np.integer)):
            raise InputError(f"The {name} position must be a whole number, got {position!r}.")
        if not 0 <= position < length:
            raise InputError(
                f"The {name} position must be between 0 and {length - 1}, got {position}."
            )
    order = np.arange(length)
    order[[first, second]] = order[[second, first]]
    return order


def compare_swapped(
    tokens: tuple[str, ...], first: int, second: int, config: AttentionConfig
) -> SwapComparison:
    r"""Run attention on ``tokens`` and on them with two positions swapped.

    The swapped run's weights are put back in the original token order,
    :math:`\tilde W = \Pi^\top W(\Pi X)\, \Pi`, and compared with :math:`W(X)`.
    Without positional information both differences are 0 (up to rounding).
    """
    tokens = tuple(tokens)
    order = swap_order(len(tokens), first, second)
    swapped_tokens = tuple(tokens[index] for index in order)
    original = run_text_attention(tokens, config)
    swapped = run_text_attention(swapped_tokens, config)
    where = np.argsort(order)  # where[a] = position of original token a after the swap
    realigned = swapped.trace.weights[:, where][:, :, where]  # (H, T, T)
    realigned_masked = swapped.trace.masked[:, where][:, :, where]  # (H, T, T)
    weight_difference = float(np.max(np.abs(realigned - original.trace.weights)))
    output_difference = float(np.max(np.abs(swapped.trace.output[where] - original.trace.output)))
    return SwapComparison(
        config,
        tokens,
        swapped_tokens,
        order,
        original.trace.weights,
        swapped.trace.weights,
        realigned,
        weight_difference,
        output_difference,
        original.trace.masked,
        realigned_masked,
    )
