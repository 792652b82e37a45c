""" "Check yourself" on the pretrained page: the chosen head and query, and every head's measures.

The previous-token question compares heads by Clark et al.'s measure (the mean
weight on the previous token, as in the head table); the others read the chosen
layer, head and query token's row of weights.
"""

from __future__ import annotations

from attention_core.pretrained import head_measures
from attention_core.teaching.attention_questions import (
    doubling_question,
    strongest_key_question,
    weight_question,
)
from attention_core.teaching.head_questions import head_name, previous_token_head_question
from ui.pretrained.state import PretrainedState
from ui.shared.check_yourself import check_yourself

PAGE = "pretrained"


def check_yourself_section(state: PretrainedState) -> None:
    """The questions below the tabs, computed from this text's forward pass."""
    heads = state.steps(state.layer).heads
    labels = list(state.encoded.labels)
    row, masked = heads.weights[state.head, state.query], heads.masked[state.head, state.query]
    label = labels[state.query]
    previous = head_measures.diagonal_share(state.weights, -1)  # (L, H), as in the table
    focus = head_name(state.layer, state.head)
    asked = (
        previous_token_head_question(previous, " ".join(state.encoded.tokens)),
        strongest_key_question(row, label, labels, focus, state.query),
        weight_question(row, label, labels, focus, state.query),
        doubling_question(masked, label, focus, state.query),
    )
    check_yourself(PAGE, [question for question in asked if question is not None])
