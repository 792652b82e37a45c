r"""Positional encodings: how a model learns *where* a token is.

Attention itself is blind to order (permute the tokens and the weights are just
permuted), so position is added to the inputs (sinusoidal, learned) or rotated
into the queries and keys (rotary).
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_D_MODEL, MAX_POSITIONS
from attention_core.boundary.validation import (
    as_scores,
    check_finite,
    check_number,
    check_positive_int,
    check_seed,
)


def check_base(base: float) -> float:
    base = check_number(base, "The base")
    if not np.isfinite(base) or base <= 1:
        raise InputError(f"The base must be a number greater than 1, got {base}.")
    return base


def sinusoidal_encoding(length: int, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Sinusoidal positional encoding ``(length, d_model)`` (Vaswani et al. 2017).

    .. math:: PE_{p,\,2i} = \sin\!\left(\frac{p}{b^{2i/d}}\right),\qquad
              PE_{p,\,2i+1} = \cos\!\left(\frac{p}{b^{2i/d}}\right)

    with :math:`b = 10\,000`. Each pair of columns is a wave of its own
    frequency; an odd ``d_model`` ends with a lone sine column.
    """
    length = check_positive_int(length, "Sequence length", MAX_POSITIONS)
    d_model = check_positive_int(d_model, "d_model", MAX_D_MODEL)
    base = check_base(base)
    positions = np.arange(length)[:, None]  # (T, 1)
    pair_index = np.arange(0, d_model, 2)  # the "2i" of each sine column
    angles = positions / base ** (pair_index / d_model)  # (T, ceil(d/2))
    encoding = np.empty((length, d_model))
    encoding[:, 0::2] = np.sin(angles)
    encoding[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return encoding


def learned_encoding(length: int, d_model: int, seed: int = 0) -> np.ndarray:
    r"""A learned positional embedding as training starts: ``(length, d_model)``.

    .. math:: P_{p,:} \sim \mathcal N(0, 1)

    like ``torch.nn.Embedding``'s initialisation. Row p depends only on p and
    the seed, not on ``length``, as with a real embedding table.
    """
    length = check_positive_int(length, "Sequence length", MAX_POSITIONS)
    d_model = check_positive_int(d_model, "d_model", MAX_D_MODEL)
    rng = np.random.default_rng([check_seed(seed), 0x9E37])
    table = rng.standard_normal((MAX_POSITIONS, d_model))
    return table[:length]


def rotary_angles(length: int, width: int, base: float = 10_000.0) -> np.ndarray:
    r"""Rotation angles ``(length, width // 2)`` used by RoPE.

    .. math:: \theta_{p,i} = p \cdot b^{-2i/d}
    """
    pair_index = np.arange(width // 2)
    return np.arange(length)[:, None] * base ** (-2.0 * pair_index / width)


def rotate(x: np.ndarray, base: float = 10_000.0) -> np.ndarray:
    r"""RoPE on checked input: each column pair of row p turned by :math:`\theta_{p,i}`.

    ``x (..., T, d)`` -> same shape; an odd last column is left as it is.
    """
    length, width = x.shape[-2], x.shape[-1]
    pairs = 2 * (width // 2)
    angles = rotary_angles(length, width, base)  # (T, d // 2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0:pairs:2], x[..., 1:pairs:2]  # (..., T, d // 2) each
    rotated = x.astype(np.result_type(x, np.float32), copy=True)
    rotated[..., 0:pairs:2] = even * cos - odd * sin
    rotated[..., 1:pairs:2] = even * sin + odd * cos
    return rotated


def rotary_embedding(x: np.ndarray, base: float = 10_000.0) -> np.ndarray:
    r"""Rotary position embedding (RoPE, Su et al. 2021) of ``x (..., T, d)``.

    Each pair of columns :math:`(x_{2i}, x_{2i+1})` of row p is rotated by the
    angle :math:`\theta_{p,i} = p\, b^{-2i/d}`:

    .. math:: \begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} =
              \begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}
              \begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}

    so that :math:`\langle \mathrm{rot}_p q, \mathrm{rot}_r k \rangle` depends only
    on the offset :math:`r - p`. An odd last column is left as it is.
    Applied to queries and keys, never to values. Shape in = shape out.
    """
    x = check_finite(as_scores(x, "rotary input", min_ndim=2), "rotary input")
    return rotate(x, check_base(base))
