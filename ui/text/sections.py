"""The text page's tabs: one function per step of the data flow, each drawn from the
page's :class:`ui.text.state.TextState`, and the page's table of tabs :data:`TABS`."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from ui.figures.describe import describe_head_view
from ui.figures.head_view import MIN_WEIGHT
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart, explain, matrix_stage, token_table
from ui.shared.safe import show_info
from ui.shared.stages import shape_caption, stage_title
from ui.shared.tabs import Tab
from ui.shared.url import BIND
from ui.text.runs import axes, grid_figure, head_view_figure, heatmap_figure, matrix_of
from ui.text.stage_arrays import stage_code, stage_matrix
from ui.text.state import PREFIX, TextState


def show_step(state: TextState, key: str, head: int | None = None, second: bool = False) -> None:
    """One matrix beside its formula, shape and words (and numbers, if asked)."""
    step = state.steps[key]
    matrix = matrix_of(state.run, key, head, second)
    rows, cols = axes(state.run_key, step, matrix.shape, second)
    symbol = step.symbol + ("_kv" if second else "")
    name = key + ("_second_sentence" if second else "")
    name += "" if head is None else f"_head{head + 1}"  # also the CSV file's name
    matrix_stage(
        step,
        matrix,
        rows,
        cols,
        key=name,
        shapes=[shape_caption(symbol, matrix.shape, head)],
        title=stage_title(step, head, second),
        mask=state.run.mask,
        show_numbers=state.numbers,
        style=state.style,
        figure=heatmap_figure(state.run_key, key, head, second, state.style, state.run),
        code=stage_code(key, state.run.config),
    )


def show_grid(state: TextState, key: str) -> None:
    """Every head's matrix of a per-head step, side by side on one colour scale."""
    stack = stage_matrix(state.run, key)
    each = shape_caption(state.steps[key].symbol, stack.shape[1:])
    st.caption(f"All {stack.shape[0]} heads ({each} each) on one colour scale.")
    chart(grid_figure(state.run_key, key, state.style, state.run), key=f"grid_{key}")


def tokens_tab(state: TextState) -> None:
    queries, keys = state.run_key.queries, state.run_key.keys
    text_column, table_column = st.columns(2, gap="medium")
    with text_column:
        st.subheader(state.steps["tokens"].title)
        sizes = [f"T = {len(queries.tokens)} queries"]
        explain(state.steps["tokens"], sizes + ([f"S = {len(keys.tokens)} keys"] if keys else []))
        show_code(stage_code("tokens", state.run.config))
    with table_column:
        token_table(queries.tokens, queries.labels, "Sentence")
        if keys is not None:
            token_table(keys.tokens, keys.labels, "Second sentence")
    show_step(state, "x")
    if keys is not None:
        show_step(state, "x", second=True)


def positions_tab(state: TextState) -> None:
    for second in (False, True) if state.run.is_cross else (False,):
        show_step(state, "p", second=second)
        show_step(state, "x_plus_p", second=second)


def qkv_tab(state: TextState) -> None:
    for key in ("q", "k", "v"):
        show_step(state, key, state.head)
    st.subheader("Every head")
    for key in ("q", "k", "v"):
        show_grid(state, key)


def weights_tab(state: TextState) -> None:
    for key in ("scores", "scaled", "masked", "weights"):
        show_step(state, key, state.head)
    st.subheader("Every head's weights")
    show_grid(state, "weights")


def default_query(tokens: ac.Tokens) -> int:
    """The example sentence asks what "it" refers to, so start there; else the first token."""
    words = [token.casefold() for token in tokens.tokens]
    return words.index("it") if "it" in words else 0


def head_view_tab(state: TextState) -> None:
    query_labels, key_labels = state.run_key.labels
    n_heads = state.run.config.n_heads
    query_column, heads_column = st.columns(2)
    with query_column:
        query = st.selectbox(
            "Query token",
            [None, *range(len(query_labels))],
            key=f"{PREFIX}query",
            bind=BIND,
            index=1 + default_query(state.run_key.queries),
            format_func=lambda i: "all tokens" if i is None else f"{i}: {query_labels[i]}",
        )
    with heads_column:
        every_head = list(range(1, n_heads + 1))
        heads = st.multiselect(
            "Heads to draw", every_head, default=every_head, key=f"{PREFIX}show_heads", bind=BIND
        )
    step = state.steps["head_view"]
    text_column, figure_column = st.columns((1, 2), gap="medium")
    with text_column:
        st.subheader(step.title)
        explain(step, [f"A: {n_heads} heads × {len(query_labels)} × {len(key_labels)}"])
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
        alt = describe_head_view(state.run.trace.weights, shown, query, query_labels, key_labels)
        figure = head_view_figure(state.run_key, query, shown, state.style, state.run)
        chart(figure, key="head_view", alt=alt)


def output_tab(state: TextState) -> None:
    combination = ac.COMBINATIONS[state.run.config.combine]
    show_step(state, "context", state.head)
    show_grid(state, "context")
    for key in combination.shows:
        show_step(state, key)
    if combination.caption is not None:
        st.caption(combination.caption(state.run.projections))
    show_step(state, "output")


TABS: tuple[Tab[TextState], ...] = (
    Tab("1 Tokens", tokens_tab),
    Tab("2 Positions", positions_tab),
    Tab("3 Q K V", qkv_tab),
    Tab("4 Weights", weights_tab),
    Tab("5 Head view", head_view_tab),
    Tab("6 Output", output_tab),
)
