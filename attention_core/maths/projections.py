r"""The projection matrices of an attention layer, and their seeded initial values.

"Weights" in this project always means softmax probabilities; the learned
matrices that make queries, keys, values and the output are *projections*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.validation import check_positive_int


def glorot_uniform(rng: np.random.Generator, fan_in: int, fan_out: int) -> np.ndarray:
    r"""Glorot/Xavier uniform initialisation, shape ``(fan_in, fan_out)``.

    .. math:: W_{ij} \sim \mathcal U(-a, a), \qquad a = \sqrt{\frac{6}{n_{in} + n_{out}}}

    The limit keeps the variance of activations about the same from layer to
    layer. (One source notebook uses the query's fan-in for the value matrix
    too; here each matrix uses its own.)
    """
    if not isinstance(rng, np.random.Generator):
        raise InputError("Pass a numpy.random.Generator, e.g. numpy.random.default_rng(seed).")
    fan_in = check_positive_int(fan_in, "fan_in")
    fan_out = check_positive_int(fan_out, "fan_out")
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, size=(fan_in, fan_out))


@dataclass(frozen=True)
class Projections:
    r"""The learned matrices of one multi-head attention layer, and their biases if any.

    ``w_q, w_k (d_in, H*dk)``, ``w_v (d_in, H*dv)``, ``w_o (H*dv, d_out)`` (None:
    the heads are only concatenated), ``head_weights (H,)`` for the learned
    per-head combination (None when unused). Biases ``b_q, b_k (H*dk,)``,
    ``b_v (H*dv,)``, ``b_o (d_out,)`` make :math:`Q = X W^Q + b^Q` (BERT has them);
    None (the default) means none: :math:`Q = X W^Q`.
    """

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray | None = None
    head_weights: np.ndarray | None = None
    b_q: np.ndarray | None = None
    b_k: np.ndarray | None = None
    b_v: np.ndarray | None = None
    b_o: np.ndarray | None = None


def init_projections(
    rng: np.random.Generator, d_in: int, n_heads: int, d_k: int, d_v: int, d_out: int
) -> Projections:
    """Glorot-uniform projections and per-head weights that start as a plain mean (1/H)."""
    w_q = glorot_uniform(rng, d_in, n_heads * d_k)
    w_k = glorot_uniform(rng, d_in, n_heads * d_k)
    w_v = glorot_uniform(rng, d_in, n_heads * d_v)
    w_o = glorot_uniform(rng, n_heads * d_v, d_out)
    # Learned combination weights start as a mean plus a little seeded noise, so
    # heads differ without one dominating.
    head_weights = 1.0 / n_heads + 0.1 * rng.standard_normal(n_heads)
    return Projections(w_q, w_k, w_v, w_o, head_weights)
