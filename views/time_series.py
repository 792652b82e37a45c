"""Time series: which past days each day attends to, and a model that learns to use them.

Read top to bottom: the notes' worked example, the data, attention over one
window before any training, then (only when asked) training the notes' model.
The training section lives in `ui.time_series.training`; PyTorch is imported only there,
once training is switched on.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as ac
from attention_core.boundary import limits
from attention_core.boundary.registry import WINDOW
from attention_core.timeseries.csv_reader import DELIMITER_NAMES
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import FigureStyle
from ui.shared.controls import (
    ControlOptions,
    attention_controls,
    control_keys,
    select_option,
    slider_or_only_value,
)
from ui.shared.export import csv_bytes, matrix_frame
from ui.shared.matrix_view import chart
from ui.shared.presentation import current_style
from ui.shared.safe import escape_markdown, show_error, show_info
from ui.shared.url import BIND, snapshot, warn_rejected
from ui.shared.worked_examples import five_days
from ui.time_series import figures
from ui.time_series.training import KEYS as TRAINING_KEYS
from ui.time_series.training import TRAINING_INTRO, training_section, training_settings

PREFIX = "ts_"
OPTIONS = ControlOptions(
    positional=("learned", "sinusoidal"),
    mask_inputs=frozenset({WINDOW}),  # no padding tokens or grid in a series
    default_positional="learned",
    default_mask="causal",
    show_embedding=False,
    show_combine=False,
)
SAMPLES = {
    "seasonal": "Seasonal sales: period 7 plus noise",
    "ohlcv": "Synthetic stock: open, high, low, close, volume",
    "stocks": "Six tech stocks 2018–2019 (plotly's sample data)",
}
# The page shows (and links hold) each scaling's label; the core takes its name.
SCALINGS = {option.label: name for name, option in ac.SERIES_SCALINGS.items()}
DEFAULT_WINDOW = 28
DEFAULT_FEATURES = 8
NEEDS_DATA = "This step needs data: choose a sample, or upload a file that fits a window."
PAGE_KEYS = [
    f"{PREFIX}{name}"
    for name in (
        "source",
        "sample",
        "target",
        "length",
        "scaling",
        "act",
        "end",
        "head",
        "five_day",
        "train",
    )
] + TRAINING_KEYS


@st.cache_data(max_entries=4, show_spinner=False)
def load_sample(name: str) -> pd.DataFrame:
    """A built-in series; plotly ships its stock prices inside the package (no network)."""
    if name == "seasonal":
        return ac.seasonal_series()
    if name == "ohlcv":
        return ac.synthetic_ohlcv()
    import plotly.data

    return ac.read_series(plotly.data.stocks().to_csv(index=False).encode())


@st.cache_data(max_entries=16, ttl=3600, show_spinner=False)
def load_upload(fingerprint: str, _data: bytes) -> pd.DataFrame:
    """Read an uploaded file once per content (keyed by its hash, not its 5 MB of bytes)."""
    return ac.read_series(_data)


def five_day_example(style: FigureStyle) -> None:
    """The notes' five days × two variables (seed 42), with the numbers they print."""
    if st.toggle(
        "Show the notes' worked example: five days, two variables, seed 42",
        key=f"{PREFIX}five_day",
        bind=BIND,
    ):
        five_days(style, key_prefix=PREFIX)


def data_source() -> tuple[pd.DataFrame | None, str]:
    """The chosen sample or the uploaded file, and a short fingerprint of it."""
    # Bound widgets put their option text in the URL, so options are short words.
    source = st.radio(
        "Data: a built-in sample or your own file",
        ["sample", "upload"],
        horizontal=True,
        key=f"{PREFIX}source",
        bind=BIND,
    )
    if source == "sample":
        name = st.selectbox("Sample", list(SAMPLES), key=f"{PREFIX}sample", bind=BIND)
        st.caption(SAMPLES[name])
        return load_sample(name), f"sample:{name}"
    upload = st.file_uploader(
        "A CSV, TSV or semicolon-separated file (at most "
        f"{limits.MAX_UPLOAD_BYTES // (1024 * 1024)} MB, {limits.MAX_SERIES_ROWS:,} rows, "
        f"{limits.MAX_SERIES_COLUMNS} columns)",
        type=["csv", "tsv", "txt"],
        key=f"{PREFIX}upload",
        max_upload_size=limits.MAX_UPLOAD_BYTES // (1024 * 1024),
        help="One row per time step; a date column becomes the time axis; text columns are "
        "left out.",
    )
    if upload is None:
        st.info("Upload a file, or switch to a built-in sample.")
        return None, ""
    data = upload.getvalue()  # the whole file on every rerun, whatever was read before
    fingerprint = hashlib.sha256(data).hexdigest()[:16]
    try:
        frame = load_upload(fingerprint, data)
    except ac.InputError as error:
        show_error(str(error))
        return None, ""
    show_report(ac.series_report(frame))
    return frame, f"upload:{fingerprint}"


def show_report(report: ac.SeriesReport) -> None:
    """How the file was read, and what was dropped or filled (all as literal text)."""
    header = "with a header row" if report.has_header else "without a header row"
    summary = f"Read as {report.encoding}, {DELIMITER_NAMES[report.delimiter]}-separated, {header}"
    if report.index_column:
        summary += f"; time axis from column {report.index_column!r}"
    st.caption(escape_markdown(summary + "."))
    for name, reason in report.dropped:
        show_info(f"Column {name!r} is left out: {reason}.")
    for note in report.notes:
        show_info(note)


def reset(**values: object) -> None:
    """Set URL-bound widgets to new values before they are drawn (new data, new defaults).

    Bound widgets are changed through session state, the one way Streamlit
    supports; removing them from the session or the URL instead also dropped the
    page's other bound settings from the URL.
    """
    for name, value in values.items():
        st.session_state[f"{PREFIX}{name}"] = value


def column_controls(frame: pd.DataFrame, fingerprint: str) -> tuple[list[str], str]:
    """Feature columns and target: they start from their defaults whenever the data changes."""
    columns = list(frame.columns)
    target_default = next((name for name in ("close", "sales") if name in columns), columns[0])
    # New data: its columns start from their defaults (a link's apply on the first run).
    if st.session_state.get(f"{PREFIX}data") not in (None, fingerprint):
        reset(features=columns[:DEFAULT_FEATURES], target=target_default, end=len(frame) - 1)
    st.session_state[f"{PREFIX}data"] = fingerprint
    left, right = st.columns(2)
    features = left.multiselect(
        "Feature columns (p of them feed the model)",
        columns,
        default=columns[:DEFAULT_FEATURES],
        key=f"{PREFIX}features",
        bind=BIND,
    )
    target = right.selectbox(
        "Target (the column to forecast)",
        columns,
        index=columns.index(target_default),
        key=f"{PREFIX}target",
        bind=BIND,
    )
    return features, target


def window_controls() -> tuple[int, str, str]:
    """Window length T, scaling and the embedding's feature activation: settings that fit any data.

    Drawn whether or not there is data yet. Replacing an uploaded file passes
    through a run without one; a bound widget missing from a finished run loses
    its URL value, and Streamlit does not always put it back.
    """
    first, second, third = st.columns(3)
    window = first.slider(
        "Window length T (time steps)",
        2,
        limits.MAX_WINDOW,
        DEFAULT_WINDOW,
        key=f"{PREFIX}length",
        bind=BIND,
    )
    scaling_label = second.radio(
        "Scaling of each column", list(SCALINGS), horizontal=True, key=f"{PREFIX}scaling", bind=BIND
    )
    feature_activation = select_option(
        "Embedding activation g in g(XW)",
        "The function applied to each day's embedding.",
        ac.FEATURE_ACTIVATIONS,
        None,
        "relu",
        f"{PREFIX}act",
        place=third,
    )
    return int(window), SCALINGS[scaling_label], feature_activation


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


def usable_columns(
    frame: pd.DataFrame | None, fingerprint: str, window: int
) -> tuple[list[str], str] | None:
    """Feature columns and target when the data can fill a window; else None (said why)."""
    if frame is None:
        return None
    features, target = column_controls(frame, fingerprint)
    try:
        if not features:
            raise ac.InputError("Choose at least one feature column.")
        ac.check_window(len(frame), window)
    except ac.InputError as error:
        show_error(str(error))
        return None
    return features, target


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
