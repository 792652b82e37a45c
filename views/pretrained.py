"""Inside a real model: all-MiniLM-L6-v2's learned attention, computed by our own NumPy core.

The page loads the model once per server process, tokenizes the sentence (or
pair) with the model's WordPiece tokenizer, runs the forward pass once per input
(cached; changing layer, head or query only redraws), and shows one view per tab.
Every widget is bound to the URL.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from attention_core import InputError
from attention_core.boundary import limits
from attention_core.pretrained import bert, loading
from ui.figures.style import FigureStyle
from ui.pretrained.cache import ByteBoundedCache
from ui.pretrained.guided import GUIDED_TEXT, guided_section
from ui.pretrained.sections import (
    PRESETS,
    Selection,
    head_name,
    head_view_section,
    model_view,
    model_view_figure,
    rollout_section,
    steps_section,
    summary_section,
)
from ui.shared import url
from ui.shared.presentation import current_style
from ui.shared.safe import show_error, show_info, show_warning
from ui.shared.url import BIND

DEFAULT_TEXT = GUIDED_TEXT
DEFAULT_PAIR = "It was too tired to walk any further."
TABS = ("Guided example", "Model view", "Head view", "Every step", "Head summary", "Rollout")
VIEW_KEYS = ("view", "layer", "head", "query", "heads", "all_queries", "preset", "numbers")

# A 128-token forward pass keeps ~19 MB of matrices (6 layers x Q, K, V, scores,
# weights ...), a 16-token one 1 MB. 40 MB holds two of the longest or a
# classroom's worth of sentences, and keeps the page within its 150 MB budget
# beside the 90 MB model.
TRACE_CACHE_BYTES = 40 * 1024 * 1024
FIGURE_CACHE_ENTRIES = 8
CACHE_TTL_SECONDS = 30 * 60


@st.cache_resource(show_spinner="Loading all-MiniLM-L6-v2 (once per server) …")
def model() -> loading.PretrainedModel:
    """Weights and tokenizer, read and hash-checked once per process, shared by every session."""
    return loading.load_model()


@st.cache_resource(show_spinner=False)
def traces() -> ByteBoundedCache[bert.BertTrace]:
    """Forward passes by input, shared read-only by every session that types it."""
    return ByteBoundedCache(TRACE_CACHE_BYTES, lambda trace: trace.nbytes)


def encode(text: str, pair: str | None) -> loading.Encoded:
    return loading.encode(model().tokenizer, text, pair)


def trace_of(encoded: loading.Encoded) -> bert.BertTrace:
    """The input's forward pass, computed once (changing layer, head or query reuses it)."""
    key = (encoded.ids.tobytes(), encoded.type_ids.tobytes())
    return traces().get(key, lambda: bert.forward(model().weights, encoded.ids, encoded.type_ids))


@st.cache_data(max_entries=FIGURE_CACHE_ENTRIES, ttl=CACHE_TTL_SECONDS, show_spinner=False)
def model_view_cached(text: str, pair: str | None, style: FigureStyle) -> go.Figure:
    encoded = encode(text, pair)
    return model_view_figure(encoded, trace_of(encoded).weights, style)


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


def head_view_tab(shown: Selection) -> None:
    query_column, heads_column = st.columns(2)
    with query_column:
        all_queries = st.toggle("Lines from every token", key="all_queries", bind=BIND)
    with heads_column:
        heads = st.multiselect(
            "Heads to draw", list(range(1, 13)), default=[shown.head + 1], key="heads", bind=BIND
        )
    st.caption(
        "Lines from the query token (left) to every key (right), thicker for larger weights; "
        "one colour per head. Choose the layer and the query token above."
    )
    if not heads:
        show_info("Choose at least one head to draw.")
        return
    head_view_section(shown, sorted(h - 1 for h in heads), all_queries)


def summary_tab(shown: Selection) -> None:
    preset = st.selectbox("Show", list(PRESETS), key="preset", bind=BIND)
    frame = summary_section(shown, preset, pick_head)
    st.session_state["_head_rows"] = [
        (int(layer), int(head)) for layer, head in zip(frame["layer"], frame["head"], strict=True)
    ]
    st.caption(f"Open now: {head_name(shown.layer, shown.head)}.")


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


def guided(loaded: loading.PretrainedModel, other_text: bool) -> None:
    if other_text:
        st.caption("This tab always uses the guided sentence; the other tabs show yours.")
    encoded = loading.encode(loaded.tokenizer, GUIDED_TEXT)
    guided_section(encoded, trace_of(encoded), current_style())


main()
