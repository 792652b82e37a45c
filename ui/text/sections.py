"""The text page's tabs: one function per stage of the data flow, each drawn from the
page's :class:`ui.text.state.TextState`, and the page's table of tabs :data:`TABS`."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from ui.figures.head_view import MIN_WEIGHT
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart, explain, matrix_stage, token_table
from ui.shared.safe import show_info
from ui.shared.stages import shape_caption, stage_title
from ui.shared.tabs import Tab
from ui.shared.url import BIND
from ui.text.cache import axes, grid_figure, head_view_figure, heatmap_figure, matrix_of
from ui.text.cell_view import cell_lines, grid_cell_lines
from ui.text.heads_off import heads_off_section
from ui.text.stage_arrays import stage_code, stage_matrix
from ui.text.state import PREFIX, TextState


def show_stage(state: TextState, name: str, head: int | None = None, second: bool = False) -> None:
    """One matrix beside its formula, shape and words (and numbers, if asked); a selected
    cell says how it was computed when the core knows (:mod:`ui.text.cell_view`)."""
    stage = state.stages[name]
    matrix = matrix_of(state.run, name, head, second)
    rows, cols = axes(state.inputs, stage, matrix.shape, second)
    symbol = stage.symbol + ("_kv" if second else "")
    widget_key = name + ("_second_sentence" if second else "")
    widget_key += "" if head is None else f"_head{head + 1}"  # also the CSV file's name
    matrix_stage(
        stage,
        matrix,
        rows,
        cols,
        key=widget_key,
        shapes=[shape_caption(symbol, matrix.shape, head)],
        title=stage_title(stage, head, second),
        show_numbers=state.numbers,
        style=state.style,
        figure=heatmap_figure(state.inputs, name, head, second, state.style, state.run),
        code=stage_code(name, state.run.config),
        cells=cell_lines(state, name, head, second),
    )


def show_grid(state: TextState, name: str) -> None:
    """Every head's matrix of a per-head stage, side by side on one colour scale."""
    stack = stage_matrix(state.run, name)
    each = shape_caption(state.stages[name].symbol, stack.shape[1:])
    st.caption(f"All {stack.shape[0]} heads ({each} each) on one colour scale.")
    chart(
        grid_figure(state.inputs, name, state.style, state.run),
        key=f"grid_{name}",
        cells=grid_cell_lines(state, name),
    )


def tokens_tab(state: TextState) -> None:
    queries, keys = state.inputs.queries, state.inputs.keys
    text_column, table_column = st.columns(2, gap="medium")
    with text_column:
        st.subheader(state.stages["tokens"].title)
        sizes = [f"T = {len(queries.tokens)} queries"]
        explain(state.stages["tokens"], sizes + ([f"S = {len(keys.tokens)} keys"] if keys else []))
        show_code(stage_code("tokens", state.run.config))
    with table_column:
        token_table(queries.tokens, queries.labels, "Sentence")
        if keys is not None:
            token_table(keys.tokens, keys.labels, "Second sentence")
    show_stage(state, "x")
    if keys is not None:
        show_stage(state, "x", second=True)


def positions_tab(state: TextState) -> None:
    for second in (False, True) if state.run.is_cross else (False,):
        show_stage(state, "p", second=second)
        show_stage(state, "x_plus_p", second=second)


def qkv_tab(state: TextState) -> None:
    for key in ("q", "k", "v"):
        show_stage(state, key, state.head)
    st.subheader("Every head")
    for key in ("q", "k", "v"):
        show_grid(state, key)


def weights_tab(state: TextState) -> None:
    for key in ("scores", "scaled", "masked", "weights"):
        show_stage(state, key, state.head)
    st.subheader("Every head's weights")
    show_grid(state, "weights")


def default_query(tokens: ac.Tokens) -> int:
    """The example sentence asks what "it" refers to, so start there; else the first token."""
    words = [token.casefold() for token in tokens.tokens]
    return words.index("it") if "it" in words else 0


def head_view_tab(state: TextState) -> None:
    query_labels, key_labels = state.inputs.labels
    n_heads = state.run.config.n_heads
    query_column, heads_column = st.columns(2)
    with query_column:
        query = st.selectbox(
            "Query token",
            [None, *range(len(query_labels))],
            key=f"{PREFIX}query",
            bind=BIND,
            index=1 + default_query(state.inputs.queries),
            format_func=lambda i: "all tokens" if i is None else f"{i}: {query_labels[i]}",
        )
    with heads_column:
        every_head = list(range(1, n_heads + 1))
        heads = st.multiselect(
            "Heads to draw", every_head, default=every_head, key=f"{PREFIX}show_heads", bind=BIND
        )
    stage = state.stages["head_view"]
    text_column, figure_column = st.columns((1, 2), gap="medium")
    with text_column:
        st.subheader(stage.title)
        explain(stage, [f"A: {n_heads} heads × {len(query_labels)} × {len(key_labels)}"])
        show_code(stage_code("head_view", state.run.config))
        st.caption(
            f"Lines with weight ≤ {MIN_WEIGHT} are not drawn. Click a head in the "
            "legend to hide it."
        )
    with figure_column:
        if not heads:
            show_info("Choose at least one head to draw.")
            return
        shown = tuple(sorted(h - 1 for h in heads))
        chart(head_view_figure(state.inputs, query, shown, state.style, state.run), key="head_view")


def output_tab(state: TextState) -> None:
    combination = ac.COMBINATIONS[state.run.config.combine]
    show_stage(state, "context", state.head)
    show_grid(state, "context")
    for key in combination.shows:
        show_stage(state, key)
    if combination.caption is not None:
        st.caption(combination.caption(state.run.projections))
    show_stage(state, "output")
    heads_off_section(state)


TABS: tuple[Tab[TextState], ...] = (
    Tab("1 Tokens", tokens_tab),
    Tab("2 Positions", positions_tab),
    Tab("3 Q K V", qkv_tab),
    Tab("4 Weights", weights_tab),
    Tab("5 Head view", head_view_tab),
    Tab("6 Output", output_tab),
)
