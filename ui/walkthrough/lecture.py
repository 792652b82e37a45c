"""The walkthrough's lecture: its lecture steps in order, the code behind each, how each opens."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from attention_core.maths import attention, backward
from attention_core.teaching import pitfalls, score_scaling, soft_lookup, walkthrough_steps
from ui.shared.code_view import show_code

#: The lecture steps, in order: the page's headings and step picker.
LECTURE_STEPS = (
    "Attention as a soft dictionary lookup",
    "The course notes' worked examples, recomputed",
    "Why the scores are divided by √d",
    "Masking: keeping the future out",
    "Several heads in parallel",
    "Learning: the backward pass by hand",
)

#: The core functions each step's numbers come from, shown in its "The code" expander.
LECTURE_CODE: dict[int, tuple[Callable, ...]] = {
    1: (soft_lookup.soft_lookup, attention.softmax),
    2: (attention.scaled_dot_product_attention, attention.softmax),
    3: (score_scaling.softmax_saturation, attention.softmax),
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


def explain(plain: str, formula: str, shapes: str, code: Sequence[Callable] = ()) -> None:
    """What every step opens with: plain words, the formula, the shapes and "The code"."""
    st.markdown(plain)
    st.latex(formula)
    st.caption(f"Shapes: {shapes}")
    show_code(code)
