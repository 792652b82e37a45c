"""Watch attention learn: a tiny transformer trains on a toy task and its heads take shape.

Read top to bottom: pick a task (its target pattern is the attention that
solves it), the model and training settings, then training (PyTorch, one
thread, shared by every session with the same settings), the attention
replayed over training, and the student's own sequence. The sections live in
`ui.learning.training` and `ui.learning.sections`.
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.learning.tasks import TASKS
from ui.learning.sections import (
    curves_section,
    replay_section,
    summary_section,
    try_it_section,
)
from ui.learning.state import PREFIX, TASK_WORDS, page_keys, training_settings
from ui.learning.training import trained_model
from ui.shared.presentation import current_style
from ui.shared.safe import show_error
from ui.shared.url import BIND, snapshot, warn_rejected


def main() -> None:
    before = snapshot()
    style = current_style()
    st.title("Watch attention learn")
    st.markdown(
        "A tiny transformer starts from random weights and learns a toy task in a few "
        "seconds. Its attention starts as noise; slide through training and watch each "
        "head settle on the one pattern the task needs."
    )
    task = st.radio(
        "Task",
        list(TASKS),  # bound widgets put the option text in the link: short words
        horizontal=True,
        key=f"{PREFIX}task",
        bind=BIND,
    )
    st.markdown(TASK_WORDS[task])
    with st.expander("Model and training settings", icon=":material/tune:"):
        try:
            model, train = training_settings(task)
        except ac.InputError as error:
            show_error(str(error))
            st.stop()
    st.header("1 · Training")
    result = trained_model(model, train, style)
    summary_section(result)
    st.header("2 · Watch the attention form")
    chosen = replay_section(result, style)
    st.header("3 · Loss, accuracy and head scores")
    curves_section(result, chosen, style)
    st.header("4 · Try it")
    try_it_section(result, style)
    warn_rejected(before, page_keys(task))


main()
