"""Three replicas behind nginx (deploy/nginx), driven by the headless load generator.

What a class needs from the deployment: every session keeps its replica for
its whole life, any replica serves any link with the same numbers, and losing
a replica loses only its own sessions, which reconnect through the proxy to a
healthy one and rebuild their view from the link.
"""

from __future__ import annotations

import asyncio
import os
import random
import urllib.request
from collections import Counter
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from typing import Any, TypeVar

import pytest
import websockets

from benchmarks.capacity import weights_link
from benchmarks.cluster import Cluster, running_cluster
from benchmarks.st_client import Session

T = TypeVar("T")

SESSIONS = int(os.environ.get("DEPLOY_SESSIONS", "150"))
CHANGES = 2
ARRIVAL_S = 10.0
THINK_S = (0.5, 2.0)
TIMEOUT_S = 180.0


@pytest.fixture(scope="module")
def cluster(nginx: None) -> Iterator[Cluster]:
    with running_cluster(3) as running:
        yield running


def _affinity(url: str) -> tuple[str, str]:
    """What a browser gets on its first page load: the affinity cookie and the replica."""
    with urllib.request.urlopen(f"{url}/", timeout=60) as response:
        cookie = SimpleCookie(response.headers["Set-Cookie"])["st_replica"].value
        return f"st_replica={cookie}", response.headers["X-Upstream"]


async def _student(url: str, number: int, rng: random.Random) -> tuple[Session, str, bool]:
    """Open the page through the proxy as a browser does, then change the seed twice.

    Returns the session, the replica its page load went to, and whether every
    change showed new numbers without an exception.
    """
    await asyncio.sleep(rng.uniform(0, ARRIVAL_S))
    cookie, page_replica = await asyncio.to_thread(_affinity, url)
    session = Session(url, "text", weights_link(number), cookies=cookie)
    before = await session.open(TIMEOUT_S)
    fine = not before.exceptions and len(before.charts) == 5
    for change in range(CHANGES):
        await asyncio.sleep(rng.uniform(*THINK_S))
        after = await session.set_widget("seed", 100 * number + change + 1, TIMEOUT_S)
        fine &= not after.exceptions and all(
            after.charts[key] != spec for key, spec in before.charts.items()
        )
        before = after
    return session, page_replica, fine


async def _closed(session: Session, timeout: float = 30.0) -> bool:
    """Whether the session's connection closes within ``timeout`` (messages still queued
    after its last run, such as the status change, are read past)."""

    async def read_to_end() -> None:
        while True:
            await session.socket.recv()

    try:
        await asyncio.wait_for(read_to_end(), timeout)
    except websockets.ConnectionClosed:
        return True
    except TimeoutError:
        return False
    return False


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a thread of its own: the browser tests' Playwright keeps an event
    loop running on the main thread for the whole session."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _port(upstream: str) -> int:
    return int(upstream.rsplit(":", 1)[1])


def test_a_link_gives_identical_numbers_on_every_replica(cluster: Cluster) -> None:
    async def open_everywhere() -> list[dict[str, str]]:
        charts = []
        for port in cluster.replicas:
            session = Session(cluster.replica_url(port), "text", weights_link(7) + "&seed=42")
            charts.append((await session.open(TIMEOUT_S)).charts)
            await session.close()
        return charts

    charts = run_async(open_everywhere())
    assert len(charts[0]) == 5
    assert charts[1] == charts[0]
    assert charts[2] == charts[0]


def test_sessions_keep_their_replica_and_survive_losing_one(cluster: Cluster) -> None:
    async def scenario() -> None:
        rng = random.Random(13)
        results = await asyncio.gather(
            *(_student(cluster.url, i, random.Random(rng.random())) for i in range(SESSIONS))
        )
        sessions = [session for session, _, _ in results]
        # Every change of every session drew new numbers, with no exception.
        assert all(fine for _, _, fine in results)
        # Each websocket went to the replica of its page load, and stayed there.
        assert [s.upstream for s in sessions] == [replica for _, replica, _ in results]
        assert all(s.connects == 1 for s in sessions)
        spread = Counter(_port(s.upstream) for s in sessions)
        assert set(spread) == set(cluster.replicas)
        assert min(spread.values()) >= SESSIONS // 10

        victim = max(spread, key=spread.__getitem__)
        lost = [s for s in sessions if _port(s.upstream) == victim]
        kept = [s for s in sessions if _port(s.upstream) != victim]
        views = {id(s): s.last.charts for s in lost}
        cluster.kill_replica(victim)

        # Only the lost replica's sessions see their connection close ...
        assert all(await asyncio.gather(*(_closed(s) for s in lost)))
        # ... and reconnect through the proxy to a healthy replica, rebuilding
        # exactly the view they had from their link.
        for session in lost:
            rebuilt = await session.open(TIMEOUT_S)
            assert _port(session.upstream) in cluster.replicas
            assert rebuilt.charts == views[id(session)]
            assert not rebuilt.exceptions
        # The other sessions never noticed: same connection, same replica.
        for session in kept[:30]:
            after = await session.set_widget("seed", 9999, TIMEOUT_S)
            assert not after.exceptions
            assert session.connects == 1
        await asyncio.gather(*(s.close() for s in sessions))

    run_async(scenario())
