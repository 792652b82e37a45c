"""Time series: which past days each day attends to, and a model that learns to use them.

Read top to bottom: the notes' worked example, the data, attention over one
window before any training, then (only when asked) training the notes' model.
The training section lives in `ui.time_series.training`; PyTorch is imported only there,
once training is switched on.
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from ui.figures.style import FigureStyle
from ui.shared.controls import attention_controls, control_keys
from ui.shared.presentation import current_style
from ui.shared.safe import show_error
from ui.shared.url import BIND, snapshot, warn_rejected
from ui.time_series.sections import attention_section, five_day_example, head_choice
from ui.time_series.state import (
    NEEDS_DATA,
    OPTIONS,
    PAGE_KEYS,
    PREFIX,
    data_source,
    usable_columns,
    window_controls,
)
from ui.time_series.training import TRAINING_INTRO, training_section, training_settings


def page(config: ac.AttentionConfig, style: FigureStyle) -> None:
    """Data, attention over one window, training: each step only when the data works.

    Every setting that fits any data is drawn even while there is none: replacing
    an uploaded file passes through a run without one, and a URL-bound widget
    missing from a finished run loses its URL value (Streamlit does not always
    put it back when the widget returns).
    """
    five_day_example(style)
    st.header("1 · Data")
    frame, fingerprint = data_source()
    window, scaling, feature_activation = window_controls()
    columns = usable_columns(frame, fingerprint, window)
    period = ac.SEASONAL_PERIOD if fingerprint == "sample:seasonal" else None
    st.header("2 · Attention over time, before any training")
    head = head_choice(config)
    if columns is None:
        st.caption(NEEDS_DATA)
    else:
        attention_section(
            frame, *columns, window, scaling, feature_activation, config, head, style, period
        )
    st.header("3 · Train a model")
    if not st.toggle(
        "Train the notes' model on this series (loads PyTorch)", key=f"{PREFIX}train", bind=BIND
    ):
        return
    st.markdown(TRAINING_INTRO)
    settings = training_settings()
    if columns is None:
        st.caption(NEEDS_DATA)
        return
    training_section(
        frame,
        fingerprint,
        *columns,
        window,
        scaling,
        feature_activation,
        config,
        settings,
        style,
        period,
    )


def main() -> None:
    before = snapshot()
    st.title("Time-series attention")
    st.markdown(
        "Each day of a window asks which earlier days matter to it. The weights "
        "below say how much of each earlier day flows into that day's summary; the "
        "model forecasts tomorrow from the last day's summary."
    )
    try:
        config = attention_controls(PREFIX, OPTIONS)
    except ac.InputError as error:
        show_error(str(error))
        st.stop()
    page(config, current_style())
    warn_rejected(before, control_keys(PREFIX) + PAGE_KEYS)


main()
