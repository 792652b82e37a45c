"""A student in a class: join, follow the teacher's view, answer the open question.

app.py calls :func:`student_run` before every page. It reads the class once; a small
fragment then polls only the class's version (one store read, nothing drawn) and reruns
the app when the teacher changed something.

A follower shows each new view of the teacher; a follower who changes the view themselves
then explores on their own until they follow again (never a tug of war with the teacher).
Applying the teacher's view takes two runs, because a widget bound to the link keeps
its value (and refuses a new one from ``st.query_params``) until a run ends without it:
(a) one run draws "Following the teacher…" instead of the page and ends normally, so
Streamlit forgets the page's widgets and their URL bindings; (b) the next run forgets
their values and switches to the teacher's page with the teacher's query.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import streamlit as st

from hosting.classroom import limits
from hosting.classroom.records import ClassError, ClassGoneError, ClassState
from ui.classroom.answering import question_card
from ui.shared.class_session import (
    NOT_PUBLISHED,
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
PENDING_KEY = "class_pending_view"  #: step (a) done: the student's query keys to forget
APPLIED_KEY = "class_applied_view"  #: the teacher's view this app last showed
FULL_RUN_KEY = "class_full_run"  #: set just before a full run draws a poll fragment
URL_CHECKED = "_url_checked:"  #: ui.shared.url's first-run flags: a new link is checked again
APPLY_SECONDS = 0.2  #: how soon step (b) follows step (a)

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


def current_view(page: st.Page) -> View:
    """The page and query this session shows, as a teacher would publish it."""
    return page.url_path, published_query()


def _set_following(following: bool) -> None:
    st.session_state[FOLLOWING_KEY] = following
    st.session_state.pop(APPLIED_KEY, None)  # following again shows the teacher's view at once


def _leave() -> None:
    current = role()
    leave(f"You left class {current.code}." if current else "")
    for key in (FOLLOWING_KEY, SEEN_KEY, PENDING_KEY, APPLIED_KEY):
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


def _apply(state: ClassState, target: st.Page) -> None:
    """Step (b): forget the old view's widget values, then open the teacher's link."""
    remembered = st.session_state.pop(PENDING_KEY, [])
    query = link_query(state.query)
    for key in {*remembered, *query} - NOT_PUBLISHED:
        st.session_state.pop(key, None)
    for key in [key for key in st.session_state if str(key).startswith(URL_CHECKED)]:
        st.session_state.pop(key, None)
    st.switch_page(target, query_params={**query, URL_CODE: state.code})


def _poll_check() -> None:
    """One tick: say "still here" now and then, read the version, rerun the app if it moved."""
    if st.session_state.pop(FULL_RUN_KEY, False):
        return  # drawn by a full run, which has just read the class
    current = role()
    if current is None or current.teaching:
        return
    try:
        if time.monotonic() - st.session_state.get(HEARTBEAT_KEY, 0.0) >= limits.HEARTBEAT_SECONDS:
            st.session_state[HEARTBEAT_KEY] = time.monotonic()
            classes().join(current.code, student_id())
        moved = classes().version(current.code) != st.session_state.get(SEEN_KEY)
    except ClassGoneError:
        moved = True  # the full run reads the class again and says what happened
    except ClassError:
        moved = False  # the store is out of reach for now: keep the page, try the next tick
    if moved or PENDING_KEY in st.session_state:
        st.rerun(scope="app")


@st.fragment(run_every=limits.POLL_SECONDS)
def _poll() -> None:
    _poll_check()


@st.fragment(run_every=APPLY_SECONDS)
def _poll_soon() -> None:
    _poll_check()


def student_run(page: st.Page, pages: Mapping[str, st.Page]) -> bool:
    """Before the page: the class bar, the question, the teacher's view. Run the page?"""
    current = role()
    if current is None or current.teaching:
        return True
    state = attempt(lambda: classes().state(current.code))
    if state is None:  # the store is out of reach (said above): the page works on its own
        st.session_state.pop(SEEN_KEY, None)  # so the first answer of the store reruns the app
        _poll()
        return True
    st.session_state[SEEN_KEY] = state.version
    target = _target(state, page, pages)
    if target is not None and PENDING_KEY in st.session_state:
        _apply(state, target)
    student_bar(state, bool(st.session_state.get(FOLLOWING_KEY)))
    st.session_state[FULL_RUN_KEY] = True
    if target is not None:
        st.session_state[PENDING_KEY] = list(st.query_params.to_dict())
        st.info("Following the teacher…", icon=":material/group:")
        _poll_soon()
        return False
    question_card(state, current.code)
    _poll()
    return True


def _target(state: ClassState, page: st.Page, pages: Mapping[str, st.Page]) -> st.Page | None:
    """The teacher's page if this app must switch to the teacher's view, else None.

    A follower switches when the teacher's view is new to it. When the teacher's view
    is the one it already had and its own view differs, the student changed something:
    it now explores on its own (one click follows again), rather than being pulled back.
    """
    teachers = (state.page, state.query)
    target = pages.get(state.page)
    if not st.session_state.get(FOLLOWING_KEY) or target is None:
        st.session_state.pop(PENDING_KEY, None)
        return None
    if current_view(page) == teachers:
        st.session_state[APPLIED_KEY] = teachers
        return None
    if st.session_state.get(APPLIED_KEY) == teachers and PENDING_KEY not in st.session_state:
        st.session_state[FOLLOWING_KEY] = False
        show_info("You changed the view, so you are exploring on your own.")
        return None
    return target
