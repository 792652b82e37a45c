"""Rate limits for one browser session: at most ``limit`` events in any ``seconds`` window."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


class RateLimit:
    """A sliding window: :meth:`allow` says whether one more event fits, and counts it if so."""

    def __init__(self, limit: int, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.seconds = seconds
        self.clock = clock
        self._events: deque[float] = deque()

    def allow(self) -> bool:
        now = self.clock()
        while self._events and self._events[0] <= now - self.seconds:
            self._events.popleft()
        if len(self._events) >= self.limit:
            return False
        self._events.append(now)
        return True

    def wait_seconds(self) -> float:
        """How long until one more event fits (0 if it fits now)."""
        if len(self._events) < self.limit:
            return 0.0
        return max(0.0, self._events[0] + self.seconds - self.clock())
