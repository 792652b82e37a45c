"""A page's run inside a live class: the class's :class:`~ui.shared.page_mode.PageMode`.

:func:`ui.classroom.around.around_page` installs it for a session in a class, once per
run. A student following the teacher sees the teacher's settings listed, not drawn
(:mod:`ui.classroom.listed_settings`), finds the questions folded (the teacher asks the class
instead, and every new view of the teacher would ask new questions anyway; folded, they
are not even computed, so a teacher's change reaches a whole class sooner: benchmark
``class_pages``), and finds the question the class has open shown without its "Check"
until the teacher reveals the answer. A teacher gets "Ask the class" under each question.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TypeVar

from attention_core.teaching.questions import Question
from ui.classroom import class_session
from ui.classroom.listed_settings import CHANGE_HINT, FromLink, NotPlainError
from ui.shared.check_yourself import digest
from ui.shared.control_source import Controls, Drawn

R = TypeVar("R")

FOLDED = (
    "You are following the teacher, who may ask the class a question instead. "
    "The questions on this view are folded away until you open them."
)
ASKED_OF_CLASS = (
    "Your teacher has asked the class this question: answer it above. "
    "You can check it here once the answer is revealed."
)


class ClassMode:
    """A session in a class: a follower's settings listed from the link, their questions
    folded or held for the class; a teacher's questions each with "Ask the class"."""

    def read_settings(self, read: Callable[[Controls], R], note: bool = True) -> R:
        """From the link's plain values for a student following the teacher (nothing drawn
        but their list, then how to change them if ``note``), else (or if a value is not
        plain) from the widgets."""
        if class_session.settings_listed():
            with contextlib.suppress(NotPlainError):
                return read(FromLink(CHANGE_HINT if note else ""))
        return read(Drawn())

    def settings_fixed(self) -> bool:
        """A follower's settings are the teacher's (the follower has no sentence box)."""
        return class_session.settings_listed()

    def questions_folded(self) -> str | None:
        return FOLDED if class_session.following() else None

    def question_held(self, question: Question) -> str | None:
        """While this student's class has ``question`` open and not yet revealed, the answer
        is given above the page first."""
        return ASKED_OF_CLASS if class_session.asked_of_class(question, digest(question)) else None

    def beside_question(self, question: Question, widget_key: str) -> None:
        class_session.ask_button(question, widget_key, digest(question))  # only while teaching


CLASS_MODE = ClassMode()
