"""The pretrained page's controls: the sentence (or pair), layer, head, query and numbers."""

from __future__ import annotations

import streamlit as st

from attention_core.boundary import limits
from attention_core.pretrained import loading
from ui.pretrained.guided import GUIDED_TEXT
from ui.shared.url import BIND

DEFAULT_TEXT = GUIDED_TEXT
DEFAULT_PAIR = "It was too tired to walk any further."
TABS = ("Guided example", "Model view", "Head view", "Every step", "Head summary", "Rollout")
VIEW_KEYS = ("view", "layer", "head", "query", "heads", "all_queries", "preset", "numbers")


def read_input() -> tuple[str, str | None]:
    text = st.text_area(
        "Sentence",
        DEFAULT_TEXT,
        key="text",
        bind=BIND,
        max_chars=limits.MAX_TEXT_CHARS,
        help=f"Split into WordPiece tokens by the model's own tokenizer; at most "
        f"{limits.MAX_TOKENS} tokens, [CLS] and [SEP] included.",
    )
    pair = st.toggle(
        "Sentence pair: add a second sentence after [SEP]",
        key="pair",
        bind=BIND,
        help="The model was trained on pairs too: sentence B gets token type 1.",
    )
    if not pair:
        return text, None
    second = st.text_area(
        "Second sentence", DEFAULT_PAIR, key="text2", bind=BIND, max_chars=limits.MAX_TEXT_CHARS
    )
    return text, second


def pick_head() -> None:
    """The head table's row callback: open the picked head in every view."""
    rows = st.session_state["head_table"].selection.rows
    if rows:
        layer, head = st.session_state["_head_rows"][rows[0]]
        st.session_state["layer"], st.session_state["head"] = layer, head


def default_query(encoded: loading.Encoded) -> int:
    """Start at "it" (the guided question), else the first word after [CLS]."""
    return encoded.tokens.index("it") if "it" in encoded.tokens else min(1, len(encoded) - 1)


def controls(encoded: loading.Encoded) -> tuple[int, int, int, bool]:
    layer_column, head_column, query_column, numbers_column = st.columns(
        4, vertical_alignment="bottom"
    )
    with layer_column:
        layer = st.selectbox("Layer", list(range(1, 7)), key="layer", bind=BIND, index=3)
    with head_column:
        head = st.selectbox("Head", list(range(1, 13)), key="head", bind=BIND, index=1)
    labels = encoded.labels
    with query_column:
        query = st.selectbox(
            "Query token",
            list(range(len(labels))),
            key="query",
            bind=BIND,
            index=default_query(encoded),
            format_func=lambda i: f"{i}: {labels[i]}",
        )
    with numbers_column:
        numbers = st.toggle(
            "Show numbers",
            key="numbers",
            bind=BIND,
            help="Each step's matrix as a table, with CSV.",
        )
    return layer - 1, head - 1, query, numbers
