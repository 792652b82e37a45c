"""Argument checks shared by the core: each turns a bad value into an InputError."""

from __future__ import annotations

import numbers
from typing import SupportsFloat, SupportsIndex

import numpy as np

from attention_core.boundary.errors import InputError
from attention_core.boundary.limits import MAX_SEED


def check_positive_int(value: object, name: str, maximum: int | None = None) -> int:
    """Return ``value`` as an int >= 1 (and <= ``maximum``), or raise InputError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InputError(f"{name} must be a whole number, got {value!r}.")
    value = int(value)
    if value < 1:
        raise InputError(f"{name} must be at least 1, got {value}.")
    if maximum is not None and value > maximum:
        raise InputError(f"{name} can be at most {maximum}, got {value}.")
    return value


def check_number(value: object, name: str) -> float:
    """Return ``value`` as a float, or raise InputError for words, booleans and None."""
    # float() would also parse text; a number is anything with __float__ or __index__.
    if isinstance(value, (bool, str, bytes)) or not isinstance(
        value, (SupportsFloat, SupportsIndex)
    ):
        raise InputError(f"{name} must be a number, got {value!r}.")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}.") from None


def check_seed(value: object) -> int:
    """Return ``value`` as an int seed in 0 .. MAX_SEED, or raise InputError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"The seed must be a whole number, got {value!r}.")
    seed = int(value)
    if not 0 <= seed <= MAX_SEED:
        raise InputError(f"The seed must be between 0 and {MAX_SEED}, got {seed}.")
    return seed


def check_finite(array: np.ndarray, name: str) -> np.ndarray:
    """Raise InputError if ``array`` holds NaN or infinity."""
    if not np.all(np.isfinite(array)):
        raise InputError(f"{name} contains NaN or infinite values; use finite numbers.")
    return array


def real_array(value: object, name: str) -> np.ndarray:
    """``value`` as a NumPy array of real numbers (or bools), any shape, or raise InputError."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise InputError(f"{name} must be a numeric array: {error}") from None
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise InputError(f"{name} must contain numbers, got {array.dtype} values.")
    if np.iscomplexobj(array):
        raise InputError(f"{name} must be real numbers, not complex.")
    return array


def as_matrix(value: object, name: str, ndim: int = 2) -> np.ndarray:
    """Convert to a finite float array with ``ndim`` dimensions, or raise InputError.

    Float32 input stays float32 (cheap for big views); everything else becomes
    float64 (exact for the documents' worked examples).
    """
    array = real_array(value, name)
    if array.ndim != ndim:
        raise InputError(f"{name} must have {ndim} dimensions, got shape {array.shape}.")
    if array.size == 0:
        raise InputError(f"{name} is empty (shape {array.shape}); it needs at least one row.")
    dtype = np.float32 if array.dtype == np.float32 else np.float64
    return check_finite(array.astype(dtype, copy=False), name)


def as_scores(value: object, name: str, min_ndim: int = 1) -> np.ndarray:
    """A non-empty float array of at least ``min_ndim`` dimensions for softmax-like steps.

    Unlike :func:`as_matrix` it allows ``-inf`` (a masked score); NaN and
    ``+inf`` are refused.
    """
    array = real_array(value, name)
    if array.ndim < min_ndim:
        raise InputError(f"{name} needs at least {min_ndim} dimensions, got shape {array.shape}.")
    if array.size == 0:
        raise InputError(f"{name} is empty (shape {array.shape}).")
    array = array.astype(np.result_type(array, np.float32), copy=False)
    if np.isnan(array).any() or np.isposinf(array).any():
        raise InputError(f"{name} contains NaN or +infinity; use finite numbers (or -inf to mask).")
    return array


def check_axis(axis: object, ndim: int) -> int:
    """Return ``axis`` if it names one of ``ndim`` axes, else raise InputError."""
    if (
        isinstance(axis, bool)
        or not isinstance(axis, numbers.Integral)
        or not -ndim <= int(axis) < ndim
    ):
        raise InputError(f"axis must be a whole number from {-ndim} to {ndim - 1}, got {axis!r}.")
    return int(axis)


def check_broadcast_mask(mask: object, shape: tuple[int, ...]) -> np.ndarray:
    """Return ``mask`` as a bool array that broadcasts to ``shape``, or raise InputError."""
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise InputError("A mask must be True/False (True = may attend).")
    try:
        fits = np.broadcast_shapes(mask.shape, shape) == tuple(shape)
    except ValueError:
        fits = False
    if not fits:
        raise InputError(f"The mask has shape {mask.shape}; it must fit the scores {tuple(shape)}.")
    return mask


def check_mask_shape(mask: object, shape: tuple[int, int]) -> np.ndarray:
    """Return ``mask`` as a bool array of exactly ``shape`` (queries, keys)."""
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise InputError(
            "A mask must be True/False (True = may attend); a 0/1 number mask multiplied "
            "into the scores does not block anything."
        )
    if mask.shape != shape:
        raise InputError(f"The mask has shape {mask.shape}; it needs {shape} (queries, keys).")
    return mask


def valid_head_counts(width: int, maximum: int | None = None) -> list[int]:
    """All head counts that divide ``width`` evenly (optionally up to ``maximum``)."""
    width = check_positive_int(width, "width")
    limit = width if maximum is None else min(width, maximum)
    return [h for h in range(1, limit + 1) if width % h == 0]


def check_heads_divide(width: int, n_heads: int, what: str) -> int:
    """Return the per-head width ``width // n_heads``, or raise naming valid counts."""
    n_heads = check_positive_int(n_heads, "The number of heads")
    if width % n_heads:
        choices = ", ".join(str(h) for h in valid_head_counts(width))
        raise InputError(
            f"{n_heads} heads do not divide {what} = {width} evenly; choose one of: {choices}."
        )
    return width // n_heads


def check_same_width(q: np.ndarray, q_name: str, k: np.ndarray, k_name: str) -> None:
    """Queries and keys meet in a dot product: ``q (·, dk)`` and ``k (·, dk)``."""
    if q.shape[1] != k.shape[1]:
        raise InputError(
            f"Queries and keys must have the same width: {q_name} has {q.shape[1]} columns, "
            f"{k_name} has {k.shape[1]}."
        )


def check_one_row_per_key(k: np.ndarray, k_name: str, v: np.ndarray, v_name: str) -> None:
    """Each key has its value: ``k (S, ·)`` and ``v (S, ·)``."""
    if k.shape[0] != v.shape[0]:
        raise InputError(
            f"Keys and values need one row per key: {k_name} has {k.shape[0]} rows, "
            f"{v_name} has {v.shape[0]}."
        )
