"""A question's answers as rows (right ones marked by the core's check) and the class's CSV.

No Streamlit: the rows feed the live chart and the results tables; the CSV holds counts
per question and answer, grouped by the lesson and step each was asked in, never who
answered.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from attention_core.teaching.questions import CHOICE, Question, check
from ui.classroom.class_questions import answer_value, question_from_json
from ui.classroom.figures import AnswerCount

CSV_COLUMNS = ("lesson", "step", "question", "prompt", "answer", "count", "right")
#: Rows of a number question's live chart: the numbers most given, then the rest summed
#: (by verdict once revealed). Every number given is counted, and kept in the CSV.
CHART_NUMBERS = 12
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """Text a spreadsheet will not run as a formula (a number stays a number)."""
    try:
        float(text)
    except ValueError:
        return f"'{text}" if text.startswith(FORMULA_START) else text
    return text


def answer_rows(question: Question, counts: Mapping[str, int], revealed: bool) -> list[AnswerCount]:
    """Every choice (or every number given) with its count; right or not once revealed."""
    if question.kind == CHOICE:
        answers = [*question.choices, *sorted(set(counts) - set(question.choices))]
    else:
        answers = sorted(counts, key=lambda text: (-counts[text], text))
    return [
        AnswerCount(
            answer,
            int(counts.get(answer, 0)),
            check(question, answer_value(question, answer)).correct if revealed else None,
        )
        for answer in answers
    ]


def chart_rows(question: Question, rows: Sequence[AnswerCount]) -> list[AnswerCount]:
    """``rows`` as the live chart shows them: every choice, or at most ``CHART_NUMBERS``
    rows of numbers (those most given, then "other numbers", split right and wrong once
    revealed)."""
    if question.kind == CHOICE or len(rows) <= CHART_NUMBERS:
        return list(rows)
    revealed = any(row.correct is not None for row in rows)
    kept, rest = list(rows[: CHART_NUMBERS - 1 - revealed]), rows[CHART_NUMBERS - 1 - revealed :]
    if not revealed:
        return [*kept, AnswerCount("other numbers", sum(row.count for row in rest))]
    for label, verdict in (("other right numbers", True), ("other wrong numbers", False)):
        count = sum(row.count for row in rest if row.correct is verdict)
        if count:
            kept.append(AnswerCount(label, count, verdict))
    return kept


@dataclass(frozen=True)
class AskedQuestion:
    """Question ``number`` as the class was asked it: its answers, and the lesson and step
    it was asked in (None: outside a lesson)."""

    number: int
    question: Question
    answers: list[AnswerCount]
    lesson: str | None = None
    step: int | None = None

    @property
    def place(self) -> str:
        """Where it was asked, in words ("" outside a lesson)."""
        return f"{self.lesson}, step {self.step}" if self.lesson is not None else ""


def _lesson_step(data: Mapping[str, Any]) -> tuple[str | None, int | None]:
    """The lesson and step a question was asked in; (None, None) if none or not readable
    (the store keeps what a teacher's app sent)."""
    lesson, step = data.get("lesson"), data.get("step")
    if isinstance(lesson, str) and type(step) is int:
        return lesson, step
    return None, None


def results_rows(
    results: Sequence[tuple[dict[str, Any], Mapping[str, int]]], unrevealed: str | None = None
) -> list[AskedQuestion]:
    """Each asked question (numbered from 1 in the order asked), its answers marked right or
    wrong, grouped by lesson and step: the lessons in the order first asked, the steps in
    order, then the questions asked outside a lesson.

    The question whose id is ``unrevealed`` (open, answer not shown yet) is not marked.
    """
    asked = []
    for number, (data, counts) in enumerate(results, start=1):
        question = question_from_json(data)
        revealed = data.get("id") != unrevealed
        answers = answer_rows(question, counts, revealed)
        asked.append(AskedQuestion(number, question, answers, *_lesson_step(data)))
    lessons = list(dict.fromkeys(item.lesson for item in asked if item.lesson is not None))
    return sorted(
        asked,
        key=lambda item: (
            lessons.index(item.lesson) if item.lesson is not None else len(lessons),
            item.step or 0,
            item.number,
        ),
    )


def results_csv(results: Sequence[tuple[dict[str, Any], Mapping[str, int]]]) -> bytes:
    """One line per question and answer, grouped by lesson and step: counts only, no
    student ids."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for item in results_rows(results):
        for row in item.answers:
            writer.writerow(
                (
                    _cell(item.lesson or ""),
                    item.step or "",
                    item.number,
                    _cell(item.question.prompt),
                    _cell(row.answer),
                    row.count,
                    "yes" if row.correct else "no",
                )
            )
    return buffer.getvalue().encode("utf-8")
