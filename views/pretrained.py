"""Inside a real model: all-MiniLM-L6-v2's learned attention, computed by our own NumPy core.

The page loads the model once per server process, tokenizes the sentence (or
pair) with the model's WordPiece tokenizer, runs the forward pass once per input
(cached; changing layer, head or query only redraws), and shows one view per tab.
Every widget is bound to the URL; "Check yourself" below the tabs (``ui.pretrained.questions``)
asks questions computed from this forward pass.
"""

from __future__ import annotations

import streamlit as st

from ui.pretrained.questions import check_yourself_section
from ui.pretrained.sections import TABS
from ui.pretrained.state import CHECKED_KEYS, read_state
from ui.shared import url
from ui.shared.tabs import show_tabs


def main() -> None:
    st.title("Inside a real model")
    st.markdown(
        "**all-MiniLM-L6-v2**, a pretrained BERT-style encoder (6 layers × 12 heads, "
        "384 numbers per token), run by this app's own NumPy attention code and checked "
        "against the reference implementation to 1e-5. Its attention was *learned* from "
        "a billion sentence pairs, not drawn at random."
    )
    before = url.snapshot()
    state = read_state()
    show_tabs(TABS, state)
    check_yourself_section(state)
    url.warn_rejected(before, CHECKED_KEYS)


main()
