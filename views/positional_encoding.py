"""Positional encodings: why attention must be told where a token is, and four ways to do it.

Controls are bound to the URL (``pe_length``, ``pe_d_model``, ``pe_kind``,
``pe_base`` …), so a link reproduces the view. The controls live in
``ui.positional_encoding.state``, the sections in ``ui.positional_encoding.sections``.
"""

from __future__ import annotations

import streamlit as st

from ui.positional_encoding.sections import SECTIONS
from ui.positional_encoding.state import CHECKED_KEYS, read_state
from ui.shared import url
from ui.shared.tabs import show_sections


def main() -> None:
    before = url.snapshot()
    st.title("Positional encodings")
    st.markdown(
        "Attention compares every word with every other word, but nothing in that "
        "comparison says *where* a word is. A positional encoding adds that information."
    )
    link_notice = st.container()  # filled at the end, once every widget has read the URL
    state = read_state()
    show_sections(SECTIONS, state)
    with link_notice:
        url.warn_rejected(before, CHECKED_KEYS)


main()
