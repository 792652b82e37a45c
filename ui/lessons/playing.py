"""Play a lesson from the Lessons page: the player (``ui.lessons.player``) opens its step."""

from __future__ import annotations

from typing import NoReturn

from attention_core.teaching.lesson import Lesson


def play_lesson(lesson: Lesson, number: int = 1, name: str | None = None) -> NoReturn:
    """Open step ``number`` of ``lesson`` on its page, the lesson bar above it."""
    from ui.lessons.player import play  # the player is written beside this page

    play(lesson, number, name)
