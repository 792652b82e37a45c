""" "Check yourself": a list of questions about the view, each answered and checked in place.

The questions come from the core (``attention_core.teaching``), computed from the
numbers on screen; this module only asks them and shows the core's verdict, in
words as well as colour. Answers are not bound to the link: a shared view asks
the same questions, unanswered. Prompts and explanations may quote typed tokens,
so they are escaped (:func:`ui.shared.safe.escape_markdown`) and shown as text;
a select box shows its choices as plain text already.

Predict, then reveal: ``chart_for`` gives the chart a question asks about (or None);
with ``reveal_after`` that chart appears only once the question has been checked.

A lesson step being played (:mod:`ui.shared.playing_step`) may name a kind of question:
that question comes first, marked as the step's; a student may move on without it.

The page's mode (:mod:`ui.shared.page_mode`) may fold the questions away (one switch
opens them; folded, they are not even computed), hold a question back from its "Check"
(:func:`held`), and draw something under each "Check" (a live class does all three:
:mod:`ui.classroom.class_mode`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import streamlit as st

from attention_core.teaching.questions import CHOICE, Question, check
from ui.shared import page_mode
from ui.shared.playing_step import playing_step
from ui.shared.safe import escape_markdown

TITLE = "Check yourself"
KEY_PREFIX = "check_"  #: every widget key of the section starts so (none is bound to the link)
NUMBER_STEP = 0.01
PLACEHOLDER = "Choose an answer"
OPEN_KEY = f"{KEY_PREFIX}open"  #: the switch that unfolds folded questions
STEP_QUESTION = "this step's question"  #: beside the number of a lesson step's question


def digest(question: Question) -> str:
    """The question's content in 8 hex digits: the same id on another view is another question."""
    return f"{zlib.crc32(repr(question).encode('utf-8')):08x}"


def widget_key(page: str, number: int, question: Question) -> str:
    """The key of question ``number``'s widgets on ``page``, the same on every view.

    One key per page, place and kind of question (the kind fixes the widget's type), not
    per question: Streamlit keeps every widget key a session has used until the session
    ends, so a key per question would grow each student's session with every change of
    view. :func:`reset_if_new` clears it for a new question.
    """
    return f"{KEY_PREFIX}{page}_{number}_{question.id.split('/', 1)[0]}"


def reset_if_new(key: str, question: Question) -> None:
    """Before the widgets of ``key`` are drawn: clear its answer and check if it now asks
    another question than on the last run that drew it (a new view asks anew)."""
    shown = digest(question)
    if st.session_state.get(f"{key}_shows") == shown:
        return
    st.session_state[f"{key}_shows"] = shown
    st.session_state[f"{key}_answer"] = None  # the browser's box is emptied too
    st.session_state.pop(f"{key}_checked", None)


def answer_widget(question: Question, key: str) -> str | float | None:
    """The answer box of ``question`` under its prompt: a select box of choices, or a number.

    The prompt is drawn as escaped text above the box, and the box is named by the plain
    prompt with its label collapsed: Streamlit renders a label as Markdown but gives the
    raw label to screen readers, so an escaped label would be read with its backslashes.
    """
    st.markdown(escape_markdown(question.prompt))
    if question.kind == CHOICE:
        # A select box, not a radio group: an unanswered radio group is one Tab stop whose
        # other options only arrow keys reach, and the page promises Tab reaches every control.
        # Its options are shown as plain text (no Markdown), so tokens need no escaping.
        return st.selectbox(question.prompt, question.choices, index=None, key=key,
                            placeholder=PLACEHOLDER, label_visibility="collapsed")  # fmt: skip
    return st.number_input(question.prompt, value=None, step=NUMBER_STEP, format="%.3f",
                           key=key, label_visibility="collapsed")  # fmt: skip


def _remember(key: str) -> None:
    """On "Check": keep the answer given, so the verdict stays until the answer changes."""
    st.session_state[f"{key}_checked"] = st.session_state.get(f"{key}_answer")


def held(key: str, question: Question, chart: Callable[[], None] | None,
         reveal_after: bool) -> bool:  # fmt: skip
    """If the page's mode holds ``question`` back: show it with the mode's note, not checked
    (nor its chart if the chart gives the answer away), and return True."""
    note = page_mode.current().question_held(question)
    if note is None:
        return False
    st.session_state.pop(f"{key}_checked", None)  # asked anew once it is no longer held
    st.markdown(escape_markdown(question.prompt))
    st.info(note, icon=":material/campaign:")
    if chart is not None and not reveal_after:
        chart()
    return True


def kind_of(question: Question) -> str:
    """The question's kind, as a lesson step names it: its id up to the first "/"."""
    return question.id.split("/", 1)[0]


def step_question_first(questions: Sequence[Question], kind: str | None) -> list[Question]:
    """``questions`` with the first of ``kind`` (a lesson step's) moved to the front."""
    ordered = list(questions)
    for index, question in enumerate(ordered):
        if kind_of(question) == kind:
            return [ordered.pop(index), *ordered]
    return ordered


def show_question(
    page: str,
    number: int,
    question: Question,
    chart: Callable[[], None] | None,
    reveal_after: bool,
    label: str = "",
) -> None:
    """Question ``number`` (``label`` beside it): the answer widget, "Check", the verdict in
    words, its chart."""
    key = widget_key(page, number, question)
    reset_if_new(key, question)
    st.markdown(f"**Question {number}**" + (f" · {label}" if label else ""))
    if held(key, question, chart, reveal_after):
        return
    answer = answer_widget(question, f"{key}_answer")
    st.button(f"Check answer {number}", key=f"{key}_check", on_click=_remember, args=(key,))
    page_mode.current().beside_question(question, key)
    answered = f"{key}_checked" in st.session_state  # checked once: the chart stays shown
    if answered and st.session_state[f"{key}_checked"] == answer:  # else: changed, check again
        verdict = check(question, answer)
        text = f"**{verdict.headline}** {escape_markdown(verdict.explanation)}"
        (st.success if verdict.correct else st.error)(text, icon="✅" if verdict.correct else "❌")
    if chart is None:
        return
    if reveal_after and not answered:
        st.caption("Answer first: the chart appears once you have checked your answer.")
    else:
        chart()


def unfolded() -> bool:
    """Whether the questions are shown: always, unless the page's mode folds them and the
    switch that opens them is off."""
    folded = page_mode.current().questions_folded()
    if folded is None:
        return True
    st.caption(folded)
    return st.toggle("Show the questions", key=OPEN_KEY)


def check_yourself(
    page: str,
    questions: Callable[[], Sequence[Question]],
    chart_for: Callable[[Question], Callable[[], None] | None] | None = None,
    reveal_after: bool = False,
) -> None:
    """The section: a heading, then every question in turn (``questions()``, when unfolded)."""
    st.subheader(TITLE)
    if not unfolded():
        return
    st.caption("Questions computed from the numbers of this view. Answer, then press Check.")
    step = playing_step()
    kind = step.question if step is not None else None
    asked = step_question_first(questions(), kind)
    featured = kind is not None and bool(asked) and kind_of(asked[0]) == kind
    if kind is not None and not featured:
        st.caption(
            "This view does not ask this step's question; the lesson bar's "
            '"Back to this step\'s view" brings it back.'
        )
    for number, question in enumerate(asked, start=1):
        chart = chart_for(question) if chart_for is not None else None
        label = STEP_QUESTION if featured and number == 1 else ""
        show_question(page, number, question, chart, reveal_after, label)
