"""The time-series page's window runs and figures, computed once per server for every session.

Every student of a lecture reruns the same view, one after another
on one process; building this page's figures in each session's run would be most of a
student's rerun (benchmarks/class_pages.py measures it). Here a
window view is computed and drawn once per server and every session with the same view
gets the same objects.

A view is named by a :class:`WindowInputs`: the data (its fingerprint names its content,
a sample or an upload's hash), its columns, the window, the scaling, the window's last
row, the model's config and the feature activation. Each cached function takes it and
is keyed by its digest, a short string computed once per rerun, rather than by the
series itself (up to 100,000 × 50 numbers): the data follows from the fingerprint, so it
goes in as ``_frame``, which Streamlit leaves out of the key. The figure builders take the
run as ``_run`` in the same way. Everything cached is read-only: a run's arrays are
frozen, and a figure is finished inside its builder (drawing it only reads it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

import attention_core as ac
from attention_core.boundary.arrays import read_only_fields
from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import FigureStyle
from ui.shared.export import csv_bytes, matrix_frame
from ui.shared.figure_cache import (
    FIGURE_TTL_SECONDS,
    CachedChart,
    cached_chart,
    cached_figures,
    digest,
)
from ui.time_series import figures


@dataclass(frozen=True)
class SeriesInputs:
    """What the scaled series is computed from; ``digest`` names it in every cache."""

    fingerprint: str  #: names the data's content ("sample:seasonal", "upload:<hash>")
    features: tuple[str, ...]  #: the p feature columns
    target: str  #: the column to forecast
    window: int  #: T; the scaler is fitted on the rows training's windows see
    scaling: str  #: the name of the scaling (ac.SERIES_SCALINGS)
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        fields = (self.fingerprint, self.features, self.target, self.window, self.scaling)
        object.__setattr__(self, "digest", digest(fields))


@dataclass(frozen=True)
class WindowInputs:
    """One window of a series and the untrained model that attends over it."""

    series: SeriesInputs
    end: int  #: the window's last row (0-based); it starts at ``end - T + 1``
    config: ac.AttentionConfig
    feature_activation: str  #: g in g(XW) (ac.FEATURE_ACTIVATIONS)
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        named = (self.series.digest, self.end, self.config, self.feature_activation)
        object.__setattr__(self, "digest", digest(named))

    @property
    def first(self) -> int:
        """The window's first row."""
        return self.end - self.series.window + 1


@dataclass(frozen=True)
class WindowRun:
    """Attention over one window, as much as the page draws and explains: labels, target,
    weights, context, and what a selected weight or context entry is computed from.

    Only these are kept (not the whole trace with Q, K and every stage of the scores).
    """

    labels: tuple[str, ...]  #: (T,) unique text labels of the window's rows
    target: np.ndarray  #: (T,) the window's target in its own units
    weights: np.ndarray | None  #: (H, T, T) every head's weights; None if refused
    concat: np.ndarray | None  #: (T, H·d_v) each day's context vectors, heads side by side
    mask: np.ndarray | None  #: (T, T) True where a day may attend; None if all may
    masked: np.ndarray | None = None  #: (H, T, T) the scores each weight row is the softmax of
    v: np.ndarray | None = None  #: (H, T, d_v) each head's values
    error: str | None = None  #: the core's message when it refused the window; else None


# st.cache_resource bounds each builder's cache on its own; these are entries per function.
# Reruns of one session hit them; a lecture shows a handful of views (the current
# one and the last few, one head at a time). Sizes at the largest view (an upload
# of 100,000 × 50, T = 128, 16 heads, d_model 512), and far less for the usual ones:
# a run ~5.3 MB (from its shapes: the weights and the masked scores 2.1 MB each, the context
# and the values 0.5 MB each); measured, the series chart (~2,000 points on each of 51 lines)
# ~3.6 MB and the window's five charts and table ~3.3 MB together. At most
# 12 × 5.3 + 8 × 3.6 + 12 × 3.3 ≈ 130 MB in all, a few MB for the samples.
RUN_ENTRIES = 12
# The series chart changes only with the data, columns, scaling, window and its end (not
# with the model), so fewer are needed.
SERIES_ENTRIES = 8
WINDOW_FIGURE_ENTRIES = 12
KEY_HASHES = {
    SeriesInputs: lambda inputs: inputs.digest,
    WindowInputs: lambda inputs: inputs.digest,
}
cached_series = cached_figures(SERIES_ENTRIES, KEY_HASHES)
cached_window = cached_figures(WINDOW_FIGURE_ENTRIES, KEY_HASHES)


def window_inputs(
    fingerprint: str,
    columns: tuple[list[str], str],
    window: int,
    scaling: str,
    end: int,
    config: ac.AttentionConfig,
    feature_activation: str,
) -> WindowInputs:
    """The view's name, made once per rerun."""
    features, target = columns
    series = SeriesInputs(fingerprint, tuple(features), target, window, scaling)
    return WindowInputs(series, end, config, feature_activation)


def scaler_of(series: SeriesInputs, frame: pd.DataFrame) -> tuple[np.ndarray, ac.Scaler]:
    """The features ``(N, p)`` and their scaler, fitted on the rows training sees."""
    values = frame[list(series.features)].to_numpy(dtype=float)
    fit_rows = ac.scaling_rows(len(frame), series.window)
    return values, ac.fit_scaler(values[fit_rows], series.scaling)


@st.cache_resource(
    max_entries=RUN_ENTRIES,
    ttl=FIGURE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs=KEY_HASHES,
)
def window_run(inputs: WindowInputs, _frame: pd.DataFrame) -> WindowRun:
    """Attention over rows ``first..end`` of the scaled series (``_frame``: the data the
    fingerprint names; a leading underscore: not hashed)."""
    first, end = inputs.first, inputs.end
    values, scaler = scaler_of(inputs.series, _frame)
    labels = tuple(ac.row_labels(_frame.index[first : end + 1]))
    target = _frame[inputs.series.target].to_numpy(dtype=float)[first : end + 1]
    try:
        attention = ac.series_attention(
            scaler.transform(values[first : end + 1]), inputs.config, inputs.feature_activation
        )
    except ac.InputError as error:
        return read_only_fields(WindowRun(labels, target, None, None, None, error=str(error)))
    trace = attention.run.trace
    kept = (trace.weights, trace.concat, trace.mask, trace.masked, trace.v)
    return read_only_fields(WindowRun(labels, target, *kept))


@cached_series
def series_chart(
    series: SeriesInputs, end: int, style: FigureStyle, _frame: pd.DataFrame
) -> CachedChart:
    """The target and the scaled features over the whole series, the window shaded."""
    values, scaler = scaler_of(series, _frame)
    scaled = scaler.transform(values)
    return cached_chart(
        figures.series_figure(
            np.asarray(_frame.index),
            _frame[series.target].to_numpy(dtype=float),
            series.target,
            {name: scaled[:, i] for i, name in enumerate(series.features)},
            window=(end - series.window + 1, end),
            style=style,
        )
    )


def _weights(run: WindowRun) -> np.ndarray:
    assert run.weights is not None  # the page shows run.error instead of charts
    return run.weights


@cached_window
def weights_chart(
    inputs: WindowInputs, head: int, style: FigureStyle, _run: WindowRun
) -> CachedChart:
    """One head's ``(T, T)`` weights with the window's target along both axes."""
    return cached_chart(
        figures.attention_over_time(
            _weights(_run)[head],
            _run.labels,
            _run.target,
            inputs.series.target,
            mask=_run.mask,
            title=f"Attention weights of head {head + 1} (untrained)",
            style=style,
        )
    )


@cached_window
def lag_chart(
    inputs: WindowInputs, head: int, period: int | None, style: FigureStyle, _run: WindowRun
) -> CachedChart:
    """The last day's row of one head's weights, over lags."""
    return cached_chart(
        figures.lag_bars(
            {f"head {head + 1}": _weights(_run)[head][-1]},
            _run.labels,
            period=period,
            title="The last day's row: what the forecast step would draw on",
            style=style,
        )
    )


@cached_window
def context_chart(inputs: WindowInputs, style: FigureStyle, _run: WindowRun) -> CachedChart:
    """Every day's context vector ``(T, H·d_v)``: columns by head and dimension."""
    config = inputs.config
    dims = [f"h{h + 1}·{j}" for h in range(config.n_heads) for j in range(config.d_v)]
    assert _run.concat is not None  # as _weights
    return cached_chart(
        heatmap(
            _run.concat,
            list(_run.labels),
            dims,
            kind="values",
            style=style,
            title=(
                "Context vectors (columns: head · dimension), each day's weighted average of values"
            ),
            row_title="day",
            col_title="",
        )
    )


@cached_window
def heads_chart(inputs: WindowInputs, style: FigureStyle, _run: WindowRun) -> CachedChart:
    """Every head's ``(T, T)`` weights side by side."""
    labels = list(_run.labels)
    return cached_chart(
        heatmap_grid(
            _weights(_run),
            labels,
            labels,
            titles=[f"head {h + 1}" for h in range(inputs.config.n_heads)],
            title="Every head",
            mask=_run.mask,
            style=style,
        )
    )


def weights_frame(run: WindowRun, head: int) -> pd.DataFrame:
    """One head's weights as a table, days as rows (queries) and columns (keys)."""
    return matrix_frame(_weights(run)[head], run.labels, run.labels)


@cached_window
def weights_table(inputs: WindowInputs, head: int, decimals: int, _run: WindowRun) -> pa.Table:
    """The table on screen: one head's weights rounded to ``decimals``, as the Arrow table
    the browser is sent (Streamlit would convert a DataFrame again on every rerun).

    An Arrow table is immutable; its pandas metadata keeps the days as its index, so it
    is shown as the DataFrame was (the same bytes, as ``st.dataframe`` converts one).
    """
    return pa.Table.from_pandas(weights_frame(_run, head).round(decimals))


def weights_csv(run: WindowRun, head: int) -> bytes:
    """The download: one head's weights at full precision (built only when clicked)."""
    return csv_bytes(weights_frame(run, head))
