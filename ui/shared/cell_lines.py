"""How a selected attention weight or context entry was computed, for any page's matrices.

A page that holds the arrays a matrix came from passes one of these as ``cells`` to
:func:`ui.shared.matrix_view.chart`: the selected cell's computation, in the words of
:mod:`attention_core.teaching.cell_computation`, is written under the walkable matrix.
"""

from __future__ import annotations

import numpy as np

from attention_core.teaching.cell_computation import (
    context_cell,
    recorded_weight_cell,
    weight_cell,
)
from ui.shared.walk_chart import CellLines


def weight_lines(masked: np.ndarray, normaliser: str = "softmax") -> CellLines:
    """Weight ``(i, j)`` of panel ``k`` from its row of ``masked`` scores (−∞ where masked):
    ``(T, S)`` for one matrix, ``(K, T, S)`` for a grid of ``K`` panels (one per head)."""
    stack = masked[None] if masked.ndim == 2 else masked  # (K, T, S)
    return lambda panel, cell: weight_cell(stack[panel], *cell, normaliser).lines


def context_lines(weights: np.ndarray, values: np.ndarray) -> CellLines:
    """Context entry ``(i, c)`` of the heads side by side, ``weights (H, T, S)`` and
    ``values (H, S, dv)``: column ``c`` is dimension ``c mod dv`` of head ``c // dv``."""
    width = values.shape[-1]

    def lines(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        head, dim = divmod(cell[1], width)
        return context_cell(weights[head], values[head], cell[0], dim).lines

    return lines


def recorded_lines(weights: np.ndarray, whens: list[str]) -> CellLines:
    """Weight ``(i, j)`` of panel ``k`` of ``weights (K, T, S)``, recorded ``whens[k]``: only
    the weights were kept (:func:`cell_computation.recorded_weight_cell`)."""
    return lambda panel, cell: recorded_weight_cell(weights[panel], *cell, whens[panel]).lines
