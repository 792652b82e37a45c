"""Numbers as text: matrices printed like the notes' NumPy, differences, worked sums.

Used by every page that sets our numbers beside the course notes' printed ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def format_matrix(matrix: np.ndarray, decimals: int = 8) -> str:
    """A matrix printed the way NumPy prints it in the notebooks, ``decimals`` places."""
    return np.array2string(
        np.asarray(matrix, dtype=float),
        precision=decimals,
        suppress_small=True,
        max_line_width=120,
        floatmode="maxprec",
    )


def plain_number(value: float) -> str:
    """``1.0``, ``0.4``, ``0.22``: short, with a decimal point, no float noise."""
    text = f"{value:.10g}"
    return text if any(mark in text for mark in ".en") else text + ".0"


def short_difference(value: float, tolerance: float = 1e-12) -> str:
    """A max |difference| short enough for a metric: ``≈ 0`` below ``tolerance``."""
    return "≈ 0" if value < tolerance else f"{value:.4g}"


def format_difference(value: float, tolerance: float = 1e-12) -> str:
    """A max |difference|: ``0 (rounding only: 2.8e-17)`` below ``tolerance``, else 4 digits."""
    if value == 0.0:
        return "0.0"
    if value < tolerance:
        return f"0 (rounding only: {value:.1e})"
    return f"{value:.4g}"


def entry_arithmetic(
    name: str, row: int, column: int, terms: Sequence[tuple[float, float]], value: float
) -> tuple[str, str]:
    r"""``C₀₀ = 1.0·0.1 + 0.0·0.4 + 0.0·0.1 = 0.1`` as (plain text, LaTeX).

    ``terms`` are the (weight, value) pairs of the dot product.
    """
    subscript = f"{row}{column}".translate(_SUBSCRIPT_DIGITS)
    products = [(plain_number(w), plain_number(v)) for w, v in terms]
    text = f"{name}{subscript} = " + " + ".join(f"{w}·{v}" for w, v in products)
    latex = f"{name}_{{{row}{column}}} = " + " + ".join(rf"{w} \cdot {v}" for w, v in products)
    return f"{text} = {plain_number(value)}", f"{latex} = {plain_number(value)}"
