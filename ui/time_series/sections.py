"""The time-series page's sections: the notes' example, attention over one window, training."""

from __future__ import annotations

import numpy as np
import streamlit as st

import attention_core as ac
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import FigureStyle
from ui.shared.controls import slider_or_only_value
from ui.shared.export import csv_bytes, matrix_frame
from ui.shared.matrix_view import chart
from ui.shared.safe import escape_markdown, show_error
from ui.shared.url import BIND
from ui.shared.worked_examples import five_days
from ui.time_series import figures
from ui.time_series.state import PREFIX, reset


def five_day_example(style: FigureStyle) -> None:
    """The notes' five days × two variables (seed 42), with the numbers they print."""
    if st.toggle(
        "Show the notes' worked example: five days, two variables, seed 42",
        key=f"{PREFIX}five_day",
        bind=BIND,
    ):
        five_days(style, key_prefix=PREFIX)


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


def attention_section(
    frame, features, target, window, scaling, feature_activation, config, head, style, period
) -> None:
    """Embed one window of the scaled series and show its attention (untrained weights)."""
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
        key="ts_series_chart",
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
        key="ts_weights_chart",
        place=st,
    )
    chart(
        figures.lag_bars(
            {f"head {head + 1}": trace.weights[head][-1]},
            window_labels,
            period=period,
            title="The last day's row: what the forecast step would draw on",
            style=style,
        ),
        key="ts_lag_chart",
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
        key="ts_context",
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
            key="ts_heads_grid",
            place=st,
        )
        weights = matrix_frame(trace.weights[head], window_labels, window_labels)
        st.dataframe(weights.round(style.decimals), key="ts_weights_table")
        st.download_button(
            "Weights as CSV",
            csv_bytes(weights),
            "attention_weights.csv",
            "text/csv",
            key="ts_weights_csv",
        )
