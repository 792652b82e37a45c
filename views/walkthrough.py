"""Classroom walkthrough: attention in six steps, each with its formula and live numbers.

The step is bound to the URL (``?step=3``), so a link opens the lecture at that
step. PyTorch is imported only when step 6 is shown.
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from ui.shared import url
from ui.shared.presentation import current_style
from ui.shared.safe import show_error
from ui.walkthrough.sections import STEPS
from ui.walkthrough.state import LINK_KEYS, navigation


def main() -> None:
    before = url.snapshot()
    st.title("Classroom walkthrough")
    link_notice = st.container()  # filled at the end, once every widget has read the URL
    step = navigation()
    try:
        STEPS[step - 1](current_style())
    except ac.InputError as error:
        show_error(str(error))
    with link_notice:
        url.warn_rejected(before, LINK_KEYS)


main()
