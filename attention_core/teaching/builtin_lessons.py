"""The lessons that come with the app: JSON lesson files in ``lessons/``, read as any other.

Each is read with :func:`~attention_core.teaching.lesson.read_lesson`, so a built-in lesson
obeys the same schema as a teacher's file. :data:`BUILTIN_NAMES` orders them as the home
page lists them; a link names one by its name (``lesson=from-scratch``).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

from attention_core.teaching.lesson import Lesson, read_lesson

LESSONS_DIR: Final = Path(__file__).parent / "lessons"
#: The built-in lessons by name, in the order the home page lists them; the first is the course.
BUILTIN_NAMES: Final = ("from-scratch", "real-decoder", "time-series")
COURSE: Final = BUILTIN_NAMES[0]


@functools.cache
def builtin_lesson(name: str) -> Lesson:
    """The built-in lesson ``name`` (one of :data:`BUILTIN_NAMES`); KeyError for another."""
    if name not in BUILTIN_NAMES:
        raise KeyError(name)
    return read_lesson((LESSONS_DIR / f"{name}.json").read_bytes())
