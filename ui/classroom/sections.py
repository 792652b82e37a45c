"""The class page's sections: start, join or resume a class; a teacher's code, link and results.

Which sections show depends on this session's role (:func:`sections_for`). Every error a
class request meets is shown as text (:func:`ui.classroom.class_session.attempt`).
"""

from __future__ import annotations

import streamlit as st

from hosting.classroom import limits
from ui.classroom import figures
from ui.classroom.class_session import (
    Role,
    allowed,
    attempt,
    classes,
    leave,
    request_id,
    set_role,
)
from ui.classroom.follow import join
from ui.classroom.results import results_csv, results_rows
from ui.classroom.state import ClassroomState
from ui.classroom.teaching import PUBLISHED_KEY, answers_table, live_answers
from ui.shared.export import download_button
from ui.shared.safe import escape_markdown
from ui.shared.tabs import Section


def start_section(state: ClassroomState) -> None:
    st.markdown(
        "Start a class and show its code or QR code: students who join follow your view "
        "on their own screens, and you can ask them the **Check yourself** questions."
    )
    pressed = st.button(
        "Start a class", key="class_start", type="primary", icon=":material/groups:"
    )
    if pressed and allowed("start", limits.STARTS_PER_HOUR, 3600, "classes started"):
        started = attempt(lambda: classes().start())  # opening the store may fail too
        if started is not None:
            set_role(Role(started.code, started.key))
            st.rerun()


def join_section(state: ClassroomState) -> None:
    st.markdown("Type the code your teacher shows (or open the join link they share).")
    code = st.text_input("Class code", key="class_join_code", max_chars=12, placeholder="K7QH3M")
    if st.button("Join the class", key="class_join", icon=":material/login:"):
        if not code.strip():
            st.warning("Type the class code first.")
        elif join(code):
            st.rerun()


def resume_section(state: ClassroomState) -> None:
    with st.expander("Resume a class you teach (after a reload or from another tab)"):
        code = st.text_input("Class code", key="class_resume_code", max_chars=12)
        key = st.text_input("Teacher key", key="class_resume_key", type="password",
                            max_chars=limits.MAX_KEY_CHARS)  # fmt: skip
        pressed = st.button("Resume teaching", key="class_resume")
        if pressed and allowed("resume", limits.JOINS_PER_MINUTE, 60, "attempts to resume"):
            _resume(code, key)


def _resume(code: str, key: str) -> None:
    """Teach class ``code`` in this session if ``key`` is its teacher key."""
    if attempt(lambda: classes().results(code, key)) is None:
        return
    current = attempt(lambda: classes().state(code))
    if current is not None:
        set_role(Role(current.code, key))
        st.session_state.pop(PUBLISHED_KEY, None)
        st.rerun()


def class_card(state: ClassroomState) -> None:
    """The code, large; the join link as text and as a QR code; the teacher key, tucked away."""
    assert state.role is not None
    code, link = state.role.code, state.join_link(state.role.code)
    qr_column, words = st.columns([1, 2])
    words_for_qr = f"QR code of the join link {link}"
    qr_column.image(figures.qr_png(link), caption=words_for_qr, alt=words_for_qr, width=260)
    with words:
        st.metric("Class code", code)
        st.markdown("Students open this link, scan the QR code, or type the code on this page:")
        st.code(link, language=None)
        st.caption(
            "Then open any page: students follow what you show. "
            "Ask a Check yourself question with its “Ask the class” button."
        )
    with st.expander("Teacher key"):
        st.markdown("Keep it to steer from another tab or after a reload. Do not share it.")
        st.code(state.role.key, language=None)


def results_section(state: ClassroomState) -> None:
    """Every asked question: its answers and counts, the right ones in words; the CSV."""
    assert state.role is not None
    teacher = state.role
    live_answers(teacher)
    results = attempt(lambda: classes().results(teacher.code, teacher.key))
    current = attempt(lambda: classes().state(teacher.code))
    if not results or current is None:
        st.caption("No question asked yet.")
        return
    st.subheader("Every question asked")
    unrevealed = None if current.revealed or not current.question else current.question["id"]
    for asked in results_rows(results, unrevealed):
        where = f" ({escape_markdown(asked.place)})" if asked.place else ""
        st.markdown(f"**Question {asked.number}**{where}. {escape_markdown(asked.question.prompt)}")
        answers_table(asked.answers)
    download_button(
        "Download the results (CSV)",
        lambda: results_csv(results),
        f"class_{teacher.code}_results.csv",
        "class_results_csv",
    )


def end_section(state: ClassroomState) -> None:
    assert state.role is not None
    teacher = state.role
    st.markdown("Ending the class closes it for everybody; students keep the app on their own.")
    if st.button("End the class", key="class_end", icon=":material/logout:") and attempt(
        lambda: _end(teacher)
    ):
        leave(f"Class {teacher.code} has ended.")
        st.rerun()


def _end(teacher: Role) -> bool:
    classes().end(teacher.code, teacher.key, request_id())
    return True


def student_section(state: ClassroomState) -> None:
    assert state.role is not None
    st.markdown(
        f"You are in class **{state.role.code}**. Open any page: while you follow the "
        "teacher, your app shows what the teacher shows. The bar at the top lets you "
        "explore on your own, follow again or leave."
    )


OUTSIDE = (
    Section("Start a class", start_section),
    Section("Join a class", join_section),
    Section("", resume_section),
)
TEACHING = (
    Section("Your class", class_card),
    Section("The class's answers", results_section),
    Section("End the class", end_section),
)
LEARNING = (Section("Your class", student_section),)


def sections_for(state: ClassroomState) -> tuple[Section[ClassroomState], ...]:
    """What this session's role needs: start/join, its class as teacher, or as student."""
    if state.role is None:
        return OUTSIDE
    return TEACHING if state.role.teaching else LEARNING
