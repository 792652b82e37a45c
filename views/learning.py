"""Watch attention learn: a tiny transformer trains on a toy task and its heads take shape.

Read top to bottom: pick a task (its target pattern is the attention that
solves it), the model and training settings, then training (PyTorch, one
thread, shared by every session with the same settings), the attention
replayed over training, and the student's own sequence. The settings live in
`ui.learning.state`, the training in `ui.learning.training`, the sections in
`ui.learning.sections`.
"""

from __future__ import annotations

import streamlit as st

from ui.learning.sections import SECTIONS, Trained, summary_section
from ui.learning.state import URL_KEYS, read_state
from ui.learning.training import trained_model
from ui.shared.tabs import show_sections
from ui.shared.url import snapshot, warn_rejected


def main() -> None:
    before = snapshot()
    st.title("Watch attention learn")
    st.markdown(
        "A tiny transformer starts from random weights and learns a toy task in a few "
        "seconds. Its attention starts as noise; slide through training and watch each "
        "head settle on the one pattern the task needs."
    )
    state = read_state()
    st.header("1 · Training")
    trained = Trained(state, trained_model(state))
    summary_section(trained)
    show_sections(SECTIONS, trained)
    warn_rejected(before, URL_KEYS[state.task])


main()
