"""Classroom walkthrough: attention in six steps, each with its formula and live numbers.

The step is bound to the URL (``?step=3``), so a link opens the lecture at that
step. PyTorch is imported only when step 6 is shown. The step picker lives in
``ui.walkthrough.state``, the steps in ``ui.walkthrough.sections``.
"""

from __future__ import annotations

import streamlit as st

from ui.shared import url
from ui.walkthrough.sections import show_lecture_step
from ui.walkthrough.state import URL_KEYS, read_state


def main() -> None:
    before = url.snapshot()
    st.title("Classroom walkthrough")
    link_notice = st.container()  # filled at the end, once every widget has read the URL
    state = read_state()
    show_lecture_step(state)
    with link_notice:
        url.warn_rejected(before, URL_KEYS)


main()
