"""The pretrained page's controls: the model, the sentence (or pair), layer, head, query, numbers.

:func:`read_state` draws them, tokenizes the input and runs the forward pass
(cached), and returns a :class:`PretrainedState`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import streamlit as st

from attention_core import InputError
from attention_core.boundary import limits
from attention_core.pretrained.slim import SlimTrace
from attention_core.pretrained.trace import BlockTrace, ModelInfo
from ui.figures.style import FigureStyle
from ui.pretrained.guided import GUIDED_TEXT
from ui.pretrained.models import (
    BUNDLED_KEY,
    MODEL_KEY,
    checkpoint_folder,
    choose_model,
    origin,
)
from ui.pretrained.passes import Encoding, PageModel
from ui.shared.figure_cache import digest
from ui.shared.presentation import current_style
from ui.shared.safe import escape_markdown, show_error, show_warning
from ui.shared.url import BIND

DEFAULT_TEXT = GUIDED_TEXT
DEFAULT_PAIR = "It was too tired to walk any further."
#: The sentence(s), taken as typed: never refused, so not checked against the link.
SENTENCE_KEYS = ("text", "pair", "text2")
LAYERS_KEY = "layers"  #: the group of layers the model view shows (``ui.pretrained.model_view``)
#: Which drawn head the head view shows as a matrix, when it draws several (1-based).
MATRIX_HEAD_KEY = "matrix_head"
#: Every URL key the page binds ("heads" holds the heads the head view draws).
URL_KEYS = (
    MODEL_KEY,
    *SENTENCE_KEYS,
    "view",
    "layer",
    "head",
    "query",
    LAYERS_KEY,
    "heads",
    MATRIX_HEAD_KEY,
    "all_queries",
    "preset",
    "numbers",
    "detector",
    "off",  # the heads turned off (ui.pretrained.heads_off_view) and how
    "off_kind",
)
#: The keys whose refused link values are named in a warning.
CHECKED_KEYS = tuple(key for key in URL_KEYS if key not in SENTENCE_KEYS)


@dataclass(frozen=True)
class PretrainedState:
    """The model, the input, its forward pass and the chosen layer, head and query (0-based)."""

    model: PageModel
    text: str
    pair: str | None
    encoded: Encoding
    trace: SlimTrace  #: its forward pass: every layer's weights and input, the predictions
    layer: int
    head: int
    query: int
    numbers: bool
    style: FigureStyle

    @cached_property
    def digest(self) -> str:
        """The model and the input in 64 hex digits: with layer, head, query and style, all that
        a view's figures follow from, so the shared builders (``ui.pretrained.cache``) are
        keyed by it instead of hashing the trace's arrays on every rerun."""
        return digest((self.model.key, self.model.folder, self.text, self.pair))

    @property
    def other_text(self) -> bool:
        """Whether the input is not the guided example's sentence."""
        return self.text != GUIDED_TEXT or self.pair is not None

    @property
    def weights(self) -> np.ndarray:
        """Every layer's attention weights ``(L, H, T, T)``."""
        return self.trace.weights

    def steps(self, layer: int) -> BlockTrace:
        """Layer ``layer``'s every step (Q, K, V, scores ... weights, context), recomputed."""
        return self.model.steps(self.trace, layer)


def read_input(bundled: bool) -> tuple[str, str | None]:
    """The sentence, and for the bundled encoder a second one if the pair toggle is on."""
    text = st.text_area(
        "Sentence",
        DEFAULT_TEXT,
        key="text",
        bind=BIND,
        max_chars=limits.MAX_TEXT_CHARS,
        help=f"Split into tokens by the model's own tokenizer; at most {limits.MAX_TOKENS} "
        "tokens, special tokens included.",
    )
    if not bundled:
        return text, None
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


def default_query(encoded: Encoding) -> int:
    """Start at "it" (the guided question), else the first word after [CLS]."""
    return encoded.tokens.index("it") if "it" in encoded.tokens else min(1, len(encoded) - 1)


def controls(encoded: Encoding, info: ModelInfo) -> tuple[int, int, int, bool]:
    layer_column, head_column, query_column, numbers_column = st.columns(
        4, vertical_alignment="bottom"
    )
    with layer_column:
        layer = st.selectbox(
            "Layer",
            list(range(1, info.n_layers + 1)),
            key="layer",
            bind=BIND,
            index=min(3, info.n_layers - 1),
        )
    with head_column:
        head = st.selectbox(
            "Head",
            list(range(1, info.n_heads + 1)),
            key="head",
            bind=BIND,
            index=min(1, info.n_heads - 1),
        )
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


def page_model() -> PageModel:
    """The chosen model, loaded (once per server); stops with a message until it can run."""
    choice = choose_model()
    folder = checkpoint_folder(choice)
    if choice.key != BUNDLED_KEY and folder is None:
        st.stop()  # a Hub model not downloaded yet: its button and message are drawn
    chosen = PageModel(choice.key, None if choice.key == BUNDLED_KEY else str(folder))
    try:
        info = chosen.info  # loads (and checks) the files once per server
    except InputError as error:
        show_error(str(error) if chosen.bundled else f"{choice.key} cannot be loaded: {error}")
        st.stop()
    st.markdown(describe(info))
    st.caption(origin(choice))
    return chosen


KINDS = {
    "bert": "a BERT-style encoder: every token sees every other",
    "gpt2": "a GPT-2 decoder: each token sees only the tokens before it (causal mask)",
    "llama": "a Llama-family decoder (causal mask, rotary positions, RMSNorm, SwiGLU)",
}


def describe(info: ModelInfo) -> str:
    """The model in one sentence, from its config: kind, layers, heads, width."""
    grouped = (
        f", {info.n_kv_heads} key/value heads shared by groups of query heads"
        if info.n_kv_heads < info.n_heads
        else ""
    )
    return (
        f"**{escape_markdown(info.name)}**, {KINDS[info.family]}: {info.n_layers} layers × "
        f"{info.n_heads} heads{grouped}, {info.d_model} numbers per token, run by this app's own "
        "NumPy attention code."
    )


def cut_warning(encoded: Encoding, pair: str | None) -> None:
    if encoded.cut:
        show_warning(
            f"The input has {len(encoded) + encoded.cut} tokens; only the first "
            f"{limits.MAX_TOKENS} are used ({encoded.cut} cut from the end"
            + (" of the longer sentence)." if pair is not None else ").")
        )


def read_state() -> PretrainedState:
    """The model, the input and the controls; stops with a message on what cannot run."""
    chosen = page_model()
    text, pair = read_input(chosen.bundled)
    try:
        encoded = chosen.encode(text, pair)
    except InputError as error:
        show_error(str(error))
        st.stop()
    cut_warning(encoded, pair)
    if chosen.bundled:
        st.caption(f"{len(encoded)} WordPiece tokens, [CLS] and [SEP] included.")
    else:
        st.caption(
            f"{len(encoded)} tokens, as {chosen.info.name}'s tokenizer cuts the text. "
            + chosen.marks_key
        )
    layer, head, query, numbers = controls(encoded, chosen.info)
    trace = chosen.trace(encoded)
    return PretrainedState(
        chosen, text, pair, encoded, trace, layer, head, query, numbers, current_style()
    )
