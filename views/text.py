"""Text attention: type a sentence and follow it from tokens to context vectors, head by head.

Top to bottom: title, intro, the settings (``ui.text.state``: the sidebar model
controls, the sentence(s), the run, computed once and cached for every session in
``ui.text.cache``), then one tab per step of the data flow (``ui.text.sections``):
tokens → positions → Q, K, V → scores and weights → head view → context and
output. Only the open tab is built. Below the tabs, "Check yourself" asks
questions computed from this view (``ui.text.questions``). Every setting is
bound to the URL, so the address bar is always a link to this exact view.
"""

from __future__ import annotations

import streamlit as st

from ui.shared import url
from ui.shared.tabs import show_tabs
from ui.text.questions import check_yourself_section
from ui.text.sections import TABS
from ui.text.state import CHECKED_AFTER_TABS, PREFIX, read_state

INTRO = (
    "Type a sentence and follow it from words to context vectors, one step per "
    "tab. Every setting is in the link, so you can share exactly this view."
)


def main() -> None:
    before = url.snapshot()
    st.title("Text attention")
    link_notice = st.container()  # view settings are checked once every widget has run
    st.markdown(INTRO)
    state = read_state()
    show_tabs(TABS, state, key=f"{PREFIX}view")
    check_yourself_section(state)
    with link_notice:
        url.warn_rejected(before, CHECKED_AFTER_TABS)


main()
