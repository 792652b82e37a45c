"""Inside a real model: a pretrained model's learned attention, computed by our own NumPy core.

The bundled all-MiniLM-L6-v2 (an encoder) by default; a decoder (GPT-2 or Llama family)
from this server's folder or the Hugging Face Hub when the server offers one
(``ui.pretrained.models``). The page loads the model once per server process, tokenizes
the sentence (or pair) with the model's tokenizer, runs the forward pass once per input
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
        "A pretrained model's attention, *learned* from data rather than drawn at random, "
        "computed step by step by this app's own NumPy code (equal to the reference "
        "implementation, transformers, to 1e-5)."
    )
    before = url.snapshot()
    state = read_state()
    show_tabs(TABS, state)
    check_yourself_section(state)
    url.warn_rejected(before, CHECKED_KEYS)


main()
