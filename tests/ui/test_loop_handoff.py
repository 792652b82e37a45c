"""ui.loop_handoff: a session's events reach the event loop in order, one wake-up per batch."""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.runtime import Runtime as StreamlitRuntime

from ui import loop_handoff


class Loop:
    """A stand-in event loop: scheduled callbacks wait until :meth:`turn`."""

    def __init__(self) -> None:
        self.ready: list[Callable[[], None]] = []
        self.scheduled = 0

    def schedule(self, _session: object, callback: Callable[[], None]) -> None:
        """As ``AppSession._call_soon_on_event_loop``."""
        self.scheduled += 1
        self.ready.append(callback)

    def turn(self) -> None:
        ready, self.ready = self.ready, []
        for callback in ready:
            callback()


def handoff_to(loop: Loop) -> Callable[[Callable[[], None]], None]:
    """A session's events, handed over to ``loop`` as the installed handoff does."""
    session = SimpleNamespace()
    call_soon = loop_handoff.batched(loop.schedule)
    return lambda callback: call_soon(session, callback)


def test_a_batch_wakes_the_loop_once_and_runs_in_order() -> None:
    loop, seen = Loop(), []
    add = handoff_to(loop)
    for number in range(150):
        add(lambda number=number: seen.append(number))
    assert loop.scheduled == 1
    assert seen == []  # nothing runs off the loop
    loop.turn()
    assert seen == list(range(150))
    add(lambda: seen.append(150))
    assert loop.scheduled == 2  # the next batch wakes it again
    loop.turn()
    assert seen == list(range(151))


@given(st.lists(st.sampled_from(["add", "turn"]), max_size=60))
def test_any_interleaving_runs_each_event_once_in_order(steps: list[str]) -> None:
    """Events added while a batch runs (the run's thread goes on meanwhile) join the next."""
    loop, seen = Loop(), []
    add = handoff_to(loop)

    def event(number: int) -> Callable[[], None]:
        def run() -> None:
            seen.append(("event", number))
            if number % 3 == 0:  # one added from inside a batch, as the run's thread could
                add(lambda: seen.append(("during", number)))

        return run

    added = 0
    for step in steps:
        if step == "add":
            add(event(added))
            added += 1
        else:
            loop.turn()
    while loop.ready:
        loop.turn()
    assert [n for kind, n in seen if kind == "event"] == list(range(added))
    during = [n for kind, n in seen if kind == "during"]
    assert during == [n for n in range(added) if n % 3 == 0]
    for number in during:  # each after the event that added it
        assert seen.index(("during", number)) > seen.index(("event", number))
    assert loop.scheduled <= added + len(during)


def test_a_failing_event_is_logged_and_the_batch_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop, seen = Loop(), []
    add = handoff_to(loop)
    add(lambda: seen.append(1))
    add(lambda: 1 / 0)
    add(lambda: seen.append(3))
    with caplog.at_level(logging.ERROR, logger=loop_handoff.__name__):
        loop.turn()
    assert seen == [1, 3]
    assert "ZeroDivisionError" in caplog.text
    add(lambda: seen.append(4))  # and the next batch still wakes the loop
    loop.turn()
    assert seen == [1, 3, 4]


def test_threads_adding_at_once_on_a_real_loop_lose_nothing() -> None:
    """Four threads each add 2,000 events to one session on a running asyncio loop."""
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever)
    runner.start()
    session = SimpleNamespace(_event_loop=loop)
    call_soon = loop_handoff.batched(loop_handoff.streamlits_call_soon())
    seen: dict[int, list[int]] = {thread: [] for thread in range(4)}
    on_loop: list[bool] = []

    def add(thread: int) -> None:
        for number in range(2000):
            call_soon(session, lambda n=number: seen[thread].append(n))
        call_soon(session, lambda: on_loop.append(threading.current_thread() is runner))

    try:
        threads = [threading.Thread(target=add, args=(t,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        done = threading.Event()
        call_soon(session, done.set)
        assert done.wait(30)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        runner.join()
        loop.close()
    assert all(numbers == list(range(2000)) for numbers in seen.values())
    assert on_loop == [True] * 4
    call_soon(SimpleNamespace(_event_loop=loop), lambda: None)  # closed: dropped, as before


class Runtime:
    """A stand-in for Streamlit's runtime: its loop, its event, and the send it asks for."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.objects = SimpleNamespace(eventloop=loop, need_send_data=asyncio.Event())
        self.handed_over = 0

    def _get_async_objs(self) -> SimpleNamespace:
        return self.objects

    def _enqueued_some_message(self) -> None:
        self.handed_over += 1


def test_a_session_asking_for_a_send_on_the_loop_sets_its_event_at_once() -> None:
    """On a thread of its own: the browser tests keep a loop running on the main thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_ask_on_and_off_the_loop).result()


def _ask_on_and_off_the_loop() -> None:
    loop = asyncio.new_event_loop()
    runtime = Runtime(loop)
    session = SimpleNamespace(
        _event_loop=loop, _message_enqueued_callback=runtime._enqueued_some_message
    )
    loop_handoff._handoff(session)  # the session's first event
    asking = session._message_enqueued_callback

    async def on_the_loop() -> bool:
        asking()
        return runtime.objects.need_send_data.is_set()

    try:
        assert loop.run_until_complete(on_the_loop())
        assert runtime.handed_over == 0
        asking()  # off the loop (this thread runs none now): handed over as before
        assert runtime.handed_over == 1
    finally:
        loop.close()


def test_a_session_without_the_runtimes_send_keeps_its_own() -> None:
    own = lambda: None  # noqa: E731
    session = SimpleNamespace(_message_enqueued_callback=own)
    loop_handoff._handoff(session)
    assert session._message_enqueued_callback is own
    bare = SimpleNamespace(_message_enqueued_callback=None)  # as AppTest's sessions
    loop_handoff._handoff(bare)
    assert bare._message_enqueued_callback is None


def test_streamlit_still_hands_events_over_through_the_patched_names() -> None:
    """A Streamlit upgrade that hands events over another way fails here (docs/deploying)."""
    loop_handoff.install()
    events = inspect.getsource(AppSession._on_scriptrunner_event)
    assert "self._call_soon_on_event_loop(" in events
    assert "call_soon_threadsafe(" in inspect.getsource(loop_handoff.streamlits_call_soon())
    assert AppSession._call_soon_on_event_loop.__wrapped__ is loop_handoff.streamlits_call_soon()
    assert "call_soon_threadsafe(async_objs.need_send_data.set)" in inspect.getsource(
        StreamlitRuntime._enqueued_some_message
    )
    assert "self._enqueued_some_message" in inspect.getsource(StreamlitRuntime.__init__)
    assert "self._message_enqueued_callback()" in inspect.getsource(AppSession._enqueue_forward_msg)
