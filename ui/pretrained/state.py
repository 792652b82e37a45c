"""The pretrained page's controls: the sentence (or pair), layer, head, query and numbers.

:func:`read_state` draws them, tokenizes the input and runs the forward pass
(cached), and returns a :class:`PretrainedState`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attention_core import InputError
from attention_core.boundary import limits
from attention_core.pretrained import bert, loading
from ui.figures.style import FigureStyle
from ui.pretrained.guided import GUIDED_TEXT
from ui.pretrained.runs import encode, model, trace_of
from ui.shared.presentation import current_style
from ui.shared.safe import show_error, show_warning
from ui.shared.url import BIND

DEFAULT_TEXT = GUIDED_TEXT
DEFAULT_PAIR = "It was too tired to walk any further."
#: The sentence(s), taken as typed: never refused, so not checked against the link.
SENTENCE_KEYS = ("text", "pair", "text2")
#: Every URL key the page binds ("heads" holds the heads the head view draws).
URL_KEYS = (
    *SENTENCE_KEYS,
    "view",
    "layer",
    "head",
    "query",
    "heads",
    "all_queries",
    "preset",
    "numbers",
)
#: The keys whose refused link values are named in a warning.
CHECKED_KEYS = tuple(key for key in URL_KEYS if key not in SENTENCE_KEYS)


@dataclass(frozen=True)
class PretrainedState:
    """The input, its forward pass and the chosen layer, head and query (0-based)."""

    text: str
    pair: str | None
    encoded: loading.Encoded
    trace: bert.BertTrace
    layer: int
    head: int
    query: int
    numbers: bool
    style: FigureStyle

    @property
    def other_text(self) -> bool:
        """Whether the input is not the guided example's sentence."""
        return self.text != GUIDED_TEXT or self.pair is not None


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


def read_state() -> PretrainedState:
    """The input and the controls; stops with a message on an input the model cannot take."""
    text, pair = read_input()
    try:
        model()
        encoded = encode(text, pair)
    except InputError as error:
        show_error(str(error))
        st.stop()
    if encoded.cut:
        show_warning(
            f"The input has {len(encoded) + encoded.cut} tokens; only the first "
            f"{limits.MAX_TOKENS} are used ({encoded.cut} cut from the end"
            + (" of the longer sentence)." if pair is not None else ").")
        )
    st.caption(f"{len(encoded)} WordPiece tokens, [CLS] and [SEP] included.")
    layer, head, query, numbers = controls(encoded)
    trace = trace_of(encoded)
    return PretrainedState(text, pair, encoded, trace, layer, head, query, numbers, current_style())
