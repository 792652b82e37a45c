"""The tabs of the pretrained-model page: guided example, model view, head view, one head's
stages, head summary (``ui.pretrained.summary``), rollout, and for decoders next-token
predictions; the heads that copy and why a head attends. Each takes the page's state.

Figures come from the shared builders (``heatmap``, ``heatmap_grid``,
``head_view``, ``matrix_stage``), so every matrix looks as on the text page, and every one is
walkable cell by cell (``ui.shared.walk_chart``): a selected cell of one head's steps (from
the layer's input X to the context), of the weights under the head view or of the rollout
says how it was computed (``ui.pretrained.cell_view``), as do the model view's panels and the
copying scores (their own tabs). The head view's lines are not a matrix: not walkable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import streamlit as st

from attention_core.pretrained import rollout
from attention_core.teaching.head_questions import head_name
from ui.pretrained.cache import (
    head_view_drawn,
    head_weights_drawn,
    rollout_drawn,
    stage_figures,
)
from ui.pretrained.cell_view import LayerSource, cell_lines, rollout_lines
from ui.pretrained.copying import copying_tab
from ui.pretrained.decoder_guided import decoder_guided_section
from ui.pretrained.guided import GUIDED_TEXT, guided_section
from ui.pretrained.heads_off_view import heads_off_tab
from ui.pretrained.model_view import model_view_tab
from ui.pretrained.next_token import next_token_tab
from ui.pretrained.stage_table import WHOLE_LAYER, stage_matrix
from ui.pretrained.stages import FAMILY_STAGES
from ui.pretrained.state import MATRIX_HEAD_KEY, PretrainedState
from ui.pretrained.summary import summary_tab
from ui.pretrained.why_attends import why_attends_tab
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart, matrix_stage
from ui.shared.safe import show_info
from ui.shared.stages import Stage, axis_labels
from ui.shared.tabs import Tab
from ui.shared.url import BIND
from ui.shared.walk_chart import CellLines

#: Heads the head view draws at once: the bundled model's 12. Each then keeps a colour and a
#: line style no other has (8 colours × 6 styles repeat after 24 heads), and a legend of them
#: stays short; a model of 32 heads shows them 12 at a time.
MAX_HEADS_DRAWN = 12

# ---------------------------------------------------------------- head view


def head_view_section(state: PretrainedState, shown_heads: list[int], all_queries: bool) -> None:
    shown = head_view_drawn(
        digest=state.digest,
        layer=state.layer,
        heads=tuple(shown_heads),
        query=None if all_queries else state.query,
        style=state.style,
        _state=state,
    )
    chart(shown, key="head_view")


def head_matrix_section(state: PretrainedState, shown_heads: list[int]) -> None:
    """The weights the lines draw, as a matrix one can walk: one drawn head's (a choice when
    several are drawn; the model view's opened head's figure, shared), a selected cell with
    its softmax (:mod:`ui.pretrained.cell_view`)."""
    head = shown_heads[0]
    if len(shown_heads) > 1:
        picked = st.selectbox(
            "Matrix of head",
            [h + 1 for h in shown_heads],
            key=MATRIX_HEAD_KEY,
            bind=BIND,
            help="Which of the heads drawn above to show as a matrix.",
        )
        head = picked - 1 if isinstance(picked, int) and picked - 1 in shown_heads else head
    st.caption(
        f"Head {head + 1}'s weights as a matrix: each row holds the lines one query token "
        "draws above. Walk it cell by cell with the arrow keys."
    )
    drawn = head_weights_drawn(
        digest=state.digest, layer=state.layer, head=head, style=state.style, _state=state
    )
    info = state.model.info
    cells = cell_lines(lambda: state.steps(state.layer), info, "weights", (head,))
    chart(drawn, key="head_view_matrix", cells=cells)


# ---------------------------------------------------------------- one head, every step


def stages_section(state: PretrainedState) -> None:
    """Every step of one head of the chosen model: the one table of stages, as its family's
    entry draws it (RoPE, grouped K/V heads, BERT's biases: ``ui.pretrained.stages``)."""
    info = state.model.info
    family = FAMILY_STAGES[info.family]
    st.caption(family.step_caption(info, state.layer, state.head))
    steps = state.steps(state.layer)
    source = LayerSource(state.model.checkpoint.model, state.trace, state.layer, state.steps)
    draw_stages(
        state,
        [
            (key, stage, stage_matrix(steps, key, state.head))
            for key, stage in family.layer_stages(info, state.layer).items()
        ],
        lambda key: family.stage_code(key, state.layer),
        lambda key: cell_lines(lambda: steps, info, key, (state.head,), source),
    )


def stage_title(state: PretrainedState, key: str, stage: Stage) -> str:
    """A step's title: with the head, or with the layer for a step of the whole layer."""
    if key in WHOLE_LAYER:
        return f"{stage.title} · layer {state.layer + 1}"
    return f"{stage.title} · {head_name(state.layer, state.head)}"


def draw_stages(
    state: PretrainedState,
    shown: list[tuple[str, Stage, np.ndarray]],
    code_of: Callable[[str], Sequence[Callable]],
    cells_of: Callable[[str], CellLines | None],
) -> None:
    """Each step's formula, words, code and heatmap (with the causal mask's grey cells).

    ``shown``: (key, stage, matrix) of each step of the layer and head; the heatmaps are
    built once per server for every session (:func:`stage_figures`). ``cells_of(key)``: how
    a selected cell of step ``key`` was computed (:mod:`ui.pretrained.cell_view`), if known.
    """
    titled = tuple(
        (key, stage, matrix, stage_title(state, key, stage)) for key, stage, matrix in shown
    )
    figures = stage_figures(
        digest=state.digest,
        layer=state.layer,
        head=state.head,
        steps=tuple(key for key, *_ in titled),
        style=state.style,
        _state=state,
        _steps=titled,
    )
    labels = list(state.encoded.labels)
    for key, stage, matrix, title in titled:
        drawn = figures[key]
        whole = key in WHOLE_LAYER
        matrix_stage(
            stage,
            matrix,
            axis_labels(stage.rows, labels, labels, matrix.shape[0]),
            axis_labels(stage.cols, labels, labels, matrix.shape[1]),
            key=f"{key}_l{state.layer + 1}" + ("" if whole else f"h{state.head + 1}"),
            shapes=[f"{stage.symbol}: {matrix.shape[0]} × {matrix.shape[1]}"],
            title=title,
            show_numbers=state.numbers,
            style=state.style,
            figure=drawn,
            code=code_of(key),
            cells=cells_of(key),
        )


# ---------------------------------------------------------------- rollout


def rollout_section(state: PretrainedState) -> None:
    st.markdown(
        "Attention rollout (Abnar & Zuidema, 2020) follows attention through the layers: each "
        "layer's heads are averaged, the residual connection is added as ½(A + I), and the "
        "layers are multiplied, so row *i* estimates how much each input token feeds token *i* "
        "after that layer. It is a rough flow estimate that ignores the values and the "
        "feed-forward layers, not an exact attribution."
    )
    show_code((rollout.attention_rollout, rollout.residual_attention))
    rolled = rollout_drawn(digest=state.digest, layer=state.layer, style=state.style, _state=state)
    chart(rolled, key="rollout", cells=rollout_lines(state.weights, state.layer))


# ---------------------------------------------------------------- the tabs drawn by the page


def head_view_tab(state: PretrainedState) -> None:
    query_column, heads_column = st.columns(2)
    with query_column:
        all_queries = st.toggle("Lines from every token", key="all_queries", bind=BIND)
    n_heads = state.model.info.n_heads
    with heads_column:
        shown_heads = st.multiselect(
            "Heads to draw",
            list(range(1, n_heads + 1)),
            default=[state.head + 1],
            key="heads",
            bind=BIND,
            max_selections=MAX_HEADS_DRAWN,
            help=f"At most {MAX_HEADS_DRAWN} at once, each in its own colour and line style."
            if n_heads > MAX_HEADS_DRAWN
            else None,
        )
    st.caption(
        "Lines from the query token (left) to every key (right), thicker for larger weights; "
        "one colour per head. Choose the layer and the query token above."
    )
    if not shown_heads:
        show_info("Choose at least one head to draw.")
        return
    drawn_heads = sorted(h - 1 for h in shown_heads)
    head_view_section(state, drawn_heads, all_queries)
    head_matrix_section(state, drawn_heads)


def guided_tab(state: PretrainedState) -> None:
    if not state.model.bundled:
        decoder_guided_section(state)
        return
    if state.other_text:
        st.caption("This tab always uses the guided sentence; the other tabs show yours.")
    encoded = state.model.encode(GUIDED_TEXT)
    trace = state.model.trace(encoded)
    steps_of = partial(state.model.steps, trace)
    guided_section(encoded, trace, state.style, state.model.info, steps_of)


TABS: tuple[Tab[PretrainedState], ...] = (
    Tab("Guided example", guided_tab),
    Tab("Model view", model_view_tab),
    Tab("Head view", head_view_tab),
    Tab("Every step", stages_section),
    Tab("Head summary", summary_tab),
    Tab("Rollout", rollout_section),
    Tab("Next token", next_token_tab),
    Tab("Heads that copy", copying_tab),
    Tab("Why a head attends", why_attends_tab),
    Tab("Turn heads off", heads_off_tab),
)
