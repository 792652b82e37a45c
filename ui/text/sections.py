"""The text page's tabs: one function per step of the data flow, and the table of tabs."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from ui.figures.describe import describe_head_view
from ui.figures.head_view import MIN_WEIGHT
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart, explain, token_table
from ui.shared.safe import show_info
from ui.shared.stage_arrays import stage_code
from ui.shared.tabs import Tab
from ui.shared.url import BIND
from ui.text.runs import View, head_view_figure


def tokens_tab(view: View) -> None:
    queries, keys = view.run_key.queries, view.run_key.keys
    text_column, table_column = st.columns(2, gap="medium")
    with text_column:
        st.subheader(view.steps["tokens"].title)
        sizes = [f"T = {len(queries.tokens)} queries"]
        explain(view.steps["tokens"], sizes + ([f"S = {len(keys.tokens)} keys"] if keys else []))
        show_code(stage_code("tokens", view.run.config))
    with table_column:
        token_table(queries.tokens, queries.labels, "Sentence")
        if keys is not None:
            token_table(keys.tokens, keys.labels, "Second sentence")
    view.step("x")
    if keys is not None:
        view.step("x", second=True)


def positions_tab(view: View) -> None:
    for second in (False, True) if view.run.is_cross else (False,):
        view.step("p", second=second)
        view.step("x_plus_p", second=second)


def qkv_tab(view: View) -> None:
    for key in ("q", "k", "v"):
        view.step(key, view.head)
    st.subheader("Every head")
    for key in ("q", "k", "v"):
        view.grid(key)


def weights_tab(view: View) -> None:
    for key in ("scores", "scaled", "masked", "weights"):
        view.step(key, view.head)
    st.subheader("Every head's weights")
    view.grid("weights")


def default_query(tokens: ac.Tokens) -> int:
    """The example sentence asks what "it" refers to, so start there; else the first token."""
    words = [token.casefold() for token in tokens.tokens]
    return words.index("it") if "it" in words else 0


def head_view_tab(view: View) -> None:
    query_labels, key_labels = view.run_key.labels
    n_heads = view.run.config.n_heads
    query_column, heads_column = st.columns(2)
    with query_column:
        query = st.selectbox(
            "Query token",
            [None, *range(len(query_labels))],
            key="query",
            bind=BIND,
            index=1 + default_query(view.run_key.queries),
            format_func=lambda i: "all tokens" if i is None else f"{i}: {query_labels[i]}",
        )
    with heads_column:
        every_head = list(range(1, n_heads + 1))
        heads = st.multiselect(
            "Heads to draw", every_head, default=every_head, key="show_heads", bind=BIND
        )
    step = view.steps["head_view"]
    text_column, figure_column = st.columns((1, 2), gap="medium")
    with text_column:
        st.subheader(step.title)
        explain(step, [f"A: {n_heads} heads × {len(query_labels)} × {len(key_labels)}"])
        show_code(stage_code("head_view", view.run.config))
        st.caption(
            f"Lines with weight ≤ {MIN_WEIGHT} are not drawn. Click a head in the "
            "legend to hide it."
        )
    with figure_column:
        if not heads:
            show_info("Choose at least one head to draw.")
            return
        shown = tuple(sorted(h - 1 for h in heads))
        alt = describe_head_view(view.run.trace.weights, shown, query, query_labels, key_labels)
        figure = head_view_figure(view.run_key, query, shown, view.style, view.run)
        chart(figure, key="head_view", alt=alt)


def output_tab(view: View) -> None:
    config = view.run.config
    view.step("context", view.head)
    view.grid("context")
    if config.combine == "concat":
        view.step("concat")
    if config.combine == "learned":
        st.caption(
            "Head weights: "
            + ", ".join(
                f"w{h + 1} = {w:.3f}" for h, w in enumerate(view.run.projections.head_weights)
            )
        )
    view.step("output")


TABS: tuple[Tab[View], ...] = (
    Tab("1 Tokens", tokens_tab),
    Tab("2 Positions", positions_tab),
    Tab("3 Q K V", qkv_tab),
    Tab("4 Weights", weights_tab),
    Tab("5 Head view", head_view_tab),
    Tab("6 Output", output_tab),
)
