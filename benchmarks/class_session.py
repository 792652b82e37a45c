"""Benchmark 13: a live class session (issue 21, part 5), on one server and on 3 replicas.

Every session is a headless client (harness.st_client) that behaves as a
browser tab on the wire, including any fragment's auto-reruns. The
teacher is driven through the class store itself (``hosting.classroom``
``Classes`` on the same store as the servers), as the teacher's app would.

1. **Join.** F followers open ``/?class=CODE`` (arriving over ARRIVAL_S) and
   keep following: the app's server reads the class's version for all of them
   (ui.classroom.watch) and reruns their apps when it moves; their browsers send
   nothing meanwhile.
2. **Teach.** Meanwhile O other students open their own sentence on the text
   page and change its seed every 2.5-7.5 s: p95 of those changes, from
   sending to ``script_finished`` (target ≤ 1 s). The teacher changes the view
   STEERS times, STEER_GAP_S apart: for each follower, the time from the
   teacher's store write to the end of the follower's first full run whose
   query string shows the new view (target p95 ≤ 2 s; a follower that has not
   within SEEN_TIMEOUT_S counts as missed, and as SEEN_TIMEOUT_S). The servers'
   CPU during the teaching, per follower and change, is reported beside it.
3. **Idle.** The others leave; for IDLE_S nothing changes: the servers' CPU
   seconds (/proc) per follower and second is what an idle follower costs (the
   polls browsers sent meanwhile are counted too: 0 with the app's watcher, one
   per follower and second with the stand-in app's timed fragment), and the
   servers' resident memory at the end.
4. **Answer.** The teacher asks one choice question; every follower picks an
   answer (``class_answer``) and sends it (``class_send``) at once: the
   store's count must be F, none lost.

First F=100, O=30 on one `streamlit run` with SQLite (ATTENTION_DATA_DIR in a
temporary folder); then F=300, O=90 on 3 replicas behind deploy/'s nginx with
one redis-server shared through ATTENTION_CLASS_STORE (when nginx and
redis-server are installed).

    python -m benchmarks.class_session
    python -m benchmarks.class_session --followers 10 --others 3 --idle 10 --replicas 0
    python -m benchmarks.class_session --app benchmarks/follow_app.py   # the stand-in app
"""

from __future__ import annotations

import argparse
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

from benchmarks.capacity import weights_link
from benchmarks.common import Result, emit
from harness.cluster import nginx_available, redis_available, running_cluster
from harness.local_server import ROOT, running_server
from harness.server import cpu_seconds, rss_mb
from harness.st_client import TRIGGER, LostRunError, Session, affinity_cookie
from hosting.classroom.classes import Classes
from hosting.classroom.settings import DATA_DIR_SETTING, open_store

FOLLOWERS, OTHERS = 100, 30
CLUSTER_FOLLOWERS, CLUSTER_OTHERS, REPLICAS = 300, 90, 3
STEERS, STEER_GAP_S = 6, 5.0
ARRIVAL_S = 20.0
THINK_S = (2.5, 7.5)
IDLE_S = 60.0
SETTLE_S = 5.0  # after the others leave, before the idle minute
TIMEOUT_S = 180.0
SEEN_TIMEOUT_S = 30.0
PICK_TIMEOUT_S = 30.0
TEACHER_SEED = 500
CHANGE_TARGET_S, FOLLOW_TARGET_S, RSS_TARGET_MB = 1.0, 2.0, 690.0
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
class Tally:
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


async def follower(where: Where, code: str, delay: float, tally: Tally) -> Session | None:
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


async def other(where: Where, number: int, stop: asyncio.Event, tally: Tally) -> None:
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
    where: Where, code: str, key: str, followers: list[Session], steers: int, tally: Tally
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
    tally: Tally,
) -> list[float]:
    """The teacher opens ``page`` with ``wanted``; each follower's time to show it (s).

    A follower that has not within SEEN_TIMEOUT_S counts as missed, and as
    SEEN_TIMEOUT_S. The times are also added to ``tally.follow_s``.
    """
    sent = time.perf_counter()
    await asyncio.to_thread(where.classes.steer, code, key, uuid.uuid4().hex, page, wanted)
    seen = await asyncio.gather(
        *(s.wait_for_query(wanted, sent, SEEN_TIMEOUT_S) for s in followers)
    )
    times = [view.at - sent if view else SEEN_TIMEOUT_S for view in seen]
    tally.follow_s.extend(times)
    tally.missed += sum(view is None for view in seen)
    return times


async def answer(session: Session, choice: str, tally: Tally) -> None:
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


async def idle(where: Where, followers: list[Session], tally: Tally, idle_s: float) -> None:
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
    where: Where, followers: int, arrival_s: float, seed: int, tally: Tally
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


async def class_session(where: Where, plan: Plan) -> Tally:
    tally = Tally()
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


def results(name: str, tally: Tally, plan: Plan) -> list[Result]:
    follower_seconds = max(tally.idle_s * plan.followers, 1e-9)
    common = {"followers": plan.followers, "others": plan.others}
    return [
        Result(
            f"class session: others' changes p95, {name}",
            round(p95(tally.changes_s), 3) if tally.changes_s else float("inf"),
            CHANGE_TARGET_S,
            "s",
            details=common
            | {
                "p50_s": round(statistics.median(tally.changes_s), 3) if tally.changes_s else None,
                "changes": len(tally.changes_s),
                "errors": len(tally.change_errors),
                "first_error": tally.change_errors[:1],
            },
        ),
        Result(
            f"class session: teacher's change to follower's view p95, {name}",
            round(p95(tally.follow_s), 3) if tally.follow_s else float("inf"),
            FOLLOW_TARGET_S,
            "s",
            details=common
            | {
                "p50_s": round(statistics.median(tally.follow_s), 3) if tally.follow_s else None,
                "max_s": round(max(tally.follow_s), 3) if tally.follow_s else None,
                "steers": plan.steers,
                "missed": tally.missed,
                # Server CPU while teaching, per follower and change (the others' runs
                # meanwhile included): less sensitive than a latency to a busy host.
                "server_cpu_ms_per_follower_change": round(
                    1000 * tally.teach_cpu_s / max(len(tally.follow_s), 1), 1
                ),
                "joined": len(tally.join_s),
                "join_p95_s": round(p95(tally.join_s), 2) if tally.join_s else None,
                "join_errors": len(tally.join_errors),
                "first_join_error": tally.join_errors[:1],
                "replicas": dict(tally.replicas) if len(tally.replicas) > 1 else None,
            },
        ),
        Result(
            f"class session: answers counted, {name}",
            tally.answers_counted,
            plan.followers,
            "answers",
            lower_is_better=False,
            details={
                "p95_s": round(p95(tally.answers_s), 2) if tally.answers_s else None,
                "max_s": round(max(tally.answers_s), 2) if tally.answers_s else None,
                "errors": len(tally.answer_errors),
                "first_error": tally.answer_errors[:1],
                "picks_never_drawn": tally.picks_never_drawn,
            },
        ),
        Result(
            f"class session: server CPU per idle follower and second, {name}",
            round(1000 * tally.idle_cpu_s / follower_seconds, 3),
            float("inf"),
            "ms",
            details={
                "browser_polls": tally.idle_polls,
                "idle_s": round(tally.idle_s, 1),
                "cpu_s": round(tally.idle_cpu_s, 2),
                "share_of_one_core": round(tally.idle_cpu_s / max(tally.idle_s, 1e-9), 3),
                "polls_per_follower_s": round(tally.idle_polls / follower_seconds, 2),
            },
        ),
        Result(
            f"class session: server RSS at the end, {name}",
            max(tally.rss_mb),
            RSS_TARGET_MB,
            "MB",
            details={"per_process_mb": tally.rss_mb},
        ),
    ]


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=ROOT / "app.py")
    parser.add_argument("--followers", type=int, default=FOLLOWERS)
    parser.add_argument("--others", type=int, default=OTHERS)
    parser.add_argument("--replicas", type=int, default=REPLICAS, help="0: one server only")
    parser.add_argument("--cluster-followers", type=int, default=CLUSTER_FOLLOWERS)
    parser.add_argument("--cluster-others", type=int, default=CLUSTER_OTHERS)
    parser.add_argument("--steers", type=int, default=STEERS)
    parser.add_argument("--idle", type=float, default=IDLE_S)
    args = parser.parse_args(argv)
    plan = Plan(args.followers, args.others, args.steers, args.idle)
    with one_server(args.app) as where:
        tally = asyncio.run(class_session(where, plan))
    out = results("one server, SQLite", tally, plan)
    if args.replicas and nginx_available() and redis_available():
        plan = Plan(args.cluster_followers, args.cluster_others, args.steers, args.idle)
        with replicas(args.app, args.replicas) as where:
            tally = asyncio.run(class_session(where, plan))
        out += results(f"{args.replicas} replicas behind nginx, Redis", tally, plan)
    emit(out)


if __name__ == "__main__":
    main()
