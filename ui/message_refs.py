"""Send a browser a reference to an element only while it surely still keeps the element.

Streamlit sends an element of 10 kB or more (a chart, a walkable matrix) once; when a
later run draws the same element again, it sends only its hash, a *reference*, and the
browser takes the element from its own cache. The browser drops an element from that
cache when ``global.maxCachedMessageAge`` (N) script runs have finished since it last
received it. Each rerun request lists the hashes the browser holds, and Streamlit 1.67
refers to every element of the run whose hash is on that list.

That list can be out of date by the time the reference arrives: a run that finished
before the request reached the server is counted by the browser only after it sent the
list. A quick burst of reruns (a file replaced while its run still runs) then ends
with a reference to an element the browser has just dropped: it shows "Cached
ForwardMsg MISS" and stops (a frozen tab, seen in the time-series browser test).

So each session keeps a :class:`RefLedger` of what it sent: the number of runs whose
end it queued, and for each cached element how many run ends had been sent before it
last went out. A reference goes out only when the browser listed the hash *and* at most
N run ends separate it from the last delivery; otherwise the element goes in full.
Counting every run end, where the browser counts only some, can only overstate an age,
so the check errs on the side of sending in full. ``tests/ui/test_message_refs.py``
plays random runs, bursts and interrupted queues against a model of the browser's cache.

These are Streamlit's internals (it is pinned, requirements.txt): :func:`install`
wraps ``ScriptRunContext.enqueue``'s reference, ``AppSession._enqueue_forward_msg``
and ``AppSession.flush_browser_queue``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

#: Claimed elements waiting to reach their session's queue (normally milliseconds). A run
#: stopped on its way may drop a few; past this many the oldest are forgotten, and a
#: forgotten element goes in full.
MAX_CLAIMS = 4096


class Message(Protocol):
    """What the ledger reads of a ``ForwardMsg``."""

    hash: str
    ref_hash: str

    def WhichOneof(self, group: str) -> str | None: ...  # noqa: N802 (protobuf's name)


def _is_cached(message: Any) -> bool:
    return bool(message.metadata.cacheable)


class RefLedger:
    """One session's record of the run ends and cached elements sent to its browser.

    ``queued_ends`` counts the run ends queued so far; ``sent[h]`` is the number of run
    ends delivered before element ``h`` last went out (in full or by reference). The
    browser has ``h`` when it says so and ``queued_ends - sent[h] <= max_age``.
    """

    def __init__(self) -> None:
        self.queued_ends = 0
        self.sent_ends = 0
        self.sent: dict[str, int] = {}
        self._lock = threading.Lock()

    def queued(self, message: Message) -> None:
        """Count a run's end as it enters the session's queue."""
        if message.WhichOneof("type") == "script_finished":
            with self._lock:
                self.queued_ends += 1

    def may_refer(self, element_hash: str, max_age: int) -> bool:
        """Whether a reference queued now finds ``element_hash`` in the browser's cache."""
        with self._lock:
            last = self.sent.get(element_hash)
            return last is not None and self.queued_ends - last <= max_age

    def delivered(self, messages: Iterable[Message], max_age: int) -> None:
        """Record the messages a flush hands to the browser, in their order."""
        with self._lock:
            ends = self.sent_ends
            for message in messages:
                kind = message.WhichOneof("type")
                if kind == "script_finished":
                    self.sent_ends += 1
                elif kind == "ref_hash":
                    self.sent[message.ref_hash] = self.sent_ends
                elif kind == "delta" and _is_cached(message):
                    self.sent[message.hash] = self.sent_ends
            if self.sent_ends != ends:  # older than max_age: never referred to until sent anew
                stale = [h for h, last in self.sent.items() if self.sent_ends - last > max_age]
                for element_hash in stale:
                    del self.sent[element_hash]


#: ``id(message) -> hash`` of each element whose hash the browser listed. Only the hash is
#: kept, not the element: an id freed and reused matches only a message of the same hash.
_claims: dict[int, str] = {}
_claims_lock = threading.Lock()


def _claim(message: Any) -> Any:
    """Stands in for Streamlit's ``create_reference_msg``: keep the element whole and
    remember that the browser listed it; its session decides when it queues it."""
    with _claims_lock:
        _claims[id(message)] = message.hash
        while len(_claims) > MAX_CLAIMS:
            del _claims[next(iter(_claims))]
    return message


def _claimed(message: Any) -> bool:
    with _claims_lock:
        return _claims.pop(id(message), None) == message.hash


def _ledger(session: Any) -> RefLedger:
    ledger = getattr(session, "_ref_ledger", None)
    if ledger is None:
        ledger = session._ref_ledger = RefLedger()
    return ledger


@functools.cache
def _max_age() -> int:
    """The browser's ``maxCachedMessageAge``: Streamlit sends it once, at a session's start."""
    from streamlit import config

    return int(config.get_option("global.maxCachedMessageAge"))


def _queue_with_checked_refs(original: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    from streamlit.runtime.forward_msg_cache import create_reference_msg

    @functools.wraps(original)
    def enqueue(session: Any, message: Any) -> None:
        ledger = _ledger(session)
        if _claimed(message) and ledger.may_refer(message.hash, _max_age()):
            message = create_reference_msg(message)
        ledger.queued(message)
        original(session, message)

    return enqueue


def _flush_into_ledger(original: Callable[[Any], list[Any]]) -> Callable[[Any], list[Any]]:
    @functools.wraps(original)
    def flush(session: Any) -> list[Any]:
        messages = original(session)
        _ledger(session).delivered(messages, _max_age())
        return messages

    return flush


@functools.cache
def install() -> None:
    """Refer only to elements the browser keeps (once per process; see the module doc)."""
    from streamlit.runtime import app_session
    from streamlit.runtime.scriptrunner_utils import script_run_context

    script_run_context.create_reference_msg = _claim  # type: ignore[attr-defined]
    session = app_session.AppSession
    session._enqueue_forward_msg = _queue_with_checked_refs(session._enqueue_forward_msg)  # type: ignore[method-assign]
    session.flush_browser_queue = _flush_into_ledger(session.flush_browser_queue)  # type: ignore[method-assign]
