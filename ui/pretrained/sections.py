"""The views of the pretrained-model page: model view, head view, one head's steps,
head summary, rollout and the guided example. Each takes the forward pass and draws.

Figures come from the shared builders (``heatmap``, ``heatmap_grid``,
``head_view``, ``matrix_stage``), so every matrix looks as on the text page.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from attention_core.pretrained import bert, head_measures, loading, rollout
from attention_core.pretrained.loading import Encoded
from ui.figures.describe import describe_head_view
from ui.figures.head_view import head_view
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.pretrained.figures import MODEL_VIEW_BINS
from ui.pretrained.guided import GUIDED_TEXT, guided_section
from ui.pretrained.runs import trace_of
from ui.pretrained.state import pick_head
from ui.pretrained.steps import STEPS, step_code, step_matrix, step_stage
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart, matrix_stage
from ui.shared.presentation import current_style
from ui.shared.safe import show_info
from ui.shared.stages import axis_labels
from ui.shared.url import BIND


@dataclass(frozen=True)
class Selection:
    """The input, its forward pass and the chosen layer, head and query (0-based)."""

    encoded: Encoded
    trace: bert.BertTrace
    layer: int
    head: int
    query: int
    numbers: bool
    style: FigureStyle


def head_name(layer: int, head: int) -> str:
    """``"layer 4 · head 2"`` from 0-based indices: people count from 1."""
    return f"layer {layer + 1} · head {head + 1}"


# ---------------------------------------------------------------- model view


def model_view(shown: Selection, figure: go.Figure) -> None:
    length = len(shown.encoded)
    if length > MODEL_VIEW_BINS:
        st.caption(
            f"{length} tokens are pooled into {MODEL_VIEW_BINS} runs of neighbouring tokens "
            "(a run's queries averaged, its keys summed) to keep 72 panels light; the head "
            "below and every other view show all tokens."
        )
    else:
        st.caption(
            f"Each panel is one head's {length} × {length} weights (query rows, key columns)."
        )
    chart(figure, key="model_view")
    st.caption("Pick a layer and head above to open it here.")
    weights = shown.trace.layers[shown.layer].heads.weights[shown.head]
    labels = list(shown.encoded.labels)
    chart(
        heatmap(
            weights,
            labels,
            labels,
            title=f"Attention weights · {head_name(shown.layer, shown.head)}",
            style=shown.style,
        ),
        key="opened_head",
    )


# ---------------------------------------------------------------- head view


def head_view_section(shown: Selection, heads: list[int], all_queries: bool) -> None:
    weights = shown.trace.layers[shown.layer].heads.weights  # (H, T, T)
    labels = list(shown.encoded.labels)
    query = None if all_queries else shown.query
    who = "every token" if all_queries else f"“{labels[shown.query]}”"
    figure = head_view(
        weights,
        labels,
        labels,
        heads=heads,
        query=query,
        style=shown.style,
        title=f"Head view · layer {shown.layer + 1} · from {who}",
    )
    alt = describe_head_view(weights, heads, query, labels, labels)
    chart(figure, key="head_view", alt=f"Layer {shown.layer + 1}. {alt}")


# ---------------------------------------------------------------- one head, every step


def steps_section(shown: Selection) -> None:
    st.caption(
        f"Layer {shown.layer + 1}, head {shown.head + 1} of all-MiniLM-L6-v2, computed by "
        "attention_core: the same functions, step views and figures as the text page."
    )
    labels = list(shown.encoded.labels)
    for key in STEPS:
        step = step_stage(key, shown.layer)
        matrix = step_matrix(shown.trace, key, shown.layer, shown.head)
        rows = axis_labels(step.rows, labels, labels, matrix.shape[0])
        cols = axis_labels(step.cols, labels, labels, matrix.shape[1])
        where = "" if key == "x" else f" · {head_name(shown.layer, shown.head)}"
        title = f"{step.title}{where}" if key != "x" else f"{step.title} · layer {shown.layer + 1}"
        matrix_stage(
            step,
            matrix,
            rows,
            cols,
            key=f"{key}_l{shown.layer + 1}" + ("" if key == "x" else f"h{shown.head + 1}"),
            shapes=[f"{step.symbol}: {matrix.shape[0]} × {matrix.shape[1]}"],
            title=title,
            show_numbers=shown.numbers,
            style=shown.style,
            code=step_code(key, shown.layer),
        )


# ---------------------------------------------------------------- head summary

PRESETS = {
    "every head, by layer": None,
    "heads that look at the previous token": "previous",
    "heads that look at the next token": "next",
    "heads that look at the token itself": "self",
    "heads that look at [SEP]": "sep",
    "heads that look at [CLS]": "cls",
    "heads that look at punctuation": "punctuation",
    "broad heads (highest entropy)": "entropy_ratio",
}


def summary_frame(shown: Selection) -> pd.DataFrame:
    """One row per head, Clark et al.'s measures as columns (rounded to 3 decimals)."""
    measures = head_measures.head_measures(shown.trace.weights, shown.encoded.tokens)
    n_layers, n_heads = measures["entropy"].shape
    frame = pd.DataFrame(
        {
            "layer": np.repeat(np.arange(1, n_layers + 1), n_heads),
            "head": np.tile(np.arange(1, n_heads + 1), n_layers),
        }
        | {
            title: measures[name].ravel().astype(float).round(3)
            for name, title in head_measures.MEASURES.items()
        }
    )
    return frame


def summary_section(shown: Selection, preset: str, on_pick) -> pd.DataFrame:
    """The sortable head table; picking a row calls ``on_pick`` (it opens that head)."""
    frame = summary_frame(shown)
    column = PRESETS[preset]
    if column is not None:
        frame = frame.sort_values(head_measures.MEASURES[column], ascending=False, kind="stable")
    st.caption(
        f"Mean over the {len(shown.encoded)} query tokens of each head's weights (Clark et al. "
        f"2019). Entropy is in nats; a uniform row has log T = {np.log(len(shown.encoded)):.3f}. "
        "Click a column to sort, a row to open that head in the other views."
    )
    st.dataframe(
        frame.reset_index(drop=True),
        key="head_table",
        on_select=on_pick,
        selection_mode="single-row",
        hide_index=True,
        width="stretch",
        height=420,
    )
    return frame


# ---------------------------------------------------------------- rollout


def rollout_section(shown: Selection) -> None:
    st.markdown(
        "Attention rollout (Abnar & Zuidema, 2020) follows attention through the layers: each "
        "layer's heads are averaged, the residual connection is added as ½(A + I), and the "
        "layers are multiplied, so row *i* estimates how much each input token feeds token *i* "
        "after that layer. It is a rough flow estimate that ignores the values and the "
        "feed-forward layers, not an exact attribution."
    )
    rolled = rollout.attention_rollout(shown.trace.weights)[shown.layer]
    labels = list(shown.encoded.labels)
    show_code((rollout.attention_rollout, rollout.residual_attention))
    chart(
        heatmap(
            rolled,
            labels,
            labels,
            title=f"Attention rollout · layers 1–{shown.layer + 1}",
            col_title="input token",
            row_title="token after this layer",
            style=shown.style,
        ),
        key="rollout",
    )


# ---------------------------------------------------------------- the tabs drawn by the page


def head_view_tab(shown: Selection) -> None:
    query_column, heads_column = st.columns(2)
    with query_column:
        all_queries = st.toggle("Lines from every token", key="all_queries", bind=BIND)
    with heads_column:
        heads = st.multiselect(
            "Heads to draw", list(range(1, 13)), default=[shown.head + 1], key="heads", bind=BIND
        )
    st.caption(
        "Lines from the query token (left) to every key (right), thicker for larger weights; "
        "one colour per head. Choose the layer and the query token above."
    )
    if not heads:
        show_info("Choose at least one head to draw.")
        return
    head_view_section(shown, sorted(h - 1 for h in heads), all_queries)


def summary_tab(shown: Selection) -> None:
    preset = st.selectbox("Show", list(PRESETS), key="preset", bind=BIND)
    frame = summary_section(shown, preset, pick_head)
    st.session_state["_head_rows"] = [
        (int(layer), int(head)) for layer, head in zip(frame["layer"], frame["head"], strict=True)
    ]
    st.caption(f"Open now: {head_name(shown.layer, shown.head)}.")


def guided(loaded: loading.PretrainedModel, other_text: bool) -> None:
    if other_text:
        st.caption("This tab always uses the guided sentence; the other tabs show yours.")
    encoded = loading.encode(loaded.tokenizer, GUIDED_TEXT)
    guided_section(encoded, trace_of(encoded), current_style())
