r"""What a decoder predicts next: the top guesses at each position, and the real next token's rank.

A decoder's logits ``(T, V)`` score every one of the ``V`` vocabulary tokens as the
token after position ``t``; the softmax turns them into probabilities

.. math::
    p_t(v) = \frac{e^{z_{t,v}}}{\sum_u e^{z_{t,u}}}

One order is used everywhere: highest probability first, equal probabilities by the
lower token id. So the real next token of rank ``r <= k`` is exactly
``top_next(logits, k)[0][t, r - 1]``.
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.validation import as_matrix, check_positive_int
from attention_core.maths.attention import softmax

#: how many guesses a student sees per position unless asked for more
TOP_K = 5


def next_token_probabilities(logits: np.ndarray) -> np.ndarray:
    r""":math:`p_t = \mathrm{softmax}(z_t)` per row, stable (the row maximum is subtracted first).

    ``(T, V) -> (T, V)``, each row sums to 1.
    """
    return softmax(logits)  # a new array; the logits stay as they are


def _top_of_row(probabilities: np.ndarray, k: int) -> np.ndarray:
    """The ids of the ``k`` most probable tokens of one row ``(V,)``, ties to the lower id."""
    kth_largest = np.partition(probabilities, probabilities.size - k)[probabilities.size - k]
    candidates = np.flatnonzero(probabilities >= kth_largest)  # ascending ids, >= k of them
    by_probability = np.argsort(-probabilities[candidates], kind="stable")  # ties keep id order
    return candidates[by_probability[:k]]


#: Rows of the ``(T, V)`` logits turned into probabilities at a time, so a long input never
#: holds a second ``(T, V)`` array beside the logits.
ROWS_AT_ONCE = 16


def _top(probabilities: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ids (r, k), probabilities (r, k))`` of rows ``(r, V)``, the order of :func:`top_next`."""
    ids = np.stack([_top_of_row(row, k) for row in probabilities])  # (r, k)
    return ids, np.take_along_axis(probabilities, ids, axis=1)


def _rank(probabilities: np.ndarray, actual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based ranks and probabilities of ``actual (r,)`` in rows ``(r, V)``."""
    actual_probability = probabilities[np.arange(actual.size), actual]  # (r,)
    above = probabilities > actual_probability[:, None]  # (r, V)
    tied_lower = (probabilities == actual_probability[:, None]) & (
        np.arange(probabilities.shape[1]) < actual[:, None]
    )
    ranks = 1 + above.sum(axis=1) + tied_lower.sum(axis=1)  # (r,)
    return ranks.astype(np.int64), actual_probability


def _summary(
    logits: np.ndarray, k: int, next_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Top ``k`` of every row of ``logits (T, V)`` and the rank of each of ``next_ids``
    (row ``t``'s real next token; fewer than ``T``, or none), :data:`ROWS_AT_ONCE` rows at a
    time: ``(ids (T, k), probabilities (T, k), ranks (N,), rank probabilities (N,))``."""
    tops, ranks = [], []
    for start in range(0, logits.shape[0], ROWS_AT_ONCE):
        probabilities = next_token_probabilities(logits[start : start + ROWS_AT_ONCE])  # (r, V)
        actual = next_ids[start : start + ROWS_AT_ONCE]  # the last row has no next token
        tops.append(_top(probabilities, k))
        ranks.append(_rank(probabilities[: len(actual)], actual))
    (ids, top_probabilities), (rank, rank_probabilities) = (
        tuple(np.concatenate(part) for part in zip(*pairs, strict=True)) for pairs in (tops, ranks)
    )
    return ids, top_probabilities, rank, rank_probabilities


def top_next(logits: object, k: int = TOP_K) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` likeliest next tokens at every position: ``(ids (T, k), probabilities (T, k))``.

    ``logits (T, V)``, finite. Sorted by probability, highest first; equal probabilities
    by the lower id. Raises InputError for a bad shape, NaN/inf, or ``k`` outside 1..V.
    """
    checked = _check_logits(logits)
    k = check_positive_int(k, "The number of guesses k", maximum=checked.shape[1])
    ids, probabilities, _, _ = _summary(checked, k, np.zeros(0, np.int64))
    return ids, probabilities


def rank_of_next(logits: object, ids: object) -> tuple[np.ndarray, np.ndarray]:
    """Where the sentence's real next token ranks among the model's guesses.

    ``logits (T, V)`` and the sentence's ``ids (T,)``. For each position ``t < T - 1``,
    the 1-based rank of ``ids[t + 1]`` among all ``V`` tokens (1 = the model's top guess;
    the order of :func:`top_next`) and its probability: ``(ranks (T-1,) int,
    probabilities (T-1,))``. One token gives two empty arrays.
    """
    checked = _check_logits(logits)
    token_ids = _check_ids(ids, checked.shape)
    _, _, ranks, probabilities = _summary(checked, 1, token_ids[1:])
    return ranks, probabilities


def next_token_summary(
    logits: object, ids: object, k: int = TOP_K
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_next` and :func:`rank_of_next` at once (one softmax per row):
    ``(top ids (T, k), their probabilities, ranks (T-1,), their probabilities)``."""
    checked = _check_logits(logits)
    token_ids = _check_ids(ids, checked.shape)
    k = check_positive_int(k, "The number of guesses k", maximum=checked.shape[1])
    return _summary(checked, k, token_ids[1:])


def _check_logits(logits: object) -> np.ndarray:
    """``logits`` as a finite ``(T, V)`` float array, or InputError."""
    return as_matrix(logits, "The logits")


def _check_ids(ids: object, logits_shape: tuple[int, ...]) -> np.ndarray:
    """``ids`` as ``(T,)`` whole numbers in ``0 .. V-1`` for ``logits (T, V)``, or InputError."""
    length, vocab_size = logits_shape
    array = np.asarray(ids)
    if array.ndim != 1 or array.size != length:
        raise InputError(
            f"The token ids must be one id per position ({length}), got shape {array.shape}."
        )
    if not np.issubdtype(array.dtype, np.integer):
        raise InputError(f"The token ids must be whole numbers, got {array.dtype} values.")
    if array.min() < 0 or array.max() >= vocab_size:
        raise InputError(
            f"The token ids must lie in 0 .. {vocab_size - 1} (the vocabulary), "
            f"got {array.min()} .. {array.max()}."
        )
    return array.astype(np.int64)
