"""Text attention: type a sentence and follow it from tokens to context vectors, head by head.

The page reads the sidebar model controls and the sentence(s), runs the core
once (cached for every session, with the figures, in ``ui.text.runs``), and
shows one step of the data flow per tab: tokens → positions → Q, K, V → scores
and weights → head view → context and output. Only the open tab is built.
Every widget is bound to the URL, so the address bar is always a link to this
exact view.
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.boundary.registry import GRID, PADDING
from ui.shared import url
from ui.shared.controls import attention_controls, control_keys
from ui.shared.matrix_view import npz_download
from ui.shared.presentation import current_style
from ui.shared.safe import show_error
from ui.shared.stage_arrays import all_matrices
from ui.shared.stages import stages_for
from ui.shared.tabs import show_tabs
from ui.shared.url import BIND
from ui.text.mask_inputs import encode, mask_editor, padding_hint
from ui.text.runs import RunKey, View
from ui.text.sections import TABS
from ui.text.state import (
    compute_or_stop,
    read_texts,
    sizes_caption,
    tokenize_or_stop,
    warn_long_link_text,
)

# Always-drawn view settings in the URL, checked after the tabs (the model controls are
# checked before, as a bad one can stop the page early).
VIEW_KEYS = ("view", "head", "numbers")


def main() -> None:
    before = url.snapshot()
    st.title("Text attention")
    link_notice = st.container()  # view settings are checked once every widget has run
    st.markdown(
        "Type a sentence and follow it from words to context vectors, one step per "
        "tab. Every setting is in the link, so you can share exactly this view."
    )
    try:
        config, config_error = attention_controls(), None
    except ac.InputError as error:
        config, config_error = None, str(error)
    text, text2 = read_texts()
    url.warn_rejected(before, [*control_keys(), "cross"])
    warn_long_link_text(before)
    if config is None:
        show_error(config_error)
        st.stop()

    queries = tokenize_or_stop(text, "The sentence")
    keys = None if text2 is None else tokenize_or_stop(text2, "The second sentence")
    key_side = queries if keys is None else keys
    mask_code = None
    needs = ac.MASKS[config.mask].needs
    if PADDING in needs:
        padding_hint(key_side.tokens, "text" if keys is None else "text2")
    if GRID in needs:
        with st.expander("Custom mask: which keys may each query see?", expanded=True):
            default = ac.causal_mask(len(queries.tokens), len(key_side.tokens))
            mask_code = encode(mask_editor(queries.labels, key_side.labels, default))
    run_key = RunKey(queries, keys, config, mask_code)
    run = compute_or_stop(run_key)
    st.caption(sizes_caption(config, queries, keys))

    head_column, numbers_column, download_column = st.columns(3, vertical_alignment="bottom")
    with head_column:
        head = st.selectbox(
            "Head to inspect",
            list(range(1, config.n_heads + 1)),
            key="head",
            bind=BIND,
            help="Tabs 3, 4 and 6 show this head in detail.",
        )
    with numbers_column:
        numbers = st.toggle(
            "Show numbers",
            key="numbers",
            bind=BIND,
            help="Each matrix as a rounded table, with a CSV download.",
        )
    with download_column:
        npz_download(all_matrices(run), file_name="attention.npz", key="npz")

    view = View(
        run_key, run, stages_for(config, keys is not None), head - 1, numbers, current_style()
    )
    show_tabs(TABS, view)
    with link_notice:
        url.warn_rejected(before, VIEW_KEYS)


main()
