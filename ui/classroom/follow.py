"""A student in a class: join, follow the teacher's view, answer the open question.

app.py calls :func:`student_run` before every page. It reads the class once; a small
fragment then polls only the class's version (one store read, nothing drawn). When it
moved, the tick opens the teacher's new view itself, or reruns the app for anything else.

A follower shows each new view of the teacher; a follower who changes the view themselves
then explores on their own until they follow again (never a tug of war with the teacher).
Applying the teacher's view is one run: the tick that sees the new view opens the
teacher's link as a link opened anew (:func:`ui.shared.url.open_link`), so the widgets
bound to the link take its values rather than keeping their own.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import NoReturn

import streamlit as st

from hosting.classroom import limits
from hosting.classroom.records import ClassError, ClassGoneError, ClassState
from ui.classroom.answering import question_card
from ui.shared import url
from ui.shared.class_session import (
    URL_CODE,
    Role,
    allowed,
    attempt,
    classes,
    leave,
    link_query,
    published_query,
    role,
    set_role,
    student_id,
)
from ui.shared.safe import show_info

FOLLOWING_KEY = "class_following"
SEEN_KEY = "class_seen_version"  #: the version the last full run drew
HEARTBEAT_KEY = "class_heartbeat_at"
APPLIED_KEY = "class_applied_view"  #: the teacher's view this app last showed
FULL_RUN_KEY = "class_full_run"  #: set just before a full run draws a poll fragment
POLL_TURN_KEY = "class_poll_turn"  #: which of the tick's two fragment ids the last run drew
PAGES_KEY = "class_pages"  #: the app's pages by URL path, for a tick that opens one

View = tuple[str, dict[str, str]]


def join(code: str) -> bool:
    """Join class ``code`` as an anonymous student, following the teacher. False if refused."""
    if not allowed("join", limits.JOINS_PER_MINUTE, 60, "attempts to join a class"):
        return False
    state = attempt(lambda: classes().join(code, student_id()))
    if state is None:
        return False
    set_role(Role(state.code))
    st.session_state[FOLLOWING_KEY] = True
    st.session_state.pop(APPLIED_KEY, None)
    st.session_state[HEARTBEAT_KEY] = time.monotonic()
    st.query_params[URL_CODE] = state.code
    return True


def join_from_link() -> None:
    """A ``class=<CODE>`` in the link joins that class (a reload rejoins); a teacher ignores it."""
    linked = st.query_params.get(URL_CODE)
    current = role()
    if current is not None and not current.teaching:
        if linked != current.code:  # a page switch dropped the code: keep it in the link
            st.query_params[URL_CODE] = current.code
        return
    if linked is None:
        return
    if not linked or current is not None or not join(linked):  # an empty code is no class
        del st.query_params[URL_CODE]


def following() -> bool:
    """Whether this session is a student following the teacher's view."""
    current = role()
    return (
        current is not None and not current.teaching and bool(st.session_state.get(FOLLOWING_KEY))
    )


def current_view(page: st.Page) -> View:
    """The page and query this session shows, as a teacher would publish it."""
    return page.url_path, published_query()


def _set_following(following: bool) -> None:
    st.session_state[FOLLOWING_KEY] = following
    st.session_state.pop(APPLIED_KEY, None)  # following again shows the teacher's view at once


def _leave() -> None:
    current = role()
    leave(f"You left class {current.code}." if current else "")
    for key in (FOLLOWING_KEY, SEEN_KEY, APPLIED_KEY):
        st.session_state.pop(key, None)


def student_bar(state: ClassState, following: bool) -> None:
    """Where the student is: following or exploring, and the buttons to change that."""
    with st.container(border=True):
        words, switch, leave_column = st.columns([4, 2, 1], vertical_alignment="center")
        if following:
            words.markdown(f"**Class {state.code}** · Following the teacher")
            switch.button("Stop following", key="class_stop_following", on_click=_set_following,
                          args=(False,), icon=":material/explore:")  # fmt: skip
        else:
            words.markdown(f"**Class {state.code}** · Exploring on your own")
            switch.button(
                "Follow the teacher again",
                key="class_follow_again",
                on_click=_set_following,
                args=(True,),
                icon=":material/group:",
            )
        leave_column.button("Leave class", key="class_leave", on_click=_leave)


def _apply(state: ClassState, target: st.Page) -> NoReturn:
    """Open the teacher's link on the teacher's page; nothing after this call runs."""
    url.open_link(target, {**link_query(state.query), URL_CODE: state.code})


def _poll_check() -> None:
    """One tick: say "still here" now and then, read the version, act if it moved.

    A new view of the teacher is opened from the tick itself; anything else (a
    question, the class gone) reruns the app, whose full run reads the class again.
    """
    if st.session_state.pop(FULL_RUN_KEY, False):
        return  # drawn by a full run, which has just read the class
    current = role()
    if current is None or current.teaching:
        return
    try:
        if time.monotonic() - st.session_state.get(HEARTBEAT_KEY, 0.0) >= limits.HEARTBEAT_SECONDS:
            st.session_state[HEARTBEAT_KEY] = time.monotonic()
            classes().join(current.code, student_id())
        if classes().version(current.code) == st.session_state.get(SEEN_KEY):
            return
        state = classes().state(current.code)
    except ClassGoneError:
        st.rerun(scope="app")  # the full run reads the class again and says what happened
    except ClassError:
        return  # the store is out of reach for now: keep the page, try the next tick
    target = st.session_state.get(PAGES_KEY, {}).get(state.page)
    new_view = (state.page, state.query) != st.session_state.get(APPLIED_KEY)
    if st.session_state.get(FOLLOWING_KEY) and target is not None and new_view:
        _apply(state, target)
    st.rerun(scope="app")


@st.fragment(run_every=limits.POLL_SECONDS)
def _poll() -> None:
    _poll_check()


@st.fragment(run_every=limits.POLL_SECONDS)
def _poll_other() -> None:  # the same tick under another fragment id: see _draw_poll
    _poll_check()


def _draw_poll() -> None:
    """Start the tick, under the other of its two fragment ids than the last full run.

    A tick of the fragment the last full run drew may reach the server just after
    this run ends and before its messages have been sent; Streamlit then starts a new
    script runner and drops them (the page stays half drawn and stops polling). A
    tick of a fragment this run did not draw is ignored instead, so each full run
    draws the other id: ticks sent before the browser heard of this run go nowhere.
    """
    other = not st.session_state.get(POLL_TURN_KEY, False)
    st.session_state[POLL_TURN_KEY] = other
    st.session_state[FULL_RUN_KEY] = True
    (_poll_other if other else _poll)()


def student_run(page: st.Page, pages: Mapping[str, st.Page]) -> None:
    """Before the page: the class bar and the question, or the teacher's view opened."""
    current = role()
    if current is None or current.teaching:
        return
    state = attempt(lambda: classes().state(current.code))
    if state is None:  # the store is out of reach (said above): the page works on its own
        st.session_state.pop(SEEN_KEY, None)  # so the first answer of the store reruns the app
        _draw_poll()
        return
    st.session_state[SEEN_KEY] = state.version
    st.session_state[PAGES_KEY] = dict(pages)
    target = _target(state, page, pages)
    if target is not None:
        _apply(state, target)
    student_bar(state, bool(st.session_state.get(FOLLOWING_KEY)))
    question_card(state, current.code)
    _draw_poll()


def _target(state: ClassState, page: st.Page, pages: Mapping[str, st.Page]) -> st.Page | None:
    """The teacher's page if this app must switch to the teacher's view, else None.

    A follower switches when the teacher's view is new to it. When the teacher's view
    is the one it already had and its own view differs, the student changed something:
    it now explores on its own (one click follows again), rather than being pulled back.
    """
    teachers = (state.page, state.query)
    target = pages.get(state.page)
    if not st.session_state.get(FOLLOWING_KEY) or target is None:
        return None
    if current_view(page) == teachers:
        st.session_state[APPLIED_KEY] = teachers
        return None
    if st.session_state.get(APPLIED_KEY) == teachers:
        st.session_state[FOLLOWING_KEY] = False
        show_info("You changed the view, so you are exploring on your own.")
        return None
    return target
