"""What app.py does around every page for a class: before it, the bars; after it, the view.

One call around the page keeps the navigation script short: :func:`around_page` joins from
a ``class=`` link, installs the class's page mode for a session in a class (the one way a
class reaches a page: :mod:`ui.classroom.class_mode`), shows why a class ended, draws the
teacher's or the student's bar (a follower's app may open the teacher's view instead:
nothing after that runs); after the page, it publishes a teacher's view, or tells the
server's class watcher that a student's run has ended (even one that stopped early).
Around the whole run, :func:`run_turn` makes a class's followers take turns.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import streamlit as st

from attention_core.teaching.lesson_schema import PAGE_QUESTIONS
from hosting.turns import Gate
from ui.classroom.class_mode import CLASS_MODE
from ui.classroom.class_session import following, role, show_gone_message, teaching
from ui.classroom.follow import join_from_link, student_done, student_run
from ui.classroom.state import PAGE
from ui.classroom.teaching import publish, teacher_bar
from ui.shared import page_mode

#: The pages a teacher's view is sent from: those a lesson step may show too. Not Home,
#: the class page or the Lessons page: none of them is a view.
VIEW_PAGES = frozenset(PAGE_QUESTIONS)


def before_page(page: st.Page, pages: Mapping[str, st.Page]) -> None:
    """The class bars above ``page``, or the teacher's view opened instead of it."""
    join_from_link()
    page_mode.use(CLASS_MODE if role() is not None else None)
    show_gone_message()
    if teaching() is not None:
        if page.url_path not in ("", PAGE):  # Home has none; the class page has its own
            teacher_bar()
        return
    student_run(page, pages)


@contextmanager
def around_page(page: st.Page, pages: Mapping[str, st.Page]) -> Iterator[None]:
    """Around the page's run: first :func:`before_page` (which may stop the run); a
    teacher's content page (:data:`VIEW_PAGES`) is then sent to the class; a
    student's ended run lets the server rerun the next app.

    A page that stops early (``st.stop()``: no sentence, a refused setting) or fails is
    not sent, so the class keeps the teacher's last whole view; the student's run still
    counts as ended (else the watcher would hold the class's next rerun back 2 s).
    """
    before_page(page, pages)
    done = student_done()
    try:
        yield
        publish(page, VIEW_PAGES)
    finally:
        done()


#: Followers' app runs, one at a time per process; one waits 2 s at most (see run_turn).
FOLLOWER_RUNS = Gate(at_once=1, patience=2.0)


@contextmanager
def run_turn() -> Iterator[None]:
    """A follower's run of the app waits for its turn; anybody else's runs at once.

    A teacher's change of view reaches the whole class at once (the server's watcher),
    and one process runs every session's script on one interpreter. Taking turns keeps the other
    students' own changes from queueing behind a whole class of identical runs (and
    the followers' runs from slowing each other down).
    """
    if not following():
        yield
        return
    with FOLLOWER_RUNS.turn():
        yield
