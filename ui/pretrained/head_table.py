"""A table with one row per head that opens the picked head in every view (head summary,
heads that copy)."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st


def _open_picked(key: str) -> None:
    """The table's row callback: the picked row's layer and head (from 1) become the page's."""
    rows = st.session_state[key].selection.rows
    if rows:
        st.session_state["layer"], st.session_state["head"] = st.session_state[f"_{key}_rows"][
            rows[0]
        ]


def head_table(frame: pd.DataFrame, key: str, height: int) -> None:
    """``frame`` (columns ``layer`` and ``head`` counted from 1, then measures), sortable by
    clicking a column; picking a row opens that head."""
    st.session_state[f"_{key}_rows"] = [
        (int(layer), int(head)) for layer, head in zip(frame["layer"], frame["head"], strict=True)
    ]
    st.dataframe(
        frame.reset_index(drop=True),
        key=key,
        on_select=partial(_open_picked, key),
        selection_mode="single-row",
        hide_index=True,
        width="stretch",
        height=height,
    )
