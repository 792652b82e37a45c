"""Trained models shared by every session of the server: one run per key, bounded, never half-done.

Both training pages (learning, time series) keep their runs in one
:class:`TrainingCache` each. A class opening the same link asks for the same
key; the first session trains, every other one waits for it (watching its
progress, if the page shows it) and then reads the same frozen result. A
result enters the cache only when its training returned: a rerun that stops
the training script (Streamlit raises ``StopException`` or ``RerunException``
inside it) leaves the slot empty, and the next session to ask trains again.
Plain Python (no Streamlit), so threads can test it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

Result = TypeVar("Result")
Progress = TypeVar("Progress")
POLL_SECONDS = 0.2


@dataclass
class Slot(Generic[Result, Progress]):
    """One key's write-once result; ``progress`` is the latest update of the run in flight."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    result: Result | None = None
    progress: Progress | None = None
    runs: int = 0  #: trainings started for this key (a finished one, or ones interrupted)


class TrainingCache(Generic[Result, Progress]):
    """At most ``max_entries`` keys, oldest use dropped first; each lives ``ttl_seconds``."""

    def __init__(self, max_entries: int, ttl_seconds: float) -> None:
        self.max_entries, self.ttl_seconds = max_entries, ttl_seconds
        self._slots: OrderedDict[object, tuple[float, Slot]] = OrderedDict()
        self._guard = threading.Lock()

    def slot(self, key: object) -> Slot[Result, Progress]:
        """The slot of ``key`` (a new empty one if absent or expired); marks it recently used."""
        now = time.monotonic()
        with self._guard:
            entry = self._slots.pop(key, None)
            if entry is None or now - entry[0] > self.ttl_seconds:
                entry = (now, Slot())
            self._slots[key] = entry
            while len(self._slots) > self.max_entries:
                self._slots.popitem(last=False)
            return entry[1]

    def cached(self, key: object) -> Result | None:
        """The finished result of ``key``, or None (does not start anything)."""
        with self._guard:
            entry = self._slots.get(key)
        return None if entry is None else entry[1].result

    def __len__(self) -> int:
        return len(self._slots)

    def get_or_train(
        self,
        key: object,
        train: Callable[[Callable[[Progress], None]], Result],
        waiting: Callable[[Progress | None], None] | None = None,
    ) -> Result:
        """The result of ``key``: trained here by ``train(report)``, or by whoever got there first.

        ``train`` receives ``report``, to call with each progress update (other
        sessions waiting on the key see it through ``waiting``, called about
        every :data:`POLL_SECONDS` while they wait). An exception from
        ``train`` (or from ``waiting``) propagates and stores nothing.
        """
        slot = self.slot(key)
        while not slot.lock.acquire(timeout=POLL_SECONDS):
            if waiting is not None:
                waiting(slot.progress)
        try:
            if slot.result is None:
                slot.runs += 1

                def report(update: Progress) -> None:
                    slot.progress = update

                slot.result = train(report)
            return slot.result
        finally:
            slot.progress = None
            slot.lock.release()
