"""What a page asks of whoever runs it: where its settings come from, how its questions show.

A page reads its settings and asks its "Check yourself" questions through one
:class:`PageMode`. On its own a session gets :class:`Alone`: the widgets, every question
open. Something that runs around every page (a live class, :mod:`ui.classroom.class_mode`)
installs its own mode once per run with :func:`use`, before the page; a page never asks
who is around it, only what :func:`current` says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

import streamlit as st

from attention_core.teaching.questions import Question
from ui.shared.control_source import Controls, Drawn

R = TypeVar("R")

MODE_KEY = "page_mode"  #: this session's installed mode (absent: :data:`ALONE`)


class PageMode(Protocol):
    """The questions a page's controls and its "Check yourself" ask on every run."""

    def read_settings(self, read: Callable[[Controls], R], note: bool = True) -> R:
        """``read(source)`` with the source this run's settings come from. ``note``: a
        source that lists the settings ends the list with how to change them."""
        ...

    def settings_fixed(self) -> bool:
        """Whether the settings are not this session's to change on this run: a control
        that changes one (a button that edits a sentence) is left out."""
        ...

    def questions_folded(self) -> str | None:
        """Why the questions start folded away (one switch opens them), or None: shown."""
        ...

    def question_held(self, question: Question) -> str | None:
        """Why ``question`` is shown without its "Check" on this run, or None: checked as usual."""
        ...

    def beside_question(self, question: Question, widget_key: str) -> None:
        """Draw what goes under a question's "Check" button (``widget_key``: its place)."""
        ...


class Alone:
    """A session on its own: the widgets are the settings, every question is open."""

    def read_settings(self, read: Callable[[Controls], R], note: bool = True) -> R:
        return read(Drawn())

    def settings_fixed(self) -> bool:
        return False

    def questions_folded(self) -> str | None:
        return None

    def question_held(self, question: Question) -> str | None:
        return None

    def beside_question(self, question: Question, widget_key: str) -> None:
        """Nothing: the question's own "Check" is all."""


ALONE = Alone()


def use(mode: PageMode | None) -> None:
    """Install ``mode`` for this session's runs from now on (None: :data:`ALONE`)."""
    if mode is None:
        st.session_state.pop(MODE_KEY, None)
    else:
        st.session_state[MODE_KEY] = mode


def current() -> PageMode:
    """The mode installed for this session, else :data:`ALONE`."""
    mode: PageMode = st.session_state.get(MODE_KEY, ALONE)
    return mode
