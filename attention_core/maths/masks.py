r"""Masks: which keys each query may attend to (boolean, ``True`` = may attend).

A mask ``M (T, S)`` is applied by :func:`attention_core.maths.attention.mask_scores`,
which sets the scores of forbidden pairs to :math:`-\infty` so they get weight 0.
Every builder here checks its arguments (they come from users); the table
:data:`attention_core.boundary.options.MASKS` offers them by name.
"""

from __future__ import annotations

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_MASK_SIZE
from attention_core.boundary.validation import check_mask_shape, check_positive_int


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    r"""Causal mask ``(n_q, n_k)``: query i may attend key j when j <= i.

    .. math:: M_{ij} = [\, j \le i \,]
    """
    n_q = check_positive_int(n_q, "n_q", MAX_MASK_SIZE)
    n_k = n_q if n_k is None else check_positive_int(n_k, "n_k", MAX_MASK_SIZE)
    return np.tri(n_q, n_k, dtype=bool)


def sliding_window_mask(
    n: int, window: int, causal: bool = True, n_k: int | None = None
) -> np.ndarray:
    r"""Local attention ``(n, n_k)``: each query sees only the ``window`` nearest keys.

    Causal (default): :math:`M_{ij} = [\, 0 \le i - j < w \,]`, the current step
    and the ``window - 1`` before it. Two-sided: :math:`M_{ij} = [\, |i - j| < w \,]`.
    ``n_k`` defaults to ``n`` (self-attention).
    """
    n = check_positive_int(n, "sequence length", MAX_MASK_SIZE)
    n_k = n if n_k is None else check_positive_int(n_k, "n_k", MAX_MASK_SIZE)
    window = check_positive_int(window, "window")
    offset = np.arange(n)[:, None] - np.arange(n_k)[None, :]  # (n, n_k): i - j
    if causal:
        return (offset >= 0) & (offset < window)
    return np.abs(offset) < window


def padding_mask(valid: np.ndarray | list[bool], n_q: int | None = None) -> np.ndarray:
    r"""Key-padding mask ``(n_q, n_k)`` from a boolean vector ``valid (n_k,)``.

    :math:`M_{ij} = \mathrm{valid}_j`: every query may attend every real key and
    no padding key. ``n_q`` defaults to ``n_k`` (self-attention).
    """
    valid = np.asarray(valid)
    if valid.ndim != 1 or valid.size == 0 or valid.size > MAX_MASK_SIZE:
        raise InputError("A padding mask needs a non-empty list of True/False, one per key.")
    if valid.dtype != bool:
        raise InputError("A padding mask must be True (real token) or False (padding) per key.")
    n_q = valid.size if n_q is None else check_positive_int(n_q, "n_q", MAX_MASK_SIZE)
    return np.broadcast_to(valid, (n_q, valid.size)).copy()


# --- The builders the mask table dispatches to: one signature for every choice ---------

Flags = np.ndarray | None  #: (n_k,) bool, True = that key is padding
Grid = np.ndarray | None  #: (n_q, n_k) bool, the user's own mask


def no_mask(n_q: int, n_k: int, window: int, key_is_padding: Flags, custom: Grid) -> None:
    """Every query may attend every key: no mask at all."""
    return None


def causal_choice(
    n_q: int, n_k: int, window: int, key_is_padding: Flags, custom: Grid
) -> np.ndarray:
    """:func:`causal_mask` for the mask table."""
    return causal_mask(n_q, n_k)


def sliding_choice(
    n_q: int, n_k: int, window: int, key_is_padding: Flags, custom: Grid
) -> np.ndarray:
    """:func:`sliding_window_mask` (causal, ``window`` keys) for the mask table."""
    return sliding_window_mask(n_q, window, causal=True, n_k=n_k)


def padding_choice(
    n_q: int, n_k: int, window: int, key_is_padding: Flags, custom: Grid
) -> np.ndarray:
    """:func:`padding_mask` hiding the keys flagged in ``key_is_padding (n_k,)``."""
    if key_is_padding is None:
        key_is_padding = np.zeros(n_k, dtype=bool)
    key_is_padding = np.asarray(key_is_padding, dtype=bool)
    if key_is_padding.shape != (n_k,):
        raise InputError(
            f"Need one padding flag per key ({n_k} keys), got shape {key_is_padding.shape}."
        )
    return padding_mask(~key_is_padding, n_q)


def custom_choice(
    n_q: int, n_k: int, window: int, key_is_padding: Flags, custom: Grid
) -> np.ndarray:
    """The user's own grid ``custom (n_q, n_k)``, checked."""
    if custom is None:
        raise InputError("A custom mask needs a grid of True/False values, one per query and key.")
    return check_mask_shape(custom, (n_q, n_k))
