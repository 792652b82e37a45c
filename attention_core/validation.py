"""Argument checks shared by the core: each turns a bad value into an InputError."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InputError


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


def check_finite(array: np.ndarray, name: str) -> np.ndarray:
    """Raise InputError if ``array`` holds NaN or infinity."""
    if not np.all(np.isfinite(array)):
        raise InputError(f"{name} contains NaN or infinite values; use finite numbers.")
    return array


def as_matrix(value: object, name: str, ndim: int = 2) -> np.ndarray:
    """Convert to a finite float array with ``ndim`` dimensions, or raise InputError.

    Float32 input stays float32 (cheap for big views); everything else becomes
    float64 (exact for the documents' worked examples).
    """
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise InputError(f"{name} must be a numeric array: {error}") from None
    if array.dtype == object or not (
        np.issubdtype(array.dtype, np.number) or array.dtype == bool
    ):
        raise InputError(f"{name} must contain numbers, got {array.dtype} values.")
    if np.iscomplexobj(array):
        raise InputError(f"{name} must be real numbers, not complex.")
    if array.ndim != ndim:
        raise InputError(f"{name} must have {ndim} dimensions, got shape {array.shape}.")
    if array.size == 0:
        raise InputError(f"{name} is empty (shape {array.shape}); it needs at least one row.")
    dtype = np.float32 if array.dtype == np.float32 else np.float64
    return check_finite(array.astype(dtype, copy=False), name)


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
