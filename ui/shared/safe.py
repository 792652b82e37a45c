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


#: An invisible U+2060 WORD JOINER, after a colon or before a full stop inside a word: it
#: keeps Streamlit from turning text into a link (``www.example.com``, ``http://…``) or an
#: icon (``:material/home:``, ``:smile:``), which it does after backslash escapes are read.
#: A colon before a space and a full stop that ends a word stay as they are.
_JOINER = "\u2060"
_LINKING = re.compile(r"(\\:)(?=\S)|(\\\.)(?=\w)")


def escape_markdown(text: str) -> str:
    """Backslash-escape every Markdown/HTML-significant character of ``text``, and break
    the web addresses and icon codes Streamlit would still draw (:data:`_JOINER`)."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))
    return _LINKING.sub(lambda m: m[1] + _JOINER if m[1] else _JOINER + m[2], escaped)


def unescape_markdown(markdown: str) -> str:
    """The text a reader sees of :func:`escape_markdown`'s output: its inverse."""
    return re.sub(r"\\(.)", r"\1", markdown.replace(_JOINER, ""))


def show_error(message: str) -> None:
    """An error box whose text is shown literally."""
    st.error(escape_markdown(message), icon="⚠️")


def show_warning(message: str) -> None:
    """A warning box whose text is shown literally."""
    st.warning(escape_markdown(message), icon="✂️")


def show_info(message: str) -> None:
    """An info box whose text is shown literally."""
    st.info(escape_markdown(message))
