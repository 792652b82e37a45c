"""Presentation mode for projectors: one toggle per session (see ``app.py``)."""

from __future__ import annotations

import streamlit as st

from ui.figures.style import FigureStyle, style_for

#: Session-state key (and URL parameter) of the presentation-mode toggle.
PRESENT_KEY = "present"


def current_style() -> FigureStyle:
    """The figure style of this session, read from the ``present`` toggle."""
    return style_for(bool(st.session_state.get(PRESENT_KEY, False)))
