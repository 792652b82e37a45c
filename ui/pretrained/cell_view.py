r"""How a selected number of one head's attention matrices was computed, on a real model.

Every matrix the page draws is walkable (:mod:`ui.shared.walk_chart`). For one head's scores,
scaled, masked, weights and context, and RoPE's turned queries and keys (:data:`EXPLAINED`),
the selected cell is recomputed by :mod:`attention_core.teaching.cell_computation` from the
arrays of the layer's own trace (:class:`~attention_core.pretrained.trace.BlockTrace`), so
its number is the matrix's entry:

* a score :math:`s_{ij} = q'_i \cdot k'_j` from the turned Q and K; for RoPE models first how
  :math:`q_i` and :math:`k_j` were turned at their positions;
* for grouped K/V heads, which K/V head supplied the keys (scores) or the values (context);
* a rollout entry: the layer's mixed attention times the rollout before it
  (:func:`rollout_lines`);
* RoPE's angle for a position and a column pair, :math:`\theta_{p,i} = p\, b^{-2i/d_k}`
  (:func:`angle_lines`), from the model's own base.

The layer's trace is asked for only once a cell is selected (``steps_of``): a view that
draws no stage (the model view's opened head) recomputes no layer until then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from attention_core.pretrained import rollout
from attention_core.pretrained.trace import BlockTrace, ModelInfo
from attention_core.teaching.cell_computation import (
    CellComputation,
    context_cell,
    masked_cell,
    number,
    scaled_cell,
    score_cell,
    weight_cell,
)
from attention_core.teaching.encoding_cells import angle_cell
from attention_core.teaching.model_cells import (
    kv_head_line,
    rollout_cell,
    rotated_pairs,
    rotation_lines,
)
from ui.shared.walk_chart import CellLines

#: The stages of one head whose cells the core explains.
EXPLAINED = ("q_rotated", "k_rotated", "scores", "scaled", "masked", "weights", "context")
#: The turned rows' letters, as :func:`rotation_lines` names them.
TURNED = {"q_rotated": "q", "k_rotated": "k"}


def with_lines(found: CellComputation, before: Sequence[str]) -> CellComputation:
    """``found`` with ``before`` written first (what happened to its inputs)."""
    return replace(found, lines=(*before, *found.lines))


def grouped_line(info: ModelInfo, head: int) -> tuple[str, ...]:
    """Which K/V head ``head`` reads, for grouped K/V heads; nothing when each has its own."""
    if info.n_kv_heads == info.n_heads:
        return ()
    return (kv_head_line(head, info.n_heads, info.n_kv_heads),)


def rope_lines(steps: BlockTrace, head: int, i: int, j: int) -> tuple[str, ...]:
    """How RoPE turned ``q_i`` and ``k_j`` of ``head`` (their two largest pairs); nothing
    without RoPE."""
    if steps.angles is None:
        return ()
    return (
        *rotation_lines("q", i, rotated_pairs(steps.q[head], steps.angles, i)),
        *rotation_lines("k", j, rotated_pairs(steps.k[head], steps.angles, j)),
    )


def turned_cell(steps: BlockTrace, key: str, head: int, p: int, c: int) -> CellComputation:
    r"""Entry ``(p, c)`` of ``head``'s turned Q or K (``key``): column ``c``'s pair of row
    ``p`` turned by :math:`\theta_{p, \lfloor c/2 \rfloor}` (every column is in a pair: the
    families refuse partial RoPE)."""
    assert steps.angles is not None  # only RoPE models draw the turned Q and K
    before = steps.q[head] if key == "q_rotated" else steps.k[head]  # (T, dk)
    name = TURNED[key]
    every_pair = rotated_pairs(before, steps.angles, p, shown=steps.angles.shape[1])  # in order
    pair = every_pair[c // 2]
    value = pair.after[c % 2]
    lines = (
        *rotation_lines(name, p, (pair,)),
        f"Column {c + 1} of {name}{p + 1} after RoPE: {number(value)}.",
    )
    return CellComputation(key, p, c, value, lines)


def stage_cell(
    steps: BlockTrace, info: ModelInfo, key: str, head: int, cell: tuple[int, int]
) -> CellComputation:
    """How entry ``cell = (i, j)`` of ``head``'s stage ``key`` (one of :data:`EXPLAINED`) of the
    layer ``steps`` was computed, with its numbers."""
    heads, (i, j) = steps.heads, cell
    if key in TURNED:
        return turned_cell(steps, key, head, i, j)
    if key == "scores":
        found = score_cell(steps.q_rotated[head], steps.k_rotated[head], i, j)
        return with_lines(found, (*grouped_line(info, head), *rope_lines(steps, head, i, j)))
    if key == "scaled":
        return scaled_cell(heads.scores[head], heads.scale, i, j)
    if key == "masked":
        return masked_cell(heads.scaled[head], heads.mask, i, j)
    if key == "weights":
        return weight_cell(heads.masked[head], i, j)
    found = context_cell(heads.weights[head], steps.v[head], i, j)
    return with_lines(found, grouped_line(info, head))


def cell_lines(
    steps_of: Callable[[], BlockTrace], info: ModelInfo, key: str, heads: Sequence[int]
) -> CellLines | None:
    """How a selected cell of stage ``key`` was computed, panel ``k`` being head ``heads[k]``
    (one head: a single matrix); None for a stage the core does not explain."""
    if key == "angles":
        return angle_lines(info)
    if key not in EXPLAINED or (key in TURNED and info.positions != "rotary"):
        return None
    return lambda panel, cell: stage_cell(steps_of(), info, key, heads[panel], cell).lines


def angle_lines(info: ModelInfo) -> CellLines | None:
    """How a selected RoPE angle ``(p, i)`` came about: the position times pair i's speed, from
    the model's base and head width (None without RoPE: the step is not drawn)."""
    base = info.rotary_base
    if base is None:
        return None
    return lambda _panel, cell: angle_cell(*cell, info.d_head, base).lines


def rollout_lines(weights: np.ndarray, layer: int) -> CellLines:
    """How a selected cell of the rollout after ``layer`` (0-based) of ``weights (L, H, T, T)``
    was computed: the layer's mixed attention times the rollout of the layers before it."""

    def lines(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        mixed = rollout.residual_attention(weights[layer])  # (T, T)
        previous = rollout.attention_rollout(weights[:layer])[-1] if layer else None
        return rollout_cell(mixed, previous, layer, *cell).lines

    return lines
