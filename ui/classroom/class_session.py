"""A live class in this browser session: the server's one store, this session's role, questions.

Every page may be part of a class: app.py draws the teacher's and the students' bars around
it (:mod:`ui.classroom.around`), and the page reaches the class only through the class's
page mode (:mod:`ui.classroom.class_mode`), which reads this module. The class itself
lives in :class:`hosting.classroom.classes.Classes`; here is only what a browser session
keeps: its role (a teacher holds the code and the teacher key, a student the code and an
anonymous random id) and its rate limits. Every session_state key of the feature starts
with ``class_``.

Questions travel as JSON (:func:`question_json`) and come back as core
:class:`~attention_core.teaching.questions.Question` objects (:func:`question_from_json`), so
every verdict is the core's :func:`~attention_core.teaching.questions.check`.
"""

from __future__ import annotations

import dataclasses
import math
import secrets
import uuid
from collections.abc import Callable, Mapping
from typing import TypeVar

import streamlit as st

from attention_core.teaching.questions import Question
from hosting.classroom import settings
from hosting.classroom.classes import STUDENT_ID, Classes
from hosting.classroom.rate import RateLimit
from hosting.classroom.records import ClassError, ClassGoneError
from hosting.classroom.views import (
    CLASS_PARAM,
    LISTS_PARAM,
    STUDENT_PARAM,
    pack_lists,
    unpack_lists,
    usable_name,
)
from ui.classroom.class_questions import question_id, question_json
from ui.shared.check_yourself import kind_of
from ui.shared.playing_step import PlayingStep, playing_step
from ui.shared.safe import show_error, show_warning

URL_CODE = CLASS_PARAM  #: the join link's parameter: ``/?class=K7QH3M``
ROLE_KEY = "class_role"
FOLLOWING_KEY = "class_following"  #: a student shows the teacher's view (else explores)
BAR_DRAWN_KEY = "class_bar_drawn"  #: this run drew the student's class bar (set by every run)
STUDENT_ID_KEY = "class_student_id"
GONE_KEY = "class_gone_message"  #: why this session's class ended, shown once
#: A student's class and the id of its open question not yet revealed (None: none), as the
#: last run that reached the store read them (kept while the store is out of reach)
OPEN_QUESTION_KEY = "class_open_question"
ASK_ON_OPEN_KEY = "class_ask_on_open"  #: a teacher's lesson asks each step's question as it opens
ASKED_ON_OPEN_KEY = "class_asked_on_open"  #: the (lesson, step) whose question that asked

Result = TypeVar("Result")


@dataclasses.dataclass(frozen=True)
class Role:
    """This session's place in a class: its code, and the teacher key if it teaches."""

    code: str
    key: str = ""

    @property
    def teaching(self) -> bool:
        return bool(self.key)


def _secret() -> str | None:
    """The store URL from Streamlit's secrets, if there is a secrets file that names one."""
    try:
        value = st.secrets.get(settings.SETTING)
    except FileNotFoundError:  # no secrets file: StreamlitSecretNotFoundError
        return None
    return str(value) if value else None


@st.cache_resource(show_spinner=False)
def classes() -> Classes:
    """The server process's one entry point to the class store (SQLite, or Redis if set)."""
    return Classes(settings.open_store(settings.store_url(_secret())))


def role() -> Role | None:
    """This session's class role, or None outside a class."""
    current = st.session_state.get(ROLE_KEY)
    return current if isinstance(current, Role) else None


def teaching() -> Role | None:
    """The role if this session teaches a class, else None."""
    current = role()
    return current if current is not None and current.teaching else None


def settings_listed() -> bool:
    """Whether this run lists the teacher's settings instead of drawing their widgets: the
    student follows, and this run drew the class bar whose button stops following (not
    while the class store is out of reach: the page then works on its own)."""
    return following() and bool(st.session_state.get(BAR_DRAWN_KEY))


def following() -> bool:
    """Whether this session is a student following the teacher's view."""
    current = role()
    return (
        current is not None and not current.teaching and bool(st.session_state.get(FOLLOWING_KEY))
    )


def set_role(new_role: Role | None) -> None:
    """Enter a class (or leave it with None)."""
    if new_role is None:
        st.session_state.pop(ROLE_KEY, None)
    else:
        st.session_state[ROLE_KEY] = new_role


def student_id() -> str:
    """This student's anonymous id: random, nothing personal.

    A student's link carries it (``student=``, :func:`class_link`), so a reload is the
    same student: present once, one answer per question. (Joining drops a linked id that
    another open tab uses: :func:`ui.classroom.follow.join`.)
    """
    if STUDENT_ID_KEY not in st.session_state:
        linked = st.query_params.get(STUDENT_PARAM, "")
        usable = STUDENT_ID.fullmatch(linked) is not None
        st.session_state[STUDENT_ID_KEY] = linked if usable else secrets.token_urlsafe(12)
    return str(st.session_state[STUDENT_ID_KEY])


def class_link(code: str) -> dict[str, str]:
    """The parameters that keep a student in class ``code`` as the same student."""
    return {URL_CODE: code, STUDENT_PARAM: student_id()}


def request_id() -> str:
    """A fresh id for one teacher request (the store refuses a replayed one)."""
    return uuid.uuid4().hex


def leave(message: str = "") -> None:
    """Leave the class: drop the role, the link's code, and keep ``message`` to show once."""
    set_role(None)
    st.session_state.pop(OPEN_QUESTION_KEY, None)
    for name in (URL_CODE, STUDENT_PARAM):
        if name in st.query_params:
            del st.query_params[name]
    if message:
        st.session_state[GONE_KEY] = message


def published_query() -> dict[str, str]:
    """This session's query as a teacher's view: no ``class``/``present``, one text per name.

    A parameter with several values (a multiselect's) travels packed under
    :data:`~hosting.classroom.views.LISTS_PARAM` (:mod:`hosting.classroom.views`), since
    a class's view maps each name to one text.
    """
    query: dict[str, str] = {}
    lists: dict[str, list[str]] = {}
    for name in st.query_params.to_dict():
        if not usable_name(name):
            continue  # the class's code, presentation mode or a stray parameter: no setting
        values = st.query_params.get_all(name)
        if len(values) == 1:
            query[name] = values[0]
        else:
            lists[name] = values
    if lists:
        query[LISTS_PARAM] = pack_lists(lists)
    return query


def link_query(published: Mapping[str, str]) -> dict[str, str | list[str]]:
    """A published view's query as the link's parameters (several values where it had them)."""
    query: dict[str, str | list[str]] = {
        name: value for name, value in published.items() if usable_name(name)
    }
    query.update(unpack_lists(published.get(LISTS_PARAM, "{}")) or {})
    return query


def show_gone_message() -> None:
    """Why the class ended (once), with the way back: the page keeps working."""
    message = st.session_state.pop(GONE_KEY, None)
    if message:
        show_warning(message)
        st.caption("Keep exploring on your own: every page works as before.")


def attempt(action: Callable[[], Result]) -> Result | None:
    """Run a class request; show its error as text (None).

    A class that is gone is left, and the whole app reruns: the next run, above the page,
    says why (:func:`show_gone_message`), even when this request ran in a fragment.
    """
    try:
        return action()
    except ClassGoneError as error:
        if role() is None:
            show_error(str(error))
            return None
        leave(str(error))
        st.rerun(scope="app")
    except ClassError as error:
        show_error(str(error))
    return None


def allowed(name: str, limit: int, seconds: float, what: str) -> bool:
    """One more ``what`` within this session's rate limit ``name``? Says so when not."""
    key = f"class_rate_{name}"
    if key not in st.session_state:
        st.session_state[key] = RateLimit(limit, seconds)
    rate: RateLimit = st.session_state[key]
    if rate.allow():
        return True
    show_error(
        f"Too many {what} from this browser. Try again in {math.ceil(rate.wait_seconds())} s."
    )
    return False


def note_open_question(code: str, open_id: str | None) -> None:
    """A student's run: note the id of class ``code``'s open question not yet revealed
    (None: there is none), for :func:`asked_of_class` further down the same run."""
    st.session_state[OPEN_QUESTION_KEY] = (code, open_id)


def asked_of_class(question: Question, digest: str) -> bool:
    """Whether this student's class has ``question`` open and not yet revealed.

    Read from what the class bar noted this run (:func:`note_open_question`), so no
    second read of the store. Always False for a teacher and outside a class.
    """
    current = role()
    noted = st.session_state.get(OPEN_QUESTION_KEY)
    if current is None or current.teaching or not isinstance(noted, tuple):
        return False
    code, open_id = noted
    return code == current.code and open_id == question_id(question, digest)


def _asked_on_open(question: Question, step: PlayingStep | None) -> bool:
    """Whether ``question`` goes to the class now because its lesson step has just opened
    (the teacher chose so): the step's first question of its kind, once per opening."""
    if step is None or step.question != kind_of(question):
        return False
    if not st.session_state.get(ASK_ON_OPEN_KEY):
        return False
    opened = (step.lesson, step.number)
    if st.session_state.get(ASKED_ON_OPEN_KEY) == opened:
        return False
    st.session_state[ASKED_ON_OPEN_KEY] = opened
    return True


def ask_button(question: Question, widget_key: str, digest: str) -> None:
    """While teaching: "Ask the class" beside the question; it opens it on every screen.

    A question asked while a lesson step plays carries the lesson's title and the step's
    number, so the class's results group it by lesson and step."""
    teacher = teaching()
    if teacher is None:
        return
    step = playing_step()
    clicked = st.button("Ask the class", key=f"class_ask_{widget_key}", icon=":material/campaign:")
    if clicked or _asked_on_open(question, step):
        sent = question_json(question, digest)
        if step is not None:
            sent.update(lesson=step.lesson, step=step.number)
        asked = attempt(lambda: classes().ask(teacher.code, teacher.key, request_id(), sent))
        if asked is not None:
            st.rerun()  # the class bar above the page opens the live answers
