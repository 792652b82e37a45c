"""The pretrained page's caches: the model once per server; forward passes, model views by input."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from attention_core.pretrained import bert, loading
from ui.figures.style import FigureStyle
from ui.pretrained.cache import ByteBoundedCache
from ui.pretrained.figures import model_view_figure

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
