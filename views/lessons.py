"""Lessons: play a built-in lesson, open one someone shared, and write your own.

A lesson is a short list of views with words (docs/lessons.md). Every content page has
"Add this view as a step" in its sidebar (app.py); the lesson being written lives in
this browser session only and travels as a file or a link. The sections live in
``ui.lessons.sections``; the player that opens a step is ``ui.lessons.player``.
"""

from __future__ import annotations

import streamlit as st

from ui.lessons.sections import SECTIONS
from ui.lessons.state import read_state
from ui.shared.tabs import show_sections


def main() -> None:
    st.title("Lessons")
    st.markdown(
        "A lesson walks through the app one view at a time, with a few words, something "
        "to try and a question at each step. Play one, open one someone shared, or write "
        "your own from the views you set up; nothing is stored on the server."
    )
    state = read_state()
    show_sections(SECTIONS, state)


main()
