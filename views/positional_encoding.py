"""Positional encodings: why attention must be told where a token is, and four ways to do it.

Controls are bound to the URL (``pe_length``, ``pe_d_model``, ``pe_kind``,
``pe_base`` …), so a link reproduces the view.
"""

from __future__ import annotations

import streamlit as st

import attention_core as ac
from attention_core.teaching import word_order
from ui.positional_encoding.sections import (
    curves_view,
    matrix_view,
    rotary_view,
    similarity_view,
    swap_view,
)
from ui.positional_encoding.state import LINK_KEYS, controls
from ui.shared import url
from ui.shared.presentation import current_style
from ui.shared.safe import show_error


def main() -> None:
    before = url.snapshot()
    st.title("Positional encodings")
    st.markdown(
        "Attention compares every word with every other word, but nothing in that "
        "comparison says *where* a word is. A positional encoding adds that information."
    )
    link_notice = st.container()  # filled at the end, once every widget has read the URL
    style = current_style()
    length, d_model, kind, base = controls()
    try:
        matrix = word_order.position_matrix(kind, length, d_model, base)
        matrix_view(matrix, kind, base, style)
        curves_view(matrix, kind, style)
        similarity_view(matrix, kind, style)
        if kind == "rotary":
            rotary_view(length, d_model, base, style)
    except ac.InputError as error:
        show_error(str(error))
    swap_view(kind, style)
    with link_notice:
        url.warn_rejected(before, LINK_KEYS)


main()
