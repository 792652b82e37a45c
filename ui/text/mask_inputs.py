"""Mask choices that need more than a selectbox: a custom grid, and padding tokens.

:func:`mask_editor` is a grid of checkboxes for a custom mask, kept in the URL
as a short code; :func:`padding_hint` offers to add ``<pad>`` tokens when the
padding mask has nothing to hide.

The URL code is ``"{T}x{S}.{bits}"``: the mask's shape, then its cells row by
row (True = may attend) packed eight to a byte and written in URL-safe base64.
A 128 × 128 mask is about 2 700 characters, so a link carries the whole grid.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as ac
from ui.shared import page_mode
from ui.shared.safe import show_info, show_warning

URL_KEY = "cmask"
_CODE = re.compile(r"^(\d{1,4})x(\d{1,4})\.([A-Za-z0-9_-]*)$")


def encode(mask: np.ndarray) -> str:
    """``mask (T, S)`` bool -> ``"TxS.<base64url bits>"``."""
    mask = np.asarray(mask, dtype=bool)
    rows, cols = mask.shape
    packed = np.packbits(mask.ravel()).tobytes()
    return f"{rows}x{cols}." + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def decode(code: str) -> np.ndarray:
    """The bool mask ``(T, S)`` a code describes; ValueError if it is malformed."""
    match = _CODE.match(code)
    if not match:
        raise ValueError("not of the form TxS.bits")
    rows, cols = int(match[1]), int(match[2])
    if rows < 1 or cols < 1:
        raise ValueError("empty shape")
    text = match[3]
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as error:
        raise ValueError("bits are not base64") from error
    if len(packed) != -(-rows * cols // 8):
        raise ValueError("the number of bits does not match the shape")
    bits = np.unpackbits(np.frombuffer(packed, dtype=np.uint8))[: rows * cols]
    return bits.astype(bool).reshape(rows, cols)


def _mask_from_url(default: np.ndarray) -> np.ndarray:
    """The URL's mask if it is well formed and fits; otherwise ``default``, with a note."""
    code = st.query_params.get(URL_KEY)
    if code is None:
        return default
    try:
        mask = decode(code)
    except ValueError:
        show_warning("The custom mask in this link is damaged, so a causal mask is used instead.")
        return default
    if mask.shape != default.shape:
        show_info(
            f"The custom mask in this link is for {mask.shape[0]} × {mask.shape[1]} tokens, "
            f"the text has {default.shape[0]} × {default.shape[1]}; starting from a causal mask."
        )
        return default
    return mask


def _editor_key(row_labels: Sequence[str], col_labels: Sequence[str]) -> str:
    """A widget key that changes with the tokens, so old edits never land on new words."""
    names = "\x1f".join([*row_labels, "\x1e", *col_labels]).encode("utf-8")
    return f"cmask_editor_{zlib.crc32(names):08x}"


def mask_editor(
    row_labels: Sequence[str], col_labels: Sequence[str], default: np.ndarray
) -> np.ndarray:
    """Draw an editable grid (rows = queries, columns = keys); return the mask ``(T, S)``.

    Starts from the mask in the URL (``?cmask=``) or ``default``; every edit is
    written back to the URL so the link reproduces the grid. Labels must be
    unique; they are shown as text.
    """
    start = _mask_from_url(np.asarray(default, dtype=bool))
    frame = pd.DataFrame(
        start, index=pd.Index(list(row_labels), name="query ↓ / key →"), columns=list(col_labels)
    )
    st.caption("Tick a cell to let that query (row) attend to that key (column).")
    edited = st.data_editor(
        frame,
        key=_editor_key(row_labels, col_labels),
        width="stretch",
        num_rows="fixed",
    )
    mask = edited.fillna(False).to_numpy(dtype=bool)
    code = encode(mask)
    if st.query_params.get(URL_KEY) != code:
        st.query_params[URL_KEY] = code
    return mask


def _append_padding(text_key: str) -> None:
    st.session_state[text_key] = (st.session_state.get(text_key) or "") + " <pad> <pad>"


def padding_hint(key_tokens: Sequence[str], text_key: str) -> None:
    """If no key is a padding token, say how to add some and offer a button that does.

    ``text_key`` is the session key of the text area that holds the keys' sentence. No
    button when the settings are not this session's to change (the page's mode says).
    """
    if any(token in ac.PAD_TOKENS for token in key_tokens):
        return
    show_info(
        "The padding mask hides <pad> tokens, and this text has none yet. A batch pads short "
        "sentences to a common length: add <pad> or [PAD] at the end of the sentence and "
        "their columns turn grey."
    )
    if page_mode.current().settings_fixed():
        return
    st.button("Append two `<pad>` tokens", on_click=_append_padding, args=(text_key,))
