"""Long and short work takes turns: a fixed number at once per process.

Trainings (:class:`Turns`): both training pages train through one :data:`TRAININGS`
queue, first come, first served. A training waits for its turn and can say, while it
waits, how many runs are ahead of it (the page shows "2 models ahead of yours").
Leaving the queue early (the student closes the page, Streamlit stops the script)
frees the place at once.

Short runs that arrive all at once (:class:`Gate`): a whole class's runs of the app
after one change of the teacher's view. Each waits a bounded time, then goes in anyway.

Plain threading, no PyTorch.
"""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

POLL_SECONDS = 0.2
FIRST_GUESS_SECONDS = 5.0  #: a training's length before any has finished here


class Turns:
    """At most ``at_once`` holders at a time; the others wait in arrival order."""

    def __init__(self, at_once: int = 1) -> None:
        self.at_once = at_once
        self._tickets = itertools.count()
        self._waiting: list[int] = []  # tickets in arrival order
        self._running = 0
        self._changed = threading.Condition()
        self._durations: deque[float] = deque(maxlen=10)

    def typical_seconds(self) -> float:
        """The median length of the last ten finished turns here (a first guess before any)."""
        with self._changed:
            durations = list(self._durations)
        return statistics.median(durations) if durations else FIRST_GUESS_SECONDS

    def wait_seconds(self, ahead: int) -> float:
        """About how long ``ahead`` runs take to clear, ``at_once`` at a time."""
        return ahead * self.typical_seconds() / self.at_once

    def waiting_words(self, ahead: int) -> str:
        """What a waiting student reads: their place and about how long."""
        models = "model" if ahead == 1 else "models"
        return (
            f"Waiting for the server's trainer: {ahead} {models} ahead of yours, "
            f"about {max(1, round(self.wait_seconds(ahead)))} s."
        )

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @contextmanager
    def turn(self, waiting: Callable[[int], None] | None = None) -> Iterator[None]:
        """Hold a turn for the ``with`` block; ``waiting(ahead)`` is called while waiting.

        ``ahead`` counts the runs before this one (running or queued earlier). An
        exception from ``waiting`` leaves the queue and propagates.
        """
        with self._changed:
            ticket = next(self._tickets)
            self._waiting.append(ticket)
            try:
                while self._running >= self.at_once or self._waiting[0] != ticket:
                    if waiting is not None:
                        ahead = self._running + self._waiting.index(ticket)
                        self._changed.release()
                        try:
                            waiting(ahead)
                        finally:
                            self._changed.acquire()
                    self._changed.wait(POLL_SECONDS)
            finally:
                self._waiting.remove(ticket)
                self._changed.notify_all()
            self._running += 1
        started = time.monotonic()
        try:
            yield
        except BaseException:
            finished = False  # an interrupted run says nothing about how long one takes
            raise
        else:
            finished = True
        finally:
            with self._changed:
                self._running -= 1
                if finished:
                    self._durations.append(time.monotonic() - started)
                self._changed.notify_all()


#: The process's one queue for both training pages: one run at a time, since a second at once
#: takes the other core from every other student for little gain (benchmarks/training_storm.py).
TRAININGS = Turns(at_once=1)


class Gate:
    """At most ``at_once`` holders at a time; a caller waits ``patience`` seconds at most.

    For short runs that many sessions start at the same moment: taking turns leaves
    the interpreter to everybody else's work meanwhile. After ``patience`` a caller
    goes in without a turn, so a holder that is itself held up (say, waiting for a
    training's turn) delays the others by ``patience`` at worst. Waiters are woken
    one at a time, about in arrival order.
    """

    def __init__(self, at_once: int, patience: float) -> None:
        self.patience = patience
        self._free = threading.BoundedSemaphore(at_once)

    @contextmanager
    def turn(self) -> Iterator[bool]:
        """Hold a turn for the ``with`` block; yields False if it went in without one."""
        took = self._free.acquire(timeout=self.patience)
        try:
            yield took
        finally:
            if took:
                self._free.release()
