"""A Check yourself question as a class sends it, and a student's answer as a class keeps it.

The teacher's app sends a question (:func:`question_json`) with an id unique to its
content; a student's app reads it back (:func:`question_from_json`) to show and check it.
An answer travels as text (:func:`answer_text`), so equal answers count together.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

from attention_core.teaching.questions import CHOICE, Question
from hosting.classroom import limits

NUMBER_DECIMALS = 3  #: a number answer is sent rounded, so equal answers count together
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_.:-]")


def question_id(question: Question, digest: str) -> str:
    """An id unique to the question's content: its id plus ``digest`` (the widget key's crc)."""
    return f"{_UNSAFE_ID.sub('', question.id.replace('/', ':'))[:100]}.{digest}"


def question_json(question: Question, digest: str) -> dict[str, Any]:
    """``question`` as JSON-able data (tuples as lists, NaN as None) with a unique id."""
    data = dataclasses.asdict(question)
    data.update(
        id=question_id(question, digest),
        choices=list(question.choices),
        correct=list(question.correct),
        value=None if math.isnan(question.value) else question.value,
    )
    return data


def question_from_json(data: dict[str, Any]) -> Question:
    """A question sent as JSON, back as the core's :class:`Question` (for its check)."""
    value = data.get("value")
    return Question(
        id=str(data["id"]),
        prompt=str(data["prompt"]),
        kind=str(data["kind"]),
        explanation=str(data["explanation"]),
        choices=tuple(map(str, data.get("choices", ()))),
        correct=tuple(map(str, data.get("correct", ()))),
        value=math.nan if value is None else float(value),
        tolerance=float(data.get("tolerance", 0.0)),
    )


class UnsendableAnswerError(ValueError):
    """An answer the store would refuse; its message tells the student what to do."""


TOO_LARGE = "That number is too large to send; check it and try again."


def answer_text(question: Question, answer: str | float) -> str:
    """An answer as the store keeps it: the choice, or the number rounded.

    A number that rounds to zero is "0.000", never "-0.000", so that equal answers
    count together. A number whose text would be too long for the store (or that is
    no number at all, such as infinity) raises :class:`UnsendableAnswerError`.
    """
    if question.kind == CHOICE:
        return str(answer)
    number = float(answer)
    if not math.isfinite(number):
        raise UnsendableAnswerError(TOO_LARGE)
    text = f"{number:.{NUMBER_DECIMALS}f}"
    if float(text) == 0:  # -0.0004 rounds to "-0.000": the same answer as "0.000"
        text = f"{0:.{NUMBER_DECIMALS}f}"
    if len(text) > limits.MAX_ANSWER_CHARS:
        raise UnsendableAnswerError(TOO_LARGE)
    return text


def answer_value(question: Question, text: str) -> str | float | None:
    """A stored answer back as :func:`check` takes it (None if a number does not parse)."""
    if question.kind == CHOICE:
        return text
    try:
        return float(text)
    except ValueError:
        return None
