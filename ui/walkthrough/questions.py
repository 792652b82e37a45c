""" "Check yourself" at the end of lecture step 4: the five-day example's masked weights.

The questions read the "Right: −∞, then softmax" panel (the notes' five days with
the causal mask), ask the notes' softmax([1, 2, 3]) and which mask hides the future.
"""

from __future__ import annotations

from attention_core.teaching.attention_questions import walkthrough_questions
from ui.shared.check_yourself import check_yourself
from ui.shared.worked_examples import DAYS

PAGE = "walkthrough"


def check_yourself_section() -> None:
    """The questions, computed from the notes' numbers (the same for every reader)."""
    check_yourself(PAGE, lambda: walkthrough_questions(DAYS))
