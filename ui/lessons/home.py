"""The home page's way in: "Start the course" first, then every built-in lesson."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from attention_core.teaching.builtin_lessons import BUILTIN_NAMES, COURSE, builtin_lesson
from attention_core.teaching.lesson_link import LESSON_PARAM
from ui.lessons.player import STEP_PARAM, play
from ui.shared.safe import escape_markdown


def start_the_course() -> None:
    """The first thing a newcomer sees: one button that plays the course from its first step."""
    course = builtin_lesson(COURSE)
    if st.button("Start the course", key="lesson_start_course", type="primary",
                 icon=":material/school:"):  # fmt: skip
        play(course, 1, COURSE)
    st.caption(
        f"“{escape_markdown(course.title)}”: {len(course.steps)} steps through the app, "
        "from one query and key to a real model's attention."
    )


def lesson_list(pages: Mapping[str, st.Page]) -> None:
    """Each built-in lesson: a link to its first step, its description and length."""
    st.subheader("Lessons")
    for name in BUILTIN_NAMES:
        lesson = builtin_lesson(name)
        first = pages[lesson.steps[0].page]
        st.page_link(first, label=lesson.title, icon=":material/menu_book:",
                     query_params={LESSON_PARAM: name, STEP_PARAM: "1"})  # fmt: skip
        st.caption(f"{escape_markdown(lesson.description or '')} {len(lesson.steps)} steps.")
