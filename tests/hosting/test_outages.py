"""A store that restarts, forgets or cannot be reached: a clear message, never a crash."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import redis

from harness.local_server import LOOPBACK, free_port
from hosting.classroom.classes import Classes
from hosting.classroom.records import ClassGoneError, Created, RequestUse, StoreUnavailableError
from hosting.classroom.redis_store import RedisStore
from hosting.classroom.sqlite_store import SQLiteStore
from hosting.classroom.store import ClassStore
from tests.hosting.conftest import START_TIME, FakeClock, redis_server_or_skip, running_redis

UNAVAILABLE = "The class service cannot be reached right now"
STUDENT = "student-aaaa"


def _gone_everywhere(classes: Classes, code: str, key: str) -> None:
    for call in (
        lambda: classes.state(code),
        lambda: classes.version(code),
        lambda: classes.join(code, STUDENT),
        lambda: classes.answer(code, STUDENT, "q1", "B"),
        lambda: classes.steer(code, key, "r9", "text", {}),
        lambda: classes.results(code, key),
    ):
        with pytest.raises(ClassGoneError, match="not open"):
            call()


def test_a_class_that_goes_while_a_request_runs_is_gone_not_version_minus_one(
    classes: Classes, store: ClassStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = classes.start()
    first_use = store.first_use

    def end_first(code: str, request_id: str, now: float, max_changes: int) -> RequestUse:
        store.end(code)  # the teacher's other tab ends the class in between
        return first_use(code, request_id, now, max_changes)

    monkeypatch.setattr(store, "first_use", end_first)
    with pytest.raises(ClassGoneError):
        classes.steer(started.code, started.key, "r1", "text", {})
    with pytest.raises(ClassGoneError):
        classes.ask(started.code, started.key, "r2", {"id": "q1"})


def test_a_flushed_redis_forgets_its_classes_and_says_so(
    redis_url: str, redis_client: redis.Redis
) -> None:
    redis_client.flushdb()
    classes = Classes(RedisStore(redis_url), clock=FakeClock())
    started = classes.start()
    classes.ask(started.code, started.key, "r1", {"id": "q1"})
    redis_client.flushall()
    _gone_everywhere(classes, started.code, started.key)
    assert classes.start().code  # and a new class opens


def test_a_fresh_sqlite_file_knows_no_class(tmp_path: Path) -> None:
    started = Classes(SQLiteStore(tmp_path / "before.sqlite3"), clock=FakeClock()).start()
    classes = Classes(SQLiteStore(tmp_path / "after.sqlite3"), clock=FakeClock())
    _gone_everywhere(classes, started.code, started.key)


def test_an_unreachable_redis_is_unavailable_not_a_traceback() -> None:
    classes = Classes(RedisStore(f"redis://{LOOPBACK}:{free_port()}/0"), clock=FakeClock())
    for call in (
        classes.start,
        lambda: classes.state("K7QH3M"),
        lambda: classes.version("K7QH3M"),
        lambda: classes.join("K7QH3M", STUDENT),
        lambda: classes.steer("K7QH3M", "key", "r1", "text", {}),
    ):
        with pytest.raises(StoreUnavailableError, match=UNAVAILABLE) as raised:
            call()
        assert isinstance(raised.value.__cause__, redis.ConnectionError)


def test_a_restarted_redis_is_unavailable_while_down_then_forgets_its_classes(
    tmp_path: Path,
) -> None:
    redis_server_or_skip()
    port = free_port()
    with running_redis(port, tmp_path) as url:
        classes = Classes(RedisStore(url), clock=FakeClock())
        started = classes.start()
        assert classes.version(started.code) == 0
    with pytest.raises(StoreUnavailableError, match=UNAVAILABLE):
        classes.version(started.code)
    with running_redis(port, tmp_path):
        _gone_everywhere(classes, started.code, started.key)
        again = classes.start()  # its scripts are loaded again
        assert classes.steer(again.code, again.key, "r1", "text", {}) == 1


def test_a_locked_sqlite_file_is_unavailable_then_works_again(tmp_path: Path) -> None:
    path = tmp_path / "classes.sqlite3"
    classes = Classes(SQLiteStore(path, busy_seconds=0.05), clock=FakeClock())
    started = classes.start()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    with pytest.raises(StoreUnavailableError, match=UNAVAILABLE) as raised:
        classes.steer(started.code, started.key, "r1", "text", {})
    assert isinstance(raised.value.__cause__, sqlite3.OperationalError)
    assert classes.version(started.code) == 0  # readers still read
    other.execute("ROLLBACK")
    other.close()
    assert classes.steer(started.code, started.key, "r1", "text", {}) == 1


def test_a_data_folder_that_cannot_hold_a_file_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "classes.sqlite3").mkdir()  # a folder where the file should be
    with pytest.raises(StoreUnavailableError, match=UNAVAILABLE):
        SQLiteStore(tmp_path / "classes.sqlite3")


def test_a_programming_error_in_a_store_stays_loud(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "classes.sqlite3")
    with pytest.raises(sqlite3.ProgrammingError):
        store.create("K7QH3M", ["not", "text"], 1.0, 0.0, 500)  # type: ignore[arg-type]


def test_a_store_file_from_before_heard_times_opens_and_its_classes_count_as_unheard(
    tmp_path: Path,
) -> None:
    path = tmp_path / "classes.sqlite3"
    old = SQLiteStore(path)
    assert old.create("K7QH3M", "digest", START_TIME + 3600, START_TIME, 500) is Created.OPENED
    old._db.execute("DROP TABLE heard")  # as a file written before the table existed
    old.close()
    store = SQLiteStore(path)
    assert store.version("K7QH3M", START_TIME) == 0
    assert store.reclaim(START_TIME - 3600, START_TIME) == 1
    assert store.open_classes(START_TIME) == 0
    store.close()
