"""The walkthrough's lecture step 2: the course notes' worked examples, recomputed."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.teaching import walkthrough_steps
from ui.figures.heatmap import heatmap
from ui.figures.style import FigureStyle
from ui.shared import numbers
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart
from ui.shared.worked_examples import five_days, notes_versus_ours
from ui.walkthrough.lecture import LECTURE_CODE
from ui.walkthrough.state import PREFIX, WalkthroughState

# --- Lecture step 2 ------------------------------------------------------------


def four_words(style: FigureStyle) -> None:
    st.markdown(
        "The NLP notes stack four word vectors and draw integer weight matrices with "
        "`np.random.seed(42)`; here are the same inputs and the same formula."
    )
    st.latex(r"C = \mathrm{softmax}\!\left(\frac{(XW^Q)(XW^K)^\top}{\sqrt{3}}\right) XW^V")
    w_q, w_k, w_v = ac.examples.four_word_weights()
    inputs = st.columns(4)
    for column, name, matrix in zip(
        inputs,
        ("X (4, 3)", "W_Q (3, 3)", "W_K (3, 3)", "W_V (3, 3)"),
        (ac.examples.FOUR_WORD_VECTORS, w_q, w_k, w_v),
        strict=True,
    ):
        column.markdown(name)
        column.code(numbers.format_matrix(matrix, 0), language=None)
    trace = ac.examples.four_words_attention()
    words = list(ac.examples.FOUR_WORDS)
    chart(
        heatmap(
            trace.weights,
            words,
            words,
            title="Attention weights (4, 4)",
            style=style,
        ),
        key=f"{PREFIX}four_words_weights",
        place=st,
    )
    notes_versus_ours(
        numbers.format_matrix(ac.examples.FOUR_WORDS_PRINTED_OUTPUT),
        numbers.format_matrix(trace.context),
    )
    difference = walkthrough_steps.printed_difference(
        trace.context, ac.examples.FOUR_WORDS_PRINTED_OUTPUT
    )
    st.success(
        f"All twelve numbers agree: max |ours − printed| = {difference:.1e} "
        "(the notes print 8 decimals)."
    )


def attention_is_cool(style: FigureStyle) -> None:
    examples = ac.examples
    tokens = list(examples.COOL_TOKENS)
    st.markdown(
        "The transformer notes give masked weights for *attention is cool* and four-wide "
        "values, and work out the first context entry by hand. Pick any entry to see its sum."
    )
    st.latex(r"C_{ij} = \sum_k W_{ik}\, V_{kj}, \qquad C = W V")
    left, right = st.columns(2)
    features = [f"v{j}" for j in range(4)]
    chart(
        heatmap(
            examples.COOL_WEIGHTS,
            tokens,
            tokens,
            title="Weights W (3, 3)",
            style=style,
        ),
        key=f"{PREFIX}cool_weights",
        place=left,
    )
    chart(
        heatmap(
            examples.COOL_VALUES,
            tokens,
            features,
            title="Values V (3, 4)",
            kind="values",
            row_title="key",
            col_title="feature",
            style=style,
        ),
        key=f"{PREFIX}cool_values",
        place=right,
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
    chart(
        heatmap(
            examples.cool_context(),
            tokens,
            features,
            title="Context vectors C = W V (3, 4)",
            kind="values",
            col_title="feature",
            style=style,
        ),
        key=f"{PREFIX}cool_context",
        place=st,
    )


def examples_section(state: WalkthroughState) -> None:
    style = state.style
    st.markdown(
        "Each example starts from the document's own inputs, and its printed numbers "
        "stand next to ours, so you can check every digit."
    )
    show_code(LECTURE_CODE[2])
    tabs = st.tabs(
        [
            "Four words (NLP notes)",
            "Five days (time-series notes)",
            "“attention is cool” (transformer notes)",
        ]
    )
    with tabs[0]:
        four_words(style)
    with tabs[1]:
        five_days(style, key_prefix=PREFIX)
    with tabs[2]:
        attention_is_cool(style)
