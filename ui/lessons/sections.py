"""The Lessons page's sections: the built-in lessons, open a shared lesson, write your own."""

from __future__ import annotations

import streamlit as st

from attention_core.teaching.builtin_lessons import BUILTIN_NAMES, builtin_lesson
from ui.lessons.opening import link_part, upload_part
from ui.lessons.player import play
from ui.lessons.state import PREFIX, LessonsState
from ui.lessons.writing import draft_section
from ui.shared.safe import escape_markdown
from ui.shared.tabs import Section


def builtin_section(state: LessonsState) -> None:
    """Each lesson that comes with the app: its title, description, length and "Play"."""
    for name in BUILTIN_NAMES:
        lesson = builtin_lesson(name)
        with st.container(border=True):
            st.subheader(escape_markdown(lesson.title))
            if lesson.description:
                st.markdown(escape_markdown(lesson.description))
            steps = "1 step" if len(lesson.steps) == 1 else f"{len(lesson.steps)} steps"
            st.caption(steps)
            if st.button("Play", key=f"{PREFIX}play_{name}", icon=":material/play_arrow:"):
                play(lesson, 1, name)


def open_section(state: LessonsState) -> None:
    """A lesson someone shared, as a file or a link: play it, or edit a copy."""
    st.markdown("Open a lesson file someone sent you, or paste a lesson link.")
    upload_part()
    link_part()


SECTIONS = (
    Section("Built-in lessons", builtin_section),
    Section("Open a lesson", open_section),
    Section("Your lesson", draft_section),
)
