"""Figures of the time-series page's training: the loss curves and the forecasts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures.style import NORMAL, FigureStyle
from ui.time_series.figures import LINE_COLOUR, SECOND_COLOUR, SERIES_COLOURS, line, titled


def loss_figure(
    steps: np.ndarray,
    train_loss: np.ndarray,
    val_loss: np.ndarray,
    *,
    best_step: int | None = None,
    title: str = "Loss while training",
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """Training and validation MSE ``(E,)`` against the optimiser step ``(E,)``."""
    steps = np.asarray(steps)
    figure = go.Figure()
    figure.add_trace(line(steps, train_loss, "training", LINE_COLOUR))
    figure.add_trace(line(steps, val_loss, "validation", SECOND_COLOUR))
    if best_step:
        figure.add_vline(x=best_step, line_dash="dot", line_color="#555555", annotation_text="kept")
    figure.update_xaxes(title="step")
    figure.update_yaxes(title="mean squared error (scaled units)", rangemode="tozero")
    return titled(figure, title, style, 320)


def forecast_figure(
    labels: Sequence[str],
    actual: np.ndarray,
    forecasts: Mapping[str, np.ndarray],
    *,
    title: str = "Forecasts on the validation days",
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """Actual values ``(M,)`` and each named forecast ``(M,)`` over the validation days."""
    labels = list(labels)
    figure = go.Figure(
        line(labels, actual, "actual", "#000000", mode="lines+markers", marker={"size": 4})
    )
    dashes = ("solid", "dot", "dash")
    for index, (name, values) in enumerate(forecasts.items()):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        figure.add_trace(line(labels, values, name, colour, dash=dashes[index % len(dashes)]))
    figure.update_xaxes(title="forecast day", type="category", nticks=12)
    return titled(figure, title, style, 380)


def head_error_figure(
    heads: Sequence[str],
    intact: float,
    errors: Mapping[str, np.ndarray],
    *,
    title: str = "Forecast error with each head off",
    measure: str = "MAE",
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """One group of bars per head ``(L·H,)`` (``"L1 H2"``), a bar for each way of turning it
    off (``errors``: name -> ``(L·H,)``), and the intact model's error as a dotted line."""
    heads = list(heads)
    figure = go.Figure()
    for index, (name, values) in enumerate(errors.items()):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        figure.add_trace(go.Bar(x=heads, y=np.asarray(values), name=name, marker_color=colour))
    figure.add_hline(
        y=intact, line_dash="dot", line_color="#000000", annotation_text="every head on"
    )
    figure.update_layout(barmode="group")
    figure.update_xaxes(title="head turned off", type="category")
    figure.update_yaxes(title=f"{measure} on the validation days", rangemode="tozero")
    return titled(figure, title, style, 360)
