"""How a selected number of the text page's attention matrices was computed.

Every heatmap is a walkable matrix (:mod:`ui.shared.walk_chart`); for the chosen head's
scores, scaled, masked, weights and context (:data:`WALKABLE`), the selected cell's
computation from :mod:`attention_core.teaching.cell_computation` is written beside it.
"""

from __future__ import annotations

import attention_core as ac
from attention_core.teaching.cell_computation import (
    CellComputation,
    context_cell,
    masked_cell,
    scaled_cell,
    score_cell,
    weight_cell,
)
from ui.shared.walk_chart import CellLines
from ui.shared.walkable_data import VALUE_NAMES
from ui.text.state import TextState

WALKABLE = tuple(VALUE_NAMES)  #: the one-head stages whose cells the core explains


def cell_computation(
    run: ac.AttentionRun, name: str, head: int, cell: tuple[int, int]
) -> CellComputation:
    """How entry ``cell = (i, j)`` of stage ``name`` of ``head`` was computed, with its numbers."""
    trace, (i, j) = run.trace, cell
    if name == "scores":
        return score_cell(trace.q[head], trace.k[head], i, j)
    if name == "scaled":
        return scaled_cell(trace.scores[head], run.config.scale, i, j)
    if name == "masked":
        return masked_cell(trace.scaled[head], run.mask, i, j)
    if name == "weights":
        return weight_cell(trace.masked[head], i, j, run.config.normaliser)
    return context_cell(trace.weights[head], trace.v[head], i, j)


def cell_lines(state: TextState, name: str, head: int) -> CellLines | None:
    """How a selected cell of ``head``'s stage ``name`` was computed, when the core says."""
    if name not in WALKABLE:
        return None
    return lambda _panel, cell: cell_computation(state.run, name, head, cell).lines
