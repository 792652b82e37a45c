"""Benchmark 7: capacity of one server process, measured with headless sessions.

N sessions (benchmarks.st_client: Streamlit's own websocket protocol, no
browser) each open their own link — their own sentence on the text page's
weights view — then change the seed every ~5 s (uniform 2.5–7.5 s) for
DURATION_S seconds. Each change is timed from sending it to the script's
``script_finished``; it counts as an error when the run shows an exception
element, when not every chart's spec changed (no new numbers arrived), or when
it is lost (no ``script_finished`` within CHANGE_TIMEOUT_S, or the connection
dropped). A fresh server per N; RSS at the end and CPU seconds over the run
from /proc.

    python -m benchmarks.capacity               # N = 10, 30, 60, 100
    python -m benchmarks.capacity 5 10 --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from benchmarks.common import Result, emit
from benchmarks.server import ROOT, cpu_seconds, rss_mb, running_server
from benchmarks.st_client import LostRunError, Run, Session

SESSION_COUNTS = (10, 30, 60, 100)
DURATION_S = 60.0
THINK_S = (2.5, 7.5)  # ~5 s between changes, ±50 %
ARRIVAL_S = 10.0  # sessions open spread over this long
CHANGE_TIMEOUT_S = 120.0
P95_TARGET_S = 1.0
RSS_TARGET_MB = 690.0
WORDS = (
    *("the", "cat", "saw", "a", "dog", "near", "river"),
    *("because", "it", "was", "tired", "and", "small"),
)


def student_sentence(number: int) -> str:
    """A different 13-token sentence per session, the size of the page's default."""
    rng = random.Random(number)
    words = rng.sample(WORDS, len(WORDS) - 1)
    return f"Student {number} said " + " ".join(words[:9]) + "."


def weights_link(number: int) -> str:
    """The query string of a session's own link on the weights view."""
    return urlencode({"view": "4 Weights", "text": student_sentence(number)})


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    opened: int = 0
    exceptions: int = 0
    stale: int = 0  # finished, but some chart still shows the old numbers
    lost: int = 0
    never_opened: int = 0
    bytes: int = 0

    @property
    def errors(self) -> int:
        return self.exceptions + self.stale + self.lost + self.never_opened


def check_change(before: Run, after: Run, tally: Tally) -> None:
    """Count an exception element or a chart whose numbers did not change."""
    tally.exceptions += len(after.exceptions)
    if not after.charts or any(after.charts.get(k) == v for k, v in before.charts.items()):
        tally.stale += 1


async def student(base: str, number: int, end: float, tally: Tally, rng: random.Random) -> None:
    await asyncio.sleep(rng.uniform(0, ARRIVAL_S))
    session = Session(base, "text", weights_link(number))
    try:
        before = await session.open(CHANGE_TIMEOUT_S)
    except (LostRunError, OSError):
        tally.never_opened += 1
        return
    tally.opened += 1
    tally.exceptions += len(before.exceptions)
    seed = 0
    try:
        while time.monotonic() + THINK_S[0] < end:
            await asyncio.sleep(rng.uniform(*THINK_S))
            seed += 1 + rng.randrange(50)
            try:
                after = await session.set_widget("seed", seed, CHANGE_TIMEOUT_S)
            except LostRunError:
                tally.lost += 1
                return
            tally.latencies.append(after.seconds)
            tally.bytes += after.bytes
            check_change(before, after, tally)
            before = after
    finally:
        await session.close()


async def crowd(base: str, n_sessions: int, duration: float) -> Tally:
    tally = Tally()
    end = time.monotonic() + ARRIVAL_S + duration
    rng = random.Random(n_sessions)
    await asyncio.gather(
        *(student(base, i, end, tally, random.Random(rng.random())) for i in range(n_sessions))
    )
    return tally


def percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def measure(n_sessions: int, duration: float) -> Result:
    with running_server(ROOT / "app.py") as (process, url):
        cpu_before, start = cpu_seconds(process.pid), time.perf_counter()
        tally = asyncio.run(crowd(url, n_sessions, duration))
        wall = time.perf_counter() - start
        cpu = cpu_seconds(process.pid) - cpu_before
        rss = rss_mb(process.pid)
    changes = len(tally.latencies)
    return Result(
        name=f"capacity: p95 change-to-finished, {n_sessions} sessions",
        figure=round(percentile(tally.latencies, 95), 3),
        target=P95_TARGET_S,
        unit="s",
        details={
            "p50_s": round(percentile(tally.latencies, 50), 3),
            "max_s": round(max(tally.latencies, default=float("nan")), 3),
            "changes": changes,
            "errors": tally.errors,
            "exceptions": tally.exceptions,
            "stale": tally.stale,
            "lost": tally.lost,
            "never_opened": tally.never_opened,
            "rss_mb": round(rss, 1),
            "cpu_s": round(cpu, 1),
            "wall_s": round(wall, 1),
            "cpu_ms_per_change_incl_opens": round(1000 * cpu / max(1, changes), 1),
            "kb_per_change": round(tally.bytes / max(1, changes) / 1024, 1),
        },
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", nargs="*", type=int, default=list(SESSION_COUNTS))
    parser.add_argument("--duration", type=float, default=DURATION_S)
    args = parser.parse_args(argv)
    results = [measure(n, args.duration) for n in args.sessions]
    largest = max(results, key=lambda r: int(r.name.rsplit(" ", 2)[-2]))
    results.append(
        Result(
            name=f"capacity: server RSS, {max(args.sessions)} sessions",
            figure=largest.details["rss_mb"],
            target=RSS_TARGET_MB,
            unit="MB",
        )
    )
    emit(results)


if __name__ == "__main__":
    main()
