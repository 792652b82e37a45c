"""The lesson bar above a page: where the lesson is, the step's words, and the way on.

app.py calls :func:`before_page` on every run, after the class's bars. With a lesson in the
link or in the session, it reads which step to show, opens that step's view once
(:mod:`ui.lessons.player`), draws the bar ("Step 4 of 18", the step's title, text and
prompt; Back, Next, a list of steps to jump to, "Back to this step's view", "Close the
lesson") and notes the step for the page's "Check yourself" (:mod:`ui.shared.playing_step`).

A student following a class's teacher sees the bar without its buttons: the teacher moves
the class. A teacher may have each step's question asked of the class as the step opens.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson_link import LESSON_PARAM
from ui.classroom import class_session
from ui.lessons.player import (
    APPLIED_KEY,
    PLAYING_KEY,
    STEP_PARAM,
    Playing,
    open_step,
    playing,
    read_link_lesson,
    remember_pages,
    shows_step,
    stop_playing,
)
from ui.lessons.text import step_markdown
from ui.shared.playing_step import PlayingStep, note
from ui.shared.safe import escape_markdown, show_error, show_warning

JUMP_KEY = "lesson_jump"  #: the list of steps to jump to
JUMPED_KEY = "lesson_jumped"  #: the step just chosen in that list
NOTICE_KEY = "lesson_notice"  #: a word about the link, for the bar to show once
NOT_PLAYED = "This link's lesson cannot be played: {} The page opens on its own."


def _number(raw: str | None, steps: int, fallback: int) -> int:
    """The step the link asks for, or ``fallback`` (said) if it is no step of the lesson."""
    if raw is None:
        return fallback
    if raw.isdigit() and 1 <= int(raw) <= steps:
        return int(raw)
    st.session_state[NOTICE_KEY] = (  # shown once the step's view is open
        f'This link asks for step "{raw[:20]}", which this lesson does not have (it has '
        f"steps 1 to {steps}); step {fallback} is shown."
    )
    return fallback


def _from_link() -> Playing | None:
    """The lesson and step this run plays: the link's; else (a page switch through the
    menu drops them) the session's, put back in the link. A student following a class
    plays only what the link (the teacher's view) says."""
    raw = st.query_params.get(LESSON_PARAM)
    current = playing()
    if raw is None:
        if current is None or (_follows() and current.param is not None):
            stop_playing()
            return None
        if current.param is not None or STEP_PARAM not in st.query_params:
            st.query_params.update(current.link())
            return current
    elif current is None or raw != current.param:
        try:
            lesson = read_link_lesson(raw)
        except InputError as error:
            show_error(NOT_PLAYED.format(error))
            stop_playing()
            return None
        current = Playing(lesson, 1, raw)
    number = _number(st.query_params.get(STEP_PARAM), len(current.lesson.steps), current.number)
    current = Playing(current.lesson, number, current.param)
    st.session_state[PLAYING_KEY] = current
    return current


def _follows() -> bool:
    return class_session.following()


def _open_once(current: Playing, path: str) -> None:
    """Open the step's view the first time this session shows this step (not if the link
    already shows it, nor for a follower: the class opened the teacher's)."""
    shown = (current.lesson, current.number)
    if st.session_state.get(APPLIED_KEY) == shown or _follows():
        return
    st.session_state[APPLIED_KEY] = shown
    if not shows_step(path, current.step):
        open_step(current.number)


def _chosen() -> None:
    """On a choice in the list of steps: open it on this rerun (:func:`_jump`)."""
    st.session_state[JUMPED_KEY] = st.session_state.get(JUMP_KEY)


def _jump(current: Playing) -> None:
    """The list of steps, showing this one; choosing another opens it."""
    chosen = st.session_state.pop(JUMPED_KEY, None)
    if chosen is not None and chosen != current.number:
        open_step(chosen)
    st.session_state[JUMP_KEY] = current.number
    titles = [step.title for step in current.lesson.steps]
    st.selectbox("Jump to a step", range(1, len(titles) + 1), key=JUMP_KEY, on_change=_chosen,
                 format_func=lambda number: f"{number}. {titles[number - 1]}")  # fmt: skip


def _buttons(current: Playing, on_step_page: bool) -> None:
    """Back, Next, the jump list, the way back to the step's view, and the way out."""
    steps = len(current.lesson.steps)
    with st.container(horizontal=True, vertical_alignment="bottom"):
        if st.button("Back", key="lesson_back", icon=":material/arrow_back:",
                     disabled=current.number == 1):  # fmt: skip
            open_step(current.number - 1)
        if st.button("Next", key="lesson_next", icon=":material/arrow_forward:",
                     disabled=current.number == steps, type="primary"):  # fmt: skip
            open_step(current.number + 1)
        _jump(current)
        label = "Back to this step's view" if on_step_page else "Go to this step's view"
        if st.button(label, key="lesson_restore", icon=":material/restart_alt:"):
            open_step(current.number)
        st.button("Close the lesson", key="lesson_close", on_click=stop_playing)


def _ask_on_open() -> None:
    """A teacher's choice: each step's question goes to the class as the step opens."""
    if class_session.teaching() is not None:
        st.toggle(
            "Ask each step's question as the step opens",
            key=class_session.ASK_ON_OPEN_KEY,
            help="Otherwise press “Ask the class” beside the step's question below.",
        )


def _draw(current: Playing, on_step_page: bool) -> None:
    step, steps = current.step, len(current.lesson.steps)
    with st.container(border=True, key="lesson_bar"):
        st.markdown(
            f"**{escape_markdown(current.lesson.title)}** · Step {current.number} of {steps}"
        )
        st.markdown(f"**{escape_markdown(step.title)}**")
        if step.text:
            st.markdown(step_markdown(step.text))
        if step.prompt:
            st.info(f"**Try this:** {escape_markdown(step.prompt)}", icon=":material/touch_app:")
        if current.param is None:
            st.caption("This lesson is too long for a link: share it as a file.")
        if _follows():
            st.caption("Your teacher moves the class from step to step.")
            return
        if not on_step_page:
            st.caption("You are on another page than this step's.")
        _buttons(current, on_step_page)
        _ask_on_open()


def before_page(page: st.Page, pages: Mapping[str, st.Page]) -> None:
    """The lesson bar above ``page`` (nothing without a lesson); may open the step's view
    instead (nothing after that runs)."""
    remember_pages(pages)
    current = _from_link()
    if current is None:
        note(None)
        return
    _open_once(current, page.url_path)
    if NOTICE_KEY in st.session_state:
        show_warning(st.session_state.pop(NOTICE_KEY))
    on_step_page = page.url_path == current.step.page
    _draw(current, on_step_page)
    kind = current.step.question if on_step_page else None
    steps = len(current.lesson.steps)
    note(PlayingStep(current.lesson.title, current.number, steps, kind) if on_step_page else None)
