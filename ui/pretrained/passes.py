"""The pretrained page's models and caches: each model once per server, forward passes by input.

:class:`PageModel` is what the page asks of whichever model is chosen: its facts, its
tokens, one input's forward pass (cached), one layer's every step, token names, the
heads-that-copy scores and a head's score split.

Every model's pass is kept one way, as a :class:`~attention_core.pretrained.slim.SlimTrace`:
every layer's weights and input, and a layer's every step recomputed from its input when
it is drawn (the same function on the same input: the same numbers), cached on its own.
A whole trace would keep Q, K, V, the score matrices and the context of *every* layer while
the page draws one layer's at a time: a 30-layer decoder's would not fit the cache, and the
bundled encoder's is three times its slim pass. So no view asks which family it draws, and
the bundled encoder's score split needs no second pass. A sentence pair's type ids go into
the encoder's pass (:func:`~attention_core.pretrained.slim.slim_forward`).

:class:`ByteBoundedCache` holds the passes and layers: least recently used, bounded by bytes
rather than a count (a pass grows with the square of its length, so a count is either
wasteful or unsafe), always keeping the newest. Sessions that miss one key at once compute
it once: every student of a lecture asks for the same new layer within
a second.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np
import streamlit as st

from attention_core.pretrained import bert, circuits, loading
from attention_core.pretrained.checkpoint import FAMILIES, Checkpoint, load_checkpoint
from attention_core.pretrained.head_split import head_score_split
from attention_core.pretrained.induction_experiment import COPY_LENGTH, copy_test_ids
from attention_core.pretrained.slim import SlimTrace, layer_steps, slim_forward
from attention_core.pretrained.token_text import KEY, style_of
from attention_core.pretrained.trace import BlockTrace, ModelInfo, ModelTokens
from ui.pretrained.models import LOCAL_PREFIX

Value = TypeVar("Value")


class ByteBoundedCache(Generic[Value]):
    """``get(key, compute)``: the cached value, or ``compute()`` stored with its size."""

    def __init__(self, max_bytes: int, size_of: Callable[[Value], int]) -> None:
        self.max_bytes = max_bytes
        self.size_of = size_of
        self._entries: OrderedDict[Hashable, tuple[Value, int]] = OrderedDict()
        self._computing: dict[Hashable, threading.Event] = {}  #: keys being computed, and when done
        self._lock = threading.Lock()
        self.misses = 0

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self._entries.values())

    def get(self, key: Hashable, compute: Callable[[], Value]) -> Value:
        while True:
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    return self._entries[key][0]
                running = self._computing.get(key)
                if running is None:
                    done = self._computing[key] = threading.Event()
                    break
            running.wait()  # another session computes it: read its result (or compute on failure)
        try:
            value = compute()  # outside the lock: other sessions keep reading meanwhile
            size = self.size_of(value)
            with self._lock:
                self.misses += 1
                self._entries[key] = (value, size)
                self._entries.move_to_end(key)
                while len(self._entries) > 1 and self.total_bytes > self.max_bytes:
                    self._entries.popitem(last=False)
        finally:
            with self._lock:
                del self._computing[key]
            done.set()
        return value


# A 128-token slim pass of the bundled model keeps 6 MB (6 layers x 12 heads x 128² weights and
# 6 x 128 x 384 inputs, float32), one recomputed layer 3.6 MB; a decoder's slim pass at 128
# tokens 7.5 MB (distilgpt2) to 25 MB (SmolLM2-135M), one recomputed layer 5-6 MB
# (benchmarks/decoders.py). 40 MB holds two of the longest or a lecture's worth of
# sentences, within the page's 150 MB budget beside the 90 MB model.
TRACE_CACHE_BYTES = 40 * 1024 * 1024
MODELS_HELD = 1  #: checkpoints other than the bundled one kept loaded at once per server

Encoding = loading.Encoded | ModelTokens


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
    """One decoder forward pass at a time per server: each needs memory of its own while it
    runs (benchmarks/decoders.py), so students starting at once queue instead of adding up."""
    return threading.Lock()


def one_at_a_time(compute: Callable[[], Value]) -> Value:
    with pass_lock():
        return compute()


@st.cache_resource(show_spinner=False)
def traces() -> ByteBoundedCache[SlimTrace | BlockTrace]:
    """Forward passes by model and input (and a decoder's recomputed layers), shared read-only
    by every session that types it."""
    return ByteBoundedCache(TRACE_CACHE_BYTES, lambda trace: trace.nbytes)


@st.cache_resource(max_entries=2, show_spinner=False)
def copy_run(key: str, folder: str | None) -> SlimTrace:
    """The intact pass of the heads-that-copy test input (:data:`COPY_LENGTH` random tokens
    twice, seeded), once per server: its weights score the heads, its guesses count copying
    (``ui.pretrained.ablation_runs``)."""
    page_model = PageModel(key, folder)
    ids = copy_test_ids(page_model.info.vocab_size, page_model.special_ids(), page_model.bos_id())
    return one_at_a_time(lambda: slim_forward(page_model.checkpoint.model, ids))


@st.cache_resource(max_entries=4, show_spinner=False)
def _copying(key: str, folder: str | None) -> dict[str, np.ndarray]:
    """The heads-that-copy scores of a model, once per server (one forward pass)."""
    return circuits.detect_heads(copy_run(key, folder).weights, COPY_LENGTH)


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

    def trace(self, encoded: Encoding) -> SlimTrace:
        """The input's forward pass, computed once (changing layer, head or query reuses it)."""
        type_ids = getattr(encoded, "type_ids", None)  # a sentence pair's (bundled encoder)
        model = self.checkpoint.model

        def compute() -> SlimTrace:
            return slim_forward(model, encoded.ids, type_ids)

        key = (self.key, *_input_key(encoded.ids, type_ids))
        # The bundled encoder's pass is small: only the larger decoders' queue (pass_lock).
        return traces().get(key, compute if self.bundled else lambda: one_at_a_time(compute))

    def steps(self, trace: SlimTrace, layer: int) -> BlockTrace:
        """Layer ``layer``'s every step, recomputed from its kept input (drawn and asked about
        each rerun, so cached)."""
        key = ("steps", self.key, *_input_key(trace.ids, trace.type_ids), layer)
        return traces().get(key, lambda: layer_steps(self.checkpoint.model, trace, layer))

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

    def copy_weights(self) -> np.ndarray:
        """Every head's weights ``(L, H, T, T)`` on the heads-that-copy test input, which
        :meth:`copying_scores` scores (the same pass, shared read-only)."""
        return copy_run(self.key, self.folder).weights

    def guided_run(self, text: str) -> tuple[Encoding, SlimTrace]:
        """The guided chapter's text and its forward pass (cached like any input)."""
        encoded = self.encode(text)
        return encoded, self.trace(encoded)

    def score_split(self, trace: SlimTrace, layer: int, head: int) -> tuple:
        """A head's score split and where it is exact (:func:`head_score_split`)."""
        return head_score_split(self.checkpoint.model, trace, layer, head)


def _input_key(ids: np.ndarray, type_ids: np.ndarray | None) -> tuple[bytes, bytes]:
    """An input as part of a cache key: its ids and its sentence ids (none for one text)."""
    return ids.tobytes(), b"" if type_ids is None else type_ids.tobytes()
