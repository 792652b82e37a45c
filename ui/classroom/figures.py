"""The class page's pictures, without Streamlit: the answers chart and the join link's QR code.

The chart marks the right answers (after the reveal) by words in their labels and a hatch
pattern, never by colour alone; :func:`answers_alt` says the same in a sentence.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass

import plotly.graph_objects as go
import segno

from ui.figures.style import FigureStyle

CORRECT_MARK = "✓ right"
BAR_COLOUR = "#0072B2"  #: Okabe-Ito blue (7.5:1 on white)
CORRECT_COLOUR = "#009E73"
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
    figure = go.Figure(
        go.Bar(
            x=[row.count for row in rows],
            # Plotly reads a few HTML tags in labels; a student's answer is shown as text.
            y=[html.escape(row.label) for row in rows],
            orientation="h",
            text=[str(row.count) for row in rows],
            textposition="outside",  # dark on white, never on the hatching
            cliponaxis=False,
            marker={
                "color": [CORRECT_COLOUR if row.correct else BAR_COLOUR for row in rows],
                "pattern": {"shape": ["/" if row.correct else "" for row in rows]},
            },
            hovertemplate="%{y}: %{x} students<extra></extra>",
        )
    )
    figure.update_layout(
        title={"text": "The class's answers", "font": {"size": style.title_size}},
        font={"size": style.font_size},
        xaxis={
            "title": "students",
            "dtick": 1 if most < 10 else None,
            "range": [0, max(1, most) * 1.12],  # room for the counts beside the bars
        },
        yaxis={"autorange": "reversed", "type": "category"},
        height=120 + 40 * max(1, len(rows)),
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
    )
    return figure


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
