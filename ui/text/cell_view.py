"""The text page's attention matrices one can walk, and how the selected number was computed.

For the chosen head's scores, scaled, masked, weights and context (:data:`WALKABLE`), the
heatmap is the walkable matrix (:mod:`ui.text.walkable_matrix`); beside it, the selected
cell's computation from :mod:`attention_core.teaching.cell_computation`, as text. The
Plotly heatmap and "Read as a table" stay, for those who prefer them; the Plotly chart is
sent only when its expander is opened, so a page sends each matrix once.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import attention_core as ac
from attention_core.teaching.cell_computation import (
    CellComputation,
    context_cell,
    masked_cell,
    scaled_cell,
    score_cell,
    weight_cell,
)
from ui.figures.heatmap import display_matrix
from ui.shared.code_view import show_code
from ui.shared.matrix_view import (
    PLOTLY_CONFIG,
    TEXT_TO_FIGURE,
    explain,
    numbers_table,
    read_as_table,
)
from ui.shared.safe import escape_markdown
from ui.shared.stages import KEY_SIDE, QUERY_SIDE, Stage, shape_caption, stage_title
from ui.text.cache import axes, heatmap_figure, matrix_of
from ui.text.stage_arrays import stage_code
from ui.text.state import TextState
from ui.text.walkable_data import VALUE_NAMES, announcement
from ui.text.walkable_matrix import walkable_matrix

WALKABLE = tuple(VALUE_NAMES)  #: the one-head stages drawn as a walkable matrix


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


def axis_title(side: str) -> str:
    """What an axis's labels are called in an announcement: query, key or column."""
    return {QUERY_SIDE: "query", KEY_SIDE: "key"}.get(side, "column")


def show_cell(
    state: TextState,
    stage: Stage,
    matrix: np.ndarray,
    labels: tuple[list, list],
    cell: tuple[int, int] | None,
) -> None:
    """The selected cell in words and its computation, as text; a hint before any selection."""
    st.markdown("**This cell**")
    if cell is None:
        st.caption(
            "Select a cell of the matrix (Enter, Space or a click) to see how it was computed."
        )
        return
    mask = state.run.mask if stage.masked else None
    said = announcement(
        display_matrix(matrix, mask),
        *labels,
        *cell,
        row_title=axis_title(stage.rows),
        col_title=axis_title(stage.cols),
        value_name=VALUE_NAMES[stage.key],
        decimals=state.style.decimals,
    )
    st.markdown(escape_markdown(said))  # tokens are user text: shown as text, never markup
    for line in cell_computation(state.run, stage.key, state.head, cell).lines:
        st.markdown(escape_markdown(line))


def walkable_stage(state: TextState, name: str) -> None:
    """One head's stage ``name``: formula and words and the selected cell's computation
    (left) beside the walkable matrix, its table and its Plotly chart (right)."""
    stage, head = state.stages[name], state.head
    matrix = matrix_of(state.run, name, head, False)
    rows, cols = axes(state.inputs, stage, matrix.shape, False)
    key = f"{name}_head{head + 1}"
    title = stage_title(stage, head)
    text_column, figure_column = st.columns(TEXT_TO_FIGURE, gap="medium")
    with text_column:
        st.subheader(title)
        explain(stage, [shape_caption(stage.symbol, matrix.shape, head)])
        show_code(stage_code(name, state.run.config), key=f"code_{key}")
        cell_box = st.container()
    with figure_column:
        cell = walkable_matrix(
            matrix,
            rows,
            cols,
            key=f"walk_{key}",
            title=title,
            kind=stage.kind,
            value_name=VALUE_NAMES[name],
            row_title=axis_title(stage.rows),
            col_title=axis_title(stage.cols),
            mask=state.run.mask if stage.masked else None,
            style=state.style,
        )
        figure = heatmap_figure(state.inputs, name, head, False, state.style, state.run)
        read_as_table(figure.figure, f"chart_{key}")
        plotly_chart(figure.figure, figure.alt, key)
    with cell_box:
        show_cell(state, stage, matrix, (rows, cols), cell)
    if state.numbers:
        numbers_table(matrix, rows, cols, decimals=state.style.decimals, key=key)


def plotly_chart(figure, alt: str, key: str) -> None:
    """The Plotly heatmap (hover, zoom, PNG download), built only while its expander is open."""
    expander = st.expander(
        "Plotly heatmap (hover, zoom, PNG)",
        icon=":material/grid_on:",
        key=f"plotly_{key}",
        on_change="rerun",
    )
    if expander.open:
        with expander:
            st.plotly_chart(
                figure, key=f"chart_{key}", config=PLOTLY_CONFIG, width="stretch", alt=alt
            )
