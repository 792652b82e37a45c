"""The class page's pictures, without Streamlit: the answers chart and the join link's QR code.

The chart marks the right answers (after the reveal) by words in their labels and a hatch
pattern, never by colour alone; :func:`answers_alt` says the same in a sentence.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import plotly.graph_objects as go
import segno

from ui.figures.bars import marked_bars
from ui.figures.style import FigureStyle

CORRECT_MARK = "✓ right"
QR_SCALE = 8  #: pixels per module: a 33-module code is ~260 px, readable from the back


@dataclass(frozen=True)
class AnswerCount:
    """One answer given, how many gave it, and (after the reveal) whether it is right."""

    answer: str
    count: int
    correct: bool | None = None  #: None until the answer is revealed

    @property
    def label(self) -> str:
        return f"{self.answer} ({CORRECT_MARK})" if self.correct else self.answer


def answers_bar(rows: list[AnswerCount], style: FigureStyle) -> go.Figure:
    """Horizontal bars: how many students gave each answer (right ones hatched and named)."""
    most = max((row.count for row in rows), default=0)
    figure = marked_bars(
        [row.label for row in rows],
        [row.count for row in rows],
        [bool(row.correct) for row in rows],
        title="The class's answers",
        axis_title="students",
        texts=[str(row.count) for row in rows],
        hover="%{y}: %{x} students<extra></extra>",
        style=style,
    )
    return figure.update_xaxes(dtick=1 if most < 10 else None)


def answers_alt(rows: list[AnswerCount], answered: int, present: int) -> str:
    """The chart in words, from the same counts."""
    if not rows:
        return f"Bar chart of the class's answers: none yet; {present} students present."
    parts = "; ".join(
        f"{row.answer}: {row.count}{' (right)' if row.correct else ''}" for row in rows
    )
    return f"Bar chart of the class's answers, {answered} of {present} present answered. {parts}."


def qr_png(link: str) -> bytes:
    """The join link as a QR code, PNG bytes (black on white, with its quiet zone)."""
    buffer = io.BytesIO()
    segno.make(link, error="m").save(buffer, kind="png", scale=QR_SCALE)
    return buffer.getvalue()
