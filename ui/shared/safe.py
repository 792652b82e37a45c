"""Show messages that may contain user text without interpreting it.

Streamlit renders Markdown (links, images, some HTML-like syntax) in
``st.error``/``st.warning``/``st.markdown``. A message that quotes what a user
typed or uploaded goes through :func:`escape_markdown` first, so it is shown
as text, never as markup.
"""

from __future__ import annotations

import re

import streamlit as st

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def escape_markdown(text: str) -> str:
    """Backslash-escape every Markdown/HTML-significant character of ``text``."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def show_error(message: str) -> None:
    """An error box whose text is shown literally."""
    st.error(escape_markdown(message), icon="⚠️")


def show_warning(message: str) -> None:
    """A warning box whose text is shown literally."""
    st.warning(escape_markdown(message), icon="✂️")


def show_info(message: str) -> None:
    """An info box whose text is shown literally."""
    st.info(escape_markdown(message))
