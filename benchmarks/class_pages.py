"""A class follows its teacher over every page.

The class_session benchmark times the teacher's changes on the text page only. A
lesson moves between pages, and a follower's run costs what the page it shows costs:
before the pages shared their figures between sessions, one follower's run of the
time-series page took 8 times the server CPU of the text page's.

On one `streamlit run` with the SQLite store, F followers (100) join the class and
follow the teacher through :data:`LESSON`: on each page, the teacher opens it at a
first view (a change of page) and then changes one setting twice, GAP_S apart. For
each page: the p95 of every follower's time from the teacher's store write to the end
of its first full run showing the new view (target 2 s, as benchmark 13), and the
server's CPU per follower and change while on that page. Nobody else uses the server,
so the figure is the page's own cost; benchmark 13 adds the 30 others.

    python -m benchmarks.class_pages
    python -m benchmarks.class_pages --followers 30 --pages time_series learning
"""

from __future__ import annotations

import argparse
import asyncio
import statistics

from benchmarks.class_session import FOLLOW_TARGET_S
from benchmarks.common import Result, emit
from harness.class_session import (
    ClassTally,
    Where,
    one_server,
    open_class,
    p95,
    steer,
)
from harness.local_server import ROOT
from harness.server import cpu_seconds

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "One server, 100 followers and nobody else. The teacher takes the class through every "
    "page: on each, it opens the page at a first view (a change of page), then changes one "
    "setting twice, 4 s apart. For each page: the p95 of every follower's time from the "
    "teacher's store write to the end of its first full run showing the new view (target at "
    "most 2 s), with the server's CPU per follower and change in the details. Nobody else "
    "uses the server, so the figure is the page's own cost; benchmark 13 adds other students."
)

FOLLOWERS = 100
ARRIVAL_S = 20.0
GAP_S = 4.0  #: between two of the teacher's changes: the class has caught up by then
#: Each page's views, in the lesson's order: the first opens the page, the others change a
#: setting. None is at the page's default (a widget at its default is not in the link).
LESSON: dict[str, list[dict[str, str]]] = {
    "text": [{"seed": "601"}, {"seed": "602"}, {"seed": "603"}],
    "positional_encoding": [{"pe_length": "32"}, {"pe_length": "48"}, {"pe_length": "40"}],
    "walkthrough": [{"step": "2"}, {"step": "3"}, {"step": "5"}],
    "pretrained": [{"layer": "2"}, {"layer": "3"}, {"layer": "5"}],
    "time_series": [{"seed": "601"}, {"seed": "602"}, {"seed": "603"}],
    "learning": [{"learn_task": "sort"}, {"learn_task": "induction"}, {"learn_task": "sort"}],
}


async def lesson(where: Where, followers: int, pages: list[str]) -> dict[str, tuple]:
    """Each page's (follow times, server CPU seconds, missed) over its views."""
    tally = ClassTally()
    code, key, sessions = await open_class(where, followers, ARRIVAL_S, 15, tally)
    out = {}
    for page in pages:
        cpu, missed, times = sum(map(cpu_seconds, where.pids)), tally.missed, []
        for view in LESSON[page]:
            await asyncio.sleep(GAP_S)
            times += await steer(where, code, key, sessions, page, view, tally)
        cpu = sum(map(cpu_seconds, where.pids)) - cpu
        out[page] = (times, cpu, tally.missed - missed, len(sessions), tally.join_errors[:1])
    await asyncio.gather(*(session.close() for session in sessions))
    return out


def results(measured: dict[str, tuple]) -> list[Result]:
    rows = []
    for page, (times, cpu, missed, joined, join_error) in measured.items():
        rows.append(
            Result(
                f"class on every page: teacher's change to follower's view p95, {page}",
                round(p95(times), 3),
                FOLLOW_TARGET_S,
                "s",
                details={
                    "followers": joined,
                    "p50_s": round(statistics.median(times), 3),
                    "max_s": round(max(times), 3),
                    "changes": len(LESSON[page]),
                    "missed": missed,
                    "server_cpu_ms_per_follower_change": round(1000 * cpu / len(times), 1),
                    "first_join_error": join_error,
                },
            )
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=FOLLOWERS)
    parser.add_argument("--pages", nargs="*", choices=list(LESSON), default=list(LESSON))
    args = parser.parse_args(argv)
    with one_server(ROOT / "app.py") as where:
        measured = asyncio.run(lesson(where, args.followers, args.pages))
    emit(results(measured))


if __name__ == "__main__":
    main()
