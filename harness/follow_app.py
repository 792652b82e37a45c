"""A stand-in for the app's class following, for benchmarks/class_session.py's own test.

The app's contract, in a few lines and nothing else: opening any page with
``?class=CODE`` joins class CODE (the real store: ``hosting.classroom``), a
``st.fragment(run_every=1 s)`` reads the class's version, and when it changed
the app reruns and switches to the teacher's page with the teacher's query
(plus ``class``); an open question is answered with ``class_answer`` and
``class_send``. The real app needs no browser poll: its server reads the version for all
its students and reruns their apps (ui.classroom.watch); this stand-in keeps the poll, so
the headless client's fragment timers stay tested (tests/deploy/test_headless_client.py).
"""

import secrets

import streamlit as st

from hosting.classroom.classes import Classes
from hosting.classroom.limits import POLL_SECONDS
from hosting.classroom.records import ClassError
from hosting.classroom.settings import open_store, store_url


@st.cache_resource
def classes() -> Classes:
    return Classes(open_store(store_url()))


def home() -> None:
    st.write("Home")


def text() -> None:
    st.number_input("Seed", 0, 10_000, 0, key="seed")


PAGES = {
    "home": st.Page(home, title="Home", url_path="home", default=True),
    "text": st.Page(text, title="Text", url_path="text"),
}


@st.fragment(run_every=POLL_SECONDS)
def poll(code: str) -> None:
    """One store read per tick; a full rerun only when the teacher changed something
    (or the class is gone: the full run says so, and draws no more polling)."""
    try:
        changed = classes().version(code) != st.session_state.class_seen
    except ClassError:
        changed = True
    if changed:
        st.rerun(scope="app")


def question(code: str, asked: dict) -> None:
    choice = st.selectbox("Your answer", asked["choices"], key="class_answer")
    if st.button("Send answer", key="class_send"):
        student = st.session_state.class_student
        # "Still here" (the real app's server says it every 10 s): only a student present
        # may answer, and this stand-in joined once, maybe longer ago than that.
        classes().join(code, student)
        classes().answer(code, student, asked["id"], str(choice))


def follow(code: str, page: st.Page) -> None:
    if "class_student" not in st.session_state:
        st.session_state.class_student = secrets.token_urlsafe(12)
        classes().join(code, st.session_state.class_student)
    state = classes().state(code)
    st.session_state.class_seen = state.version
    if state.page and st.session_state.get("class_applied") != state.version:
        st.session_state.class_applied = state.version
        view = {**state.query, "class": code}
        if state.page != page.url_path or st.query_params.to_dict() != view:
            st.switch_page(PAGES[state.page], query_params=view)
    poll(code)
    if state.question is not None and not state.revealed:
        question(code, state.question)


page = st.navigation(list(PAGES.values()))
if "class" in st.query_params:
    try:
        follow(st.query_params["class"], page)
    except ClassError as error:
        st.error(str(error))
page.run()
