r"""The heads that copy: previous-token, duplicate-token and induction scores for every head.

The standard test (Olsson et al., 2022; TransformerLens's ``head_detector``): run the model
on ``n`` random tokens repeated twice, ``[bos] a b c d a b c d``, and read each head's
weights ``A (T, T)``. With ``p`` = 1 if a BOS token comes first, else 0, the second copy
is the query rows :math:`R = \{p + n, \dots, p + 2n - 1\}` and

.. math::
    \text{previous} = \operatorname{mean}_{t \ge 1} A_{t,\,t-1} \qquad
    \text{duplicate} = \operatorname{mean}_{i \in R} A_{i,\,i-n} \qquad
    \text{induction} = \operatorname{mean}_{i \in R} A_{i,\,i-n+1}

A duplicate-token head looks back at the same token's earlier copy; an induction head
at the token *after* it, the one that came next last time, which is how a model
continues a pattern it has seen once. Each score is in [0, 1]; 1 is a perfect head.

Unlike TransformerLens's default (``error_measure="mul"``), which divides by every
row's attention, the means here run over the rows that *can* show the pattern: a
perfect induction head scores 1 here and about ``n / T`` (one half) there.
The ``n`` tokens of one copy are distinct, so each token of the second copy has exactly
one earlier occurrence and the duplicate and induction targets are unambiguous.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.validation import check_positive_int


def repeated_sequence(
    rng: np.random.Generator,
    vocab_size: int,
    n: int,
    avoid: Iterable[int] = (),
    bos: int | None = None,
) -> np.ndarray:
    """``n`` distinct random token ids repeated twice: ``(2n,)``, or ``(2n + 1,)`` with ``bos``.

    Ids are drawn from ``0 .. vocab_size - 1`` without those in ``avoid`` (special tokens
    such as BOS/EOS/padding, which would mean something to the model). ``bos``: an id
    put first (and never drawn), for models whose tokenizer starts every text with one
    (Llama-family); GPT-2 starts with none. The score functions find it from the length,
    ``T - 2n``.
    """
    vocab_size = check_positive_int(vocab_size, "The vocabulary size")
    n = check_positive_int(n, "The length of the repeated part")
    if n < 2:
        raise InputError("The repeated part needs at least 2 tokens for an induction pattern.")
    if bos is not None and not 0 <= bos < vocab_size:
        raise InputError(f"The BOS id {bos} is not in the vocabulary 0 .. {vocab_size - 1}.")
    avoided = np.fromiter([*avoid, *([] if bos is None else [bos])], dtype=np.int64)
    allowed = np.setdiff1d(np.arange(vocab_size), avoided)
    if allowed.size < n:
        raise InputError(
            f"Only {allowed.size} tokens may be drawn, fewer than the {n} distinct tokens "
            "asked for; choose a shorter repeated part."
        )
    copy = rng.choice(allowed, size=n, replace=False)  # (n,) distinct
    start = np.array([] if bos is None else [bos], dtype=np.int64)
    return np.concatenate([start, copy, copy]).astype(np.int64)  # (p + 2n,)


#: Where a detector looks: ``(rows, offset)``, each query row ``i`` on key ``i + offset``.
Stripe = tuple[np.ndarray, int]


def _second_copy(length: int, n: int) -> np.ndarray:
    """The query rows of the second copy, ``p + n .. p + 2n - 1`` of ``length = p + 2n``."""
    return np.arange(length - n, length)


def previous_stripe(length: int, n: int) -> Stripe:
    """Every row ``t >= 1`` on the token just before it (``n`` unused): offset −1."""
    return np.arange(1, length), -1


def duplicate_stripe(length: int, n: int) -> Stripe:
    """The second copy's rows on the same token's earlier copy: offset ``-n``."""
    return _second_copy(length, n), -n


def induction_stripe(length: int, n: int) -> Stripe:
    """The second copy's rows on the token after the earlier copy: offset ``-(n - 1)``."""
    return _second_copy(length, n), -(n - 1)


def _stripe_mean(weights: np.ndarray, stripe: Stripe) -> np.ndarray:
    r""":math:`\operatorname{mean}_{i \in rows} A_{i,\, i + offset}`: ``(L, H, T, T) -> (L, H)``."""
    rows, offset = stripe
    return weights[..., rows, rows + offset].mean(axis=-1)


def previous_token_score(weights: np.ndarray) -> np.ndarray:
    r""":math:`\operatorname{mean}_{t \ge 1} A_{t,\,t-1}`, attention to the token just before:
    ``(L, H, T, T) -> (L, H)``.
    """
    _check_weights(weights, minimum_length=2)
    return _stripe_mean(weights, previous_stripe(weights.shape[-1], 0))


def duplicate_token_score(weights: np.ndarray, n: int) -> np.ndarray:
    r"""In the second copy, attention to the same token's earlier occurrence,
    :math:`\operatorname{mean}_{i \in R} A_{i,\,i-n}`: ``(L, H, T, T) -> (L, H)``.
    """
    _check_repeated(weights, n)
    return _stripe_mean(weights, duplicate_stripe(weights.shape[-1], n))


def induction_score(weights: np.ndarray, n: int) -> np.ndarray:
    r"""In the second copy, attention to the token after the earlier occurrence,
    :math:`\operatorname{mean}_{i \in R} A_{i,\,i-n+1}`: ``(L, H, T, T) -> (L, H)``.
    """
    _check_repeated(weights, n)
    return _stripe_mean(weights, induction_stripe(weights.shape[-1], n))


@dataclass(frozen=True)
class HeadDetector:
    """One kind of copying head: its label, a sentence for students, its score, and where it
    looks (``stripe(T, n)``, the rows and offset its score averages over) in words
    (``looks_at``), so a score can be written out with its own weights."""

    label: str
    help: str
    score: Callable[[np.ndarray, int], np.ndarray]  #: (weights (L, H, T, T), n) -> (L, H)
    stripe: Callable[[int, int], Stripe]  #: (T, n) -> (rows, offset)
    looks_at: str  #: the key each row's weight is read on, in words


#: name -> detector, in the order a table shows them
DETECTORS: dict[str, HeadDetector] = {
    "previous_token": HeadDetector(
        "previous token",
        "How much each token attends to the token just before it.",
        lambda weights, n: previous_token_score(weights),
        previous_stripe,
        "the token just before it",
    ),
    "duplicate_token": HeadDetector(
        "duplicate token",
        "In the repeated half, how much a token attends to its own earlier copy.",
        duplicate_token_score,
        duplicate_stripe,
        "the same token in the first copy",
    ),
    "induction": HeadDetector(
        "induction",
        "In the repeated half, how much a token attends to the token that followed its "
        "earlier copy: the head that lets a model continue a pattern it has seen once.",
        induction_score,
        induction_stripe,
        "the token after the same token in the first copy",
    ),
}


def detect_heads(weights: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Every detector's score ``(L, H)`` on the weights of :func:`repeated_sequence`'s ids."""
    return {name: detector.score(weights, n) for name, detector in DETECTORS.items()}


def strongest(scores: np.ndarray, k: int) -> list[tuple[int, int, float]]:
    """The ``k`` best heads of ``scores (L, H)`` as ``(layer, head, score)``, best first.

    Equal scores go to the lower layer, then the lower head; ``k`` above ``L * H``
    gives every head.
    """
    k = check_positive_int(k, "The number of heads")
    layers, heads = np.indices(scores.shape)
    order = np.lexsort((heads.ravel(), layers.ravel(), -scores.ravel()))[:k]
    return [(int(layers.flat[i]), int(heads.flat[i]), float(scores.flat[i])) for i in order]


def _check_weights(weights: np.ndarray, minimum_length: int) -> None:
    """Refuse weights that are not ``(L, H, T, T)`` with ``T >= minimum_length``."""
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2]:
        raise InputError(
            f"The attention weights must be (layers, heads, T, T), got shape {weights.shape}."
        )
    if weights.shape[-1] < minimum_length:
        raise InputError(
            f"The sequence needs at least {minimum_length} tokens, got {weights.shape[-1]}."
        )


def _check_repeated(weights: np.ndarray, n: int) -> None:
    """Refuse weights too short to hold two copies of ``n`` tokens (after at most a BOS)."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise InputError(f"The repeated part must be a whole number of at least 2, got {n!r}.")
    _check_weights(weights, minimum_length=2 * n)
    if weights.shape[-1] > 2 * n + 1:
        raise InputError(
            f"{weights.shape[-1]} tokens are not two copies of {n} (with at most one BOS "
            f"first); use the ids of repeated_sequence with n = {n}."
        )
