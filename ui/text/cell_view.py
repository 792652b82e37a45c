"""How a selected number of the text page's attention matrices was computed.

Every heatmap is a walkable matrix (:mod:`ui.shared.walk_chart`); for the chosen head's
Q, K, V, scores, scaled, masked, weights and context (:data:`WALKABLE`), the selected cell's
computation from :mod:`attention_core.teaching.cell_computation` is written beside it. So
is a cell of the stages around the heads (:data:`WHOLE`): the token vectors X, the
positional encoding P and X + P (:mod:`attention_core.teaching.encoding_cells`), the heads
side by side and their combined output (:mod:`attention_core.teaching.head_cells`), and the
heads-off experiment's matrices (:func:`heads_off_lines`).
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
from attention_core.teaching.encoding_cells import added_cell, sum_cell, token_cell
from attention_core.teaching.head_cells import (
    change_cell,
    combined_cell,
    concat_cell,
    heads_off_line,
    replaced_cell,
)
from ui.shared.walk_chart import CellLines
from ui.shared.walkable_data import VALUE_NAMES
from ui.text.cache import RunInputs
from ui.text.state import TextState

#: The projections: their weight and bias in :class:`attention_core.maths.projections.Projections`
#: and whether they read the key/value sentence.
PROJECTIONS = {"q": ("w_q", "b_q", False), "k": ("w_k", "b_k", True), "v": ("w_v", "b_v", True)}
#: The one-head stages whose cells the core explains.
WALKABLE = (*PROJECTIONS, *VALUE_NAMES)
#: The stages before and after the heads whose cells the core explains from the run alone
#: (:func:`whole_computation`), and with the token vectors X (made from the tokens); X, P and
#: X + P also on the key sentence's side.
FROM_RUN = ("p", "x_plus_p", "concat", "output")
WHOLE = ("x", *FROM_RUN)
INPUTS = ("x", "p", "x_plus_p")


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


def token_computation(
    inputs: RunInputs, cell: tuple[int, int], second: bool = False
) -> CellComputation:
    """Entry ``cell = (t, j)`` of X, of the key sentence if ``second``: both sentences are
    embedded together, so one-hot columns count the words of both."""
    queries = inputs.queries.tokens
    tokens = queries + (() if inputs.keys is None else inputs.keys.tokens)
    config, (t, j) = inputs.config, cell
    return token_cell(
        config.embedding,
        tokens,
        t + (len(queries) if second else 0),
        j,
        config.d_model,
        config.seed,
    )


def input_computation(
    run: ac.AttentionRun, name: str, cell: tuple[int, int], second: bool = False
) -> CellComputation:
    """Entry ``cell = (p, j)`` of P or X + P (``name``), of the key sentence if ``second``."""
    config = run.config
    position = added_cell(config.positional, *cell, config.d_model, config.seed)
    if name == "p":
        return position
    x = run.x_kv if second else run.x  # (T or S, d_model)
    return sum_cell(float(x[cell]), position)


def concat_computation(
    run: ac.AttentionRun, cell: tuple[int, int], off: ac.Ablation | None = None
) -> CellComputation:
    """Entry ``cell = (t, c)`` of the heads side by side: the head's context entry (its
    weights times its values), or what replaced it when the head is ``off``."""
    trace, (t, c) = run.trace, cell
    head, feature = divmod(c, trace.context.shape[2])
    if off is not None and head in off.heads_in(0):
        source = replaced_cell(trace.context[head], off.kind, t, feature, head)
    else:
        source = context_cell(trace.weights[head], trace.v[head], t, feature)
    placed = concat_cell(ac.split_heads(trace.concat, run.config.n_heads), t, c)
    return replace(placed, lines=(*source.lines, *placed.lines))


def output_computation(run: ac.AttentionRun, cell: tuple[int, int]) -> CellComputation:
    """Entry ``cell = (t, c)`` of the output: the heads as combined (a head turned off as
    replaced), by the run's way of combining them."""
    projections = run.projections
    return combined_cell(
        run.config.combine,
        ac.split_heads(run.trace.concat, run.config.n_heads),
        *cell,
        w_o=projections.w_o,
        b_o=projections.b_o,
        head_weights=projections.head_weights,
    )


def whole_computation(
    run: ac.AttentionRun, name: str, cell: tuple[int, int], second: bool = False
) -> CellComputation:
    """Entry ``cell`` of one of the :data:`FROM_RUN` stages ``name`` of ``run``."""
    if name in ("p", "x_plus_p"):
        return input_computation(run, name, cell, second)
    if name == "concat":
        return concat_computation(run, cell)
    return output_computation(run, cell)


def cell_lines(
    state: TextState, name: str, head: int | None, second: bool = False
) -> CellLines | None:
    """How a selected cell of stage ``name`` (of ``head``, for a per-head stage; of the key
    sentence when ``second``) was computed, when the core says."""
    if name == "x":
        return lambda _panel, cell: token_computation(state.inputs, cell, second).lines
    if name in WHOLE and (not second or name in INPUTS):
        return lambda _panel, cell: whole_computation(state.run, name, cell, second).lines
    if name not in WALKABLE or head is None or second:
        return None
    return lambda _panel, cell: cell_computation(state.run, name, head, cell).lines


def grid_cell_lines(state: TextState, name: str) -> CellLines | None:
    """How a selected cell of any head's stage ``name`` was computed (a grid's panel k is
    head k)."""
    if name not in WALKABLE:
        return None
    return lambda head, cell: cell_computation(state.run, name, head, cell).lines


def heads_off_lines(
    name: str, intact: ac.AttentionRun, off: ac.AttentionRun, ablation: ac.Ablation
) -> CellLines:
    """How a selected cell of the heads-off experiment's matrix ``name`` (intact, output,
    change or concat; :data:`ui.text.cache.HEADS_OFF_MATRICES`) was computed."""
    said = heads_off_line(ablation.heads_in(0), ablation.kind)

    def lines(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        if name == "intact":
            return output_computation(intact, cell).lines
        if name == "output":
            return (said, *output_computation(off, cell).lines)
        if name == "concat":
            return concat_computation(off, cell, ablation).lines
        return change_cell(off.trace.output, intact.trace.output, *cell).lines

    return lines
