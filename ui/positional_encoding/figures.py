"""Figures of the positional-encoding page.

Every builder takes arrays and a :class:`ui.figures.style.FigureStyle` and returns a
``plotly.graph_objects.Figure``; matrix views go through :func:`ui.figures.heatmap.heatmap`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures.heatmap import heatmap, heatmap_grid
from ui.figures.style import NORMAL, FigureStyle

# Line dashes, so curves that lie exactly on top of each other stay tellable apart.
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def position_labels(count: int) -> list[str]:
    """``pos 0``, ``pos 1``, … (unique, so the category axis never merges rows)."""
    return [f"pos {index}" for index in range(count)]


def dimension_labels(count: int) -> list[str]:
    """``dim 0``, ``dim 1``, …"""
    return [f"dim {index}" for index in range(count)]


def default_dimensions(d_model: int) -> list[int]:
    """A few dimensions with clearly different frequencies: 0, 1, ~d/4 and ~d/2 (even)."""
    picks = {0, 1, 2 * (d_model // 8), 2 * (d_model // 4)}
    return sorted(dim for dim in picks if dim < d_model)


def encoding_heatmap(matrix: np.ndarray, *, title: str, style: FigureStyle = NORMAL) -> go.Figure:
    """The encoding ``matrix (T, d)``: one row per position, one column per dimension."""
    length, width = matrix.shape
    return heatmap(
        matrix,
        position_labels(length),
        dimension_labels(width),
        title=title,
        kind="values",
        row_title="position",
        col_title="dimension",
        style=style,
    )


def similarity_heatmap(
    similarity: np.ndarray, *, title: str, style: FigureStyle = NORMAL
) -> go.Figure:
    """Position-by-position similarity ``(T, T)``, diverging colours around 0."""
    labels = position_labels(similarity.shape[0])
    return heatmap(
        similarity,
        labels,
        labels,
        title=title,
        kind="scores",
        row_title="position p",
        col_title="position r",
        style=style,
    )


def _line_layout(
    figure: go.Figure, title: str, x_title: str, y_title: str, style: FigureStyle
) -> go.Figure:
    figure.update_layout(
        title={"text": title, "font": {"size": style.title_size}},
        font={"size": style.font_size},
        height=260 + 10 * style.font_size,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        legend={"font": {"size": style.tick_size}},
        hovermode="x unified",
    )
    figure.update_xaxes(title=x_title, tickfont={"size": style.tick_size})
    figure.update_yaxes(title=y_title, tickfont={"size": style.tick_size})
    return figure


def dimension_curves(
    matrix: np.ndarray, dimensions: Sequence[int], *, title: str, style: FigureStyle = NORMAL
) -> go.Figure:
    """Columns ``dimensions`` of ``matrix (T, d)`` as curves over the position."""
    positions = np.arange(matrix.shape[0])
    figure = go.Figure()
    for index, dim in enumerate(dimensions):
        figure.add_trace(
            go.Scatter(
                x=positions,
                y=np.asarray(matrix[:, dim], dtype=np.float32),
                mode="lines",
                name=f"dim {dim}",
                line={"color": style.head_colour(index), "width": 2},
                hovertemplate=f"dim {dim}: %{{y:{style.number_format}}}<extra></extra>",
            )
        )
    return _line_layout(figure, title, "position", "value", style)


def rotary_offset_figure(
    starts: np.ndarray,
    offsets: np.ndarray,
    scores: np.ndarray,
    *,
    title: str,
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """One curve ``scores[s] (O,)`` per query position ``starts[s]``, against the offset."""
    figure = go.Figure()
    for index, start in enumerate(starts):
        figure.add_trace(
            go.Scatter(
                x=offsets,
                y=scores[index],
                mode="lines",
                name=f"query at position {start}",
                line={
                    "color": style.head_colour(index),
                    "width": 2 + 2 * (len(starts) - index - 1),
                    "dash": DASHES[index % len(DASHES)],
                },
                hovertemplate=f"p = {start}: %{{y:{style.number_format}}}<extra></extra>",
            )
        )
    return _line_layout(figure, title, "offset o (key position − query position)", "score", style)


def swap_grid(
    weights: np.ndarray,
    realigned: np.ndarray,
    labels: Sequence[str],
    *,
    title: str,
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """Original weights ``(T, T)`` beside the swapped sentence's, put back in the same order."""
    return heatmap_grid(
        np.stack([weights, realigned]),
        labels,
        labels,
        titles=["original", "swapped, put back"],
        title=title,
        style=style,
        columns=2,
    )
