"""A live class on running servers, played by headless clients (benchmarks.class_session
measures it; tests/deploy/test_headless_client.py plays it small).

Followers open the join link and keep following; other students change their own
view meanwhile; the teacher, driven through the class store itself (``hosting.classroom``
``Classes`` on the same store as the servers), changes the view, waits while nothing
happens, then asks one question that every follower answers. Each step's times and
errors go into a :class:`ClassTally`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import statistics
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from harness.cluster import running_cluster
from harness.local_server import running_server
from harness.server import cpu_seconds, rss_mb
from harness.st_client import TRIGGER, LostRunError, Session, affinity_cookie
from harness.students import weights_link
from hosting.classroom.classes import Classes
from hosting.classroom.settings import open_store
from hosting.settings import DATA_DIR_SETTING

STEERS, STEER_GAP_S = 6, 5.0
ARRIVAL_S = 20.0
THINK_S = (2.5, 7.5)
IDLE_S = 60.0
SETTLE_S = 5.0  # after the others leave, before the idle minute
TIMEOUT_S = 180.0
SEEN_TIMEOUT_S = 30.0
PICK_TIMEOUT_S = 30.0
TEACHER_SEED = 500
QUESTION = {
    "id": "bench-q1",
    "prompt": "Which key does the query attend to most?",
    "kind": "choice",
    "choices": ["a", "b"],
    "correct": ["a"],
    "explanation": "Its weight is the largest in the row.",
    "value": None,
    "tolerance": 0,
}


@dataclass
class Where:
    """The servers under test: the base URL sessions open, their pids, the teacher's store."""

    url: str
    pids: list[int]
    classes: Classes
    sticky: bool = False  # behind nginx: each session first gets its affinity cookie


@dataclass
class ClassTally:
    join_s: list[float] = field(default_factory=list)
    join_errors: list[str] = field(default_factory=list)
    changes_s: list[float] = field(default_factory=list)
    change_errors: list[str] = field(default_factory=list)
    follow_s: list[float] = field(default_factory=list)
    missed: int = 0
    teach_cpu_s: float = 0.0  #: the servers' CPU while the teacher changed the view
    answers_counted: int = 0
    answers_s: list[float] = field(default_factory=list)  # pick + send, each to its run's end
    picks_never_drawn: int = 0
    answer_errors: list[str] = field(default_factory=list)
    idle_cpu_s: float = 0.0
    idle_polls: int = 0
    idle_s: float = 0.0
    rss_mb: list[float] = field(default_factory=list)
    replicas: Counter = field(default_factory=Counter)


def teachers_view(turn: int) -> dict[str, str]:
    """The teacher's text page at change ``turn``: a seed no follower has seen yet.

    Never the page's default seed: a widget at its default is not in the link.
    """
    return {"seed": str(TEACHER_SEED + turn)}


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] if len(samples) > 1 else sum(samples)


async def new_session(where: Where, page: str, query: str) -> Session:
    cookie = await asyncio.to_thread(affinity_cookie, where.url) if where.sticky else ""
    return Session(where.url, page, query, cookies=cookie)


async def follower(where: Where, code: str, delay: float, tally: ClassTally) -> Session | None:
    """Open the join link, keep polling; None if the session never showed the class's view."""
    await asyncio.sleep(delay)
    session = await new_session(where, "", f"class={code}")
    start = time.perf_counter()
    try:
        await session.open(TIMEOUT_S)
        await session.follow()
        view = await session.wait_for_query(teachers_view(0) | {"class": code}, 0.0, TIMEOUT_S)
    except (LostRunError, OSError) as error:
        tally.join_errors.append(f"{type(error).__name__}: {error}")
        await session.close()
        return None
    if view is None or session.last.exceptions:
        tally.join_errors.append(f"no view: {session.query!r} {session.last.exceptions[:1]}")
    else:
        tally.join_s.append(view.at - start)
    tally.replicas[session.upstream or where.url] += 1
    return session


async def other(where: Where, number: int, stop: asyncio.Event, tally: ClassTally) -> None:
    """A student on their own view: their sentence, a new seed every 2.5-7.5 s until ``stop``."""
    rng = random.Random(number)
    session = await new_session(where, "text", weights_link(number))
    try:
        await session.open(TIMEOUT_S)
        change = 0
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), rng.uniform(*THINK_S))
            if stop.is_set():
                break
            change += 1
            run = await session.set_widget("seed", 1000 * number + change, TIMEOUT_S)
            tally.changes_s.append(run.seconds)
            tally.change_errors.extend(run.exceptions)
    except (LostRunError, OSError, KeyError) as error:
        tally.change_errors.append(f"{type(error).__name__}: {error}")
    finally:
        await session.close()


async def teach(
    where: Where, code: str, key: str, followers: list[Session], steers: int, tally: ClassTally
) -> None:
    """``steers`` changes of the teacher's view; each timed until every follower shows it."""
    cpu = sum(map(cpu_seconds, where.pids))
    for turn in range(1, steers + 1):
        await asyncio.sleep(STEER_GAP_S)
        await steer(where, code, key, followers, "text", teachers_view(turn), tally)
    tally.teach_cpu_s = sum(map(cpu_seconds, where.pids)) - cpu


async def steer(
    where: Where,
    code: str,
    key: str,
    followers: list[Session],
    page: str,
    wanted: dict[str, str],
    tally: ClassTally,
    shown: dict[str, str] | None = None,
) -> list[float]:
    """The teacher opens ``page`` with ``wanted``; each follower's time to show it (s): to
    a full run whose link holds ``shown`` (default: all of ``wanted``).

    A follower that has not within SEEN_TIMEOUT_S counts as missed, and as
    SEEN_TIMEOUT_S. The times are also added to ``tally.follow_s``.
    """
    sent = time.perf_counter()
    await asyncio.to_thread(where.classes.steer, code, key, uuid.uuid4().hex, page, wanted)
    shown = wanted if shown is None else shown
    seen = await asyncio.gather(*(s.wait_for_query(shown, sent, SEEN_TIMEOUT_S) for s in followers))
    times = [view.at - sent if view else SEEN_TIMEOUT_S for view in seen]
    tally.follow_s.extend(times)
    tally.missed += sum(view is None for view in seen)
    return times


async def answer(session: Session, choice: str, tally: ClassTally) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while "class_answer" not in session.last.widget_ids and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    if "class_answer" not in session.last.widget_ids:
        last = session.last
        tally.answer_errors.append(
            f"no question drawn in {TIMEOUT_S:.0f} s: last full run had {last.elements} "
            f"elements, exceptions {last.exceptions[:1]}, widgets {sorted(last.widget_ids)[:8]}"
        )
        return
    start = time.perf_counter()
    try:
        await session.set_widget("class_answer", choice, PICK_TIMEOUT_S, in_link=False)
    except LostRunError:
        # The server ran the pick but never sent that run (a fragment poll arriving just
        # after it replaced its ScriptRunner, whose late messages Streamlit then drops).
        # A browser shows the picked answer anyway, and its "Send" carries it.
        tally.picks_never_drawn += 1
    try:
        also = {"class_answer": choice}
        sent = await session.set_widget("class_send", TRIGGER, TIMEOUT_S, also=also)
        tally.answers_s.append(time.perf_counter() - start)
        tally.answer_errors.extend(sent.exceptions)
    except (LostRunError, OSError, KeyError) as error:
        tally.answer_errors.append(f"class_send: {type(error).__name__}: {error}")


async def idle(where: Where, followers: list[Session], tally: ClassTally, idle_s: float) -> None:
    await asyncio.sleep(SETTLE_S)
    cpu, polls = sum(map(cpu_seconds, where.pids)), sum(s.polls for s in followers)
    start = time.perf_counter()
    await asyncio.sleep(idle_s)
    tally.idle_s = time.perf_counter() - start
    tally.idle_polls = sum(s.polls for s in followers) - polls
    tally.idle_cpu_s = sum(map(cpu_seconds, where.pids)) - cpu


@dataclass(frozen=True)
class Plan:
    """How many of each, and for how long."""

    followers: int
    others: int
    steers: int = STEERS
    idle_s: float = IDLE_S
    arrival_s: float = ARRIVAL_S


async def open_class(
    where: Where, followers: int, arrival_s: float, seed: int, tally: ClassTally
) -> tuple[str, str, list[Session]]:
    """A class started on the teacher's first view; its code, key and the followers who
    joined (arriving over ``arrival_s``, at times drawn with ``seed``)."""
    started = await asyncio.to_thread(where.classes.start)
    code, key = started.code, started.key
    where.classes.steer(code, key, uuid.uuid4().hex, "text", teachers_view(0))
    rng = random.Random(seed)
    joined = await asyncio.gather(
        *(follower(where, code, rng.uniform(0, arrival_s), tally) for _ in range(followers))
    )
    return code, key, [session for session in joined if session is not None]


async def class_session(where: Where, plan: Plan) -> ClassTally:
    tally = ClassTally()
    code, key, followers = await open_class(where, plan.followers, plan.arrival_s, 21, tally)
    stop = asyncio.Event()
    others = [asyncio.create_task(other(where, k, stop, tally)) for k in range(plan.others)]
    await teach(where, code, key, followers, plan.steers, tally)
    stop.set()
    await asyncio.gather(*others)
    await idle(where, followers, tally, plan.idle_s)
    where.classes.ask(code, key, uuid.uuid4().hex, QUESTION)
    choices = QUESTION["choices"]
    await asyncio.gather(*(answer(s, choices[i % 2], tally) for i, s in enumerate(followers)))
    tally.answers_counted = sum(where.classes.counts(code, str(QUESTION["id"])).values())
    tally.rss_mb = [round(rss_mb(pid), 1) for pid in where.pids]
    await asyncio.gather(*(s.close() for s in followers))
    return tally


@contextlib.contextmanager
def one_server(app: Path) -> Iterator[Where]:
    """One `streamlit run` with the SQLite store in a fresh folder (the teacher's too)."""
    with tempfile.TemporaryDirectory(prefix="class-session-") as data:
        os.environ[DATA_DIR_SETTING] = data  # inherited by the server
        with running_server(app) as (process, url):
            yield Where(url, [process.pid], Classes(open_store("")))


@contextlib.contextmanager
def replicas(app: Path, count: int) -> Iterator[Where]:
    """``count`` replicas behind nginx sharing one redis-server as their class store."""
    with running_cluster(count, app, redis=True) as cluster:
        pids = [process.pid for process in cluster.replicas.values()]
        yield Where(cluster.url, pids, Classes(open_store(cluster.redis_url)), sticky=True)
