"""Your lesson: the draft's title, description and steps, checked, previewed and shared.

The draft is read back from the widgets on every run and kept in this session
(``ui.lessons.draft``). Before it is previewed or shared it is checked as any lesson file
is (``ui.lessons.checking``), and every problem is listed in plain words.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from attention_core.boundary import limits
from ui.lessons import draft
from ui.lessons.checking import checked, problems
from ui.lessons.draft import Draft
from ui.lessons.opening import FIELD_KEYS, copied_note
from ui.lessons.player import play
from ui.lessons.sharing import share
from ui.lessons.state import PREFIX, LessonsState
from ui.lessons.step_editor import seeded, step_editor
from ui.shared.safe import escape_markdown

CONFIRM_KEY = f"{PREFIX}confirm_new"  #: "Start a new lesson" was pressed; not yet confirmed
HOW_TO_ADD = (
    "Open any page, set it up, and press **Add this view as a step** in the sidebar: the "
    "page and its settings become the next step of your lesson. It is kept in this browser "
    "tab only, until you download it."
)


def _fields(lesson_draft: Draft) -> Draft:
    title_key, description_key = FIELD_KEYS
    title = st.text_input(
        "Lesson title",
        key=seeded(title_key, lesson_draft.title),
        max_chars=limits.MAX_LESSON_TITLE_CHARS,
        placeholder="From scores to weights",
    )
    description = st.text_area(
        "Description (optional)",
        key=seeded(description_key, lesson_draft.description),
        max_chars=limits.MAX_LESSON_DESCRIPTION_CHARS,
        height=80,
    )
    return replace(lesson_draft, title=title, description=description)


def _show_problems(found: list[str]) -> None:
    items = "\n".join(f"- {escape_markdown(problem)}" for problem in found)
    st.error(f"Fix these before you preview or share the lesson:\n\n{items}", icon="⚠️")


def _clear() -> None:
    """Start a new lesson (a callback, before the fields are drawn)."""
    draft.keep(Draft(next_id=draft.current().next_id))
    for key in (*FIELD_KEYS, CONFIRM_KEY):
        st.session_state.pop(key, None)


def _start_new(count: int) -> None:
    """ "Start a new lesson", once confirmed."""
    if not st.session_state.get(CONFIRM_KEY):
        if st.button("Start a new lesson", key=f"{PREFIX}new", icon=":material/note_add:"):
            st.session_state[CONFIRM_KEY] = True
            st.rerun()
        return
    steps = "1 step" if count == 1 else f"{count} steps"
    st.warning(f"This deletes your lesson and its {steps}. Download it first to keep it.")
    yes, keep = st.columns(2)
    yes.button("Yes, start a new lesson", key=f"{PREFIX}new_yes", on_click=_clear)
    keep.button("Keep my lesson", key=f"{PREFIX}new_no",
                on_click=lambda: st.session_state.pop(CONFIRM_KEY, None))  # fmt: skip


def draft_section(state: LessonsState) -> None:
    """The lesson being written, its checks, "Preview from here", its file and its link."""
    copied_note()
    lesson_draft = _fields(state.draft)
    if not lesson_draft.steps:
        st.info(HOW_TO_ADD)
    edits = [
        step_editor(step, number, len(lesson_draft.steps))
        for number, step in enumerate(lesson_draft.steps, start=1)
    ]
    lesson_draft = replace(lesson_draft, steps=tuple(edit.step for edit in edits))
    draft.keep(lesson_draft)
    if lesson_draft.steps:
        _check_and_share(lesson_draft, state.base_url, [edit.preview for edit in edits])
    _start_new(len(lesson_draft.steps))


def _check_and_share(lesson_draft: Draft, base_url: str, previews: list[bool]) -> None:
    lesson = draft.as_lesson(lesson_draft)
    found = problems(lesson)
    if found:
        _show_problems(found)
        return
    lesson = checked(lesson)  # as its file reads back: what is played and shared
    if any(previews):
        play(lesson, previews.index(True) + 1)
    st.subheader("Share your lesson")
    share(lesson, base_url)
