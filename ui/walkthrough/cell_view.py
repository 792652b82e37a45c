"""How a selected weight of step 4's right and wrong masks was computed.

Every heatmap is a walkable matrix (:mod:`ui.shared.walk_chart`); the other steps' weights
and context entries are explained by :mod:`ui.shared.cell_lines`. Step 4's mistakes change
the scores before the softmax, or the axis it runs along: said here before the softmax's
own lines (:func:`attention_core.teaching.cell_computation.weight_cell`).
"""

from __future__ import annotations

import numpy as np

from attention_core.teaching.cell_computation import number, weight_cell
from attention_core.teaching.walkthrough_steps import MaskingComparison
from ui.shared.walk_chart import CellLines

#: What each of step 4's three panels did to the scores before its softmax.
MULTIPLIED = (
    "This panel multiplied the scaled score {scaled} by the 0/1 mask's {kept}: {score}. "
    "A forbidden score becomes 0, not −∞, and e⁰ = 1 still gets weight."
)
COLUMNS = (
    "This panel normalised down key {key}'s column instead of along the row: the softmax "
    "below runs over the turned-over matrix, so its row is this column and its keys are "
    "the queries."
)


def masking_lines(result: MaskingComparison, variant: int) -> CellLines:
    """How weight ``(i, j)`` of step 4's ``variant`` came about (0 right, 1 × 0/1 mask,
    2 column softmax), from the five days' scaled scores ``(T, S)`` and the causal mask."""
    masked = np.where(result.mask, result.scaled, -np.inf)  # what −∞ masking gives softmax
    multiplied = result.scaled * result.mask

    def lines(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        i, j = cell
        if variant == 0:
            return weight_cell(masked, i, j).lines
        if variant == 1:
            said = MULTIPLIED.format(
                scaled=number(float(result.scaled[i, j])),
                kept=int(result.mask[i, j]),
                score=number(float(multiplied[i, j])),
            )
            return (said, *weight_cell(multiplied, i, j).lines)
        return (COLUMNS.format(key=j + 1), *weight_cell(masked.T, j, i).lines)

    return lines
