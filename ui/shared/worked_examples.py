"""The course notes' worked examples as Streamlit views, shared by several pages.

Their figures and printed numbers are the same for every reader: built once per server
(per style) and shared by every session (:mod:`ui.shared.figure_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import attention_core as ac
from attention_core.boundary.arrays import read_only_fields
from attention_core.teaching import walkthrough_steps
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.shared import numbers
from ui.shared.cell_lines import weight_lines
from ui.shared.figure_cache import CachedChart, cached_chart, cached_figures
from ui.shared.matrix_view import chart

DAYS = [f"day {index}" for index in range(1, 6)]


def notes_versus_ours(
    printed: str, ours: str, label_printed: str = "The notes print", label_ours: str = "We compute"
) -> None:
    """A document's printed numbers beside ours, as monospace text."""
    left, right = st.columns(2)
    left.markdown(label_printed)
    left.code(printed, language=None)
    right.markdown(label_ours)
    right.code(ours, language=None)


#: The five days' figures depend on the mask and the style alone: 2 × 2, room to spare.
FIVE_DAY_VIEWS = 8


@dataclass(frozen=True)
class FiveDayView:
    """One side (masked or not) of the five-day example: our weights, numbers as text."""

    result: walkthrough_steps.FiveDayReproduction
    figure: CachedChart  #: our exact weights (5, 5)
    printed_weights: str  #: the notes' weights (3 decimals)
    printed_output: str  #: the notes' outputs (5, 2)
    rounded_context: str  #: ours with the weights rounded to 3 decimals first


@cached_figures(FIVE_DAY_VIEWS)
def five_day_view(masked: bool, style: FigureStyle) -> FiveDayView:
    """The five-day example with or without the causal mask, built once for every session."""
    result = read_only_fields(walkthrough_steps.five_day_reproduction(masked))
    figure = heatmap(
        result.trace.weights,
        DAYS,
        DAYS,
        mask=result.trace.mask,
        title="Our weights (exact)",
        style=style,
    )
    return FiveDayView(
        result,
        cached_chart(figure),
        numbers.format_matrix(result.printed_weights, 3),
        numbers.format_matrix(result.printed_output),
        numbers.format_matrix(result.rounded_context),
    )


@st.cache_resource(show_spinner=False)
def five_day_input_texts() -> tuple[str, ...]:
    """X (5, 2), W_Q, W_K, W_V (2, 2) printed with 4 decimals (the same for everybody)."""
    inputs = ac.examples.five_day_inputs()
    return tuple(
        numbers.format_matrix(matrix, 4)
        for matrix in (inputs.x, inputs.w_q, inputs.w_k, inputs.w_v)
    )


def five_days_one(masked: bool, style: FigureStyle, key_prefix: str) -> None:
    """One side (masked or not) of the five-day example: our weights beside the notes'."""
    view = five_day_view(masked, style)
    result = view.result
    title = "with the causal mask" if masked else "without a mask"
    st.subheader(f"Five days, {title}")
    left, right = st.columns(2)
    cells = weight_lines(result.trace.masked)  # the softmax of each row of masked scores
    chart(view.figure, key=f"{key_prefix}five_day_weights_{masked}", place=left, cells=cells)
    right.markdown("The notes print the weights rounded to 3 decimals:")
    right.code(view.printed_weights, language=None)
    right.markdown(
        f"Ours rounded the same way: max difference "
        f"**{numbers.format_difference(result.weights_difference)}**."
    )
    notes_versus_ours(
        view.printed_output, view.rounded_context, label_ours="We compute round(W, 3) · V"
    )
    st.info(
        f"The notes' outputs use weights rounded to 3 decimals *before* multiplying by V. "
        f"With the exact weights the outputs differ from the printed ones by up to "
        f"{result.exact_output_difference:.4f}; with rounded weights by only "
        f"{result.rounded_output_difference:.1e} (the notes print 8 decimals)."
    )


def five_days(style: FigureStyle, key_prefix: str = "") -> None:
    """The time-series notes' five days of two variables (seed 42), unmasked then masked."""
    st.markdown(
        "The time-series notes draw five days of two variables and three 2×2 weight "
        "matrices after `np.random.seed(42)`, then compute the weights with and without "
        "a causal mask."
    )
    st.latex(r"W = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{2}}\right), \quad C = W V")
    columns = st.columns(4)
    for column, name, text in zip(
        columns,
        ("X (5, 2)", "W_Q (2, 2)", "W_K (2, 2)", "W_V (2, 2)"),
        five_day_input_texts(),
        strict=True,
    ):
        column.markdown(name)
        column.code(text, language=None)
    five_days_one(False, style, key_prefix)
    five_days_one(True, style, key_prefix)
