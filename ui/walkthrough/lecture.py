"""The classroom walkthrough's lecture: its steps in order and the code behind each."""

from __future__ import annotations

from collections.abc import Callable

from attention_core.maths import attention, backward
from attention_core.teaching import pitfalls, score_scaling, soft_lookup, walkthrough_steps

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
