"""The class store's tests: both stores for real, Debian's ``redis-server`` started here.

The session starts one ``redis-server`` on a free loopback port with nothing
saved to disk, and stops it at the end. Without it the Redis half of these tests
is skipped on a developer's machine but fails when ``CI`` is set (``make test``
installs it with apt, as it does nginx for tests/deploy).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from harness.local_server import LOOPBACK, free_port
from hosting.classroom.classes import Classes
from hosting.classroom.redis_store import RedisStore
from hosting.classroom.sqlite_store import SQLiteStore
from hosting.classroom.store import ClassStore

REDIS_SERVER = os.environ.get("REDIS_SERVER", "/usr/bin/redis-server")
START_SECONDS = 10.0  #: how long redis-server may take to answer PING
#: The fake clock starts after every real clock this suite will meet, so the keys Redis
#: expires at a class's expires_at (its own, real clock) outlive the test.
START_TIME = 4_000_000_000.0


class FakeClock:
    """Seconds since the epoch that move only when a test says so."""

    def __init__(self, now: float = START_TIME) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _wait_for_ping(client: redis.Redis, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            if client.ping():
                return
        except redis.ConnectionError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise
        time.sleep(0.05)


def redis_server_or_skip() -> None:
    """Skip the test without Debian's redis-server (fail it under ``CI``)."""
    if not shutil.which(REDIS_SERVER):
        if os.environ.get("CI"):
            pytest.fail("redis-server is missing: `make test` installs it with apt (as root)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")


@contextlib.contextmanager
def running_redis(port: int, data: Path) -> Iterator[str]:
    """A ``redis-server`` on loopback ``port`` saving nothing, until the block ends; its URL."""
    command = [REDIS_SERVER, "--bind", LOOPBACK, "--port", str(port), "--save", ""]
    command += ["--appendonly", "no", "--dir", str(data), "--logfile", str(data / "log")]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://{LOOPBACK}:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        _wait_for_ping(client, server)
        yield url
    finally:
        client.close()
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``redis://`` URL of a ``redis-server`` this session started (and stops)."""
    redis_server_or_skip()
    with running_redis(free_port(), tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A client of the session's Redis that reads text, for looking inside the store."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ClassStore]:
    """Each store, empty: SQLite in a fresh file, Redis flushed."""
    opened: SQLiteStore | RedisStore
    if request.param == "sqlite":
        opened = SQLiteStore(tmp_path / "classes.sqlite3")
    else:
        client: redis.Redis = request.getfixturevalue("redis_client")
        client.flushdb()
        opened = RedisStore(request.getfixturevalue("redis_url"))
    yield opened
    opened.close()


@pytest.fixture
def connect(
    store: ClassStore, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], ClassStore]]:
    """Opens another connection to ``store``'s data, as another server would (its own
    SQLite connection to the same file, or its own Redis client); all closed at the end."""
    opened: list[SQLiteStore | RedisStore] = []
    url = request.getfixturevalue("redis_url") if isinstance(store, RedisStore) else None

    def another() -> ClassStore:
        opened.append(RedisStore(url) if url else SQLiteStore(tmp_path / "classes.sqlite3"))
        return opened[-1]

    yield another
    for each in opened:
        each.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def classes(store: ClassStore, clock: FakeClock) -> Classes:
    """The checked entry point over ``store``, on ``clock``."""
    return Classes(store, clock=clock)
