"""Figures and tables of the walkthrough.

Figure builders take arrays, labels and a :class:`ui.figures.style.FigureStyle` and
return a ``plotly.graph_objects.Figure``; table builders return a DataFrame
(shown as text by Streamlit). Numbers as text: :mod:`ui.shared.numbers`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.figures.heatmap import heatmap_grid
from ui.figures.style import NORMAL, FigureStyle

# --- Lecture step 1: soft lookup ---------------------------------------------


def lookup_figure(
    key_vectors: np.ndarray,
    key_labels: Sequence[str],
    query: np.ndarray,
    weights: np.ndarray,
    value_labels: Sequence[str],
    *,
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """Keys ``(S, 2)`` and query ``(2,)`` in the plane, beside the weights ``(S,)`` per value."""
    figure = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.55, 0.45],
        subplot_titles=["keys and the query", "how much of each value comes back"],
    )
    colours = [style.head_colour(index) for index in range(len(key_labels))]
    figure.add_trace(
        go.Scatter(
            x=key_vectors[:, 0],
            y=key_vectors[:, 1],
            mode="markers+text",
            text=list(key_labels),
            textposition="bottom center",
            name="keys",
            marker={"size": 14 + 36 * np.asarray(weights), "color": colours},
            hovertemplate="%{text}<br>key = (%{x}, %{y})<extra></extra>",
        ),
        row=1,
        col=1,
    )
    figure.add_trace(
        go.Scatter(
            x=[0.0, float(query[0])],
            y=[0.0, float(query[1])],
            mode="lines+markers",
            name="query",
            line={"color": "#000000", "width": 3},
            marker={"symbol": ["circle", "star"], "size": [4, 18], "color": "#000000"},
            hovertemplate="query = (%{x:.2f}, %{y:.2f})<extra></extra>",
        ),
        row=1,
        col=1,
    )
    figure.add_trace(
        go.Bar(
            x=list(value_labels),
            y=np.asarray(weights, dtype=float),
            marker={"color": colours},
            text=[f"{w:.{style.decimals}f}" for w in weights],
            textposition="outside",
            name="weights",
            hovertemplate="%{x}: %{y:.4f}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    # the query plane (left): both axes alike, one unit as long on each
    plane = {"range": [-3.5, 3.5], "zeroline": True, "tickfont": {"size": style.tick_size}}
    figure.update_xaxes(title="axis 0 (visual arts)", row=1, col=1, **plane)
    figure.update_yaxes(title="axis 1 (stage ↔ page)", row=1, col=1, scaleanchor="x", **plane)
    figure.update_yaxes(
        title="weight", range=[0, 1.15], row=1, col=2, tickfont={"size": style.tick_size}
    )
    figure.update_xaxes(type="category", row=1, col=2, tickfont={"size": style.tick_size})
    figure.update_layout(
        font={"size": style.font_size},
        showlegend=False,
        height=300 + 12 * style.font_size,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return figure


def lookup_frame(
    key_labels: Sequence[str],
    value_labels: Sequence[str],
    key_vectors: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray,
    decimals: int = 4,
) -> pd.DataFrame:
    """The lookup table with each key's similarity and weight, one row per key."""
    return pd.DataFrame(
        {
            "key": list(key_labels),
            "key vector": [f"({x:g}, {y:g})" for x, y in key_vectors],
            "value": list(value_labels),
            "similarity q·k": np.round(scores, decimals),
            "weight": np.round(weights, decimals),
        }
    )


# --- Lecture step 3: saturation ------------------------------------------------


def saturation_figure(
    widths: np.ndarray,
    unscaled: Mapping[str, np.ndarray],
    scaled: Mapping[str, np.ndarray],
    *,
    style: FigureStyle = NORMAL,
) -> go.Figure:
    """One panel per measure (the keys of ``unscaled``/``scaled``), against width d (log axis)."""
    names = list(unscaled)
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=names)
    for column, name in enumerate(names, start=1):
        for label, series, colour in (
            ("unscaled QKᵀ", unscaled[name], style.head_colour(5)),
            ("scaled QKᵀ/√d", scaled[name], style.head_colour(0)),
        ):
            figure.add_trace(
                go.Scatter(
                    x=widths,
                    y=series,
                    mode="lines+markers",
                    name=label,
                    line={"color": colour, "width": 3},
                    legendgroup=label,
                    showlegend=column == 1,
                    hovertemplate=f"d = %{{x}}<br>{label}: %{{y:.3f}}<extra></extra>",
                ),
                row=1,
                col=column,
            )
        figure.update_xaxes(
            type="log",
            title="width d",
            tickvals=list(widths),
            row=1,
            col=column,
            tickfont={"size": style.tick_size},
        )
        figure.update_yaxes(
            rangemode="tozero", row=1, col=column, tickfont={"size": style.tick_size}
        )
    figure.update_layout(
        font={"size": style.font_size},
        height=260 + 10 * style.font_size,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    return figure


def saturation_frame(
    widths: np.ndarray, columns: Mapping[str, np.ndarray], decimals: int = 3
) -> pd.DataFrame:
    """A table with one row per width d and one column per named series."""
    frame = pd.DataFrame({name: np.round(values, decimals) for name, values in columns.items()})
    frame.insert(0, "d", np.asarray(widths))
    return frame


# --- Lecture step 4: masking ---------------------------------------------------


def masking_frame(
    labels: Sequence[str], columns: Mapping[str, np.ndarray], decimals: int = 3
) -> pd.DataFrame:
    """Per-query numbers (forbidden weight, row sum) of each variant, one row per query."""
    return pd.DataFrame(
        {name: np.round(values, decimals) for name, values in columns.items()},
        index=pd.Index(list(labels), name="query"),
    )


# --- Lecture step 6: gradients ---------------------------------------------------


def gradient_grid(
    gradients: Mapping[str, np.ndarray], *, title: str, style: FigureStyle = NORMAL
) -> go.Figure:
    """The gradients of same-shaped weight matrices ``(d, dk)`` side by side."""
    names = list(gradients)
    stack = np.stack([gradients[name] for name in names])
    rows = [f"in {index}" for index in range(stack.shape[1])]
    cols = [f"out {index}" for index in range(stack.shape[2])]
    return heatmap_grid(
        stack,
        rows,
        cols,
        titles=[f"∂L/∂{name}" for name in names],
        title=title,
        kind="scores",
        row_title="input feature",
        col_title="output feature",
        style=style,
        columns=len(names),
    )


def difference_frame(differences: Mapping[str, float]) -> pd.DataFrame:
    """One row per matrix with max |hand − autograd| in scientific notation."""
    return pd.DataFrame(
        {
            "matrix": list(differences),
            "max |hand − autograd|": [f"{value:.2e}" for value in differences.values()],
        }
    )
