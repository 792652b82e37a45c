"""The pretrained page's models and caches: each model once per server, forward passes by input.

:class:`PageModel` is what the page asks of whichever model is chosen: its facts, its
tokens, one input's forward pass (cached), one layer's every step, token names, the
heads-that-copy scores and a head's score split. The bundled all-MiniLM-L6-v2 keeps its
whole trace (small, and a sentence pair needs its segment ids); every other checkpoint
keeps a :class:`~attention_core.pretrained.slim.SlimTrace` (weights of every layer, one
layer's steps recomputed when drawn), so a 30-layer decoder's pass fits the cache.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import streamlit as st

from attention_core.pretrained import bert, circuits, loading
from attention_core.pretrained.checkpoint import FAMILIES, Checkpoint, load_checkpoint
from attention_core.pretrained.head_split import head_score_split
from attention_core.pretrained.slim import SlimTrace, layer_steps, slim_forward
from attention_core.pretrained.token_text import KEY, style_of
from attention_core.pretrained.trace import BlockTrace, ModelInfo, ModelTrace, Tokens
from ui.pretrained.cache import ByteBoundedCache
from ui.pretrained.models import LOCAL_PREFIX

# A 128-token pass of the bundled model keeps ~21 MB (6 layers x Q, K, V, scores, weights ...),
# a 16-token one 1 MB; a decoder's slim pass at 128 tokens 7.5 MB (distilgpt2) to 25 MB
# (SmolLM2-135M), one recomputed layer 5-6 MB (BENCHMARKS.md, "Decoders"). 40 MB holds two of
# the longest or a classroom's worth of sentences, within the page's 150 MB budget beside the
# 90 MB model.
TRACE_CACHE_BYTES = 40 * 1024 * 1024
MODELS_HELD = 1  #: checkpoints other than the bundled one kept loaded at once per server
COPY_SEED = 0
COPY_LENGTH = 40  #: random tokens in each copy of the heads-that-copy test input

Encoding = loading.Encoded | Tokens
Trace = ModelTrace | SlimTrace


@st.cache_resource(show_spinner="Loading all-MiniLM-L6-v2 (once per server) …")
def model() -> loading.PretrainedModel:
    """Weights and tokenizer, read and hash-checked once per process, shared by every session."""
    return loading.load_model()


@st.cache_resource(show_spinner=False)
def bundled_checkpoint() -> Checkpoint:
    """The bundled model behind the shared contract, on the same weights (not loaded twice)."""
    loaded = model()
    return Checkpoint(bert.from_weights(loaded.weights), loaded.tokenizer, FAMILIES["bert"])


@st.cache_resource(max_entries=MODELS_HELD, show_spinner="Loading the model (once per server) …")
def checkpoint_at(folder: str) -> Checkpoint:
    """A checkpoint folder's model and tokenizer; the last one chosen stays loaded."""
    return load_checkpoint(Path(folder))


@st.cache_resource(show_spinner=False)
def pass_lock() -> threading.Lock:
    """One decoder forward pass at a time per server: each needs ~90-120 MB while it runs
    (BENCHMARKS.md, "Decoders"), so students starting at once queue instead of adding up."""
    return threading.Lock()


def _one_at_a_time(compute: Callable[[], SlimTrace]) -> SlimTrace:
    with pass_lock():
        return compute()


@st.cache_resource(show_spinner=False)
def traces() -> ByteBoundedCache[Trace | BlockTrace]:
    """Forward passes by model and input (and a decoder's recomputed layers), shared read-only
    by every session that types it."""
    return ByteBoundedCache(TRACE_CACHE_BYTES, lambda trace: trace.nbytes)


@st.cache_resource(max_entries=4, show_spinner=False)
def _copying(key: str, folder: str | None) -> dict[str, np.ndarray]:
    """The heads-that-copy scores of a model, once per server (one forward pass)."""
    page_model = PageModel(key, folder)
    info = page_model.info
    bos = page_model.bos_id()
    ids = circuits.repeated_sequence(
        np.random.default_rng(COPY_SEED),
        info.vocab_size,
        COPY_LENGTH,
        avoid=page_model.special_ids(),
        bos=bos,
    )
    run = _one_at_a_time(lambda: slim_forward(page_model.checkpoint.model, ids))
    return circuits.detect_heads(run.weights, COPY_LENGTH)


@dataclass(frozen=True)
class PageModel:
    """The chosen model as the page uses it: ``key`` in the link, ``folder`` None if bundled."""

    key: str
    folder: str | None = None

    @property
    def bundled(self) -> bool:
        return self.folder is None

    @property
    def checkpoint(self) -> Checkpoint:
        return bundled_checkpoint() if self.folder is None else checkpoint_at(self.folder)

    @property
    def info(self) -> ModelInfo:
        """The checkpoint's facts, named as the menu names it (``key`` without ``local:``).

        A Hub download's folder is named by its commit id, not by its repository.
        """
        info = self.checkpoint.info
        if self.bundled:
            return info
        return replace(info, name=self.key.removeprefix(LOCAL_PREFIX))

    def encode(self, text: str, pair: str | None = None) -> Encoding:
        """The model's tokens for ``text`` (a pair only for the bundled encoder)."""
        if self.bundled:
            return loading.encode(model().tokenizer, text, pair)
        return self.checkpoint.tokenize(text)

    def trace(self, encoded: Encoding) -> Trace:
        """The input's forward pass, computed once (changing layer, head or query reuses it)."""
        type_ids = getattr(encoded, "type_ids", np.zeros(0, dtype=np.int64))
        key = (self.key, encoded.ids.tobytes(), type_ids.tobytes())
        if self.bundled:
            return traces().get(key, lambda: bert.forward(model().weights, encoded.ids, type_ids))
        return traces().get(
            key, lambda: _one_at_a_time(lambda: slim_forward(self.checkpoint.model, encoded.ids))
        )

    def steps(self, trace: Trace, layer: int) -> BlockTrace:
        """Layer ``layer``'s every step: kept (bundled), or recomputed from its input."""
        if isinstance(trace, ModelTrace):
            return trace.layers[layer]
        key = ("steps", self.key, trace.ids.tobytes(), layer)  # drawn and asked about each rerun
        return traces().get(key, lambda: layer_steps(self.checkpoint.model, trace, layer))

    def slim(self, encoded: Encoding, trace: Trace) -> SlimTrace | None:
        """The input's slim pass (the bundled encoder's only for one sentence: None for a pair)."""
        if isinstance(trace, SlimTrace):
            return trace
        if np.any(getattr(encoded, "type_ids", 0)):
            return None
        key = ("slim", self.key, encoded.ids.tobytes())
        return traces().get(key, lambda: slim_forward(self.checkpoint.model, encoded.ids))

    @property
    def marks_key(self) -> str:
        """What the marks in token labels mean ("␣ marks a space …"); "" when none are used."""
        plain = self.bundled or style_of(self.checkpoint.tokenizer.whole) == "plain"
        return "" if plain else KEY

    def token_names(self, ids: np.ndarray) -> list[str]:
        """Each id as the labels show it: its text, a space before a word as "␣"."""
        return self.checkpoint.token_names(ids)

    def special_ids(self) -> list[int]:
        """Ids of the tokenizer's special tokens ([CLS], <|endoftext|>, <s> ...)."""
        added = self.checkpoint.tokenizer.whole.get_added_tokens_decoder()
        return [int(i) for i, token in added.items() if token.special]

    def bos_id(self) -> int | None:
        """The id every text starts with, if the tokenizer adds one (Llama family)."""
        first = self.checkpoint.tokenize("a").ids[0]
        return int(first) if int(first) in self.special_ids() else None

    def copying_scores(self) -> dict[str, np.ndarray]:
        """Previous-token, duplicate-token and induction scores ``(L, H)`` of every head."""
        return _copying(self.key, self.folder)

    def guided_run(self, text: str) -> tuple[Encoding, SlimTrace]:
        """The guided chapter's text and its slim forward pass (cached like any input)."""
        encoded = self.encode(text)
        trace = self.trace(encoded)
        return encoded, self.slim(encoded, trace)  # type: ignore[return-value]  # one sentence

    def score_split(self, run: SlimTrace | None, layer: int, head: int) -> tuple:
        """A head's score split and where it is exact (:func:`head_score_split`)."""
        if run is None:
            return None, "The split covers one sentence: switch the sentence pair off."
        return head_score_split(self.checkpoint.model, run, layer, head)
