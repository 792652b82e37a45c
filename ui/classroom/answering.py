"""A student's card for the teacher's open question: answer once, then the core's verdict.

The prompt may quote tokens someone typed, so it is escaped and shown as text; the verdict
is :func:`attention_core.teaching.questions.check` on the answer this session sent.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from attention_core.teaching.questions import Question, check
from hosting.classroom import limits
from hosting.classroom.records import ClassRecord
from ui.classroom.class_questions import (
    UnsendableAnswerError,
    answer_text,
    answer_value,
    question_from_json,
)
from ui.classroom.class_session import (
    allowed,
    attempt,
    classes,
    note_open_question,
    student_id,
)
from ui.shared.check_yourself import answer_widget
from ui.shared.safe import escape_markdown, show_info, show_warning

ANSWER_KEY = "class_answer"
ANSWER_FOR_KEY = "class_answer_for"  #: the question the answer widget holds an answer to
#: This student's answers in one class: {"code": the class, "sent": question id -> the
#: answer sent, "looked_up": the question ids whose answer was read from the store}. Another
#: class starts afresh: the same question asked there (ids follow the content) is new.
MINE_KEY = "class_mine"


def _mine(code: str) -> dict[str, Any]:
    mine = st.session_state.get(MINE_KEY)
    if not isinstance(mine, dict) or mine.get("code") != code:
        mine = st.session_state[MINE_KEY] = {"code": code, "sent": {}, "looked_up": set()}
    return mine


def _sent(code: str) -> dict[str, str]:
    """What this student sent to class ``code``, by question id."""
    return _mine(code)["sent"]


def _my_answer(code: str, question: Question) -> str | None:
    """The answer this student sent, read from the store once per session and question:
    after a reload (the same student: :func:`ui.classroom.class_session.student_id`) the
    caption and the verdict still show it."""
    sent, looked_up = _sent(code), _mine(code)["looked_up"]
    if question.id not in sent and question.id not in looked_up:
        looked_up.add(question.id)
        stored = attempt(lambda: classes().answer_of(code, student_id(), question.id))
        if stored is not None:
            sent[question.id] = stored
    return sent.get(question.id)


def _answer_widget(question: Question) -> str | float | None:
    if st.session_state.get(ANSWER_FOR_KEY) != question.id:  # a new question: a fresh widget
        st.session_state.pop(ANSWER_KEY, None)
        st.session_state[ANSWER_FOR_KEY] = question.id
    return answer_widget(question, ANSWER_KEY)


def _send(code: str, question: Question, answer: str | float | None) -> None:
    if answer is None:
        show_warning("Choose or type an answer first.")
        return
    try:
        text = answer_text(question, answer)
    except UnsendableAnswerError as error:
        show_warning(str(error))
        return
    if not allowed("answer", limits.ANSWERS_PER_MINUTE, 60, "answers"):
        return
    counted = attempt(lambda: classes().answer(code, student_id(), question.id, text))
    if counted:
        _sent(code)[question.id] = text
        st.success(f"Sent: {escape_markdown(text)}. Wait for the teacher to reveal the answer.")
    elif counted is False:
        _mine(code)["looked_up"].discard(question.id)
        _my_answer(code, question)  # the first answer, sent from another tab or before a reload
        show_info("You have already answered this question: your first answer counts.")


def _verdict(code: str, question: Question) -> None:
    sent = _my_answer(code, question)
    if sent is None:
        show_info(f"You did not answer. The answer is {question.answer}. {question.explanation}")
        return
    verdict = check(question, answer_value(question, sent))
    text = escape_markdown(f"You answered {sent}. {verdict.explanation}")
    show = st.success if verdict.correct else st.error
    show(f"**{verdict.headline}** {text}", icon="✅" if verdict.correct else "❌")


def question_card(state: ClassRecord, code: str) -> None:
    """The open question: its answer widget and "Send answer", or, once revealed, the verdict.

    It also notes the open question's id until the reveal, so that this run's "Check
    yourself" holds that question back (:func:`ui.classroom.class_session.asked_of_class`).
    """
    open_id = None if state.question is None or state.revealed else str(state.question["id"])
    note_open_question(code, open_id)
    if state.question is None:
        return
    question = question_from_json(state.question)
    with st.container(border=True):
        st.markdown("**The teacher asks**")
        if state.revealed:
            st.markdown(escape_markdown(question.prompt))
            _verdict(code, question)
            return
        _answering(code, question)


@st.fragment
def _answering(code: str, question: Question) -> None:
    """The answer box and "Send answer": picking an answer or sending it reruns only this.

    A whole class answers at once; as a full run each pick and each send would run the
    student's whole page again, twice per student and question, on the one server.
    """
    answer = _answer_widget(question)
    sent = _my_answer(code, question)
    if st.button("Send answer", key="class_send"):
        _send(code, question, answer)
    elif sent is not None:
        st.caption(f"You answered {escape_markdown(sent)}. The first answer counts.")
    else:
        st.caption("One answer each: the first one you send counts.")
