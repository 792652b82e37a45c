"""Figures of the time-series page: the series, attention over time, lags.

Each builder takes arrays and labels and returns a ``plotly.graph_objects.Figure``.
Matrix views are made by :func:`ui.figures.heatmap.heatmap`; here they get the series
drawn along their axes. The training curves are in :mod:`ui.time_series.training_figures`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.figures.heatmap import heatmap
from ui.figures.style import NORMAL, FigureStyle

# Lines of more points than this are thinned for the screen (every k-th point).
MAX_LINE_POINTS = 2_000
LINE_COLOUR = "#0072B2"
SECOND_COLOUR = "#E69F00"
THIRD_COLOUR = "#009E73"
QUERY_TITLE = "query (day that looks)"
KEY_TITLE = "key (day looked at)"
#: Colours of the lines or bars of one figure, in turn.
SERIES_COLOURS = (LINE_COLOUR, SECOND_COLOUR, THIRD_COLOUR)


def titled(figure: go.Figure, title: str, style: FigureStyle, height: int) -> go.Figure:
    figure.update_layout(
        title={"text": title, "font": {"size": style.title_size}},
        font={"size": style.font_size},
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
    )
    return figure


def line(
    x: Sequence | np.ndarray,
    y: np.ndarray,
    name: str,
    colour: str,
    *,
    mode: str = "lines",
    dash: str | None = None,
    **extra: object,
) -> go.Scatter:
    """One series ``y (N,)`` (sent as float32) against ``x (N,)``, in ``colour``."""
    style = {"color": colour} if dash is None else {"color": colour, "dash": dash}
    return go.Scatter(
        x=x, y=np.asarray(y, dtype=np.float32), name=name, mode=mode, line=style, **extra
    )


def series_figure(
    x: Sequence,
    target: np.ndarray,
    target_name: str,
    scaled_features: Mapping[str, np.ndarray],
    *,
    window: tuple[int, int] | None = None,
    title: str = "The series",
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """The target in its own units (top) and the scaled features the model sees (bottom).

    ``x (N,)`` dates or row numbers; ``target (N,)``; each feature ``(N,)``.
    ``window = (first, last)`` row positions are shaded in both panels. Long
    series are thinned to about ``MAX_LINE_POINTS`` points per line.
    """
    x = np.asarray(x)
    step = max(1, -(-len(x) // MAX_LINE_POINTS))
    shade = None if window is None else (x[window[0]], x[window[1]])
    x, target = x[::step], np.asarray(target)[::step]
    scaled_features = {name: np.asarray(values)[::step] for name, values in scaled_features.items()}
    figure = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        row_heights=[0.55, 0.45],
        subplot_titles=(f"target: {target_name}", "features after scaling"),
    )
    figure.add_trace(line(x, target, target_name, LINE_COLOUR, showlegend=False), row=1, col=1)
    for index, (name, values) in enumerate(scaled_features.items()):
        colour = style.head_colour(index + 1)
        figure.add_trace(line(x, values, name, colour, legendgroup="features"), row=2, col=1)
    if shade is not None:
        for row in (1, 2):
            figure.add_vrect(
                x0=shade[0],
                x1=shade[1],
                fillcolor=SECOND_COLOUR,
                opacity=0.2,
                line_width=0,
                row=row,
                col=1,
            )
    return titled(figure, title, style, 460)


def _masked_cells(mask: np.ndarray, labels: list[str], style: FigureStyle) -> go.Heatmap:
    """Grey cells where attention is not allowed (no text, so it scales to any size)."""
    return go.Heatmap(
        z=np.where(mask, np.nan, 0.0).astype(np.float32),
        x=labels,
        y=labels,
        colorscale=[[0, style.masked_colour], [1, style.masked_colour]],
        showscale=False,
        hoverinfo="skip",
        name="masked",
    )


def attention_over_time(
    weights: np.ndarray,
    labels: Sequence[str],
    target: np.ndarray,
    target_name: str,
    *,
    mask: np.ndarray | None = None,
    title: str = "Attention weights over time",
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """The ``(T, T)`` weights as a heatmap with the window's target drawn along both axes.

    Rows are queries (the day that looks), columns keys (the day looked at);
    the target ``(T,)`` runs above the key axis and left of the query axis so
    that a bright cell can be read against the values it links. The figure keeps the
    heatmap's look (``layout.meta``), so the page draws the weights as a walkable matrix
    (:mod:`ui.shared.walk_chart`), this figure in its plotly expander.
    """
    labels = list(labels)
    matrix = heatmap(
        weights,
        labels,
        labels,
        title=title,
        kind="weights",
        mask=mask,
        row_title=QUERY_TITLE,
        col_title=KEY_TITLE,
        style=style,
    )
    figure = make_subplots(
        rows=2,
        cols=2,
        column_widths=[0.16, 0.84],
        row_heights=[0.18, 0.82],
        shared_xaxes="columns",
        shared_yaxes="rows",
        horizontal_spacing=0.01,
        vertical_spacing=0.01,
    )
    values = np.asarray(target, dtype=np.float32)
    figure.add_trace(
        line(labels, values, target_name, LINE_COLOUR, mode="lines+markers", showlegend=False),
        row=1,
        col=2,
    )
    # The same line turned on its side, left of the query axis.
    figure.add_trace(
        go.Scatter(
            x=values,
            y=labels,
            mode="lines+markers",
            line={"color": LINE_COLOUR},
            name=target_name,
            showlegend=False,
        ),
        row=2,
        col=1,
    )
    figure.add_trace(matrix.data[0], row=2, col=2)
    if mask is not None and not np.all(mask):
        figure.add_trace(_masked_cells(np.asarray(mask, dtype=bool), labels, style), row=2, col=2)
    days = {"type": "category", "tickfont": {"size": style.tick_size}}
    figure.update_xaxes(type="category", showticklabels=False, row=1, col=2)
    figure.update_xaxes(days, side="bottom", title=KEY_TITLE, row=2, col=2)
    figure.update_yaxes(type="category", autorange="reversed", showticklabels=False, row=2, col=2)
    figure.update_yaxes(days, autorange="reversed", title=QUERY_TITLE, row=2, col=1)
    figure.update_xaxes(autorange="reversed", title=target_name, row=2, col=1)
    figure.update_yaxes(title=target_name, row=1, col=2)
    size = len(labels)
    figure.update_layout(meta=matrix.layout.meta)  # one heatmap among lines: still walkable
    return titled(figure, title, style, 260 + min(size, 40) * max(style.cell_px // 2, 12))


def lag_labels(length: int) -> list[int]:
    """Lags of a window of ``length`` steps, oldest first: ``[T, ..., 1]``.

    Lag k is k steps before the step being forecast, so the window's last day is lag 1.
    """
    return list(range(length, 0, -1))


def lag_bars(
    rows: Mapping[str, np.ndarray],
    labels: Sequence[str],
    *,
    title: str = "What the last day attends to",
    period: int | None = None,
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """Bars of one or more weight rows ``(T,)`` over lags (oldest left, lag 1 right).

    ``labels (T,)`` are the window's dates, shown on hover. With ``period``,
    dotted lines mark the lags that are whole periods before the forecast.
    """
    figure = go.Figure()
    for index, (name, row) in enumerate(rows.items()):
        row = np.asarray(row, dtype=np.float32)
        figure.add_trace(
            go.Bar(
                x=lag_labels(len(row)),
                y=row,
                name=name,
                customdata=list(labels),
                marker_color=SERIES_COLOURS[index % len(SERIES_COLOURS)],
                hovertemplate=f"lag %{{x}} (%{{customdata}})<br>weight %{{y:{style.number_format}}}"
                "<extra></extra>",
            )
        )
    length = len(labels)
    if period:
        for lag in range(period, length + 1, period):
            figure.add_vline(x=lag, line_dash="dot", line_color="#555555")
    figure.update_xaxes(
        title="lag: steps before the forecast step (1 = the window's last day)",
        autorange="reversed",
        dtick=1 if length <= 32 else None,
    )
    figure.update_yaxes(title="attention weight", rangemode="tozero")
    figure.update_layout(barmode="group")
    return titled(figure, title, style, 340)
