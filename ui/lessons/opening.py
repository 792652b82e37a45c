"""Open a lesson someone shared: a lesson file, or a lesson link; then play it or edit a copy.

Each is read as the format reads any lesson (``read_lesson`` or ``read_lesson_link``) and
each step's view checked as its page checks a link (``check_lesson``). Whatever is wrong,
one message names the step and the problem, and nothing else happens: the lesson being
written (``ui.lessons.draft``) is left as it was.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import streamlit as st

from attention_core.boundary import limits
from attention_core.boundary.errors import InputError
from attention_core.teaching.builtin_lessons import BUILTIN_NAMES, builtin_lesson
from attention_core.teaching.lesson import Lesson, read_lesson
from attention_core.teaching.lesson_link import LESSON_PARAM, read_lesson_link
from ui.lessons import draft
from ui.lessons.player import play
from ui.lessons.state import PREFIX
from ui.lessons.views import check_lesson
from ui.shared.safe import escape_markdown, show_error

UPLOAD_KEY = f"{PREFIX}upload"
LINK_KEY = f"{PREFIX}link"
#: The draft's own fields' widgets: an opened lesson's copy replaces what they hold.
FIELD_KEYS = (f"{PREFIX}title", f"{PREFIX}description")
COPIED_KEY = f"{PREFIX}copied"  #: the title of the lesson just copied, said once


def lesson_from_file(data: bytes) -> Lesson:
    """The lesson in a file's bytes, every step's view checked; else one InputError."""
    lesson = read_lesson(data)
    check_lesson(lesson)
    return lesson


def link_value(pasted: str) -> str:
    """The ``lesson`` parameter of a pasted link, or the pasted text if it is only that."""
    pasted = pasted.strip()
    if "=" not in pasted:
        return pasted  # the parameter's value alone
    query = urlsplit(pasted).query if "?" in pasted else pasted
    values = parse_qs(query).get(LESSON_PARAM)
    if not values:
        raise InputError(f'This link holds no lesson: it has no "{LESSON_PARAM}=" in it.')
    return values[-1]


def lesson_from_link(pasted: str) -> tuple[Lesson, str | None]:
    """The lesson a pasted link carries, and its name if it is a built-in one."""
    value = link_value(pasted)
    if value in BUILTIN_NAMES:
        return builtin_lesson(value), value
    lesson = read_lesson_link(value)
    check_lesson(lesson)
    return lesson, None


def edit_copy(lesson: Lesson) -> None:
    """Replace the draft with a copy of ``lesson`` (a button's callback, before any widget)."""
    draft.keep(draft.from_lesson(lesson, draft.current().next_id))
    for key in FIELD_KEYS:
        st.session_state.pop(key, None)  # the fields show the copy's title and description
    st.session_state[COPIED_KEY] = lesson.title


def opened_lesson(lesson: Lesson, key: str, name: str | None = None) -> None:
    """An opened lesson's title, description and steps, with "Play" and "Edit a copy"."""
    with st.container(border=True):
        st.markdown(f"**{escape_markdown(lesson.title)}** · {len(lesson.steps)} steps")
        if lesson.description:
            st.markdown(escape_markdown(lesson.description))
        play_column, copy_column = st.columns(2)
        if play_column.button("Play", key=f"{key}_play", icon=":material/play_arrow:"):
            play(lesson, 1, name)
        steps = len(draft.current().steps)
        copy_column.button(
            "Edit a copy",
            key=f"{key}_copy",
            icon=":material/edit:",
            on_click=edit_copy,
            args=(lesson,),
            help=f"Replaces the {steps} steps of your lesson below." if steps else None,
        )


def upload_part() -> None:
    upload = st.file_uploader(
        f"A lesson file (.json, at most {limits.MAX_LESSON_BYTES // 1_000_000} MB)",
        type=["json"],
        key=UPLOAD_KEY,
        max_upload_size=max(1, limits.MAX_LESSON_BYTES // 1_000_000),
    )
    if upload is None:
        return
    try:
        lesson = lesson_from_file(upload.getvalue())
    except InputError as error:
        show_error(str(error))
        return
    opened_lesson(lesson, f"{PREFIX}file")


def link_part() -> None:
    pasted = st.text_input(
        "Or paste a lesson link",
        key=LINK_KEY,
        placeholder="https://…/?lesson=… (or just what follows lesson=)",
        help="The whole link, or only the value of its lesson= parameter; press Enter.",
    )
    if not pasted.strip():
        return
    try:
        lesson, name = lesson_from_link(pasted)
    except InputError as error:
        show_error(str(error))
        return
    opened_lesson(lesson, f"{PREFIX}pasted", name)


def copied_note() -> None:
    """Say once that the draft is now a copy (after "Edit a copy")."""
    title = st.session_state.pop(COPIED_KEY, None)
    if title is not None:
        st.success(f"Your lesson is now a copy of {escape_markdown(title)}: edit it below.")
