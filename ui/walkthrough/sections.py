"""The walkthrough's lecture steps 1, 3 and 4 (ending with "Check yourself"), and the table of
all six lecture steps."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from ui.shared.matrix_view import chart
from ui.shared.safe import show_error
from ui.shared.tabs import Section
from ui.shared.url import BIND
from ui.walkthrough import cache
from ui.walkthrough.cell_view import masking_lines
from ui.walkthrough.examples import examples_section
from ui.walkthrough.heads_and_backward import backward_section, heads_section
from ui.walkthrough.lecture import LECTURE_CODE, LECTURE_STEPS, explain
from ui.walkthrough.questions import check_yourself_section
from ui.walkthrough.state import PREFIX, WalkthroughState

# --- Lecture step 1 ------------------------------------------------------------


def lookup_section(state: WalkthroughState) -> None:
    style = state.style
    explain(
        "A dictionary returns the value of the one key that matches your question exactly. "
        "Attention compares the question (the **query**) with *every* key, turns the "
        "similarities into weights that add up to 1, and hands back a weighted mix of all "
        "the values.",
        r"s_j = q \cdot k_j \qquad a = \mathrm{softmax}(s) \qquad o = \sum_j a_j\, v_j",
        "query q (2,) · keys K (3, 2) · values V (3, 3), one-hot professions · "
        "weights a (3,) · output o (3,)",
        code=LECTURE_CODE[1],
    )
    sliders = st.columns(2)
    x = sliders[0].slider(
        "Query, axis 0 (visual arts)", -3.0, 3.0, 0.0, 0.1, key=f"{PREFIX}query_0", bind=BIND
    )
    y = sliders[1].slider(
        "Query, axis 1 (stage ↔ page)", -3.0, 3.0, 1.0, 0.1, key=f"{PREFIX}query_1", bind=BIND
    )
    view = cache.lookup_view(x, y, style)
    chart(view.figure, key=f"{PREFIX}lookup_figure", place=st)
    st.dataframe(view.table, hide_index=True)
    examples, trace = ac.examples, view.trace
    best = trace.best
    st.markdown(
        f"The query is closest to **{examples.LOOKUP_KEYS[best]}**, so the answer is mostly "
        f"**{examples.LOOKUP_VALUES[best]}** ({trace.weights[best]:.{style.decimals}f}) — "
        "but a little of every other value comes along. Move the sliders and watch the weights."
    )


# --- Lecture step 3 ------------------------------------------------------------


def scaling_section(state: WalkthroughState) -> None:
    style = state.style
    explain(
        "A dot product of two random vectors grows with their length, so with 512 numbers "
        "each the scores spread about 22 times wider than with one. Softmax then puts almost "
        "all the weight on one key and hardly reacts when the scores move, which stalls "
        "learning; dividing by √d keeps the scores the same size for every d.",
        r"\mathrm{Var}(q \cdot k) = \sum_{i=1}^{d} \mathrm{Var}(q_i k_i) = d"
        r"\quad\Rightarrow\quad \mathrm{Var}\!\left(\frac{q \cdot k}{\sqrt d}\right) = 1",
        "q (d,) and n keys K (n, d) with entries ~ N(0, 1) · scores (n,) · weights (n,)",
        code=LECTURE_CODE[3],
    )
    n_keys = st.slider(
        "Number of keys n",
        2,
        ac.limits.MAX_WALKTHROUGH_KEYS,
        8,
        key=f"{PREFIX}n_keys",
        bind=BIND,
    )
    view = cache.scaling_view(n_keys, style)
    chart(view.figure, key=f"{PREFIX}saturation_figure", place=st)
    st.dataframe(view.frame, hide_index=True)
    table = view.table
    st.markdown(
        f"At d = {table.widths[-1]} the largest of {n_keys} weights is on average "
        f"**{table.max_weight_unscaled[-1]:.3f}** without scaling (almost one-hot) and "
        f"**{table.max_weight_scaled[-1]:.3f}** with it. Uniform weights would have entropy "
        f"ln {n_keys} = {table.uniform_entropy:.3f}; one-hot weights have entropy 0."
    )


# --- Lecture step 4 ------------------------------------------------------------


def masking_section(state: WalkthroughState) -> None:
    explain(
        "When predicting day 3, a model must not peek at days 4 and 5, so those keys are "
        "masked. The right way sets their scores to −∞ *before* softmax, so they get weight "
        "exactly 0 and each row still adds up to 1.",
        r"W = \mathrm{softmax}_{\text{row}}\big(S + M\big), \qquad "
        r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}",
        "scores S (5, 5) from the five-day example · mask (5, 5) · weights (5, 5)",
        code=LECTURE_CODE[4],
    )
    view = cache.masking_view(state.style)
    for index, (column, panel) in enumerate(zip(st.columns(3), view.panels, strict=True)):
        cells = masking_lines(view.result, index)
        chart(panel, key=f"{PREFIX}mask_{index}", place=column, cells=cells)
    formulas = st.columns(3)
    formulas[0].latex(r"\mathrm{softmax}_{\text{row}}(S + M)")
    formulas[1].latex(r"\mathrm{softmax}_{\text{row}}(S \odot M_{01})")
    formulas[2].latex(r"\mathrm{softmax}_{\text{column}}(S + M)")
    st.dataframe(view.table)
    result = view.result
    leak = result.forbidden_weight(result.multiplied)
    st.warning(
        f"Multiplying by a 0/1 mask turns a forbidden score into 0, and e⁰ = 1 is not 0: "
        f"day 1 still gives {leak[0]:.3f} of its weight to days it may not see. "
        f"Normalising down the columns keeps the future out, but the rows no longer add "
        f"up to 1 (day 4: {result.row_sums(result.wrong_axis)[3]:.3f})."
    )
    check_yourself_section()


#: The lecture, one section per lecture step: its title (the page's heading) and what draws it.
LECTURE: tuple[Section[WalkthroughState], ...] = tuple(
    Section(title, draw)
    for title, draw in zip(
        LECTURE_STEPS,
        (
            lookup_section,
            examples_section,
            scaling_section,
            masking_section,
            heads_section,
            backward_section,
        ),
        strict=True,
    )
)


def show_lecture_step(state: WalkthroughState) -> None:
    """The chosen step under its title; a clear error if its settings are refused."""
    section = LECTURE[state.lecture_step - 1]
    st.header(section.title)
    try:
        section.draw(state)
    except ac.InputError as error:
        show_error(str(error))
