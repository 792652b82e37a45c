""" "Check yourself" at the end of the positional-encodings page: the chosen encoding's numbers.

One number of the encoding matrix P and the position most like another in
P Pᵀ: both drawn above on the page, so a reader can look the answers up there.
"""

from __future__ import annotations

import attention_core as ac
from attention_core.teaching.position_questions import position_questions
from ui.positional_encoding import cache, figures
from ui.positional_encoding.state import PositionalState
from ui.shared.check_yourself import check_yourself

PAGE = "positional_encoding"


def check_yourself_section(state: PositionalState) -> None:
    """The questions on this view's encoding (none if the encoding cannot be made)."""
    try:
        matrix = cache.encoding_view(state).matrix
    except ac.InputError:
        return  # the encoding's own section already says why
    labels = figures.position_labels(state.length)
    check_yourself(PAGE, lambda: position_questions(matrix, state.kind, labels))
