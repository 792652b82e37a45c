"""A student in a class: join, follow the teacher's view, answer the open question.

app.py calls :func:`student_run` before every page. It reads the class once, tells the
server's watcher (:mod:`ui.classroom.watch`) which version it drew, whether it follows and
which view of the teacher it last showed, and draws a small fragment that does nothing.
When the teacher changes the view, the watcher opens the teacher's link in a follower's
app itself, in one run, as a link opened anew (the widgets bound to the link take its
values rather than keeping their own); this run then tells the browser the new link. For
anything else (a question, the class gone, a student exploring) the watcher reruns the
fragment, which reruns the app, or opens the view (:func:`ui.shared.url.open_link`)
when the watcher could not.

A follower shows each new view of the teacher; a follower who changes the view themselves
then explores on their own until they follow again (never a tug of war with the teacher).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Literal, NoReturn

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from hosting.classroom import limits
from hosting.classroom.records import ClassError, ClassGoneError, ClassRecord
from hosting.classroom.views import STUDENT_PARAM
from ui.classroom.answering import question_card
from ui.classroom.class_session import (
    BAR_DRAWN_KEY,
    FOLLOWING_KEY,
    STUDENT_ID_KEY,
    URL_CODE,
    Role,
    allowed,
    attempt,
    class_link,
    classes,
    leave,
    link_query,
    published_query,
    role,
    set_role,
    student_id,
)
from ui.classroom.server_watch import watcher
from ui.classroom.watch import WATCHED_FRAGMENT, View, Watcher
from ui.shared import url
from ui.shared.safe import show_info

APPLIED_KEY = "class_applied_view"  #: the teacher's view this app last showed
OPENING_KEY = "class_opening"  #: the teacher's view the next run opens (:func:`_apply`)
SHOWN_KEY = "class_shown_view"  #: this app's own view when it last showed the teacher's
#: Who opened the view of a run for the class: the server's watcher, this app, or nobody.
Opener = Literal["server", "app", ""]
ENLISTED_KEY = "class_enlisted"  #: this session is known to the process's watcher
PAGES_KEY = "class_pages"  #: the app's pages by URL path, for a rerun that opens one


def join(code: str) -> bool:
    """Join class ``code`` as an anonymous student, following the teacher. False if refused."""
    if not allowed("join", limits.JOINS_PER_MINUTE, 60, "attempts to join a class"):
        return False
    _refuse_borrowed_id()
    state = attempt(lambda: classes().join(code, student_id()))
    if state is None:
        return False
    set_role(Role(state.code))
    st.session_state[FOLLOWING_KEY] = True
    st.session_state.pop(APPLIED_KEY, None)
    st.query_params.update(class_link(state.code))
    return True


def _refuse_borrowed_id() -> None:
    """A link's student id that another open tab on this server uses is someone else's
    (a link passed on, not a reload: a reload's old tab is closed): make a new one."""
    linked = st.query_params.get(STUDENT_PARAM)
    ctx, watching = get_script_run_ctx(), _watcher()
    if STUDENT_ID_KEY in st.session_state or not linked or ctx is None or watching is None:
        return
    if watching.student_elsewhere(linked, ctx.session_id):
        del st.query_params[STUDENT_PARAM]


def join_from_link() -> None:
    """A ``class=<CODE>`` in the link joins that class (a reload rejoins); a teacher ignores it."""
    linked = st.query_params.get(URL_CODE)
    current = role()
    if current is not None and not current.teaching:
        kept = class_link(current.code)
        if any(st.query_params.get(name) != value for name, value in kept.items()):
            st.query_params.update(kept)  # a page switch dropped them: keep them in the link
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
    for key in (FOLLOWING_KEY, APPLIED_KEY, SHOWN_KEY):
        st.session_state.pop(key, None)


def student_bar(state: ClassRecord, following: bool) -> None:
    """Where the student is: following or exploring, and the buttons to change that.

    One bordered row (a horizontal container, not columns): each follower draws it on
    every change of the teacher's view, and each block is one more message per follower.
    """
    with st.container(border=True, horizontal=True, vertical_alignment="center"):
        if following:
            st.markdown(f"**Class {state.code}** · Following the teacher")
            st.button("Stop following", key="class_stop_following", on_click=_set_following,
                      args=(False,), icon=":material/explore:")  # fmt: skip
        else:
            st.markdown(f"**Class {state.code}** · Exploring on your own")
            st.button(
                "Follow the teacher again",
                key="class_follow_again",
                on_click=_set_following,
                args=(True,),
                icon=":material/group:",
            )
        st.button("Leave class", key="class_leave", on_click=_leave)


def _apply(state: ClassRecord, target: st.Page) -> NoReturn:
    """Open the teacher's link on the teacher's page; nothing after this call runs."""
    st.session_state[OPENING_KEY] = (state.page, state.query)
    url.open_link(target, {**link_query(state.query), **class_link(state.code)})


def _watcher() -> Watcher | None:
    """The process's class watcher; None while the class store cannot even be opened."""
    try:
        return watcher()
    except ClassError:
        return None


def _enlist(version: int | None, pages: Mapping[str, st.Page]) -> None:
    """Tell the process's watcher that this session drew ``version`` of its class."""
    ctx = get_script_run_ctx()
    current = role()
    watching = _watcher()
    if ctx is None or current is None or watching is None:
        return
    watching.know_pages({path: page._script_hash for path, page in pages.items()})
    following = bool(st.session_state.get(FOLLOWING_KEY))
    applied = st.session_state.get(APPLIED_KEY)
    watching.enlist(ctx.session_id, current.code, student_id(), version, following, applied)
    st.session_state[ENLISTED_KEY] = True


def _act() -> None:
    """The watcher's rerun of :func:`_watched`: the class moved since the last full run.

    A new view of the teacher is opened from here; anything else (a question, the
    class gone) reruns the app, whose full run reads the class again.
    """
    current = role()
    if current is None or current.teaching:
        return
    try:
        state = classes().state(current.code)
    except ClassGoneError:
        st.rerun(scope="app")  # the full run reads the class again and says what happened
    except ClassError:
        return  # the store is out of reach for now: the watcher asks again
    target = st.session_state.get(PAGES_KEY, {}).get(state.page)
    new_view = (state.page, state.query) != st.session_state.get(APPLIED_KEY)
    if st.session_state.get(FOLLOWING_KEY) and target is not None and new_view:
        _apply(state, target)
    st.rerun(scope="app")


@st.fragment(key=WATCHED_FRAGMENT)
def _watched() -> None:
    """Drawn by a student's every full run (it then does nothing); the watcher reruns it."""
    ctx = get_script_run_ctx()
    if ctx is not None and ctx.fragment_ids_this_run:
        _act()


def student_done() -> Callable[[], None]:
    """Before the page: what tells the watcher that this student's run has ended (so it
    may rerun the next app). Taken before the page runs, since a page that stops early
    (``st.stop()``) leaves no call into Streamlit working after it."""
    ctx = get_script_run_ctx()
    watching = _watcher() if st.session_state.get(ENLISTED_KEY) else None
    if watching is None or ctx is None:
        return lambda: None
    return functools.partial(watching.done, ctx.session_id)


def _unlist() -> None:
    """This session is no student (any more): the watcher forgets it."""
    ctx = get_script_run_ctx()
    watching = _watcher() if st.session_state.pop(ENLISTED_KEY, False) else None
    if watching is not None and ctx is not None:
        watching.drop(ctx.session_id)


def student_run(page: st.Page, pages: Mapping[str, st.Page]) -> None:
    """Before the page: the class bar and the question, or the teacher's view opened."""
    current = role()
    st.session_state[BAR_DRAWN_KEY] = False
    if current is None or current.teaching:
        _unlist()
        return
    opened, opened_view = _opened_for_class()
    state = attempt(lambda: classes().state(current.code))
    if state is None:  # the store is out of reach (said above): the page works on its own
        _enlist(None, pages)  # so the first answer of the store reruns the app
        _watched()
        return
    st.session_state[PAGES_KEY] = dict(pages)
    target = _target(state, page, pages, opened, opened_view)
    if target is not None:
        _apply(state, target)
    _enlist(state.version, pages)
    student_bar(state, bool(st.session_state.get(FOLLOWING_KEY)))
    st.session_state[BAR_DRAWN_KEY] = True
    question_card(state, current.code)
    _watched()


def _opened_for_class() -> tuple[Opener, View | None]:
    """Who opened the view of this run for the class: "server", "app" or "" (the student),
    and the teacher's view this app opened (None if it opened none).

    Asked once per run: the server's watcher (:mod:`ui.classroom.watch`) or this app
    (:func:`_apply`) may have opened a view of the teacher that is no longer the newest.
    """
    ctx, watching = get_script_run_ctx(), _watcher()
    by_server = ctx is not None and watching is not None and watching.opened(ctx.session_id)
    opened_view = st.session_state.pop(OPENING_KEY, None)
    opener: Opener = "server" if by_server else "app" if opened_view is not None else ""
    return opener, opened_view


def _target(
    state: ClassRecord,
    page: st.Page,
    pages: Mapping[str, st.Page],
    opened: Opener,
    opened_view: View | None,
) -> st.Page | None:
    """The teacher's page if this app must switch to the teacher's view, else None.

    A follower switches when the teacher's view is new to it. When the teacher's view
    is the one it already had and its own view differs from how it showed it, the
    student changed something: it now explores on its own (one click follows again),
    rather than being pulled back. A view the class ``opened`` is never the student's
    change: if the teacher moved on (or back) meanwhile, the teacher's view is opened
    again; but the view this app opened (``opened_view``) is the teacher's as this app
    shows it, even if it reads otherwise: it is never opened again and again.
    """
    teachers = (state.page, state.query)
    target = pages.get(state.page)
    if not st.session_state.get(FOLLOWING_KEY) or target is None:
        return None
    mine = current_view(page)
    if teachers in (mine, opened_view):
        if opened == "server":
            url.show_link_in_browser()  # the server opened the link: tell the browser
        st.session_state[APPLIED_KEY] = teachers
        st.session_state[SHOWN_KEY] = mine
        return None
    if st.session_state.get(APPLIED_KEY) == teachers and not opened:
        if mine != st.session_state.get(SHOWN_KEY):
            st.session_state[FOLLOWING_KEY] = False
            show_info("You changed the view, so you are exploring on your own.")
        return None
    return target
