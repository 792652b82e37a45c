"""The walkthrough's lecture steps 5 (several heads) and 6 (the backward pass by hand)."""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.teaching.gradcheck import gradient_example
from attention_core.teaching.gradient_cells import backward_steps, gradient_cell
from attention_core.teaching.head_cells import combined_cell
from attention_core.teaching.walkthrough_steps import MultiHeadExample
from ui.shared import numbers
from ui.shared.cell_lines import weight_lines
from ui.shared.code_view import show_code
from ui.shared.matrix_view import chart
from ui.shared.url import BIND
from ui.shared.walk_chart import CellLines
from ui.walkthrough import cache
from ui.walkthrough.lecture import LECTURE_CODE, explain
from ui.walkthrough.state import PREFIX, WalkthroughState

DEFAULT_HEAD_WIDTH = 4
DEFAULT_COMBINE = "concat"


# --- Lecture step 5 ------------------------------------------------------------


def output_lines(example: MultiHeadExample, strategy: str) -> CellLines:
    """Entry ``(t, c)`` of the heads' contexts ``(H, 5, h)`` combined by ``strategy``
    (:func:`attention_core.teaching.head_cells.combined_cell`)."""
    projections = example.projections

    def lines(_panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        return combined_cell(
            strategy,
            example.trace.context,
            *cell,
            w_o=projections.w_o,
            head_weights=projections.head_weights,
        ).lines

    return lines


def heads_section(state: WalkthroughState) -> None:
    style = state.style
    explain(
        "One head can only pay one kind of attention at a time. Multi-head attention cuts "
        "the e = 12 features into blocks of h, runs attention on every block at the same "
        "time, and then combines the heads' answers.",
        r"C_h = \mathrm{softmax}\!\left(\frac{Q_h K_h^\top}{\sqrt{h}}\right) V_h, "
        r"\qquad Q_h = X W^Q_{[:,\,(h-1)\cdot h_w : h\cdot h_w]}",
        "X (5, 12) · Q, K, V (5, 12) → per head (H, 5, h) · weights (H, 5, 5) · context (H, 5, h)",
    )
    controls = st.columns(2)
    # An empty link value (?wt_combine=) leaves even a required control empty: use the default.
    head_width = (
        controls[0].segmented_control(
            "Head width h",
            ac.valid_head_counts(12),
            default=DEFAULT_HEAD_WIDTH,
            required=True,
            key=f"{PREFIX}head_width",
            bind=BIND,
        )
        or DEFAULT_HEAD_WIDTH
    )
    strategy = (
        controls[1].segmented_control(
            "Combine the heads by",
            ac.COMBINATIONS,
            default=DEFAULT_COMBINE,
            required=True,
            key=f"{PREFIX}combine",
            bind=BIND,
        )
        or DEFAULT_COMBINE
    )
    example = cache.multi_head(head_width)
    n_heads = example.trace.weights.shape[0]
    st.markdown(f"e = 12, h = {head_width} gives **{n_heads} head{'s' * (n_heads > 1)}**.")
    chart(
        cache.head_weights_figure(head_width, style),
        key=f"{PREFIX}head_weights",
        place=st,
        cells=weight_lines(example.trace.masked),  # head k's weights: panel k
    )
    st.caption(
        f"Each head computed on its own gives the same numbers: max difference "
        f"{numbers.format_difference(example.separate_difference)}. The heads never talk "
        "to each other, so they can run in parallel."
    )
    combine_formulas = {
        "concat": r"O = [C_1 \; C_2 \; \dots \; C_H]\, W^O",
        "mean": r"O = \tfrac{1}{H} \textstyle\sum_h C_h",
        "max": r"O = \max_h C_h \;\text{(element by element)}",
        "learned": r"O = \textstyle\sum_h w_h C_h \;"
        r"\text{(one learned weight per head, dmol notes)}",
    }
    st.latex(combine_formulas[strategy])
    show_code((*LECTURE_CODE[5], *ac.COMBINATIONS[strategy].shown))
    chart(
        cache.head_output_figure(head_width, strategy, style),
        key=f"{PREFIX}head_output",
        place=st,
        cells=output_lines(example, strategy),
    )


# --- Lecture step 6 ------------------------------------------------------------


def gradient_lines(seed: int, causal: bool) -> CellLines:
    """Entry ``(m, e)`` of panel ``k``'s gradient (:data:`cache.SHOWN_GRADIENTS`), followed
    back to the output's error (:func:`attention_core.teaching.gradient_cells.gradient_cell`);
    the example's backward pass is redone, in NumPy (4 tokens), only once a cell is selected."""

    def lines(panel: int, cell: tuple[int, int]) -> tuple[str, ...]:
        steps = backward_steps(gradient_example(seed, causal))
        return gradient_cell(steps, cache.SHOWN_GRADIENTS[panel], *cell).lines

    return lines


def backward_section(state: WalkthroughState) -> None:
    style = state.style
    explain(
        "To learn, the model needs to know how a small change in each weight would change "
        "the error. We write that chain of derivatives out by hand and check it against "
        "PyTorch, which works it out automatically (autograd).",
        r"L = \tfrac12 \lVert O - Y \rVert^2,\quad "
        r"\partial S = \tfrac{1}{\sqrt{d_k}}\, A \odot \big(\partial A - "
        r"\mathrm{rowsum}(\partial A \odot A)\big),\quad "
        r"\partial W^Q = X^\top \partial S\, K",
        "X (4, 3) · W_Q, W_K, W_V (3, 2) · scores and weights A (4, 4) · output O and "
        "target Y (4, 2)",
        code=LECTURE_CODE[6],
    )
    controls = st.columns(2)
    seed = controls[0].number_input(
        "Seed", 0, ac.limits.MAX_SEED, 0, key=f"{PREFIX}grad_seed", bind=BIND
    )
    causal = controls[1].toggle("Causal mask", False, key=f"{PREFIX}grad_causal", bind=BIND)
    with st.spinner("Asking PyTorch's autograd…"):
        view = cache.gradient_view(int(seed), bool(causal), style)
    cells = gradient_lines(int(seed), bool(causal))
    chart(view.figure, key=f"{PREFIX}gradients", place=st, cells=cells)
    st.dataframe(view.table, hide_index=True)
    check = view.check
    worst = max(check.max_difference.values())
    st.success(
        f"Loss {check.loss:.6f} (PyTorch: {check.autograd_loss:.6f}). Hand-written and "
        f"autograd gradients agree to {worst:.1e} — float64 rounding."
    )
