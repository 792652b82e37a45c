"""What only Redis needs: keys that expire with their class, none left behind, a cheap poll."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from hosting.classroom.classes import Classes
from hosting.classroom.records import FULL, Answered, Created, RequestUse, StoreUnavailableError
from hosting.classroom.redis_store import INDEX, RedisStore
from tests.hosting.conftest import START_TIME, FakeClock

EXPIRES = int(START_TIME) + 12 * 3600


@pytest.fixture
def redis_store(redis_url: str, redis_client: redis.Redis) -> Iterator[RedisStore]:
    redis_client.flushdb()
    store = RedisStore(redis_url)
    yield store
    store.close()


def _busy_class(classes: Classes) -> tuple[str, str]:
    """A class with a view, two questions, answers, a student and used request ids."""
    started = classes.start()
    code, key = started.code, started.key
    classes.steer(code, key, "r1", "text", {"head": "1"})
    classes.ask(code, key, "r2", {"id": "q1"})
    classes.join(code, "student-aaaa")
    classes.answer(code, "student-aaaa", "q1", "B")
    classes.ask(code, key, "r3", {"id": "q2"})
    classes.answer(code, "student-aaaa", "q2", "C")
    return code, key


def test_every_key_of_a_class_expires_when_the_class_does(
    redis_store: RedisStore, redis_client: redis.Redis
) -> None:
    code, _ = _busy_class(Classes(redis_store, clock=FakeClock()))
    keys = sorted(redis_client.scan_iter(match=f"attention:class:{code}:*"))
    assert [key.removeprefix(f"attention:class:{code}:") for key in keys] == [
        "answers:q1",
        "answers:q2",
        "asked",
        "bodies",
        "counts:q1",
        "counts:q2",
        "meta",
        "presence",
        "requests",
    ]
    assert {key: redis_client.expiretime(key) for key in keys} == dict.fromkeys(keys, EXPIRES)
    assert redis_client.zrange(INDEX, 0, -1, withscores=True) == [(code, EXPIRES)]


def test_an_ended_class_leaves_no_key(redis_store: RedisStore, redis_client: redis.Redis) -> None:
    classes = Classes(redis_store, clock=FakeClock())
    code, key = _busy_class(classes)
    other = classes.start()
    classes.end(code, key, "r4")
    assert set(redis_client.scan_iter()) == {INDEX, f"attention:class:{other.code}:meta"}
    assert redis_client.zrange(INDEX, 0, -1) == [other.code]


def test_a_reclaimed_class_leaves_no_key(
    redis_store: RedisStore, redis_client: redis.Redis
) -> None:
    clock = FakeClock()
    code, _ = _busy_class(Classes(redis_store, clock=clock))
    clock.advance(60)
    other = Classes(redis_store, clock=clock).start()
    assert redis_store.reclaim(clock() - 1, clock()) == 1
    assert set(redis_client.scan_iter()) == {INDEX, f"attention:class:{other.code}:meta"}
    assert redis_client.zrange(INDEX, 0, -1) == [other.code]
    assert redis_store.version(code, clock()) is None


def test_a_write_to_a_gone_class_makes_no_key(
    redis_store: RedisStore, redis_client: redis.Redis
) -> None:
    since = START_TIME - 30
    assert redis_store.answer("K7QH3M", "q1", "student-aaaa", "B", since, 800) is Answered.ALREADY
    assert redis_store.set_view("K7QH3M", "text", "{}") == -1
    assert redis_store.ask("K7QH3M", "q1", '{"id":"q1"}', 100) == -1
    assert redis_store.reveal("K7QH3M", "q1") == -1
    assert redis_store.first_use("K7QH3M", "r1", START_TIME, 5000) is RequestUse.FIRST
    assert redis_store.join("K7QH3M", "student-aaaa", START_TIME, 400, START_TIME - 30) is True
    assert list(redis_client.scan_iter()) == []


def test_a_class_question_answer_or_request_id_refused_for_a_bound_keeps_nothing(
    redis_store: RedisStore, redis_client: redis.Redis
) -> None:
    now = START_TIME
    assert redis_store.create("K7QH3M", "digest", now + 3600, now, 1) is Created.OPENED
    assert redis_store.create("K7QH3N", "digest", now + 3600, now, 1) is Created.FULL
    assert redis_store.ask("K7QH3M", "q1", '{"id":"q1"}', 1) == 1
    assert redis_store.ask("K7QH3M", "q2", '{"id":"q2"}', 1) == FULL
    assert redis_client.hkeys("attention:class:K7QH3M:bodies") == ["q1"]
    assert redis_store.answer("K7QH3M", "q1", "student-aaaa", "B", now - 30, 800) is Answered.ABSENT
    assert redis_store.join("K7QH3M", "student-aaaa", now, 400, now - 30) is True
    assert redis_store.answer("K7QH3M", "q1", "student-aaaa", "B", now - 30, 0) is Answered.FULL
    assert redis_store.answer("K7QH3M", "q2", "student-aaaa", "B", now - 30, 9) is Answered.CLOSED
    assert redis_store.first_use("K7QH3M", "r1", now, 0) is RequestUse.FULL
    assert set(redis_client.scan_iter()) == {
        INDEX,
        *(f"attention:class:K7QH3M:{part}" for part in ("meta", "asked", "bodies", "presence")),
    }


def test_an_expired_class_is_dropped_from_the_count_when_a_class_starts(
    redis_store: RedisStore, redis_client: redis.Redis
) -> None:
    clock = FakeClock()
    classes = Classes(redis_store, clock=clock)
    old = classes.start()
    clock.advance(12 * 3600)
    new = classes.start()
    assert redis_client.zrange(INDEX, 0, -1) == [new.code]
    assert old.code != new.code


def test_a_followers_poll_is_one_command(
    redis_store: RedisStore, redis_client: redis.Redis
) -> None:
    classes = Classes(redis_store, clock=FakeClock())
    code, _ = _busy_class(classes)
    redis_client.config_resetstat()
    assert classes.version(code) == 3
    calls = {
        name.removeprefix("cmdstat_"): stats["calls"]
        for name, stats in redis_client.info("commandstats").items()
    }
    assert calls == {"config|resetstat": 1, "hmget": 1}


def test_a_redis_out_of_memory_is_out_of_reach_not_a_crash(
    redis_store: RedisStore, redis_client: redis.Redis
) -> None:
    classes = Classes(redis_store)
    started = classes.start()
    redis_client.config_set("maxmemory", "1")  # Redis refuses writes that need memory: OOM
    try:
        with pytest.raises(StoreUnavailableError):
            classes.join(started.code, "student-aaaa")
    finally:
        redis_client.config_set("maxmemory", "0")
    classes.join(started.code, "student-aaaa")
