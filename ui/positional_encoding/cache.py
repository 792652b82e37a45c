"""The positional-encoding page's numbers and charts, built once per server for every session.

Every student of a lecture reruns the same view, one after
another on one process; building the figures (and the swap's two attention runs)
again in each session would be most of a student's rerun (benchmarks/class_pages.py
measures it). Here every matrix, run and chart is made once per view and handed to every
session that shows it (:func:`ui.shared.figure_cache.cached_figures`), in as few
cached calls as the page allows: Streamlit hashes each argument of each call again.

Keys are small: a :class:`PositionalState` (four settings and the style, hashed as
its repr), the chosen dimensions, a :class:`Swap` (hashed as its repr) and the style.
Everything else follows from them. Shared arrays are read-only, and a shared figure
is never changed after its builder returns: drawing it (``st.plotly_chart``) only
reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

import attention_core as ac
from attention_core.boundary.arrays import read_only, read_only_fields
from attention_core.teaching import word_order
from ui.figures.style import FigureStyle
from ui.positional_encoding import figures
from ui.positional_encoding.state import SWAP_D_MODEL, PositionalState
from ui.shared.figure_cache import CachedChart, cached_chart, cached_figures

#: A view's settings, hashed as their repr (a frozen dataclass's repr lists every field).
STATE_HASHES = {PositionalState: repr}
#: Views held: a lecture shows a handful of views, each in normal and presentation style.
#: The largest (512 × 512: P and P Pᵀ, 2 MB each, their two heatmaps with z as base64
#: and hover labels; rotary's offsets) holds ~8.5 MB (measured), so 12 of the largest
#: stay near ~100 MB; a default view (64 × 64) holds ~0.5 MB.
VIEWS_HELD = 12
#: Curve charts (at most 8 × 512 numbers) are kilobytes; a swap of the longest sentence
#: (128 tokens: two runs, two grids) ~2.4 MB (measured), so 32 stay under ~80 MB.
SMALL_HELD = 32


# --- The encoding -----------------------------------------------------------


@dataclass(frozen=True)
class EncodingView:
    """The numbers and charts of one encoding: ``P (T, d)``, ``P Pᵀ (T, T)`` and their
    heatmaps; for rotary also the offset scores and their chart. Arrays are read-only."""

    matrix: np.ndarray
    similarity: np.ndarray
    matrix_chart: CachedChart
    similarity_chart: CachedChart
    offsets: word_order.RotaryOffsets | None
    rotary_chart: CachedChart | None


@cached_figures(VIEWS_HELD, STATE_HASHES)
def encoding_view(state: PositionalState) -> EncodingView:
    """Everything the encoding ``state`` names shows, but its curves (one call per section).

    Raises ``ac.InputError`` (not cached) if the encoding cannot be made.
    """
    kind, length, width, base = state.kind, state.length, state.d_model, state.base
    matrix = read_only(word_order.position_matrix(kind, length, width, base), copy=False)
    similarity = read_only(word_order.position_similarity(matrix), copy=False)
    matrix_chart = cached_chart(
        figures.encoding_heatmap(
            matrix,
            title=f"{kind} encoding ({length} positions × {width} dimensions)",
            style=state.style,
        )
    )
    similarity_chart = cached_chart(
        figures.similarity_heatmap(
            similarity, title="How alike two positions are: P Pᵀ", style=state.style
        )
    )
    if kind != "rotary":
        return EncodingView(matrix, similarity, matrix_chart, similarity_chart, None, None)
    offsets = read_only_fields(
        word_order.rotary_offset_scores(width, max_offset=length - 1, base=base)
    )
    rotary_chart = cached_chart(
        figures.rotary_offset_figure(
            offsets.starts,
            offsets.offsets,
            offsets.scores,
            title="Score of one query and one key, rotated to positions p and p + o",
            style=state.style,
        )
    )
    return EncodingView(matrix, similarity, matrix_chart, similarity_chart, offsets, rotary_chart)


@cached_figures(SMALL_HELD, STATE_HASHES)
def curves_chart(state: PositionalState, dims: tuple[int, ...]) -> CachedChart:
    """Columns ``dims`` of ``P`` as curves over the position."""
    matrix = encoding_view(state).matrix
    return cached_chart(
        figures.dimension_curves(matrix, dims, title="Selected dimensions", style=state.style)
    )


# --- The swap ---------------------------------------------------------------


@dataclass(frozen=True)
class Swap:
    """The swap to show: a sentence, the two positions, the encoding beside "none"."""

    tokens: ac.Tokens
    first: int
    second: int
    with_kind: str

    @property
    def positionals(self) -> tuple[str, str]:
        """The two runs' encodings: none, then ``with_kind``."""
        return ("none", self.with_kind)


@dataclass(frozen=True)
class SwapPanels:
    """Both runs of a :class:`Swap` (by encoding), its token table and both charts."""

    runs: dict[str, word_order.SwapComparison]
    table: pa.Table
    charts: dict[str, CachedChart]


@cached_figures(SMALL_HELD, {Swap: repr})
def swap_panels(swap: Swap, style: FigureStyle) -> SwapPanels:
    """``compare_swapped`` on the fixed one-head model, without and with an encoding.

    The token table is the Arrow table ``st.dataframe`` would make of the same columns
    (an Arrow table is immutable, so every session may show this one).
    """
    tokens = swap.tokens
    runs = {
        positional: read_only_fields(
            word_order.compare_swapped(
                tokens.tokens,
                swap.first,
                swap.second,
                ac.AttentionConfig(d_model=SWAP_D_MODEL, n_heads=1, positional=positional),
            )
        )
        for positional in swap.positionals
    }
    frame = pd.DataFrame(
        {
            "position": list(range(len(tokens.tokens))),
            "original": list(tokens.tokens),
            "swapped": list(runs["none"].swapped_tokens),
        }
    )
    charts = {
        positional: cached_chart(
            figures.swap_grid(
                run.weights[0],
                run.realigned_weights[0],
                tokens.labels,
                title="Attention weights",
                style=style,
            )
        )
        for positional, run in runs.items()
    }
    return SwapPanels(runs, pa.Table.from_pandas(frame), charts)
