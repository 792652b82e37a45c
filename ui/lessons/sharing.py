"""Share the lesson being written: download its file, or copy a link that carries it whole.

Nothing is stored on the server: the file is the lesson (``lesson_file``), and the link's
``lesson`` parameter packs it (``lesson_link``); a lesson too long for a link is said so,
and the file offered instead.
"""

from __future__ import annotations

import re

import streamlit as st

from attention_core.boundary.errors import InputError
from attention_core.teaching.lesson import Lesson, lesson_file
from attention_core.teaching.lesson_link import LESSON_PARAM, lesson_link
from ui.lessons.state import PREFIX
from ui.shared.safe import show_info

DOWNLOAD_KEY = f"{PREFIX}download"
MAX_FILE_NAME_CHARS = 60


def file_name(title: str) -> str:
    """A file name from the lesson's title: ``from-scores-to-weights.json``."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:MAX_FILE_NAME_CHARS]
    return f"{slug.strip('-') or 'lesson'}.json"


def lesson_address(base_url: str, lesson: Lesson) -> str:
    """The link that opens ``lesson`` on this app; InputError if it is too long for a link."""
    return f"{base_url}?{LESSON_PARAM}={lesson_link(lesson)}"


def share(lesson: Lesson, base_url: str) -> None:
    """The download button and the lesson's link, for a lesson that has been checked."""
    st.download_button(
        "Download the lesson file",
        data=lesson_file(lesson),
        file_name=file_name(lesson.title),
        mime="application/json",
        key=DOWNLOAD_KEY,
        on_click="ignore",
        icon=":material/download:",
        help="A .json file: open it here again, or send it to anyone who runs this app.",
    )
    try:
        address = lesson_address(base_url, lesson)
    except InputError as error:
        show_info(str(error))  # "too long for a link … Share it as a file instead."
        return
    st.markdown(
        "Or copy its link (the button at the right of the box): the link carries the "
        "whole lesson and opens it on any server running this app."
    )
    st.code(address, language=None, wrap_lines=True)
