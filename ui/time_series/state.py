"""The time-series page's settings, read once into a :class:`TimeSeriesState`.

:func:`read_state` draws the sidebar's model controls and section "1 · Data" (the
data, its columns, the window); the sections (``ui.time_series.sections``) draw
the rest from the state. The built-in samples and uploaded files are read once
per content and cached here, at module level (a page script runs again on every
rerun).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import attention_core as ac
from attention_core.boundary import limits
from attention_core.boundary.registry import WINDOW
from attention_core.timeseries.csv_layout import DELIMITER_NAMES
from ui.figures.style import FigureStyle
from ui.shared.control_source import Drawn
from ui.shared.controls import ControlOptions, attention_controls, control_keys, select_option
from ui.shared.presentation import current_style
from ui.shared.safe import escape_markdown, show_error, show_info
from ui.shared.url import BIND

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
# Drawn by ui.time_series.training (which takes PREFIX from here).
TRAINING_NAMES = ("steps", "layers", "hidden", "lr", "layer", "change", "off", "off_kind")
PAGE_NAMES = ("source", "sample", "target", "length", "scaling", "act", "end", "head", "five_day")
#: Every URL key the page binds.
URL_KEYS = (
    *control_keys(PREFIX),
    *(f"{PREFIX}{name}" for name in (*PAGE_NAMES, "train", *TRAINING_NAMES)),
    f"{PREFIX}features",
)
# A link's feature list is not checked: the columns start from their defaults whenever
# the data changes, so a list for other data is no bad link. Each head of the list of heads
# turned off is checked by ui.shared.heads_off.warn_unknown_heads.
CHECKED_KEYS = tuple(key for key in URL_KEYS if key not in (f"{PREFIX}features", f"{PREFIX}off"))


@dataclass(frozen=True)
class TimeSeriesState:
    """Every setting the sections need: the model, the data and the window."""

    config: ac.AttentionConfig
    style: FigureStyle
    example_place: DeltaGenerator  #: where the notes' worked example goes, above the data
    fingerprint: str  #: names the data ("sample:seasonal", "upload:<hash>"), "" for none
    frame: pd.DataFrame | None  #: the series, one row per time step; None before any data
    columns: tuple[list[str], str] | None  #: features and target; None if no window fits
    window: int  #: T, time steps per window
    scaling: str  #: the name of the scaling of each column (ac.SERIES_SCALINGS)
    feature_activation: str  #: g in g(XW) (ac.FEATURE_ACTIVATIONS)

    @property
    def period(self) -> int | None:
        """The seasonal sample's period (the lag charts mark it); None for other data."""
        return ac.SEASONAL_PERIOD if self.fingerprint == "sample:seasonal" else None


# The series are shared by every session (st.cache_resource: one object, never changed;
# the page and the core only read them). st.cache_data unpickled a copy in every rerun of
# every session: up to 40 MB for the largest upload, for each student on the view.
@st.cache_resource(max_entries=4, show_spinner=False)
def load_sample(name: str) -> pd.DataFrame:
    """A built-in series; plotly ships its stock prices inside the package (no network)."""
    if name == "seasonal":
        return ac.seasonal_series()
    if name == "ohlcv":
        return ac.synthetic_ohlcv()
    import plotly.data

    return ac.read_series(plotly.data.stocks().to_csv(index=False).encode())


# An upload of at most 5 MB holds at most 100,000 × 50 numbers: ≤ 40 MB a frame, 8 held.
@st.cache_resource(max_entries=8, ttl=3600, show_spinner=False)
def load_upload(fingerprint: str, _data: bytes) -> pd.DataFrame:
    """Read an uploaded file once per content (keyed by its hash, not its 5 MB of bytes)."""
    return ac.read_series(_data)


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
        help="One row per time step (or a year per row and a column per month). Dates, years, "
        "a year with its quarter or month, or row numbers 1..n become the time axis, not a "
        "column; text columns are left out. Comma, semicolon, tab or space separated.",
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


def read_as(report: ac.SeriesReport) -> str:
    """One sentence: how the file was read, its time axis, and how a wide table became a series."""
    header = "with a header row" if report.has_header else "without a header row"
    summary = f"Read as {report.encoding}, {DELIMITER_NAMES[report.delimiter]}-separated, {header}"
    if report.time_columns:
        names = " and ".join(repr(name) for name in report.time_columns)
        plural = "s" if len(report.time_columns) > 1 else ""
        summary += f"; time axis: {report.time_kind} from column{plural} {names}"
    if report.layout:
        summary += f"; {report.layout}"
    return summary + "."


def show_report(report: ac.SeriesReport) -> None:
    """How the file was read, and what was dropped or filled (all as literal text)."""
    st.caption(escape_markdown(read_as(report)))
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
    named = (name for name in ("close", "sales") if name in columns)
    target_default = next(named, None) or ac.default_target(frame)
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
        ac.SERIES_SCALINGS.label,
        list(SCALINGS),
        horizontal=True,
        key=f"{PREFIX}scaling",
        bind=BIND,
    )
    with third:
        feature_activation = select_option(
            Drawn(),
            ac.FEATURE_ACTIVATIONS.label,
            ac.FEATURE_ACTIVATIONS.help,
            ac.FEATURE_ACTIVATIONS,
            None,
            "relu",
            f"{PREFIX}act",
        )
    return int(window), SCALINGS[scaling_label], feature_activation


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


def model_or_stop() -> ac.AttentionConfig:
    """The sidebar's model controls; the core's message and a stop if it refuses them."""
    try:
        return attention_controls(PREFIX, OPTIONS)
    except ac.InputError as error:
        show_error(str(error))
        st.stop()


def read_state() -> TimeSeriesState:
    """Draw the model controls and section "1 · Data"; return every setting.

    Every setting that fits any data is drawn even while there is none: replacing
    an uploaded file passes through a run without one, and a URL-bound widget
    missing from a finished run loses its URL value (Streamlit does not always
    put it back when the widget returns).
    """
    config = model_or_stop()
    example_place = st.container()
    st.header("1 · Data")
    frame, fingerprint = data_source()
    window, scaling, feature_activation = window_controls()
    columns = usable_columns(frame, fingerprint, window)
    return TimeSeriesState(
        config,
        current_style(),
        example_place,
        fingerprint,
        frame,
        columns,
        window,
        scaling,
        feature_activation,
    )
