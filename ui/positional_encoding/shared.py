"""The positional-encoding page's numbers and charts, built once per server and shared.

A class following its teacher reruns the same view for every student, one after
another on one process; building the figures (and the swap's two attention runs)
again in each session was most of a follower's rerun (~29 ms; BENCHMARKS.md). Here
every matrix, run and chart is made once per view and handed to every session that
shows it (:func:`ui.shared.shared_figures.shared_figures`).

Keys are small: a :class:`PositionalState` (four settings and the style, hashed as
its repr), the chosen dimensions, the swap's tokens and positions. Everything
else follows from them, so each builder asks the cached numbers itself. Shared
arrays are read-only and a shared figure is never changed after its builder returns:
drawing it (``st.plotly_chart``) only reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pyarrow as pa
import streamlit as st

import attention_core as ac
from attention_core.boundary.arrays import read_only, read_only_fields
from attention_core.teaching import word_order
from ui.figures.describe import describe_figure
from ui.figures.style import FigureStyle
from ui.positional_encoding import figures
from ui.positional_encoding.state import SWAP_D_MODEL, PositionalState
from ui.shared.shared_figures import FIGURE_TTL_SECONDS, shared_figures

#: A view's settings, hashed as their repr (a frozen dataclass's repr lists every field).
STATE_HASHES = {PositionalState: repr}
#: Matrices held: a class shows a handful of views; the largest (512 × 512 float64)
#: is 2 MB, so P and P Pᵀ together stay under 64 MB.
NUMBERS_HELD = 16
#: Charts held per builder: a handful of views, each in normal and presentation
#: style. The largest (512 × 512 heatmap: float32 z plus its hover text) is a few MB,
#: so the two heatmap builders stay under ~100 MB; curves and swaps are kilobytes.
CHARTS_HELD = 16
#: Swap runs held: two per view (without and with an encoding), a few kB each.
SWAPS_HELD = 32


@dataclass(frozen=True)
class Chart:
    """A shared figure and its text alternative (``describe_figure``), both made once."""

    figure: go.Figure
    alt: str


def _chart(figure: go.Figure) -> Chart:
    return Chart(figure, describe_figure(figure))


# --- Numbers ----------------------------------------------------------------


@st.cache_resource(max_entries=NUMBERS_HELD, ttl=FIGURE_TTL_SECONDS, show_spinner=False)
def encoding_matrix(kind: str, length: int, d_model: int, base: float) -> np.ndarray:
    """The read-only ``P (length, d_model)`` of ``kind`` (``word_order.position_matrix``)."""
    return read_only(word_order.position_matrix(kind, length, d_model, base), copy=False)


@st.cache_resource(max_entries=NUMBERS_HELD, ttl=FIGURE_TTL_SECONDS, show_spinner=False)
def similarity_matrix(kind: str, length: int, d_model: int, base: float) -> np.ndarray:
    """The read-only ``P Pᵀ (length, length)`` of :func:`encoding_matrix`."""
    encoding = encoding_matrix(kind, length, d_model, base)
    return read_only(word_order.position_similarity(encoding), copy=False)


@st.cache_resource(max_entries=NUMBERS_HELD, ttl=FIGURE_TTL_SECONDS, show_spinner=False)
def rotary_offsets(length: int, d_model: int, base: float) -> word_order.RotaryOffsets:
    """Rotary scores for offsets 0 … ``length - 1`` (read-only arrays)."""
    offsets = word_order.rotary_offset_scores(d_model, max_offset=length - 1, base=base)
    return read_only_fields(offsets)


@st.cache_resource(max_entries=SWAPS_HELD, ttl=FIGURE_TTL_SECONDS, show_spinner=False)
def swap_comparison(
    tokens: tuple[str, ...], first: int, second: int, positional: str
) -> word_order.SwapComparison:
    """``compare_swapped`` on the swap demonstration's fixed one-head model (read-only)."""
    config = ac.AttentionConfig(d_model=SWAP_D_MODEL, n_heads=1, positional=positional)
    return read_only_fields(word_order.compare_swapped(tokens, first, second, config))


@st.cache_resource(max_entries=SWAPS_HELD, ttl=FIGURE_TTL_SECONDS, show_spinner=False)
def swap_table(tokens: tuple[str, ...], swapped: tuple[str, ...]) -> pa.Table:
    """Position, original and swapped token, as the Arrow table ``st.dataframe`` sends.

    The same table Streamlit makes from the DataFrame each run; an Arrow table is
    immutable, so every session may show this one.
    """
    frame = pd.DataFrame(
        {"position": list(range(len(tokens))), "original": list(tokens), "swapped": list(swapped)}
    )
    return pa.Table.from_pandas(frame)


# --- Charts -----------------------------------------------------------------


def _matrix_of(state: PositionalState) -> np.ndarray:
    return encoding_matrix(state.kind, state.length, state.d_model, state.base)


@shared_figures(CHARTS_HELD, STATE_HASHES)
def matrix_chart(state: PositionalState) -> Chart:
    """The heatmap of ``P (T, d)``."""
    length, width = state.length, state.d_model
    return _chart(
        figures.encoding_heatmap(
            _matrix_of(state),
            title=f"{state.kind} encoding ({length} positions × {width} dimensions)",
            style=state.style,
        )
    )


@shared_figures(CHARTS_HELD, STATE_HASHES)
def curves_chart(state: PositionalState, dims: tuple[int, ...]) -> Chart:
    """Columns ``dims`` of ``P`` as curves over the position."""
    return _chart(
        figures.dimension_curves(
            _matrix_of(state), dims, title="Selected dimensions", style=state.style
        )
    )


@shared_figures(CHARTS_HELD, STATE_HASHES)
def similarity_chart(state: PositionalState) -> Chart:
    """The heatmap of ``P Pᵀ (T, T)``."""
    return _chart(
        figures.similarity_heatmap(
            similarity_matrix(state.kind, state.length, state.d_model, state.base),
            title="How alike two positions are: P Pᵀ",
            style=state.style,
        )
    )


@shared_figures(CHARTS_HELD, STATE_HASHES)
def rotary_chart(state: PositionalState) -> Chart:
    """One rotary score curve per query position, against the offset."""
    offsets = rotary_offsets(state.length, state.d_model, state.base)
    return _chart(
        figures.rotary_offset_figure(
            offsets.starts,
            offsets.offsets,
            offsets.scores,
            title="Score of one query and one key, rotated to positions p and p + o",
            style=state.style,
        )
    )


@shared_figures(SWAPS_HELD)
def swap_chart(
    tokens: tuple[str, ...],
    labels: tuple[str, ...],
    first: int,
    second: int,
    positional: str,
    style: FigureStyle,
) -> Chart:
    """Original weights beside the swapped sentence's, put back (``labels``: ``tokens``')."""
    comparison = swap_comparison(tokens, first, second, positional)
    return _chart(
        figures.swap_grid(
            comparison.weights[0],
            comparison.realigned_weights[0],
            labels,
            title="Attention weights",
            style=style,
        )
    )
