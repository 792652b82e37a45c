r"""Check-yourself questions about a pretrained model's own numbers: its next-token guess, and
which head copies.

Both read arrays the pretrained page already has: a decoder's top guesses at one position
(:func:`attention_core.pretrained.predictions.top_next`) and a detector's scores of every
head (:mod:`attention_core.pretrained.circuits`). Choices are drawn from the view itself
(:func:`~attention_core.teaching.questions.view_rng`), so the same view asks the same question.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_core.teaching.questions import CHOICE, Question, number, quoted, slug, view_rng

TIE = 0.005  #: probabilities or scores this close to the largest count as tied
HEADS_OFFERED = 4


def next_token_question(
    names: Sequence[str], probabilities: np.ndarray, after: str, position: int
) -> Question:
    r"""Which token does the model rank first after ``after`` (position ``position``)?

    ``names (k,)`` and ``probabilities (k,)``: its top guesses, most likely first. Every
    guess within :data:`TIE` of the first is right. The choices are the guesses shuffled.
    """
    best = float(probabilities[0])
    tied = [name for name, p in zip(names, probabilities, strict=True) if best - p <= TIE]
    order = view_rng("next-token", position, tuple(names)).permutation(len(names))
    quotes = ", ".join(
        f"{quoted(n)} {number(p)}" for n, p in zip(names, probabilities, strict=True)
    )
    return Question(
        id=f"next-token/position{position}",
        prompt=f"Which token does the model think most likely to come after {quoted(after)}?",
        kind=CHOICE,
        choices=tuple(names[i] for i in order),
        correct=tuple(tied),
        explanation=f"Its top guesses and their probabilities: {quotes}.",
    )


def strongest_head_question(scores: np.ndarray, kind: str) -> Question:
    r"""Which head has the highest ``kind`` score, :math:`\arg\max_{l,h} s_{lh}` of ``(L, H)``?

    The strongest head (and any within :data:`TIE`) against the next strongest ones.
    """
    flat = np.argsort(-scores, axis=None, kind="stable")[:HEADS_OFFERED]
    heads = [divmod(int(i), scores.shape[1]) for i in flat]  # (layer, head), 0-based
    names = [f"layer {layer + 1} · head {head + 1}" for layer, head in heads]
    values = [float(scores[layer, head]) for layer, head in heads]
    tied = [name for name, value in zip(names, values, strict=True) if values[0] - value <= TIE]
    order = view_rng("strongest-head", kind, tuple(names)).permutation(len(names))
    quotes = ", ".join(f"{name} {number(v)}" for name, v in zip(names, values, strict=True))
    return Question(
        id=f"strongest-head/{slug(kind)}",
        prompt=f"Which head has the highest {kind} score?",
        kind=CHOICE,
        choices=tuple(names[i] for i in order),
        correct=tuple(tied),
        explanation=f"The highest {kind} scores: {quotes}.",
    )


def ablation_copying_question(
    drops: Sequence[tuple[tuple[int, int], float]], intact: float, model: str
) -> Question:
    r"""Which head, turned off alone, breaks copying the most? :math:`\arg\max_h
    (\text{acc} - \text{acc}_{-h})` over the offered heads.

    ``drops``: each offered head ``(layer, head)`` (counted from 0) and how much the copying
    accuracy on the repeated sequence falls with it zeroed alone
    (:func:`attention_core.pretrained.induction_experiment.single_head_drops`); ``intact`` the
    accuracy with every head on; ``model`` names the model (the question's id). Every head
    within :data:`TIE` of the largest drop is right.
    """
    names = [f"layer {layer + 1} · head {head + 1}" for (layer, head), _ in drops]
    values = [float(drop) for _, drop in drops]
    largest = max(values)
    tied = [name for name, value in zip(names, values, strict=True) if largest - value <= TIE]
    order = view_rng("ablation-copying", model, tuple(names)).permutation(len(names))
    quotes = ", ".join(
        f"{name} off {number(intact - value)}" for name, value in zip(names, values, strict=True)
    )
    return Question(
        id=f"ablation-copying/{slug(model)}",
        prompt="Which head, when turned off, breaks copying the most (the copying accuracy on "
        "the repeated sequence falls furthest)?",
        kind=CHOICE,
        choices=tuple(names[i] for i in order),
        correct=tuple(tied),
        explanation=f"Copying accuracy with every head on {number(intact)}; {quotes}.",
    )
