""" "Check yourself" on the pretrained page: the chosen head and query, every head's measures, and
for a decoder its next-token guess, its strongest induction head and the head whose ablation
breaks copying most.

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
from attention_core.teaching.model_questions import (
    ablation_copying_question,
    next_token_question,
    strongest_head_question,
)
from attention_core.teaching.questions import Question
from ui.pretrained.ablation_runs import intact_copying, single_drops
from ui.pretrained.state import PretrainedState
from ui.shared.check_yourself import check_yourself

PAGE = "pretrained"


def check_yourself_section(state: PretrainedState) -> None:
    """The questions below the tabs, computed from this text's forward pass."""
    check_yourself(PAGE, lambda: questions(state))


def questions(state: PretrainedState) -> list[Question]:
    """The chosen head and query's questions, every head's measure, then a decoder's own."""
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
    return [q for q in (*asked, *decoder_questions(state)) if q is not None]


def decoder_questions(state: PretrainedState) -> list[Question]:
    """A decoder's own: its first guess after the query token, its strongest induction head, and
    which top induction head turned off alone breaks copying most (a few passes, cached)."""
    if not state.model.info.causal:
        return []  # an encoder has no next-token head
    trace = state.trace
    if trace.top_ids is None or trace.top_probs is None:
        return []
    names = state.model.token_names(trace.top_ids[state.query])
    after = state.encoded.labels[state.query]
    return [
        next_token_question(names, trace.top_probs[state.query], after, state.query),
        strongest_head_question(state.model.copying_scores()["induction"], "induction"),
        ablation_copying_question(
            single_drops(state.model), intact_copying(state.model), state.model.key
        ),
    ]
