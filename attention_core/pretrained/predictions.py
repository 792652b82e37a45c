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


def top_next(logits: object, k: int = TOP_K) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` likeliest next tokens at every position: ``(ids (T, k), probabilities (T, k))``.

    ``logits (T, V)``, finite. Sorted by probability, highest first; equal probabilities
    by the lower id. Raises InputError for a bad shape, NaN/inf, or ``k`` outside 1..V.
    """
    checked = _check_logits(logits)
    vocab_size = checked.shape[1]
    k = check_positive_int(k, "The number of guesses k", maximum=vocab_size)
    probabilities = next_token_probabilities(checked)  # (T, V)
    ids = np.stack([_top_of_row(row, k) for row in probabilities])  # (T, k)
    return ids, np.take_along_axis(probabilities, ids, axis=1)


def rank_of_next(logits: object, ids: object) -> tuple[np.ndarray, np.ndarray]:
    """Where the sentence's real next token ranks among the model's guesses.

    ``logits (T, V)`` and the sentence's ``ids (T,)``. For each position ``t < T - 1``,
    the 1-based rank of ``ids[t + 1]`` among all ``V`` tokens (1 = the model's top guess;
    the order of :func:`top_next`) and its probability: ``(ranks (T-1,) int,
    probabilities (T-1,))``. One token gives two empty arrays.
    """
    checked = _check_logits(logits)
    token_ids = _check_ids(ids, checked.shape)
    probabilities = next_token_probabilities(checked)[:-1]  # (T-1, V): the last has no next
    actual = token_ids[1:]  # (T-1,)
    actual_probability = probabilities[np.arange(actual.size), actual]  # (T-1,)
    above = probabilities > actual_probability[:, None]  # (T-1, V)
    tied_lower = (probabilities == actual_probability[:, None]) & (
        np.arange(checked.shape[1]) < actual[:, None]
    )
    ranks = 1 + above.sum(axis=1) + tied_lower.sum(axis=1)  # (T-1,)
    return ranks.astype(np.int64), actual_probability


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
