"""The course notes' worked examples as Streamlit views, shared by several pages."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.teaching import walkthrough_steps
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.shared import numbers
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


def five_days_one(masked: bool, style: FigureStyle, key_prefix: str) -> None:
    """One side (masked or not) of the five-day example: our weights beside the notes'."""
    result = walkthrough_steps.five_day_reproduction(masked)
    title = "with the causal mask" if masked else "without a mask"
    st.subheader(f"Five days, {title}")
    left, right = st.columns(2)
    chart(
        heatmap(
            result.trace.weights,
            DAYS,
            DAYS,
            mask=result.trace.mask,
            title="Our weights (exact)",
            style=style,
        ),
        key=f"{key_prefix}five_day_weights_{masked}",
        place=left,
    )
    right.markdown("The notes print the weights rounded to 3 decimals:")
    right.code(numbers.format_matrix(result.printed_weights, 3), language=None)
    right.markdown(
        f"Ours rounded the same way: max difference "
        f"**{numbers.format_difference(result.weights_difference)}**."
    )
    notes_versus_ours(
        numbers.format_matrix(result.printed_output),
        numbers.format_matrix(result.rounded_context),
        label_ours="We compute round(W, 3) · V",
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
    inputs = ac.examples.five_day_inputs()
    columns = st.columns(4)
    for column, name, matrix in zip(
        columns,
        ("X (5, 2)", "W_Q (2, 2)", "W_K (2, 2)", "W_V (2, 2)"),
        (inputs.x, inputs.w_q, inputs.w_k, inputs.w_v),
        strict=True,
    ):
        column.markdown(name)
        column.code(numbers.format_matrix(matrix, 4), language=None)
    five_days_one(False, style, key_prefix)
    five_days_one(True, style, key_prefix)
