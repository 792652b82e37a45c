r"""What each head looks at: the measures of Clark et al. (2019), "What does BERT look at?".

For one head's weights ``A (T, T)`` (rows sum to 1), averaged over the query rows:

- entropy :math:`-\sum_j A_{ij} \log A_{ij}`, beside :math:`\log T` (a uniform row);
- the share of attention sent to [CLS], to [SEP], to punctuation, to the token itself;
- to the previous token :math:`A_{i,i-1}` (rows ``i >= 1``) and the next :math:`A_{i,i+1}`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np

#: measure name -> column title in the head table
MEASURES = {
    "entropy": "entropy",
    "entropy_ratio": "entropy / log T",
    "cls": "→ [CLS]",
    "sep": "→ [SEP]",
    "punctuation": "→ punctuation",
    "self": "→ itself",
    "previous": "→ previous",
    "next": "→ next",
}


def is_punctuation(token: str) -> bool:
    """True when every character of a WordPiece token is punctuation (Unicode category P)."""
    return bool(token) and all(unicodedata.category(ch).startswith("P") for ch in token)


def mean_entropy(weights: np.ndarray) -> np.ndarray:
    r""":math:`\frac1T \sum_i -\sum_j A_{ij} \log A_{ij}` (0 log 0 = 0): ``(..., T,
    T) -> (...)``.
    """
    safe = np.where(weights > 0, weights, 1.0)
    return -(weights * np.log(safe)).sum(axis=-1).mean(axis=-1)


def share_to(weights: np.ndarray, keys: np.ndarray) -> np.ndarray:
    r""":math:`\frac1T \sum_i \sum_{j \in K} A_{ij}`,
    the mean weight on the chosen ``keys (T,) bool``.
    """
    return weights[..., keys].sum(axis=-1).mean(axis=-1)


def diagonal_share(weights: np.ndarray, offset: int) -> np.ndarray:
    r""":math:`\mathrm{mean}_i\, A_{i, i+o}` over the rows that have key ``i + o``: 0 self,
    -1 previous. NaN where no row has that key (previous/next of one token).
    """
    diagonal = np.diagonal(weights, offset=offset, axis1=-2, axis2=-1)  # (..., T - |o|)
    if diagonal.shape[-1] == 0:
        return np.full(weights.shape[:-2], np.nan)
    return diagonal.mean(axis=-1)


def head_measures(weights: np.ndarray, tokens: Sequence[str]) -> dict[str, np.ndarray]:
    """Every measure for ``weights (..., T, T)`` over ``tokens``; each value has shape ``(...)``.

    A measure with no rows to average (previous/next of one token) is NaN.
    """
    length = weights.shape[-1]
    marks = np.asarray(tokens)
    entropy = mean_entropy(weights)
    return {
        "entropy": entropy,
        "entropy_ratio": entropy / np.log(length) if length > 1 else np.zeros_like(entropy),
        "cls": share_to(weights, marks == "[CLS]"),
        "sep": share_to(weights, marks == "[SEP]"),
        "punctuation": share_to(weights, np.array([is_punctuation(t) for t in tokens])),
        "self": diagonal_share(weights, 0),
        "previous": diagonal_share(weights, -1),
        "next": diagonal_share(weights, 1),
    }
