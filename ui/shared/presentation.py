"""Presentation mode for projectors: one toggle per session (see ``app.py``)."""

from __future__ import annotations

import streamlit as st

from hosting.classroom.views import PRESENT_PARAM
from ui.figures.style import FigureStyle, style_for

#: Session-state key (and URL parameter) of the presentation-mode toggle: each viewer's
#: own, so a class's view never carries it (:mod:`hosting.classroom.views`).
PRESENT_KEY = PRESENT_PARAM


def current_style() -> FigureStyle:
    """The figure style of this session, read from the ``present`` toggle."""
    return style_for(bool(st.session_state.get(PRESENT_KEY, False)))
