"""The class page's state: this session's role in a class and the app's address.

The page binds no widget to the link: a class is not a view to share. Its one URL key
is the join link's ``class`` (read by the class bars in app.py, on every page).
Every session_state key of the feature starts with :data:`PREFIX`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

from ui.classroom.class_session import URL_CODE, Role, role

PREFIX = "class_"
PAGE = "classroom"  #: the page's URL path
URL_KEYS = (URL_CODE,)
FALLBACK_BASE = "http://localhost:8501/"  #: when the browser's address is unknown (tests)


@dataclass(frozen=True)
class ClassroomState:
    """This session's role (None outside a class) and the base of every join link."""

    role: Role | None
    base_url: str

    def join_link(self, code: str) -> str:
        return f"{self.base_url}?{URL_CODE}={code}"


def base_url(address: str | None) -> str:
    """The app's address without this page's path or the query: ``https://host/``."""
    if not address:
        return FALLBACK_BASE
    parts = urlsplit(address)
    path = parts.path.removesuffix(PAGE).rstrip("/") + "/"
    return f"{parts.scheme}://{parts.netloc}{path}"


def read_state() -> ClassroomState:
    """The role, read once per run, and the address the browser used."""
    return ClassroomState(role(), base_url(st.context.url))
