"""Three replicas behind nginx (deploy/nginx), driven by the headless load generator.

What a class needs from the deployment: every session keeps its replica for
its whole life, any replica serves any link with the same numbers, and losing
a replica loses only its own sessions, which reconnect through the proxy to a
healthy one and rebuild their view from the link. With one Redis shared as the
class store (ATTENTION_CLASS_STORE, as deploy/ runs it), a class spans the
replicas: students on every replica follow the one teacher and their answers
feed one count.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from typing import Any, TypeVar

import pytest
import websockets

from harness.cluster import Cluster, running_cluster
from harness.st_client import TRIGGER, Session
from harness.students import weights_link
from hosting.classroom.classes import Classes
from hosting.classroom.settings import open_store
from ui.shared import walkable_matrix

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


@pytest.fixture(scope="module")
def class_cluster(nginx: None, redis_server: None) -> Iterator[Cluster]:
    """Three replicas behind nginx sharing one redis-server as their class store."""
    with running_cluster(3, redis=True) as running:
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
    assert all(spec.startswith("{") for spec in charts[0].values())  # every chart's data read
    assert charts[1] == charts[0]
    assert charts[2] == charts[0]


def test_the_proxy_serves_the_walkable_matrix_code_and_style(cluster: Cluster) -> None:
    # Every walkable matrix loads them from app/static/ (ui/shared/walkable_matrix.py).
    for served, kind in ((walkable_matrix.CODE, "javascript"), (walkable_matrix.STYLE, "css")):
        address = f"{cluster.url}/app/static/{served.name}?v={walkable_matrix.CODE_VERSION}"
        with urllib.request.urlopen(address, timeout=60) as response:
            assert kind in response.headers["Content-Type"]
            assert response.read() == served.read_bytes()


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


STUDENTS_PER_REPLICA = 6
QUESTION = {
    "id": "deploy-q1",
    "prompt": "Which token does the query attend to most?",
    "kind": "choice",
    "choices": ["a", "b"],
    "correct": ["a"],
    "explanation": "Its weight is the largest in the row.",
    "value": None,
    "tolerance": 0,
}


def _pinned_cookies(url: str, replicas: list[int], per_replica: int) -> list[tuple[str, int]]:
    """Affinity cookies from page loads through nginx until each replica has ``per_replica``."""
    cookies: list[tuple[str, int]] = []
    wanted = len(replicas) * per_replica
    for _ in range(40 * wanted):
        cookie, upstream = _affinity(url)
        if sum(port == _port(upstream) for _, port in cookies) < per_replica:
            cookies.append((cookie, _port(upstream)))
        if len(cookies) == wanted:
            return cookies
    raise AssertionError(f"nginx placed page loads on too few replicas: {cookies}")


async def _until_widget(session: Session, key: str, timeout: float = TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout
    while key not in session.last.widget_ids:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def test_a_class_spans_the_replicas_through_the_shared_redis(class_cluster: Cluster) -> None:
    teacher = Classes(open_store(class_cluster.redis_url))
    started = teacher.start()
    code, key = started.code, started.key
    teacher.steer(code, key, uuid.uuid4().hex, "text", {"seed": "5"})
    cookies = _pinned_cookies(class_cluster.url, list(class_cluster.replicas), STUDENTS_PER_REPLICA)

    async def scenario() -> None:
        students = [
            Session(class_cluster.url, "", f"class={code}", cookie) for cookie, _ in cookies
        ]
        await asyncio.gather(*(s.open(TIMEOUT_S) for s in students))
        await asyncio.gather(*(s.follow() for s in students))
        # Each student's websocket reached the replica its page load was pinned to,
        # so the class has students on every replica.
        assert [_port(s.upstream) for s in students] == [port for _, port in cookies]
        assert {port for _, port in cookies} == set(class_cluster.replicas)
        # Opening the join link showed the teacher's view everywhere ...
        joined = await asyncio.gather(
            *(s.wait_for_query({"seed": "5", "class": code}, 0.0, TIMEOUT_S) for s in students)
        )
        assert all(view is not None and view.page == "text" for view in joined)
        assert teacher.present(code) == len(students)
        # ... and the teacher's next change reaches every replica's students: each
        # replica's watcher reads the shared Redis and reruns its own students' apps.
        sent = time.perf_counter()
        teacher.steer(code, key, uuid.uuid4().hex, "text", {"seed": "9"})
        followed = await asyncio.gather(
            *(s.wait_for_query({"seed": "9", "class": code}, sent, TIMEOUT_S) for s in students)
        )
        assert all(view is not None and view.page == "text" for view in followed)
        assert all(s.polls == 0 and not s.last.exceptions for s in students)  # no browser polls

        # One question; each student answers on their replica; one count holds them all.
        teacher.ask(code, key, uuid.uuid4().hex, QUESTION)
        assert all(await asyncio.gather(*(_until_widget(s, "class_answer") for s in students)))

        async def answer(student: Session, choice: str) -> None:
            await student.set_widget("class_answer", choice, TIMEOUT_S, in_link=False)
            run = await student.set_widget("class_send", TRIGGER, TIMEOUT_S)
            assert not run.exceptions

        choices = ["a" if number % 3 else "b" for number in range(len(students))]
        await asyncio.gather(*(answer(s, c) for s, c in zip(students, choices, strict=True)))
        assert teacher.counts(code, "deploy-q1") == {
            "a": choices.count("a"),
            "b": choices.count("b"),
        }
        assert all(s.connects == 1 for s in students)
        await asyncio.gather(*(s.close() for s in students))

    run_async(scenario())
