r"""Questions on a positional encoding: one number of :math:`P`, and which position is most alike.

``encoding (T, d)`` is the matrix the positional-encodings page draws
(:func:`attention_core.teaching.word_order.position_matrix`), ``kind`` its name.
The position and dimension asked are drawn from the view, never at random.
"""

from __future__ import annotations

import numpy as np

from attention_core.teaching.questions import CHOICE, NUMBER, Question, number, offered, view_rng
from attention_core.teaching.word_order import position_similarity

VALUE_TOLERANCE = 0.01  #: "to ±0.01", as for weights
MAX_CHOICES = 4  #: positions offered (ties can add more)


def encoding_value_question(encoding: np.ndarray, kind: str, labels: list[str]) -> Question:
    r"""What is :math:`P_{p,j}` (to ±0.01), at a position and dimension drawn from the view?"""
    length, width = encoding.shape
    position, dim = (
        int(i) for i in view_rng("value", kind, encoding.shape).integers(0, [length, width])
    )
    value = float(encoding[position, dim])
    return Question(
        id=f"encoding-value/{kind}/{length}x{width}/p{position}/d{dim}",
        prompt=f"What is the {kind} encoding of {labels[position]} in dimension {dim} (to ±0.01)?",
        kind=NUMBER,
        value=value,
        tolerance=VALUE_TOLERANCE,
        explanation=f"Row {labels[position]}, column {dim} of the encoding matrix P "
        f"({length} × {width}) holds {number(value)}.",
    )


def most_alike_question(encoding: np.ndarray, kind: str, labels: list[str]) -> Question | None:
    r"""Which position :math:`r \ne p` has the largest :math:`G_{pr} = \langle P_p, P_r \rangle`?

    Every position tied with the largest (to 1e-9) counts. None when there is no
    other position, or every other position is alike (no encoding: all zero).
    """
    similarity = position_similarity(encoding)  # (T, T)
    length = similarity.shape[0]
    if length < 2:
        return None
    position = int(view_rng("alike", kind, encoding.shape).integers(0, length))
    others = [r for r in range(length) if r != position]
    row = similarity[position, others]  # (T - 1,)
    if np.allclose(row, row[0], rtol=0.0, atol=1e-9):
        return None
    best = float(np.max(row))
    tied = [r for r, g in zip(others, row, strict=True) if best - g <= 1e-9]
    choices = offered(tied, others, view_rng("alike-choices", kind, encoding.shape), MAX_CHOICES)
    quotes = ", ".join(f"{labels[r]} {number(similarity[position, r])}" for r in choices)
    return Question(
        id=f"most-alike/{kind}/{length}x{encoding.shape[1]}/p{position}",
        prompt=f"Which other position's vector is most like {labels[position]}'s "
        "(largest dot product in P Pᵀ)?",
        kind=CHOICE,
        choices=tuple(labels[r] for r in choices),
        correct=tuple(labels[r] for r in tied),
        explanation=f"Row {labels[position]} of P Pᵀ: {quotes}.",
    )


def position_questions(encoding: np.ndarray, kind: str, labels: list[str]) -> tuple[Question, ...]:
    """Every question the positional-encodings page asks about ``encoding (T, d)``."""
    asked = (
        encoding_value_question(encoding, kind, labels),
        most_alike_question(encoding, kind, labels),
    )
    return tuple(question for question in asked if question is not None)
