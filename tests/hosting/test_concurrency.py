"""Many requests at once on both stores: none lost, none counted twice, no code shared."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import pytest

from hosting.classroom import codes, limits
from hosting.classroom.classes import Classes
from hosting.classroom.records import FullError, ReplayedError

T = TypeVar("T")


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
