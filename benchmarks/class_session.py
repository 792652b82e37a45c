"""A live class session, on one server and on 3 replicas.

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
    python -m benchmarks.class_session --app harness/follow_app.py   # the stand-in app
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from pathlib import Path

from benchmarks.common import Result, emit
from harness.class_session import (
    IDLE_S,
    STEERS,
    ClassTally,
    Plan,
    class_session,
    one_server,
    p95,
    replicas,
)
from harness.cluster import nginx_available, redis_available
from harness.local_server import ROOT

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "Every session is a headless client that does on the wire what a browser tab does; the "
    "teacher is driven through the class store. F followers open the class's join link over "
    "20 s and keep following; O other students each change the seed of their own sentence on "
    "the text page every 2.5–7.5 s (p95 from sending to `script_finished`, target at most 1 "
    "s); meanwhile the teacher changes the view 6 times, 5 s apart, and for each follower the "
    "time runs from the teacher's store write to the end of the follower's first full run "
    "showing the new view (target p95 at most 2 s; not seen within 30 s is missed), with the "
    "servers' CPU per follower and change beside it. Then the others leave and for 60 s "
    "nothing changes: server CPU per idle follower and second, and the servers' RSS (target "
    "at most 690 MB). Last, the teacher asks a question and every follower answers at once: "
    "the store's count must equal F. First F = 100, O = 30 on one server with SQLite; then F "
    "= 300, O = 90 on 3 replicas behind deploy/'s nginx sharing one redis-server."
)

FOLLOWERS, OTHERS = 100, 30
CLUSTER_FOLLOWERS, CLUSTER_OTHERS, REPLICAS = 300, 90, 3
CHANGE_TARGET_S, FOLLOW_TARGET_S, RSS_TARGET_MB = 1.0, 2.0, 690.0


def results(name: str, tally: ClassTally, plan: Plan) -> list[Result]:
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
