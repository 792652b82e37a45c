"""Caches shared by every session of the server, and what makes sharing safe.

:class:`ByteBoundedCache` is a least-recently-used cache bounded by bytes.

``st.cache_resource(max_entries=...)`` bounds a count, but what one forward pass
holds grows with the square of the sentence's length (benchmarks/decoders.py measures
it at 128 tokens): a count is either wasteful or unsafe. This keeps the newest results whose
arrays fit in ``max_bytes`` (always at least the newest one).

Sessions that miss the same key at once compute it once: a class following its teacher
asks for the same new layer in a hundred sessions within a second, and each recomputed
layer or forward pass costs the server what one session's whole rerun does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

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
