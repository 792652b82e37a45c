"""Time series: which past days each day attends to, and a model that learns to use them.

Read top to bottom: title, intro, the settings (``ui.time_series.state``: the model
controls and the data), then the sections (``ui.time_series.sections``): the notes'
worked example, attention over one window before any training, then (only when
asked) training the notes' model. The training section lives in
``ui.time_series.training``; PyTorch is imported only there, once training is on.
"""

from __future__ import annotations

import streamlit as st

from ui.shared.url import snapshot, warn_rejected
from ui.time_series.sections import SECTIONS
from ui.time_series.state import CHECKED_KEYS, read_state

INTRO = (
    "Each day of a window asks which earlier days matter to it. The weights "
    "below say how much of each earlier day flows into that day's summary; the "
    "model forecasts tomorrow from the last day's summary."
)


def main() -> None:
    before = snapshot()
    st.title("Time-series attention")
    st.markdown(INTRO)
    state = read_state()
    for section in SECTIONS:
        section(state)
    warn_rejected(before, CHECKED_KEYS)


main()
