"""The walkthrough's lecture step 2: the course notes' worked examples, recomputed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import attention_core as ac
from attention_core.boundary.arrays import read_only
from attention_core.teaching import walkthrough_steps
from attention_core.teaching.cell_computation import given_value_cell, given_weight_cell
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.shared import numbers
from ui.shared.cell_lines import context_lines, weight_lines
from ui.shared.code_view import show_code
from ui.shared.figure_cache import CachedChart, cached_chart, cached_figures
from ui.shared.matrix_view import chart
from ui.shared.tabs import Tab, show_tabs
from ui.shared.walk_chart import CellLines
from ui.shared.worked_examples import five_days, notes_versus_ours
from ui.walkthrough.lecture import LECTURE_CODE
from ui.walkthrough.state import EXAMPLE_KEY, PREFIX, WalkthroughState

# --- Lecture step 2 ------------------------------------------------------------

#: Step 2's figures depend on the style alone: two styles, room to spare (each < 100 kB).
STYLE_VIEWS = 4


@dataclass(frozen=True)
class FourWordsView:
    """The NLP notes' four words: inputs and outputs as text, and the weights' heatmap."""

    inputs: tuple[str, ...]  #: X (4, 3), W_Q, W_K, W_V (3, 3), printed as NumPy does
    figure: CachedChart  #: the weights (4, 4)
    masked: np.ndarray  #: (4, 4) the scaled scores the weights are the softmax of (no mask)
    printed: str  #: the notes' printed context (4, 3)
    ours: str  #: our context (4, 3)
    difference: float  #: max |ours − printed|


@cached_figures(STYLE_VIEWS)
def four_words_view(style: FigureStyle) -> FourWordsView:
    """The four-word example, built once per style for every session."""
    examples = ac.examples
    trace = examples.four_words_attention()
    words = list(examples.FOUR_WORDS)
    return FourWordsView(
        inputs=tuple(
            numbers.format_matrix(matrix, 0)
            for matrix in (examples.FOUR_WORD_VECTORS, *examples.four_word_weights())
        ),
        figure=cached_chart(
            heatmap(trace.weights, words, words, title="Attention weights (4, 4)", style=style)
        ),
        masked=read_only(trace.masked),
        printed=numbers.format_matrix(examples.FOUR_WORDS_PRINTED_OUTPUT),
        ours=numbers.format_matrix(trace.context),
        difference=walkthrough_steps.printed_difference(
            trace.context, examples.FOUR_WORDS_PRINTED_OUTPUT
        ),
    )


@cached_figures(STYLE_VIEWS)
def cool_figures(style: FigureStyle) -> tuple[CachedChart, CachedChart, CachedChart]:
    """*attention is cool*: weights W (3, 3), values V (3, 4) and context C = W V (3, 4)."""
    examples = ac.examples
    tokens = list(examples.COOL_TOKENS)
    features = [f"v{j}" for j in range(4)]
    values = {"kind": "values", "col_title": "feature", "style": style}
    weights, values_figure, context = (
        heatmap(examples.COOL_WEIGHTS, tokens, tokens, title="Weights W (3, 3)", style=style),
        heatmap(
            examples.COOL_VALUES,
            tokens,
            features,
            title="Values V (3, 4)",
            row_title="key",
            **values,
        ),
        heatmap(
            examples.cool_context(),
            tokens,
            features,
            title="Context vectors C = W V (3, 4)",
            **values,
        ),
    )
    return cached_chart(weights), cached_chart(values_figure), cached_chart(context)


def four_words(style: FigureStyle) -> None:
    st.markdown(
        "The NLP notes stack four word vectors and draw integer weight matrices with "
        "`np.random.seed(42)`; here are the same inputs and the same formula."
    )
    st.latex(r"C = \mathrm{softmax}\!\left(\frac{(XW^Q)(XW^K)^\top}{\sqrt{3}}\right) XW^V")
    view = four_words_view(style)
    for column, name, text in zip(
        st.columns(4),
        ("X (4, 3)", "W_Q (3, 3)", "W_K (3, 3)", "W_V (3, 3)"),
        view.inputs,
        strict=True,
    ):
        column.markdown(name)
        column.code(text, language=None)
    chart(view.figure, key=f"{PREFIX}four_words_weights", place=st, cells=weight_lines(view.masked))
    notes_versus_ours(view.printed, view.ours)
    difference = view.difference
    st.success(
        f"All twelve numbers agree: max |ours − printed| = {difference:.1e} "
        "(the notes print 8 decimals)."
    )


def cool_context_lines() -> CellLines:
    """Context entry ``(i, j)`` of *attention is cool*: row i of the given weights W (3, 3)
    times column j of the given values V (3, 4)."""
    examples = ac.examples
    return context_lines(examples.COOL_WEIGHTS[None], examples.COOL_VALUES[None])


def attention_is_cool(style: FigureStyle) -> None:
    examples = ac.examples
    tokens = list(examples.COOL_TOKENS)
    st.markdown(
        "The transformer notes give masked weights for *attention is cool* and four-wide "
        "values, and work out the first context entry by hand. Pick any entry to see its sum."
    )
    st.latex(r"C_{ij} = \sum_k W_{ik}\, V_{kj}, \qquad C = W V")
    weights, values, context = cool_figures(style)
    left, right = st.columns(2)
    given = "given by the notes, not computed here."
    chart(
        weights,
        key=f"{PREFIX}cool_weights",
        place=left,
        cells=lambda _panel, cell: given_weight_cell(examples.COOL_WEIGHTS, *cell, given).lines,
    )
    chart(
        values,
        key=f"{PREFIX}cool_values",
        place=right,
        cells=lambda _panel, cell: given_value_cell(examples.COOL_VALUES, *cell, given).lines,
    )
    pick = st.columns(2)
    row = pick[0].selectbox(
        "Row i (query)",
        range(3),
        format_func=lambda i: f"{i}: {tokens[i]}",
        key=f"{PREFIX}cool_row",
    )
    column = pick[1].selectbox("Column j (feature)", range(4), key=f"{PREFIX}cool_column")
    entry = walkthrough_steps.context_entry(
        examples.COOL_WEIGHTS, examples.COOL_VALUES, row, column
    )
    text, latex = numbers.entry_arithmetic("C", entry.row, entry.column, entry.terms, entry.value)
    st.latex(latex)
    st.text(text)
    slide = walkthrough_steps.context_entry(examples.COOL_WEIGHTS, examples.COOL_VALUES, 0, 0)
    st.caption(
        f"The slides work out C₀₀ = {numbers.plain_number(examples.COOL_PRINTED_C00)}; "
        f"we get {numbers.plain_number(slide.value)}."
    )
    chart(context, key=f"{PREFIX}cool_context", place=st, cells=cool_context_lines())


#: The three worked examples, one tab each; only the open one is built (its label is in
#: the link as ``wt_example``).
EXAMPLES: tuple[Tab[FigureStyle], ...] = (
    Tab("Four words (NLP notes)", four_words),
    Tab("Five days (time-series notes)", lambda style: five_days(style, key_prefix=PREFIX)),
    Tab("“attention is cool” (transformer notes)", attention_is_cool),
)


def examples_section(state: WalkthroughState) -> None:
    style = state.style
    st.markdown(
        "Each example starts from the document's own inputs, and its printed numbers "
        "stand next to ours, so you can check every digit."
    )
    show_code(LECTURE_CODE[2])
    show_tabs(EXAMPLES, style, key=EXAMPLE_KEY)
