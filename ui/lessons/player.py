"""Playing a lesson: which lesson and step this session is on, and opening a step's view.

The link carries the lesson (``lesson=``: a built-in lesson's name, or the whole lesson
packed, :mod:`attention_core.teaching.lesson_link`) and the step (``lesson_step=4``), so
a reload or a shared link resumes at that step. A lesson too long for a link plays from
the session alone (its steps' links then carry the step only).

A step opens as a link opened anew (:func:`ui.shared.url.open_link`): its page, at exactly
its settings, whatever this session's widgets held before. Each step's view is opened once
per session and step; after that the student may change anything, and "Back to this
step's view" opens it again. A student following a class's teacher never opens a view
here: the class shows them the teacher's, lesson and step included.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NoReturn

import streamlit as st

from attention_core.boundary.errors import InputError
from attention_core.teaching.builtin_lessons import BUILTIN_NAMES, builtin_lesson
from attention_core.teaching.lesson import Lesson, LessonStep
from attention_core.teaching.lesson_link import LESSON_PARAM, lesson_link, read_lesson_link
from hosting.classroom.views import CLASS_PARAM, PRESENT_PARAM, STUDENT_PARAM
from ui.classroom.class_session import link_query
from ui.lessons.views import check_lesson
from ui.shared import url

STEP_PARAM: Final = "lesson_step"  #: the step's number in the link, from 1
#: Link parameters that are not part of a page's view: the lesson's, the class's and the
#: viewer's presentation mode. A step's view never holds them.
VIEW_EXTRA_PARAMS: Final = frozenset(
    {LESSON_PARAM, STEP_PARAM, CLASS_PARAM, STUDENT_PARAM, PRESENT_PARAM}
)
KEPT_PARAMS: Final = (CLASS_PARAM, STUDENT_PARAM, PRESENT_PARAM)  #: a step's link keeps these
PLAYING_KEY = "lesson_playing"  #: this session's :class:`Playing`
APPLIED_KEY = "lesson_applied"  #: the (lesson, step number) whose view this session opened
PAGES_KEY = "lesson_pages"  #: the app's pages by URL path, to open a step's page
READ_CACHE_SIZE = 64  #: lessons read from links, shared by every session (a class reads one)


@dataclass(frozen=True)
class Playing:
    """The lesson a session plays, step ``number`` (from 1), and what its link carries
    (``param``: a built-in name or the packed lesson; None: too long for a link)."""

    lesson: Lesson
    number: int
    param: str | None

    @property
    def step(self) -> LessonStep:
        return self.lesson.steps[self.number - 1]

    def link(self, number: int | None = None) -> dict[str, str]:
        """The lesson's own link parameters, at step ``number`` (default: this one)."""
        number = self.number if number is None else number
        return {STEP_PARAM: str(number)} | ({LESSON_PARAM: self.param} if self.param else {})


@functools.lru_cache(maxsize=READ_CACHE_SIZE)
def _read(param: str) -> Lesson | str:
    """The lesson a link's ``lesson=`` names or carries, checked; or why it cannot be played."""
    if param in BUILTIN_NAMES:
        return builtin_lesson(param)
    try:
        lesson = read_lesson_link(param)
        check_lesson(lesson)
    except InputError as error:
        return str(error)
    return lesson


def read_link_lesson(param: str) -> Lesson:
    """The lesson of a link's ``lesson=`` value; InputError (its message) if it has none."""
    read = _read(param)
    if isinstance(read, str):
        raise InputError(read)
    return read


def link_param(lesson: Lesson, name: str | None = None) -> str | None:
    """What a link carries for ``lesson``: its built-in ``name``, else the packed lesson, or
    None when it is too long for a link."""
    if name is not None:
        return name
    try:
        return lesson_link(lesson)
    except InputError:
        return None


def playing() -> Playing | None:
    """What this session plays, or None."""
    value = st.session_state.get(PLAYING_KEY)
    return value if isinstance(value, Playing) else None


def remember_pages(pages: Mapping[str, st.Page]) -> None:
    """The app's pages (app.py's ``PAGES``), for opening a step on its page later this run."""
    st.session_state[PAGES_KEY] = dict(pages)


def play(lesson: Lesson, number: int = 1, name: str | None = None) -> NoReturn:
    """Play ``lesson`` from step ``number``: open that step's view (nothing after this runs).

    ``name``: a built-in lesson's name (:data:`BUILTIN_NAMES`), which its links carry."""
    st.session_state[PLAYING_KEY] = Playing(lesson, number, link_param(lesson, name))
    open_step(number)


def open_step(number: int) -> NoReturn:
    """Open step ``number`` of the lesson being played, at exactly its settings."""
    current = playing()
    if current is None:
        raise RuntimeError("open_step needs a lesson being played")
    current = Playing(current.lesson, number, current.param)
    st.session_state[PLAYING_KEY] = current
    st.session_state[APPLIED_KEY] = (current.lesson, number)
    kept = {name: st.query_params[name] for name in KEPT_PARAMS if name in st.query_params}
    query = {**link_query(current.step.params), **current.link(), **kept}
    url.open_link(st.session_state[PAGES_KEY][current.step.page], query)


def shows_step(path: str, step: LessonStep) -> bool:
    """Whether page ``path`` at this run's link shows ``step``'s view: its page, its settings."""
    return path == step.page and all(
        st.query_params.get_all(name) == ([value] if isinstance(value, str) else value)
        for name, value in link_query(step.params).items()
    )


def stop_playing() -> None:
    """Leave the lesson: no bar, nothing of it in the link (the page stays as it is)."""
    for key in (PLAYING_KEY, APPLIED_KEY):
        st.session_state.pop(key, None)
    for name in (LESSON_PARAM, STEP_PARAM):
        if name in st.query_params:
            del st.query_params[name]
