"""A browser session's rate limit: a sliding window on a clock the test moves."""

from __future__ import annotations

from hosting.classroom.rate import RateLimit
from tests.hosting.conftest import FakeClock


def test_the_limit_allows_that_many_events_in_a_window_then_refuses() -> None:
    clock = FakeClock(100.0)
    joins = RateLimit(limit=3, seconds=60.0, clock=clock)
    assert [joins.allow() for _ in range(3)] == [True, True, True]
    assert joins.wait_seconds() == 60.0
    clock.advance(20)
    assert joins.allow() is False
    assert joins.wait_seconds() == 40.0


def test_an_event_leaves_the_window_exactly_its_length_later() -> None:
    clock = FakeClock(100.0)
    answers = RateLimit(limit=2, seconds=60.0, clock=clock)
    answers.allow()
    clock.advance(30)
    answers.allow()
    clock.advance(29.5)
    assert answers.allow() is False
    clock.advance(0.5)
    assert answers.wait_seconds() == 0.0
    assert answers.allow() is True
    assert answers.allow() is False
    assert answers.wait_seconds() == 30.0


def test_a_refused_event_does_not_count() -> None:
    clock = FakeClock(0.0)
    starts = RateLimit(limit=1, seconds=3600.0, clock=clock)
    assert starts.allow() is True
    for _ in range(10):
        clock.advance(60)
        assert starts.allow() is False
    clock.advance(3000)
    assert starts.allow() is True
