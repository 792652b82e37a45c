"""How a selected number of the text page's attention matrices was computed.

Every heatmap is a walkable matrix (:mod:`ui.shared.walk_chart`); for the chosen head's
scores, scaled, masked, weights and context (:data:`WALKABLE`), the selected cell's
computation from :mod:`attention_core.teaching.cell_computation` is written beside it.
"""

from __future__ import annotations

from dataclasses import replace

import attention_core as ac
from attention_core.teaching.cell_computation import (
    CellComputation,
    context_cell,
    masked_cell,
    number,
    projection_cell,
    scaled_cell,
    score_cell,
    weight_cell,
)
from ui.shared.walk_chart import CellLines
from ui.shared.walkable_data import VALUE_NAMES
from ui.text.state import TextState

#: The projections: their weight and bias in :class:`attention_core.maths.projections.Projections`
#: and whether they read the key/value sentence.
PROJECTIONS = {"q": ("w_q", "b_q", False), "k": ("w_k", "b_k", True), "v": ("w_v", "b_v", True)}
#: The one-head stages whose cells the core explains.
WALKABLE = (*PROJECTIONS, *VALUE_NAMES)


def cell_computation(
    run: ac.AttentionRun, name: str, head: int, cell: tuple[int, int]
) -> CellComputation:
    """How entry ``cell = (i, j)`` of stage ``name`` of ``head`` was computed, with its numbers."""
    trace, (i, j) = run.trace, cell
    if name in PROJECTIONS:
        return projection_computation(run, name, head, cell)
    if name == "scores":
        return score_cell(trace.q[head], trace.k[head], i, j)
    if name == "scaled":
        return scaled_cell(trace.scores[head], run.config.scale, i, j)
    if name == "masked":
        return masked_cell(trace.scaled[head], run.mask, i, j)
    if name == "weights":
        return weight_cell(trace.masked[head], i, j, run.config.normaliser)
    return context_cell(trace.weights[head], trace.v[head], i, j)


def projection_computation(
    run: ac.AttentionRun, name: str, head: int, cell: tuple[int, int]
) -> CellComputation:
    """Entry ``cell = (i, d)`` of ``head``'s q, k or v: the projection of the token's input
    ``x + p`` by the head's columns of W (and bias); under RoPE, q and k are then turned."""
    weight_name, bias_name, key_side = PROJECTIONS[name]
    x = run.x_kv + run.p_kv if key_side else run.x + run.p  # (T or S, d_model)
    weights = getattr(run.projections, weight_name)  # (d_model, H*d)
    width = weights.shape[1] // run.config.n_heads
    columns = slice(head * width, (head + 1) * width)
    bias = getattr(run.projections, bias_name)
    projected = projection_cell(
        x, weights[:, columns], None if bias is None else bias[columns], *cell, name
    )
    unrotated = {"q": run.trace.q_unrotated, "k": run.trace.k_unrotated}.get(name)
    if unrotated is None:
        return projected
    i, d = cell
    turned = float(getattr(run.trace, name)[head, i, d])
    line = (
        f"RoPE then turns columns {d // 2 * 2 + 1} and {d // 2 * 2 + 2} together by an angle "
        f"that grows with the position ({i} here): {number(projected.value)} becomes "
        f"{number(turned)}."
    )
    return replace(projected, value=turned, lines=(*projected.lines, line))


def cell_lines(state: TextState, name: str, head: int) -> CellLines | None:
    """How a selected cell of ``head``'s stage ``name`` was computed, when the core says."""
    if name not in WALKABLE:
        return None
    return lambda _panel, cell: cell_computation(state.run, name, head, cell).lines


def grid_cell_lines(state: TextState, name: str) -> CellLines | None:
    """How a selected cell of any head's stage ``name`` was computed (a grid's panel k is
    head k)."""
    if name not in WALKABLE:
        return None
    return lambda head, cell: cell_computation(state.run, name, head, cell).lines
