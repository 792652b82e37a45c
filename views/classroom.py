"""Teach a class: start one (code, join link, QR code), join one, resume one; the results.

Students who join follow the teacher's view on every page (the bars app.py draws around
each page, ``ui.classroom.around``) and answer the questions the teacher asks from
"Check yourself". The sections live in ``ui.classroom.sections``.
"""

from __future__ import annotations

import streamlit as st

from ui.classroom.sections import sections_for
from ui.classroom.state import read_state
from ui.shared.tabs import show_sections


def main() -> None:
    st.title("Teach a class")
    st.markdown(
        "A live class: students follow what you show on their own screens, answer "
        "questions computed from the numbers on screen, and you see the class's answers. "
        "No names or accounts: students are anonymous."
    )
    state = read_state()
    show_sections(sections_for(state), state)


main()
