"""Many requests at once on both stores: none lost, none counted twice, no code shared."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

import pytest

from hosting.classroom import codes, limits
from hosting.classroom.classes import Classes
from hosting.classroom.records import FullError, ReplayedError, Started
from hosting.classroom.store import ClassStore
from tests.hosting.conftest import FakeClock

T = TypeVar("T")
SERVERS = 20  #: servers racing for the last places
LATENCY = 0.005  #: seconds a call takes to reach the store from another server


def _all_at_once(count: int, work: Callable[[int], T]) -> list[T | Exception]:
    """Run ``work(0..count-1)`` on ``count`` threads released together; results or errors."""
    barrier = threading.Barrier(count)

    def run(number: int) -> T | Exception:
        barrier.wait()
        try:
            return work(number)
        except Exception as error:
            return error

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


class _Remote:
    """A store on another machine: every call arrives ``LATENCY`` late, while other
    servers' calls run (what a request between one server's check and write meets)."""

    def __init__(self, store: ClassStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._store, name)

        def later(*args: Any, **kwargs: Any) -> Any:
            time.sleep(LATENCY)
            return method(*args, **kwargs)

        return later


def _servers(connect: Callable[[], ClassStore], clock: FakeClock) -> list[Classes]:
    """``SERVERS`` servers, each with its own connection to the store, far from it."""
    return [Classes(cast(ClassStore, _Remote(connect())), clock=clock) for _ in range(SERVERS)]


def test_a_hundred_students_answering_at_once_are_all_counted(classes: Classes) -> None:
    started = classes.start()
    classes.ask(started.code, started.key, "r1", {"id": "q1"})
    for number in range(100):
        classes.join(started.code, f"student-{number:04d}")

    def answer(number: int) -> bool:
        return classes.answer(started.code, f"student-{number:04d}", "q1", "ABCD"[number % 4])

    assert _all_at_once(100, answer) == [True] * 100
    assert classes.counts(started.code, "q1") == {"A": 25, "B": 25, "C": 25, "D": 25}


def test_one_student_answering_from_many_tabs_at_once_counts_once(classes: Classes) -> None:
    started = classes.start()
    classes.ask(started.code, started.key, "r1", {"id": "q1"})
    classes.join(started.code, "student-0000")

    def answer(number: int) -> bool:
        return classes.answer(started.code, "student-0000", "q1", "AB"[number % 2])

    assert sorted(_all_at_once(20, answer), key=str) == [False] * 19 + [True]
    assert sum(classes.counts(started.code, "q1").values()) == 1


def test_students_answering_at_once_never_overfill_a_question(
    classes: Classes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_ANSWERS_PER_QUESTION", 30)
    started = classes.start()
    classes.ask(started.code, started.key, "r1", {"id": "q1"})
    for number in range(60):
        classes.join(started.code, f"student-{number:04d}")

    def answer(number: int) -> bool:
        return classes.answer(started.code, f"student-{number:04d}", "q1", str(number))

    results = _all_at_once(60, answer)
    assert sum(isinstance(result, FullError) for result in results) == 30
    assert results.count(True) == 30
    assert sum(classes.counts(started.code, "q1").values()) == 30


def test_teacher_requests_at_once_never_keep_more_than_max_changes_ids(
    classes: Classes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_CHANGES", 10)
    started = classes.start()

    def steer(number: int) -> int:
        return classes.steer(started.code, started.key, f"r{number}", "text", {})

    results = _all_at_once(20, steer)
    assert sum(isinstance(result, FullError) for result in results) == 10
    assert sorted(result for result in results if isinstance(result, int)) == list(range(1, 11))
    assert classes.version(started.code) == 10


def test_students_joining_at_once_never_overfill_a_class(
    classes: Classes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_STUDENTS", 30)
    code = classes.start().code
    results = _all_at_once(60, lambda number: classes.join(code, f"student-{number:04d}"))
    assert sum(isinstance(result, FullError) for result in results) == 30
    assert classes.present(code) == 30


def test_servers_starting_classes_at_once_never_open_more_than_max_classes(
    classes: Classes,
    clock: FakeClock,
    connect: Callable[[], ClassStore],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MAX_CLASSES", 5)
    for _ in range(3):
        classes.start()
    servers = _servers(connect, clock)
    results = _all_at_once(SERVERS, lambda number: servers[number].start())
    full = [result for result in results if isinstance(result, FullError)]
    assert len(full) == SERVERS - 2
    assert all("as many classes as it can" in str(error) for error in full)
    assert sum(isinstance(result, Started) for result in results) == 2
    assert classes.store.open_classes(clock()) == 5


def test_a_teacher_asking_from_many_servers_at_once_never_keeps_more_than_max_questions(
    classes: Classes,
    clock: FakeClock,
    connect: Callable[[], ClassStore],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MAX_QUESTIONS", 5)
    started = classes.start()
    code, key = started.code, started.key
    for number in range(3):
        classes.ask(code, key, f"r{number}", {"id": f"q{number}"})
    servers = _servers(connect, clock)

    def ask(number: int) -> int:
        return servers[number].ask(code, key, f"s{number}", {"id": f"new{number}"})

    results = _all_at_once(SERVERS, ask)
    full = [result for result in results if isinstance(result, FullError)]
    assert len(full) == SERVERS - 2
    assert all("has asked 5 questions" in str(error) for error in full)
    assert sorted(result for result in results if isinstance(result, int)) == [4, 5]
    assert classes.state(code).asked == 5
    assert len(classes.results(code, key)) == 5


def test_a_request_sent_many_times_at_once_is_done_once(classes: Classes) -> None:
    started = classes.start()

    def steer(number: int) -> int:
        return classes.steer(started.code, started.key, "same-id", "text", {"n": str(number)})

    results = _all_at_once(20, steer)
    assert sum(isinstance(result, ReplayedError) for result in results) == 19
    assert [result for result in results if isinstance(result, int)] == [1]
    assert classes.version(started.code) == 1


@pytest.fixture
def colliding_codes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """``new_code`` gives K7QH3M twice, then P4RT8W; the codes drawn are recorded."""
    drawn: list[str] = []
    queue = iter(["K7QH3M", "K7QH3M", "P4RT8W"])
    lock = threading.Lock()

    def new_code() -> str:
        with lock:
            drawn.append(next(queue))
            return drawn[-1]

    monkeypatch.setattr(codes, "new_code", new_code)
    yield drawn


def test_two_teachers_starting_at_once_never_share_a_code(
    classes: Classes, colliding_codes: list[str]
) -> None:
    started = _all_at_once(2, lambda _: classes.start())
    assert sorted(start.code for start in started) == ["K7QH3M", "P4RT8W"]  # type: ignore[union-attr]
    assert colliding_codes == ["K7QH3M", "K7QH3M", "P4RT8W"]


def test_a_code_already_open_is_drawn_again(classes: Classes, colliding_codes: list[str]) -> None:
    first, second = classes.start(), classes.start()
    assert (first.code, second.code) == ("K7QH3M", "P4RT8W")
    assert first.key != second.key
    assert colliding_codes == ["K7QH3M", "K7QH3M", "P4RT8W"]
