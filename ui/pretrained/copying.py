"""The "Heads that copy" tab: previous-token, duplicate-token and induction scores per head.

Measured the standard way (TransformerLens's head detectors): the model reads
:data:`COPY_LENGTH` random tokens and then the same tokens again
(:func:`attention_core.pretrained.circuits.repeated_sequence`, seeded, so every student
sees the same numbers), and each head is scored on its weights
(:func:`attention_core.pretrained.circuits.detect_heads`). Picking a row, or a strongest
head's button, opens that head in the other views. A selected cell of the scores' heatmap is
written out: the mean of that head's weights on the detector's stripe of the test input
(:func:`attention_core.teaching.pooled_cells.stripe_cell`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from attention_core.pretrained.circuits import DETECTORS, strongest
from attention_core.teaching.head_questions import head_name
from attention_core.teaching.pooled_cells import stripe_cell
from ui.pretrained.cache import copying_drawn
from ui.pretrained.head_table import head_table
from ui.pretrained.passes import COPY_LENGTH
from ui.pretrained.state import PretrainedState
from ui.shared.matrix_view import chart
from ui.shared.url import BIND
from ui.shared.walk_chart import CellLines

STRONGEST = 3
HEAD_VIEW = "Head view"


def scores_frame(scores: dict[str, np.ndarray]) -> pd.DataFrame:
    """One row per head (layers and heads counted from 1), one column per detector."""
    n_layers, n_heads = next(iter(scores.values())).shape
    return pd.DataFrame(
        {
            "layer": np.repeat(np.arange(1, n_layers + 1), n_heads),
            "head": np.tile(np.arange(1, n_heads + 1), n_layers),
        }
        | {DETECTORS[name].label: values.ravel().round(3) for name, values in scores.items()}
    )


def open_head(layer: int, head: int) -> None:
    """A strongest head's button: that layer and head (0-based) in the head view."""
    st.session_state["layer"], st.session_state["head"] = layer + 1, head + 1
    st.session_state["view"] = HEAD_VIEW


def strongest_buttons(scores: np.ndarray, label: str) -> None:
    """The few heads with the highest score, each one click from the head view."""
    st.markdown(f"**Strongest {label} heads**")
    # One row that wraps, not fixed columns: a label cut to a column's width lost its score
    # (two-digit layers, presentation fonts).
    row = st.container(horizontal=True, wrap=True)
    for layer, head, value in strongest(scores, STRONGEST):
        row.button(
            f"Open {head_name(layer, head)} ({value:.2f})",
            key=f"copy_open_{layer}_{head}",
            on_click=open_head,
            args=(layer, head),
            help="Opens this head in the head view (and every other view).",
        )


def score_lines(state: PretrainedState, name: str) -> CellLines:
    r"""How a selected cell ``(layer, head)`` of detector ``name``'s scores ``(L, H)`` was
    computed: :math:`\operatorname{mean}_{i \in R} A_{i,\, i + o}` over the detector's rows
    :math:`R` and offset :math:`o`, from that head's weights ``(T, T)`` on the test input."""
    detector = DETECTORS[name]

    def lines(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        weights = state.model.copy_weights()[cell]  # (T, T)
        rows, offset = detector.stripe(weights.shape[-1], COPY_LENGTH)
        return stripe_cell(weights, rows, offset, detector.label, detector.looks_at, cell).lines

    return lines


def copying_tab(state: PretrainedState) -> None:
    scores = state.model.copying_scores()  # name -> (L, H), computed once per model
    st.markdown(
        f"Each score is measured on a test input: {COPY_LENGTH} random tokens, then the same "
        f"{COPY_LENGTH} again. A **previous-token** head looks one token back; a "
        "**duplicate-token** head finds the earlier copy of the same token; an **induction** "
        "head finds the token that *followed* the earlier copy, which lets a model continue a "
        "pattern it has seen once. 1 means all of a head's attention goes there."
    )
    names = list(DETECTORS)
    name = st.selectbox(
        "Score", names, key="detector", bind=BIND, format_func=lambda n: DETECTORS[n].label
    )
    detector = DETECTORS[name]
    st.caption(detector.help)
    shown = copying_drawn(
        key=state.model.key,
        folder=state.model.folder,
        detector=name,
        style=state.style,
        _state=state,
    )
    chart(shown, key="copy_scores", cells=score_lines(state, name))
    strongest_buttons(scores[name], detector.label)
    frame = scores_frame(scores).sort_values(detector.label, ascending=False, kind="stable")
    head_table(frame, "copy_table", height=360)
    st.caption(f"Open now: {head_name(state.layer, state.head)}. Pick a row to open another head.")
