r"""Attention as a soft dictionary lookup.

A Python ``dict`` returns the value of the one key that equals the query. Attention
compares the query with *every* key, turns the similarities into weights that
sum to 1, and returns a weighted mix of all values:

.. math:: s_j = q \cdot k_j,\qquad a = \mathrm{softmax}(s),\qquad o = \sum_j a_j\, v_j

The closer the query is to one key, the more the result looks like that key's value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.api import softmax
from attention_core.boundary.errors import InputError
from attention_core.boundary.validation import as_matrix


@dataclass(frozen=True)
class LookupTrace:
    """Every step of one soft lookup with ``S`` keys.

    ``query (d,)``, ``keys (S, d)``, ``values (S, dv)``.
    """

    query: np.ndarray  #: (d,)
    keys: np.ndarray  #: (S, d)
    values: np.ndarray  #: (S, dv)
    scores: np.ndarray  #: (S,) similarity q . k_j, times the scale
    weights: np.ndarray  #: (S,) softmax of the scores, sums to 1
    output: np.ndarray  #: (dv,) weighted sum of the values
    scale: float  #: factor on the dot products

    @property
    def best(self) -> int:
        """Index of the key with the largest weight (what a hard lookup would return)."""
        return int(np.argmax(self.weights))


def soft_lookup(
    query: np.ndarray, keys: np.ndarray, values: np.ndarray, scale: float = 1.0
) -> LookupTrace:
    r"""Look ``query (d,)`` up in a table of ``keys (S, d)`` and ``values (S, dv)``.

    .. math:: s_j = c\,(q \cdot k_j),\qquad a_j = \frac{e^{s_j}}{\sum_l e^{s_l}},
              \qquad o = \sum_j a_j v_j = a V

    ``c`` is ``scale`` (1 by default, as in the NLP notes' formula
    :math:`e_{ij} = q_i \cdot k_j`). Returns a :class:`LookupTrace`.
    """
    query = as_matrix(query, "query", ndim=1)
    keys = as_matrix(keys, "keys")
    values = as_matrix(values, "values")
    if keys.shape[1] != query.shape[0]:
        raise InputError(
            f"The query has {query.shape[0]} numbers but each key has {keys.shape[1]}; "
            "they must have the same length."
        )
    if keys.shape[0] != values.shape[0]:
        raise InputError(f"Need one value per key: {keys.shape[0]} keys, {values.shape[0]} values.")
    scale = float(scale)
    if not np.isfinite(scale):
        raise InputError(f"The scale must be a finite number, got {scale}.")
    scores = scale * (keys @ query)  # (S,)
    weights = softmax(scores)  # (S,)
    output = weights @ values  # (dv,)
    return LookupTrace(query, keys, values, scores, weights, output, scale)
