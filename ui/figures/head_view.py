r"""The head view (after bertviz): lines from query tokens to key tokens, one colour per head.

Queries are listed on the left, keys on the right; the line from query i to
key j of head h is as thick and as opaque as the weight :math:`A^{(h)}_{ij}`.

Plotly cannot vary the width inside one line trace, so weights are rounded up
to :data:`N_LEVELS` strengths and each (head, strength) pair is one trace of
None-separated segments: at most ``H × N_LEVELS`` traces, whatever the length
of the text. Lines below :data:`MIN_WEIGHT` are not drawn (they would be
invisible anyway) and at most :data:`MAX_LINES` of the strongest are kept, so a
128-token text with 16 heads stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ui.figures import build
from ui.figures.style import NORMAL, FigureStyle

MIN_WEIGHT = 0.01
MAX_LINES = 2_000
N_LEVELS = 6
MAX_LINE_WIDTH = 7.0
QUERY_X, KEY_X = 0.0, 1.0
#: Legend entries a row surely holds, even in a narrow column with presentation fonts: more
#: heads wrap the legend onto more rows, and the top margin grows to keep them off the title.
LEGEND_PER_ROW = 4
TOP_PX = 60  #: the top margin for the title and a one-row legend


@dataclass(frozen=True)
class Lines:
    """The lines to draw, one entry per line: head h, query i, key j, weight w."""

    head: np.ndarray
    query: np.ndarray
    key: np.ndarray
    weight: np.ndarray


def select_lines(
    weights: np.ndarray,
    heads: Sequence[int],
    query: int | None = None,
    min_weight: float = MIN_WEIGHT,
    max_lines: int = MAX_LINES,
) -> Lines:
    """Lines worth drawing from ``weights (H, T, S)``.

    Only ``heads`` (0-based), only query row ``query`` (None = every query),
    only weights above ``min_weight``, and of those at most ``max_lines``, the
    strongest first.
    """
    weights = np.asarray(weights)
    head_index = np.asarray(list(heads), dtype=int)
    query_index = np.arange(weights.shape[1]) if query is None else np.array([query])
    chosen = weights[np.ix_(head_index, query_index, np.arange(weights.shape[2]))]
    h, i, j = np.nonzero(chosen > min_weight)
    strength = chosen[h, i, j]
    if strength.size > max_lines:
        strongest = np.argpartition(strength, -max_lines)[-max_lines:]
        h, i, j, strength = h[strongest], i[strongest], j[strongest], strength[strongest]
    return Lines(head_index[h], query_index[i], j, strength)


def strength_level(weight: np.ndarray) -> np.ndarray:
    """Weight in (0, 1] rounded up to a level 1 .. N_LEVELS."""
    return np.clip(np.ceil(np.asarray(weight) * N_LEVELS), 1, N_LEVELS).astype(int)


def _segments(
    lines: Lines, query_labels: Sequence[str], key_labels: Sequence[str], head: int
) -> tuple[list, list, list]:
    """x, y and hover text of None-separated segments, query (left) to key (right)."""
    xs: list = []
    ys: list = []
    texts: list = []
    for i, j, w in zip(lines.query, lines.key, lines.weight, strict=True):
        text = f"head {head + 1}: {query_labels[i]} → {key_labels[j]}<br>weight {w:.3f}"
        xs += [QUERY_X, KEY_X, None]
        ys += [int(i), int(j), None]
        texts += [text, text, None]
    return xs, ys, texts


def _token_column(
    labels: Sequence[str], x: float, side: str, highlight: int | None, style: FigureStyle
) -> go.Scatter:
    colours = ["#000000"] * len(labels)
    if highlight is not None:
        colours[highlight] = "#D55E00"
    return go.Scatter(
        x=[x] * len(labels),
        y=list(range(len(labels))),
        mode="text",
        text=list(labels),
        textposition=f"middle {side}",
        textfont={"size": style.font_size, "color": colours},
        hoverinfo="skip",
        showlegend=False,
    )


def head_view(
    weights: np.ndarray,
    query_labels: Sequence[str],
    key_labels: Sequence[str],
    *,
    heads: Sequence[int],
    query: int | None = None,
    style: FigureStyle = NORMAL,
    title: str = "Head view",
) -> go.Figure:
    """Lines from queries (left) to keys (right) for ``weights (H, T, S)``.

    ``heads``: 0-based heads to draw, each in ``style.head_colour(h)``;
    ``query``: one query row to draw (None = all). Clicking a head in the
    legend hides or shows it.
    """
    query_labels, key_labels = build.as_text(query_labels), build.as_text(key_labels)
    lines = select_lines(weights, heads, query)
    levels = strength_level(lines.weight)
    figure = go.Figure()
    for head in heads:
        figure.add_trace(_legend_entry(head, style))
        for level in range(1, N_LEVELS + 1):
            chosen = (lines.head == head) & (levels == level)
            if chosen.any():
                subset = Lines(
                    lines.head[chosen], lines.query[chosen], lines.key[chosen], lines.weight[chosen]
                )
                xs, ys, texts = _segments(subset, query_labels, key_labels, head)
                figure.add_trace(_line_trace(xs, ys, texts, head, level, style))
    figure.add_trace(_token_column(query_labels, QUERY_X - 0.02, "left", query, style))
    figure.add_trace(_token_column(key_labels, KEY_X + 0.02, "right", None, style))
    _layout(figure, title, max(len(query_labels), len(key_labels)), style, len(heads))
    return figure


def _line_trace(
    xs: list, ys: list, texts: list, head: int, level: int, style: FigureStyle
) -> go.Scatter:
    return go.Scatter(
        x=xs,
        y=ys,
        mode="lines",
        line={
            "color": style.head_colour(head),
            "width": MAX_LINE_WIDTH * level / N_LEVELS,
            "dash": style.head_dash(head),
        },
        opacity=0.15 + 0.85 * level / N_LEVELS,
        text=texts,
        hovertemplate="%{text}<extra></extra>",
        name=f"head {head + 1}",
        legendgroup=f"head {head + 1}",
        showlegend=False,
    )


def _legend_entry(head: int, style: FigureStyle) -> go.Scatter:
    """A data-less trace that shows the head's colour at full strength in the legend."""
    return go.Scatter(
        x=[None],
        y=[None],
        mode="lines",
        line={
            "color": style.head_colour(head),
            "width": MAX_LINE_WIDTH / 2,
            "dash": style.head_dash(head),
        },
        name=f"head {head + 1}",
        legendgroup=f"head {head + 1}",
        showlegend=True,
    )


def _layout(figure: go.Figure, title: str, n_rows: int, style: FigureStyle, n_heads: int) -> None:
    row_px = int(style.font_size * 1.8)
    # A legend of more rows grows up from the plot: the margin grows as much, and the title
    # keeps to the top of the figure (plotly would centre it in the margin, under the legend).
    extra_px = (-(-n_heads // LEGEND_PER_ROW) - 1) * row_px
    placed = {"y": 1.0, "yref": "container", "yanchor": "top", "pad": {"t": 12}}
    figure.update_layout(
        title={"text": title, "font": {"size": style.title_size}, **(placed if extra_px else {})},
        font={"size": style.font_size},
        height=120 + extra_px + row_px * n_rows,
        margin={"l": 10, "r": 10, "t": TOP_PX + extra_px, "b": 10},
        plot_bgcolor="rgba(0,0,0,0)",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0.0},
        hovermode="closest",
    )
    figure.update_xaxes(visible=False, range=[QUERY_X - 0.6, KEY_X + 0.6], fixedrange=True)
    figure.update_yaxes(visible=False, range=[n_rows - 0.5, -0.5], fixedrange=True)
