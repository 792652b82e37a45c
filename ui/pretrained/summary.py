"""The pretrained page's head summary: Clark et al.'s measures per head, sortable, clickable."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from attention_core.pretrained import head_measures
from attention_core.teaching.head_questions import head_name
from ui.pretrained.cache import head_measures_frame
from ui.pretrained.head_table import head_table
from ui.pretrained.state import PretrainedState
from ui.shared.url import BIND

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


#: measures a decoder cannot show: it has no [CLS] or [SEP], and never sees the next token
ENCODER_ONLY = frozenset({"cls", "sep", "next"})


def shown_measures(state: PretrainedState) -> dict[str, str]:
    """The measures that mean something for this model (name -> column title)."""
    causal = state.model.info.causal
    return {
        name: title
        for name, title in head_measures.MEASURES.items()
        if not (causal and name in ENCODER_ONLY)
    }


def summary_frame(state: PretrainedState, sort_by: str | None = None) -> pd.DataFrame:
    """One row per head, Clark et al.'s measures as columns (rounded to 3 decimals), by layer or
    by measure ``sort_by`` (largest first); shared by every session (read-only)."""
    measures = tuple(shown_measures(state).items())
    title = None if sort_by is None else head_measures.MEASURES[sort_by]
    return head_measures_frame(digest=state.digest, measures=measures, sort_by=title, _state=state)


def summary_section(state: PretrainedState, preset: str) -> None:
    """The sortable head table; picking a row opens that head."""
    frame = summary_frame(state, PRESETS[preset])
    st.caption(
        f"Mean over the {len(state.encoded)} query tokens of each head's weights (Clark et al. "
        f"2019). Entropy is in nats; a uniform row has log T = {np.log(len(state.encoded)):.3f}"
        + (
            " (a decoder's row t spreads over t + 1 tokens only, so its uniform row has "
            "log(t + 1)). "
            if state.model.info.causal
            else ". "
        )
        + "Click a column to sort, a row to open that head in the other views."
    )
    head_table(frame, "head_table", height=420)


def summary_tab(state: PretrainedState) -> None:
    shown = set(shown_measures(state).values())
    presets = [p for p, m in PRESETS.items() if m is None or head_measures.MEASURES[m] in shown]
    preset = st.selectbox("Show", presets, key="preset", bind=BIND)
    summary_section(state, preset)
    st.caption(f"Open now: {head_name(state.layer, state.head)}.")
