"""A run's messages reach the server's event loop in batches, one wake-up per batch.

Streamlit 1.67 hands every event of a script run (each element drawn is one) from the
run's thread to the event loop with its own ``call_soon_threadsafe``: a write to the
loop's wake-up socket, and a hand-over of the interpreter lock to the loop's thread,
which queues that one message and goes back to sleep. Queuing it then asks for its
sending with one more ``call_soon_threadsafe``, from the loop's own thread. A run of the
text page draws about 90 elements, so a student's rerun on a quiet server woke the loop
nearly 200 times. (On a busy server the loop is awake anyway and the wake-ups cost less.)

:func:`install` changes two things and nothing else:

- Each session's events go into its :class:`Handoff`. The first event of a batch asks
  the loop to run the batch; the events that arrive before it runs join it. The loop
  runs them in the order they came, each as before (an event that fails is logged and
  the batch goes on, as the loop does with callbacks).
- A session's queue, asking for a send from the loop's own thread, sets the loop's event
  directly.

These are Streamlit's internals (it is pinned, requirements.txt).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable
from typing import Any

_LOGGER = logging.getLogger(__name__)
_ATTRIBUTE = "_attention_handoff"

Callback = Callable[[], None]


class Handoff:
    """One session's events on their way to the event loop, run there in order."""

    def __init__(self) -> None:
        self._waiting: list[Callback] = []
        self._lock = threading.Lock()

    def add(self, callback: Callback) -> bool:
        """Queue ``callback`` (from any thread). True if it is the first of a batch: the
        caller then asks the loop to call :meth:`run`."""
        with self._lock:
            first = not self._waiting
            self._waiting.append(callback)
        return first

    def run(self) -> None:
        """Run every queued callback in order (on the event loop)."""
        with self._lock:
            batch, self._waiting = self._waiting, []
        for callback in batch:
            try:
                callback()
            except Exception:  # the loop logs a failed callback and goes on
                _LOGGER.exception("An event of a script run failed on the event loop")


def _handoff(session: Any) -> Handoff:
    """``session``'s :class:`Handoff`, made on its first event, which also sets up how its
    queue asks for a send (:func:`direct_when_on_loop`)."""
    found = session.__dict__.get(_ATTRIBUTE)
    if found is None:
        made = Handoff()
        # setdefault is atomic: of two threads asking at once, one makes it.
        found = session.__dict__.setdefault(_ATTRIBUTE, made)
        if found is made:
            asking = getattr(session, "_message_enqueued_callback", None)
            if asking is not None:
                session._message_enqueued_callback = direct_when_on_loop(asking)
    return found


def batched(original: Callable[[Any, Callback], None]) -> Callable[[Any, Callback], None]:
    """``AppSession._call_soon_on_event_loop`` through the session's :class:`Handoff`:
    ``original`` is asked to call a batch, once per batch."""

    @functools.wraps(original)
    def call_soon(session: Any, callback: Callback) -> None:
        handoff = _handoff(session)
        if handoff.add(callback):
            original(session, handoff.run)

    return call_soon


def direct_when_on_loop(asking: Callback) -> Callback:
    """A session's ``asking`` for a send (the runtime's ``_enqueued_some_message``) that,
    on the runtime's event loop, sets the loop's event itself instead of handing it over.

    Any other callback is returned as it is.
    """
    runtime = getattr(asking, "__self__", None)
    if getattr(asking, "__name__", "") != "_enqueued_some_message" or runtime is None:
        return asking

    @functools.wraps(asking)
    def enqueued() -> None:
        objects = runtime._get_async_objs()
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is objects.eventloop:
            objects.need_send_data.set()
        else:
            asking()

    return enqueued


def streamlits_call_soon() -> Callable[[Any, Callback], None]:
    """Streamlit's own ``AppSession._call_soon_on_event_loop`` (installed or not)."""
    from streamlit.runtime.app_session import AppSession

    call_soon = AppSession._call_soon_on_event_loop
    return getattr(call_soon, "__wrapped__", call_soon)


@functools.cache
def install() -> None:
    """Batch each session's events to the event loop (see the module doc)."""
    from streamlit.runtime.app_session import AppSession

    AppSession._call_soon_on_event_loop = batched(AppSession._call_soon_on_event_loop)  # type: ignore[method-assign]
