"""Arrays that every session may share, made read-only: the one way to freeze, used everywhere."""

from __future__ import annotations

import dataclasses
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

Value = TypeVar("Value")


def read_only(array: ArrayLike, dtype: DTypeLike | None = None, *, copy: bool = True) -> np.ndarray:
    """``array`` (as ``dtype`` if given) that raises ``ValueError`` on any write.

    ``copy=True``: a new array; the caller's own stays writable. ``copy=False``: no
    copy unless ``dtype`` needs one, and the array itself is frozen (a memory map
    stays mapped, a transposed view stays a view: no extra bytes).
    """
    if copy:
        frozen = np.array(array, dtype=dtype)
    else:
        frozen = np.asanyarray(array)
        if dtype is not None:
            frozen = frozen.astype(dtype, copy=False)
    frozen.setflags(write=False)
    return frozen


def read_only_fields(value: Value) -> Value:
    """``value`` with every NumPy array in it (through dataclass fields, dict values,
    tuples and lists) frozen in place.

    A result cached once and handed to every session (``st.cache_resource``) must never
    change; a page writing into one of its arrays would change it for everybody, so that
    write now fails loudly instead. No array is copied.
    """
    if isinstance(value, np.ndarray):
        read_only(value, copy=False)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            read_only_fields(getattr(value, field.name))
    elif isinstance(value, dict):
        for item in value.values():
            read_only_fields(item)
    elif isinstance(value, (tuple, list)):
        for item in value:
            read_only_fields(item)
    return value
