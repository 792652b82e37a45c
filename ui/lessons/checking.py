"""A lesson checked as any lesson file is, before it is played or shared: every problem named.

Reading a file stops at its first problem (:func:`~attention_core.teaching.lesson.read_lesson`);
a teacher fixing a draft wants them all. :func:`problems` reads the lesson's own fields
and then each step on its own, through the same schema (``lesson_file`` read back) and
the same check of its view (:func:`ui.lessons.views.check_view`), so each message is the
one a file would get. :func:`checked` is the lesson exactly as a file would carry it.
"""

from __future__ import annotations

from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson import Lesson, LessonStep, lesson_file, read_lesson
from ui.lessons.views import check_lesson, check_view

#: A step the schema accepts, to read a lesson's own fields without its steps.
_PLACEHOLDER_STEP = LessonStep("walkthrough", (), "A step", "")
_PLACEHOLDER_TITLE = "A lesson"  #: to read one step without the lesson's own fields


def _first_problem(lesson: Lesson) -> str | None:
    try:
        read_lesson(lesson_file(lesson))
    except InputError as error:
        return str(error)
    return None


def _step_problem(number: int, step: LessonStep) -> str | None:
    """Step ``number``'s first problem, as a file holding the lesson would name it."""
    found = _first_problem(Lesson(_PLACEHOLDER_TITLE, (step,)))
    if found is not None:
        return found.replace("Step 1", f"Step {number}", 1)
    try:
        check_view(number, step.page, step.params)
    except InputError as error:
        return str(error)
    return None


def problems(lesson: Lesson) -> list[str]:
    """Every problem of ``lesson``: its own fields, then each step's first, in order."""
    found = [_first_problem(Lesson(lesson.title, (_PLACEHOLDER_STEP,), lesson.description))]
    found += [_step_problem(n, step) for n, step in enumerate(lesson.steps, start=1)]
    if not any(found):
        found.append(_first_problem(lesson))  # the whole (the number of steps, its size)
    return [problem for problem in found if problem]


def checked(lesson: Lesson) -> Lesson:
    """``lesson`` as read back from its file and with every view checked; else InputError."""
    lesson = read_lesson(lesson_file(lesson))
    check_lesson(lesson)
    return lesson
