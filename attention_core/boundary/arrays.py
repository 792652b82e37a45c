"""Arrays that every session may share: read-only copies (one way to freeze, used everywhere)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike


def read_only(array: ArrayLike, dtype: DTypeLike | None = None) -> np.ndarray:
    """A copy of ``array`` (as ``dtype`` if given) that raises ``ValueError`` on any write."""
    frozen = np.array(array, dtype=dtype)
    frozen.setflags(write=False)
    return frozen
