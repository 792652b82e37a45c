"""The teacher's side on every page: the class bar, the live answers, and publishing the view.

After a content page has run, :func:`publish` sends its page and query (the teacher's link,
without ``class`` and ``present``) to the class, only when it differs from what this
session sent last: an unchanged rerun writes nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import pandas as pd
import streamlit as st

from hosting.classroom import limits
from hosting.classroom.records import ClassError
from ui.classroom import figures
from ui.classroom.class_questions import (
    question_from_json,
)
from ui.classroom.class_session import (
    Role,
    attempt,
    classes,
    published_query,
    request_id,
    teaching,
)
from ui.classroom.figures import AnswerCount
from ui.classroom.results import answer_rows, chart_rows
from ui.shared.matrix_view import chart
from ui.shared.presentation import current_style
from ui.shared.safe import escape_markdown, show_error

PUBLISHED_KEY = "class_published"  #: the view this session last sent to its class
REVEAL_ERROR_KEY = "class_reveal_error"


def publish(page: st.Page, content_pages: Collection[str]) -> None:
    """Send this content page's view to the class if it changed since the last one sent."""
    teacher = teaching()
    if teacher is None or page.url_path not in content_pages:
        return
    query = published_query()
    view = (page.url_path, query)
    if st.session_state.get(PUBLISHED_KEY) == view:
        return
    sent = attempt(
        lambda: classes().steer(teacher.code, teacher.key, request_id(), page.url_path, query)
    )
    if sent is not None:
        st.session_state[PUBLISHED_KEY] = view


def _reveal(teacher: Role, question_id: str) -> None:
    """On "Reveal": before the panel redraws, so it draws the revealed answer."""
    try:
        classes().reveal(teacher.code, teacher.key, request_id(), question_id)
    except ClassError as error:
        st.session_state[REVEAL_ERROR_KEY] = str(error)


def answers_panel(teacher: Role) -> None:
    """The open question's answers so far: "n of m answered", the chart, its table, Reveal."""
    state = attempt(lambda: classes().state(teacher.code))
    if state is None or state.question is None:
        return
    question = question_from_json(state.question)
    counts = attempt(lambda: classes().counts(teacher.code, question.id)) or {}
    present = attempt(lambda: classes().present(teacher.code)) or 0
    rows = chart_rows(question, answer_rows(question, counts, state.revealed))
    answered = sum(counts.values())
    st.markdown(f"**Open question:** {escape_markdown(question.prompt)}")
    st.markdown(f"**{answered} of {present} present answered**")
    chart(
        figures.answers_bar(rows, current_style()),
        key="class_answers_chart",
        alt=figures.answers_alt(rows, answered, present),
    )
    answers_table(rows)
    if REVEAL_ERROR_KEY in st.session_state:
        show_error(st.session_state.pop(REVEAL_ERROR_KEY))
    if state.revealed:
        st.caption(f"Revealed. The answer is {escape_markdown(question.answer)}.")
    else:
        st.button("Reveal the answer", key="class_reveal", icon=":material/visibility:",
                  on_click=_reveal, args=(teacher, question.id))  # fmt: skip


def answers_table(rows: Sequence[AnswerCount]) -> None:
    """Each answer, how many gave it and whether it is right, in words: a real table."""
    table = pd.DataFrame(
        {
            "answer": [row.answer for row in rows],
            "students": [row.count for row in rows],
            "right?": [in_words(row.correct) for row in rows],
        }
    )
    st.table(table.set_index("answer"))  # a screen reader walks its cells


def in_words(correct: bool | None) -> str:
    """Right or not, in words (the tables say it; colour never alone)."""
    return "not revealed yet" if correct is None else ("right" if correct else "not right")


@st.fragment(run_every=limits.POLL_SECONDS)
def live_answers(teacher: Role) -> None:
    """The answers panel, redrawn every ``POLL_SECONDS`` while the page is open."""
    if teaching() != teacher:  # the class ended in another run: redraw the page without it
        st.rerun(scope="app")
    answers_panel(teacher)


def teacher_bar() -> None:
    """At the top of a page while teaching: the class, who is present, the open question."""
    teacher = teaching()
    if teacher is None:
        return
    state = attempt(lambda: classes().state(teacher.code))
    if state is None:
        return
    present = attempt(lambda: classes().present(teacher.code))
    with st.container(border=True):
        st.markdown(f"**Teaching class {teacher.code}** · {present or 0} present")
        if state.question is not None:
            with st.expander("The class's answers", expanded=True):
                live_answers(teacher)
