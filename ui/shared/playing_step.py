"""The lesson step a session is playing on this run, as the pages' shared pieces see it.

The lesson player (:mod:`ui.lessons.player`, above every page) notes the step before the
page runs, only while the page shown is the step's own page; "Check yourself" then asks
the step's question first (:mod:`ui.shared.check_yourself`) and a live class labels the
questions it is asked with their lesson and step (:mod:`ui.classroom`). Neither imports the
player: this note is the one thing they share.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

PLAYING_STEP_KEY = "lesson_playing_step"  #: this run's :class:`PlayingStep` (absent: none)


@dataclass(frozen=True)
class PlayingStep:
    """Step ``number`` of ``steps`` of the lesson ``lesson``; ``question``: its kind, if any."""

    lesson: str
    number: int
    steps: int
    question: str | None = None


def note(step: PlayingStep | None) -> None:
    """What this run plays (None: no step; the page is not a lesson step's)."""
    if step is None:
        st.session_state.pop(PLAYING_STEP_KEY, None)
    else:
        st.session_state[PLAYING_STEP_KEY] = step


def playing_step() -> PlayingStep | None:
    """The step noted for this run, or None."""
    step = st.session_state.get(PLAYING_STEP_KEY)
    return step if isinstance(step, PlayingStep) else None
