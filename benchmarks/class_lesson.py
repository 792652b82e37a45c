"""A class of 100 follows its teacher through the course, step by step, and answers.

On one `streamlit run` with the SQLite store, F followers (100) join the class; the
teacher (driven through the class store, as in class_pages) opens every step of the
built-in course in turn, the lesson and step in the view as the lesson bar's Next sends
them, GAP_S apart. Reported: the p95 of every follower's time from the teacher's store
write to the end of its first full run showing the step (target 2 s, as the other follow
benchmarks), and, for every step that asks a question, whether every follower's answer
was counted (the question is tagged with its lesson and step, as the teacher's app tags
it).

The same class then follows on 2 replicas behind nginx sharing one redis-server (deploy/'s
scale-out), on the same machine: one replica per core.

    python -m benchmarks.class_lesson
    python -m benchmarks.class_lesson --followers 10 --replicas 0
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import uuid
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from attention_core.teaching.builtin_lessons import COURSE, builtin_lesson
from attention_core.teaching.lesson_link import LESSON_PARAM
from benchmarks.class_session import FOLLOW_TARGET_S
from benchmarks.common import Result, emit
from harness.class_session import (
    QUESTION,
    TIMEOUT_S,
    ClassTally,
    Where,
    answer,
    new_session,
    one_server,
    open_class,
    p95,
    replicas,
    steer,
)
from harness.cluster import nginx_available, redis_available
from harness.local_server import ROOT
from harness.server import cpu_seconds
from ui.lessons.player import STEP_PARAM

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "One server, 100 followers and nobody else. The teacher opens every step of the built-in "
    "course in turn, 4 s apart: each step's view as the teacher's app sends it (the step's "
    "link, lesson and step included, once its page has run: a setting at its default drops "
    "out of a link), written to the class store. Figure: the p95 of every follower's time "
    "from the teacher's store write to the end of its first full run showing the step "
    "(target at most 2 s). At every step that asks a question, the teacher asks one (tagged "
    "with the lesson and the step) and every follower answers; the second row is the share "
    "of those answers the class counted (target 100 %). Then the same on this machine with the "
    "class scaled out as deploy/ runs it: 2 replicas (one per core) behind nginx, sharing one "
    "redis-server as their class store."
)

FOLLOWERS = 100
#: One replica per core of this machine (2): a class the size of the target, scaled out as
#: deploy/ runs it, on the same machine.
REPLICAS = 2
ARRIVAL_S = 20.0
GAP_S = 4.0


def step_views() -> list[tuple[str, dict[str, str], bool]]:
    """Each course step's page, view (with the lesson's parameters) and whether it asks."""
    lesson = builtin_lesson(COURSE)
    return [
        (step.page, step.params | {LESSON_PARAM: COURSE, STEP_PARAM: str(number)},
         step.question is not None)
        for number, step in enumerate(lesson.steps, start=1)
    ]  # fmt: skip


def marker(view: dict[str, str]) -> dict[str, str]:
    """What tells a follower's link shows ``view``: the lesson and the step's number."""
    return {LESSON_PARAM: view[LESSON_PARAM], STEP_PARAM: view[STEP_PARAM]}


@dataclass
class CourseRun:
    """What a class saw going through the course."""

    tally: ClassTally
    times: list[float] = field(default_factory=list)  #: every follower's time, every step
    by_step: list[str] = field(default_factory=list)  #: "3 text: 0.42 s" (each step's p95)
    asked: int = 0  #: answers sent to the steps' questions
    counted: int = 0  #: of them, counted by the class
    cpu_s: float = 0.0  #: the server's CPU time over the steps


async def teachers_link(where: Where, page: str, view: dict[str, str]) -> dict[str, str]:
    """The view a teacher's app sends for a step: the step's link as the page leaves it once
    run (a setting at its widget's default drops out of a link), as the lesson bar's Next
    opens it in the teacher's own app."""
    session = await new_session(where, page, urlencode(view))
    try:
        await session.open(TIMEOUT_S)
    finally:
        await session.close()
    return dict(parse_qsl(session.query, keep_blank_values=True))


async def course(where: Where, followers: int) -> CourseRun:
    """Every step of the course, steered to the class; the answers to each step's question."""
    run = CourseRun(ClassTally())
    code, key, sessions = await open_class(where, followers, ARRIVAL_S, 17, run.tally)
    cpu = sum(map(cpu_seconds, where.pids))
    for number, (page, step_view, asks) in enumerate(step_views(), start=1):
        view = await teachers_link(where, page, step_view)
        await asyncio.sleep(GAP_S)
        times = await steer(where, code, key, sessions, page, view, run.tally, marker(view))
        run.times += times
        run.by_step.append(f"{number} {page}: {p95(times):.2f} s")
        if not asks:
            continue
        question = QUESTION | {"id": f"bench-step{number}", "lesson": COURSE, "step": number}
        where.classes.ask(code, key, uuid.uuid4().hex, question)
        choices = question["choices"]
        await asyncio.gather(
            *(answer(s, choices[i % 2], run.tally) for i, s in enumerate(sessions))
        )
        run.asked += len(sessions)
        run.counted += sum(where.classes.counts(code, question["id"]).values())
    run.cpu_s = sum(map(cpu_seconds, where.pids)) - cpu
    await asyncio.gather(*(session.close() for session in sessions))
    return run


def results(run: CourseRun, on: str) -> list[Result]:
    tally, times = run.tally, run.times
    details = {
        "followers": len(tally.join_s),
        "steps": len(step_views()),
        "p50_s": round(statistics.median(times), 3),
        "max_s": round(max(times), 3),
        "missed": tally.missed,
        "p95_by_step": run.by_step,
        "server_cpu_ms_per_follower_step": round(1000 * run.cpu_s / max(len(times), 1), 1),
        "first_join_error": tally.join_errors[:1],
        "first_answer_error": tally.answer_errors[:1],
    }
    return [
        Result(f"a class through the course, {on}: teacher's step to follower's view p95",
               round(p95(times), 3), FOLLOW_TARGET_S, "s", details=details),
        Result(f"a class through the course, {on}: answers counted, every step's question",
               round(100 * run.counted / max(run.asked, 1), 1), 100.0, "%",
               lower_is_better=False,
               details={"answers_sent": run.asked, "answers_counted": run.counted}),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=FOLLOWERS)
    parser.add_argument("--replicas", type=int, default=REPLICAS, help="0: one process only")
    args = parser.parse_args(argv)
    with one_server(ROOT / "app.py") as where:
        out = results(asyncio.run(course(where, args.followers)), "one process")
    if args.replicas and nginx_available() and redis_available():
        with replicas(ROOT / "app.py", args.replicas) as where:
            measured = asyncio.run(course(where, args.followers))
        out += results(measured, f"{args.replicas} replicas on this machine, nginx, Redis")
    emit(out)


if __name__ == "__main__":
    main()
