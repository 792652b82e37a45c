"""Figures, tables and number formatting of the classroom walkthrough.

Figure builders take arrays, labels and a :class:`ui.figures.style.FigureStyle` and
return a ``plotly.graph_objects.Figure``; table builders return a DataFrame
(shown as text by Streamlit); formatters return plain strings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attention_core.maths import attention, backward
from attention_core.teaching import pitfalls, soft_lookup, walkthrough_steps
from ui.figures.heatmap import heatmap_grid
from ui.figures.style import NORMAL, FigureStyle

#: The lecture steps, in order: the page's headings and step picker.
STEP_TITLES = (
    "Attention as a soft dictionary lookup",
    "The course notes' worked examples, recomputed",
    "Why the scores are divided by √d",
    "Masking: keeping the future out",
    "Several heads in parallel",
    "Learning: the backward pass by hand",
)

#: The core functions each step's numbers come from, shown in its "The code" expander.
STEP_CODE: dict[int, tuple[Callable, ...]] = {
    1: (soft_lookup.soft_lookup, attention.softmax),
    2: (attention.scaled_dot_product_attention, attention.softmax),
    3: (walkthrough_steps.softmax_saturation, attention.softmax),
    4: (
        walkthrough_steps.masking_comparison,
        attention.mask_scores,
        attention.softmax,
        pitfalls.multiplicative_mask_pitfall,
        pitfalls.wrong_axis_softmax_pitfall,
    ),
    5: (attention.multi_head_attention, attention.project, attention.split_heads),
    6: (backward.attention_backward, backward.softmax_backward),
}

_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


# --- Matrices ------------------------------------------------------------------


# --- Numbers as text ---------------------------------------------------------


def format_matrix(matrix: np.ndarray, decimals: int = 8) -> str:
    """A matrix printed the way NumPy prints it in the notebooks, ``decimals`` places."""
    return np.array2string(
        np.asarray(matrix, dtype=float),
        precision=decimals,
        suppress_small=True,
        max_line_width=120,
        floatmode="maxprec",
    )


def plain_number(value: float) -> str:
    """``1.0``, ``0.4``, ``0.22``: short, with a decimal point, no float noise."""
    text = f"{value:.10g}"
    return text if any(mark in text for mark in ".en") else text + ".0"


def short_difference(value: float, tolerance: float = 1e-12) -> str:
    """A max |difference| short enough for a metric: ``≈ 0`` below ``tolerance``."""
    return "≈ 0" if value < tolerance else f"{value:.4g}"


def format_difference(value: float, tolerance: float = 1e-12) -> str:
    """A max |difference|: ``0 (rounding only: 2.8e-17)`` below ``tolerance``, else 4 digits."""
    if value == 0.0:
        return "0.0"
    if value < tolerance:
        return f"0 (rounding only: {value:.1e})"
    return f"{value:.4g}"


def entry_arithmetic(
    name: str, row: int, column: int, terms: Sequence[tuple[float, float]], value: float
) -> tuple[str, str]:
    r"""``C₀₀ = 1.0·0.1 + 0.0·0.4 + 0.0·0.1 = 0.1`` as (plain text, LaTeX).

    ``terms`` are the (weight, value) pairs of the dot product.
    """
    subscript = f"{row}{column}".translate(_SUBSCRIPT_DIGITS)
    products = [(plain_number(w), plain_number(v)) for w, v in terms]
    text = f"{name}{subscript} = " + " + ".join(f"{w}·{v}" for w, v in products)
    latex = f"{name}_{{{row}{column}}} = " + " + ".join(rf"{w} \cdot {v}" for w, v in products)
    return f"{text} = {plain_number(value)}", f"{latex} = {plain_number(value)}"


# --- Step 1: soft lookup -----------------------------------------------------


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
    figure.update_xaxes(
        title="axis 0 (visual arts)",
        range=[-3.5, 3.5],
        row=1,
        col=1,
        zeroline=True,
        tickfont={"size": style.tick_size},
    )
    figure.update_yaxes(
        title="axis 1 (stage ↔ page)",
        range=[-3.5, 3.5],
        row=1,
        col=1,
        zeroline=True,
        scaleanchor="x",
        tickfont={"size": style.tick_size},
    )
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


# --- Step 3: saturation --------------------------------------------------------


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


# --- Step 4: masking -----------------------------------------------------------


def masking_frame(
    labels: Sequence[str], columns: Mapping[str, np.ndarray], decimals: int = 3
) -> pd.DataFrame:
    """Per-query numbers (forbidden weight, row sum) of each variant, one row per query."""
    return pd.DataFrame(
        {name: np.round(values, decimals) for name, values in columns.items()},
        index=pd.Index(list(labels), name="query"),
    )


# --- Step 6: gradients -----------------------------------------------------------


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
