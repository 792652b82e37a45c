"""The lesson a teacher is writing: a draft kept in this session only, nothing on a server.

A :class:`Draft` holds what the editor's widgets show: text fields may be empty while it
is written (an empty prompt means none), and each step keeps an ``id`` of its own, so a
step's widgets keep their keys when it moves. :func:`as_lesson` turns it into the
:class:`~attention_core.teaching.lesson.Lesson` that is checked, played and shared
(``ui.lessons.checking``); :func:`from_lesson` makes a draft of an opened lesson.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import streamlit as st

from attention_core.boundary import limits
from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson import Lesson, LessonStep

#: This session's draft (absent: an empty one); the page's prefix (``ui.lessons.state``).
DRAFT_KEY = "lessons_draft"


@dataclass(frozen=True)
class DraftStep:
    """One step as the editor shows it; ``id`` names its widgets wherever the step moves."""

    id: int
    page: str
    query: tuple[tuple[str, str], ...]
    title: str
    text: str = ""
    prompt: str = ""
    question: str | None = None


@dataclass(frozen=True)
class Draft:
    """The lesson being written: its title, description and steps; ``next_id`` for a new step."""

    title: str = ""
    description: str = ""
    steps: tuple[DraftStep, ...] = ()
    next_id: int = 1


def current() -> Draft:
    """This session's draft."""
    return st.session_state.get(DRAFT_KEY, Draft())


def keep(draft: Draft) -> None:
    st.session_state[DRAFT_KEY] = draft


def add_view(page: str, query: Mapping[str, str], title: str) -> int:
    """Add a step showing ``page`` at ``query``; its number, or InputError if the lesson is full."""
    draft = current()
    if len(draft.steps) >= limits.MAX_LESSON_STEPS:
        raise InputError(
            f"Your lesson already has {len(draft.steps)} steps, the most a lesson holds. "
            "Download it, then start a new lesson for the rest."
        )
    step = DraftStep(draft.next_id, page, tuple(query.items()), title)
    keep(replace(draft, steps=(*draft.steps, step), next_id=draft.next_id + 1))
    return len(draft.steps) + 1


def move(step_id: int, offset: int) -> None:
    """Move the step ``step_id`` by ``offset`` places (-1: up), within the lesson."""
    draft = current()
    steps = list(draft.steps)
    index = next(i for i, step in enumerate(steps) if step.id == step_id)
    target = min(max(index + offset, 0), len(steps) - 1)
    steps.insert(target, steps.pop(index))
    keep(replace(draft, steps=tuple(steps)))


def delete(step_id: int) -> None:
    draft = current()
    keep(replace(draft, steps=tuple(step for step in draft.steps if step.id != step_id)))


def as_lesson(draft: Draft) -> Lesson:
    """The draft as a lesson (not yet checked): empty optional fields left out."""
    return Lesson(
        draft.title.strip(),
        tuple(_lesson_step(step) for step in draft.steps),
        draft.description.strip() or None,
    )


def _lesson_step(step: DraftStep) -> LessonStep:
    prompt = step.prompt.strip() or None
    return LessonStep(step.page, step.query, step.title.strip(), step.text, prompt, step.question)


def _draft_step(step_id: int, step: LessonStep) -> DraftStep:
    prompt = step.prompt or ""
    return DraftStep(step_id, step.page, step.query, step.title, step.text, prompt, step.question)


def from_lesson(lesson: Lesson, first_id: int) -> Draft:
    """A draft of ``lesson`` whose steps' ids start at ``first_id`` (new widgets for each)."""
    steps = tuple(_draft_step(first_id + index, step) for index, step in enumerate(lesson.steps))
    return Draft(lesson.title, lesson.description or "", steps, first_id + len(steps))
