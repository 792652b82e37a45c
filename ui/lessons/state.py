"""The Lessons page's state: the lesson this session is writing and the app's address.

The page binds no widget to the link: a lesson being written is not a view to share (it
travels as a file or as its own link, ``ui.lessons.sharing``). Every session_state key of
the page starts with :data:`PREFIX`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

from ui.lessons.draft import Draft, current

PREFIX = "lessons_"
PAGE = "lessons"  #: the page's URL path
URL_KEYS: tuple[str, ...] = ()  #: none: the draft lives in this session only
FALLBACK_BASE = "http://localhost:8501/"  #: when the browser's address is unknown (tests)


@dataclass(frozen=True)
class LessonsState:
    """This session's draft and the base of every lesson link (``https://host/``)."""

    draft: Draft
    base_url: str


def base_url(address: str | None) -> str:
    """The app's address without this page's path or the query: ``https://host/``."""
    if not address:
        return FALLBACK_BASE
    parts = urlsplit(address)
    path = parts.path.rstrip("/").removesuffix(PAGE).rstrip("/") + "/"
    return f"{parts.scheme}://{parts.netloc}{path}"


def read_state() -> LessonsState:
    """The draft, read once per run, and the address the browser used."""
    return LessonsState(current(), base_url(st.context.url))
