"""Class codes and teacher keys: read leniently, refused when ambiguous, never stored as is."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from hypothesis import given
from hypothesis import strategies as st

from hosting.classroom import codes, limits
from hosting.classroom.classes import Classes
from hosting.classroom.redis_store import RedisStore
from hosting.classroom.sqlite_store import SQLiteStore


def test_there_are_31_to_the_6th_codes() -> None:
    assert limits.CODE_SPACE == 31**6 == 887_503_681
    assert len(set(limits.CODE_ALPHABET)) == 31


@pytest.mark.parametrize(
    "typed", ["K7QH3M", "k7qh3m", "K7q-H3m", " K7Q H3M ", "k-7-q-h-3-m", "K7QH3M\n", "\tk7qh\t3m"]
)
def test_a_code_is_read_whatever_its_case_spaces_and_dashes(typed: str) -> None:
    assert codes.read_code(typed) == "K7QH3M"


@pytest.mark.parametrize(
    "typed",
    [
        "K7QH3O",  # O could be 0
        "K7QH30",
        "K7QH3I",  # I, L and 1 look alike
        "K7QH3L",
        "K7QH31",
        "K7QH3",  # too short
        "K7QH3MM",  # too long
        "",
        "K7QH3M!",
        "K7QH3M" + " " * 19,  # over-long input is refused before it is read
        "-" * 1000,
        "К7QН3М",  # Cyrillic look-alikes
    ],
)
def test_an_ambiguous_or_malformed_code_is_refused(typed: str) -> None:
    assert codes.read_code(typed) is None


@given(st.builds(lambda _: codes.new_code(), st.integers()))
def test_every_new_code_reads_back_as_itself(code: str) -> None:
    assert len(code) == limits.CODE_LENGTH
    assert set(code) <= set(limits.CODE_ALPHABET)
    assert codes.read_code(code) == code
    assert codes.read_code(code.lower()) == code


def test_a_new_key_is_32_url_safe_characters_and_matches_only_itself() -> None:
    key = codes.new_key()
    assert len(key) == 32
    assert set(key) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    stored = codes.digest(key)
    assert codes.key_matches(key, stored) is True
    assert codes.key_matches(codes.new_key(), stored) is False
    assert codes.key_matches("", codes.digest("")) is False
    long_key = "k" * (limits.MAX_KEY_CHARS + 1)
    assert codes.key_matches(long_key, codes.digest(long_key)) is False


def test_the_sqlite_file_holds_the_keys_digest_never_the_key(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "classes.sqlite3")
    started = Classes(store).start()
    Classes(store).steer(started.code, started.key, "r1", "text", {})
    store.close()
    files = b"".join(path.read_bytes() for path in sorted(tmp_path.iterdir()))
    assert started.code.encode() in files  # the scan reads the stored data
    assert codes.digest(started.key).encode() in files
    assert started.key.encode() not in files


def _everything_in(client: redis.Redis) -> str:
    """Every key name and value in Redis, as one text."""
    readers = {
        "string": client.get,
        "hash": client.hgetall,
        "list": lambda key: client.lrange(key, 0, -1),
        "set": client.smembers,
        "zset": lambda key: client.zrange(key, 0, -1, withscores=True),
    }
    return repr({key: readers[client.type(key)](key) for key in client.scan_iter()})


def test_redis_holds_the_keys_digest_never_the_key(redis_url: str, redis_client) -> None:
    redis_client.flushdb()
    store = RedisStore(redis_url)
    started = Classes(store).start()
    Classes(store).steer(started.code, started.key, "r1", "text", {})
    store.close()
    stored = _everything_in(redis_client)
    assert started.code in stored
    assert codes.digest(started.key) in stored
    assert started.key not in stored
