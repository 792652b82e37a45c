"""Figures of the time-series page's training: the loss curves and the forecasts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures.style import NORMAL, FigureStyle
from ui.time_series.figures import LINE_COLOUR, SECOND_COLOUR, THIRD_COLOUR, _title


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
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(
            x=np.asarray(steps),
            y=np.asarray(train_loss, dtype=np.float32),
            name="training",
            mode="lines",
            line={"color": LINE_COLOUR},
        )
    )
    figure.add_trace(
        go.Scatter(
            x=np.asarray(steps),
            y=np.asarray(val_loss, dtype=np.float32),
            name="validation",
            mode="lines",
            line={"color": SECOND_COLOUR},
        )
    )
    if best_step:
        figure.add_vline(x=best_step, line_dash="dot", line_color="#555555", annotation_text="kept")
    figure.update_xaxes(title="step")
    figure.update_yaxes(title="mean squared error (scaled units)", rangemode="tozero")
    return _title(figure, title, style, 320)


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
        go.Scatter(
            x=labels,
            y=np.asarray(actual, dtype=np.float32),
            name="actual",
            mode="lines+markers",
            line={"color": "#000000"},
            marker={"size": 4},
        )
    )
    dashes = ("solid", "dot", "dash")
    for index, (name, values) in enumerate(forecasts.items()):
        figure.add_trace(
            go.Scatter(
                x=labels,
                y=np.asarray(values, dtype=np.float32),
                name=name,
                mode="lines",
                line={
                    "color": (LINE_COLOUR, SECOND_COLOUR, THIRD_COLOUR)[index % 3],
                    "dash": dashes[index % 3],
                },
            )
        )
    figure.update_xaxes(title="forecast day", type="category", nticks=12)
    return _title(figure, title, style, 380)
