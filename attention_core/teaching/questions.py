""" "Check yourself" questions: what a question is, and how an answer is checked.

A :class:`Question` is plain data a page shows and a class session could refer to
by its ``id``; :func:`check` is a pure function of a question and an answer. The
generators that compute questions from the numbers of a view live in
:mod:`attention_core.teaching.attention_questions`.

Prompts and explanations may quote tokens a user typed: they are plain text, and
the page must show them as text (never as Markdown or HTML).
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass

import numpy as np

CHOICE = "choice"  #: pick one of ``choices``
NUMBER = "number"  #: type a number, right within ``tolerance``


@dataclass(frozen=True)
class Question:
    """One question about the numbers on screen.

    ``id``: stable for the same view (kind, head, query …), so a page and a class
    session can name it; ``prompt``: the question in plain words; ``kind``:
    :data:`CHOICE` or :data:`NUMBER`; ``choices``: what a choice question offers;
    ``correct``: every choice that counts as right (more than one on a tie);
    ``value`` and ``tolerance``: a number question's answer and how far off may be;
    ``explanation``: why, quoting the numbers.
    """

    id: str
    prompt: str
    kind: str
    explanation: str
    choices: tuple[str, ...] = ()
    correct: tuple[str, ...] = ()
    value: float = math.nan
    tolerance: float = 0.0

    @property
    def answer(self) -> str:
        """The right answer in words (all tied choices, or the number)."""
        if self.kind == CHOICE:
            return " or ".join(self.correct)
        return f"{self.value:.3f} (± {self.tolerance:g})"


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`check`: right or not, a headline in words, and why."""

    correct: bool
    explanation: str

    @property
    def headline(self) -> str:
        return "Correct." if self.correct else "Not quite."


def check(question: Question, answer: str | float | None) -> Verdict:
    """Is ``answer`` right? A choice must be one of ``correct``; a number within ``tolerance``.

    No answer (None) or a number that is not finite is wrong.
    """
    if question.kind == CHOICE:
        right = answer in question.correct
    else:
        right = (
            answer is not None
            and not isinstance(answer, str)
            and math.isfinite(answer)
            and abs(float(answer) - question.value) <= question.tolerance
        )
    why = (
        question.explanation
        if right
        else f"The answer is {question.answer}. {question.explanation}"
    )
    return Verdict(bool(right), why)


def view_rng(*view: object) -> np.random.Generator:
    """A generator seeded from the view itself (never global randomness): same view, same draws."""
    return np.random.default_rng(zlib.crc32(repr(view).encode("utf-8")))


def offered(
    correct: list[int], candidates: list[int], rng: np.random.Generator, max_choices: int
) -> list[int]:
    """The ``correct`` indices plus wrong ones from ``candidates`` drawn by ``rng``, sorted.

    Up to ``max_choices`` in all; ties (more correct ones) may pass it.
    """
    wrong = [index for index in candidates if index not in correct]
    n_more = max(0, min(len(wrong), max_choices - len(correct)))
    drawn = (
        [int(index) for index in rng.choice(wrong, size=n_more, replace=False)] if n_more else []
    )
    return sorted([*correct, *drawn])


def number(value: float) -> str:
    """A weight or score as the explanations quote it: three decimals."""
    return f"{value:.3f}"


def quoted(label: str) -> str:
    """A token in a prompt: between quotation marks, as text."""
    return f"“{label}”"


def slug(name: str) -> str:
    """A name as part of a question's id: letters and digits only (``"head 2"`` -> ``head2``)."""
    return re.sub(r"\W+", "", name)
