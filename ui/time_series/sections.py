"""The time-series page's sections, each drawn from the page's state, and :data:`SECTIONS`.

The notes' worked example, attention over one window before training, and training;
each takes the :class:`ui.time_series.state.TimeSeriesState`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

import attention_core as ac
from ui.shared.cell_lines import context_lines, weight_lines
from ui.shared.controls import slider_or_only_value
from ui.shared.export import download_button
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_error
from ui.shared.url import BIND
from ui.shared.worked_examples import five_days
from ui.time_series import cache
from ui.time_series.state import NEEDS_DATA, PREFIX, TimeSeriesState, reset
from ui.time_series.training import TRAINING_INTRO, training_section, training_settings

#: The expander with every head's weights, the chosen head's table and its CSV.
ALL_HEADS = "All heads and the numbers"


def worked_example(state: TimeSeriesState) -> None:
    """The notes' five days × two variables (seed 42), with the numbers they print."""
    with state.example_place:
        if st.toggle(
            "Show the notes' worked example: five days, two variables, seed 42",
            key=f"{PREFIX}five_day",
            bind=BIND,
        ):
            five_days(state.style, key_prefix=PREFIX)


def head_choice(config: ac.AttentionConfig) -> int:
    """Which head (0-based) the single-head charts show; a choice only with several heads."""
    if config.n_heads == 1:
        return 0
    return (
        st.radio(
            "Head", range(1, config.n_heads + 1), horizontal=True, key=f"{PREFIX}head", bind=BIND
        )
        - 1
    )


def window_attention(state: TimeSeriesState, head: int) -> None:
    """Embed one window of the scaled series and show its attention (untrained weights).

    The run, its charts and its table are shared by every session on the same view
    (:mod:`ui.time_series.cache`); this draws them.
    """
    assert state.frame is not None and state.columns is not None  # the caller checked
    frame, window, style = state.frame, state.window, state.style
    if not window - 1 <= st.session_state.get(f"{PREFIX}end", window - 1) < len(frame):
        reset(end=len(frame) - 1)  # the window length changed under it
    end = slider_or_only_value(
        st,
        "Window ends at row",
        window - 1,
        len(frame) - 1,
        len(frame) - 1,
        key=f"{PREFIX}end",
        bind=BIND,
        help="Move the window through time; row numbers count from 0.",
    )
    inputs = cache.window_inputs(
        state.fingerprint,
        state.columns,
        window,
        state.scaling,
        end,
        state.config,
        state.feature_activation,
    )
    run = cache.window_run(inputs, frame)
    series = cache.series_chart(inputs.series, end, style, frame)
    chart(series, key=f"{PREFIX}series_chart", place=st)
    st.caption(escape_markdown(f"Window: {run.labels[0]} to {run.labels[-1]} ({window} steps)."))
    if run.error is not None:
        show_error(run.error)
        return
    assert run.masked is not None and run.weights is not None and run.v is not None
    normaliser = state.config.normaliser
    weights = cache.weights_chart(inputs, head, style, run)
    cells = weight_lines(run.masked[head], normaliser)
    chart(weights, key=f"{PREFIX}weights_chart", place=st, cells=cells)
    lags = cache.lag_chart(inputs, head, state.period, style, run)
    chart(lags, key=f"{PREFIX}lag_chart", place=st)
    context = cache.context_chart(inputs, style, run)
    chart(context, key=f"{PREFIX}context", place=st, cells=context_lines(run.weights, run.v))
    numbers = st.expander(ALL_HEADS, key=f"{PREFIX}all_heads", on_change="rerun")
    if not numbers.open:  # built only when opened: most runs would send it unseen
        return
    with numbers:
        heads = cache.heads_chart(inputs, style, run)
        cells = weight_lines(run.masked, normaliser)  # panel k: head k
        chart(heads, key=f"{PREFIX}heads_grid", place=st, cells=cells)
        table = cache.weights_table(inputs, head, style.decimals, run)
        st.dataframe(table, key=f"{PREFIX}weights_table")
        download_button(
            "Weights as CSV",
            functools.partial(cache.weights_csv, run, head),
            "attention_weights.csv",
            key=f"{PREFIX}weights_csv",
        )


def attention_over_time(state: TimeSeriesState) -> None:
    """Section 2: the chosen head's weights over one window, before any training."""
    st.header("2 · Attention over time, before any training")
    head = head_choice(state.config)
    if state.columns is None:
        st.caption(NEEDS_DATA)
        return
    window_attention(state, head)


def training(state: TimeSeriesState) -> None:
    """Section 3: train the notes' model on this series, only when asked (loads PyTorch)."""
    st.header("3 · Train a model")
    if not st.toggle(
        "Train the notes' model on this series (loads PyTorch)", key=f"{PREFIX}train", bind=BIND
    ):
        return
    st.markdown(TRAINING_INTRO)
    settings = training_settings()
    if state.frame is None or state.columns is None:
        st.caption(NEEDS_DATA)
        return
    training_section(
        state.frame,
        state.fingerprint,
        *state.columns,
        state.window,
        state.scaling,
        state.feature_activation,
        state.config,
        settings,
        state.style,
        state.period,
    )


#: The page's sections, top to bottom (section 1, the data, is drawn by read_state).
SECTIONS: tuple[Callable[[TimeSeriesState], None], ...] = (
    worked_example,
    attention_over_time,
    training,
)
