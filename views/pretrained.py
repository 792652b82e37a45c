"""Inside a real model: all-MiniLM-L6-v2's learned attention, computed by our own NumPy core.

The page loads the model once per server process, tokenizes the sentence (or
pair) with the model's WordPiece tokenizer, runs the forward pass once per input
(cached; changing layer, head or query only redraws), and shows one view per tab.
Every widget is bound to the URL.
"""

from __future__ import annotations

import streamlit as st

from attention_core import InputError
from attention_core.boundary import limits
from ui.pretrained.guided import GUIDED_TEXT
from ui.pretrained.runs import encode, model, model_view_cached, trace_of
from ui.pretrained.sections import (
    Selection,
    guided,
    head_view_tab,
    model_view,
    rollout_section,
    steps_section,
    summary_tab,
)
from ui.pretrained.state import TABS, VIEW_KEYS, controls, read_input
from ui.shared import url
from ui.shared.presentation import current_style
from ui.shared.safe import show_error, show_warning
from ui.shared.url import BIND


def main() -> None:
    st.title("Inside a real model")
    st.markdown(
        "**all-MiniLM-L6-v2**, a pretrained BERT-style encoder (6 layers × 12 heads, "
        "384 numbers per token), run by this app's own NumPy attention code and checked "
        "against the reference implementation to 1e-5. Its attention was *learned* from "
        "a billion sentence pairs, not drawn at random."
    )
    before = url.snapshot()
    text, pair = read_input()
    try:
        loaded = model()
        encoded = encode(text, pair)
    except InputError as error:
        show_error(str(error))
        return
    if encoded.cut:
        show_warning(
            f"The input has {len(encoded) + encoded.cut} tokens; only the first "
            f"{limits.MAX_TOKENS} are used ({encoded.cut} cut from the end"
            + (" of the longer sentence)." if pair is not None else ").")
        )
    st.caption(f"{len(encoded)} WordPiece tokens, [CLS] and [SEP] included.")
    layer, head, query, numbers = controls(encoded)
    trace = trace_of(encoded)
    shown = Selection(encoded, trace, layer, head, query, numbers, current_style())
    views = {
        "Guided example": lambda: guided(loaded, text != GUIDED_TEXT or pair is not None),
        "Model view": lambda: model_view(shown, model_view_cached(text, pair, shown.style)),
        "Head view": lambda: head_view_tab(shown),
        "Every step": lambda: steps_section(shown),
        "Head summary": lambda: summary_tab(shown),
        "Rollout": lambda: rollout_section(shown),
    }
    for tab, name in zip(st.tabs(TABS, key="view", bind=BIND), TABS, strict=True):
        if tab.open:
            with tab:
                views[name]()
    url.warn_rejected(before, VIEW_KEYS)


main()
