r"""Shrink many attention matrices for an overview: neighbouring tokens pooled into bins.

.. math:: P_{ab} = \frac{1}{|I_a|} \sum_{i \in I_a} \sum_{j \in J_b} A_{ij}

Rows (queries) of a bin are averaged and columns (keys) summed, so every pooled
row still sums to 1 and reads "how much of a query of bin a goes to bin b".
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np


def bin_edges(length: int, bins: int) -> np.ndarray:
    """``bins + 1`` edges splitting ``0 .. length`` into near-equal runs of tokens."""
    return np.linspace(0, length, min(bins, length) + 1).round().astype(int)


def pool_weights(weights: np.ndarray, bins: int) -> np.ndarray:
    """``(..., T, T) -> (..., B, B)`` with ``B = min(bins, T)``; unchanged when ``T <= bins``."""
    length = weights.shape[-1]
    if length <= bins:
        return weights
    starts = bin_edges(length, bins)[:-1]
    counts = np.diff(bin_edges(length, bins))
    summed_keys = np.add.reduceat(weights, starts, axis=-1)  # (..., T, B)
    return np.add.reduceat(summed_keys, starts, axis=-2) / counts[:, None]  # (..., B, B)


def bin_labels(labels: tuple[str, ...], bins: int) -> list[str]:
    """``"the … cat"`` per bin (first and last token), or the labels themselves."""
    if len(labels) <= bins:
        return list(labels)
    edges = bin_edges(len(labels), bins)
    return [
        f"{start + 1}–{stop}: {labels[start]} … {labels[stop - 1]}"
        for start, stop in pairwise(edges)
    ]
