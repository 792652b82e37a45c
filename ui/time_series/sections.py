"""The time-series page's sections, each drawn from the page's state, and :data:`SECTIONS`.

The notes' worked example, attention over one window before training, and training;
each takes the :class:`ui.time_series.state.TimeSeriesState`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

import attention_core as ac
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.shared.controls import slider_or_only_value
from ui.shared.export import csv_bytes, matrix_frame
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_error
from ui.shared.url import BIND
from ui.shared.worked_examples import five_days
from ui.time_series import figures
from ui.time_series.state import NEEDS_DATA, PREFIX, TimeSeriesState, reset
from ui.time_series.training import TRAINING_INTRO, training_section, training_settings


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
    """Embed one window of the scaled series and show its attention (untrained weights)."""
    assert state.frame is not None and state.columns is not None  # the caller checked
    frame, (features, target), window = state.frame, state.columns, state.window
    config, style, scaling, feature_activation = (
        state.config, state.style, state.scaling, state.feature_activation
    )  # fmt: skip
    values = frame[features].to_numpy(dtype=float)
    fit_rows = ac.scaling_rows(len(frame), window)  # the rows training fits its scaler on
    scaled = ac.fit_scaler(values[fit_rows], scaling).transform(values)
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
    first = end - window + 1
    window_labels = ac.row_labels(frame.index[first : end + 1])
    target_values = frame[target].to_numpy(dtype=float)
    chart(
        figures.series_figure(
            np.asarray(frame.index),
            target_values,
            target,
            {name: scaled[:, i] for i, name in enumerate(features)},
            window=(first, end),
            style=style,
        ),
        key=f"{PREFIX}series_chart",
        place=st,
    )
    st.caption(
        escape_markdown(f"Window: {window_labels[0]} to {window_labels[-1]} ({window} steps).")
    )
    try:
        trace = ac.series_attention(scaled[first : end + 1], config, feature_activation).run.trace
    except ac.InputError as error:
        show_error(str(error))
        return
    chart(
        figures.attention_over_time(
            trace.weights[head],
            window_labels,
            target_values[first : end + 1],
            target,
            mask=trace.mask,
            title=f"Attention weights of head {head + 1} (untrained)",
            style=style,
        ),
        key=f"{PREFIX}weights_chart",
        place=st,
    )
    chart(
        figures.lag_bars(
            {f"head {head + 1}": trace.weights[head][-1]},
            window_labels,
            period=state.period,
            title="The last day's row: what the forecast step would draw on",
            style=style,
        ),
        key=f"{PREFIX}lag_chart",
        place=st,
    )
    dims = [f"h{h + 1}·{j}" for h in range(config.n_heads) for j in range(config.d_v)]
    chart(
        heatmap(
            trace.concat,
            window_labels,
            dims,
            kind="values",
            style=style,
            title="Context vectors (columns: head · dimension), each day's "
            "weighted average of values",
            row_title="day",
            col_title="",
        ),
        key=f"{PREFIX}context",
        place=st,
    )
    with st.expander("All heads and the numbers"):
        chart(
            heatmap_grid(
                trace.weights,
                window_labels,
                window_labels,
                titles=[f"head {h + 1}" for h in range(config.n_heads)],
                title="Every head",
                mask=trace.mask,
                style=style,
            ),
            key=f"{PREFIX}heads_grid",
            place=st,
        )
        weights = matrix_frame(trace.weights[head], window_labels, window_labels)
        st.dataframe(weights.round(style.decimals), key=f"{PREFIX}weights_table")
        st.download_button(
            "Weights as CSV",
            csv_bytes(weights),
            "attention_weights.csv",
            "text/csv",
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
