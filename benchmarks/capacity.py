"""Capacity of one server process, measured with headless sessions.

N sessions (harness.st_client: Streamlit's own websocket protocol, no
browser) each open their own link — their own sentence on the text page's
weights view — then change the seed every ~5 s (uniform 2.5–7.5 s) for
DURATION_S seconds. Each change is timed from sending it to the script's
``script_finished``; it counts as an error when the run shows an exception
element, when not every chart's spec changed (no new numbers arrived), or when
it is lost (no ``script_finished`` within CHANGE_TIMEOUT_S, or the connection
dropped). A fresh server per N; RSS at the end and CPU seconds over the run
from /proc.

Then 200 sessions on 2 replicas behind deploy/'s nginx (cookie affinity), when
nginx is installed.

    python -m benchmarks.capacity               # N = 10, 30, 60, 100; 200 on 2 replicas
    python -m benchmarks.capacity 5 10 --duration 20 --replicas 0
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from benchmarks.common import Result, emit
from harness.cluster import nginx_available, running_cluster
from harness.local_server import ROOT, running_server
from harness.server import cpu_seconds, rss_mb
from harness.st_client import LostRunError, Run, Session, affinity_cookie
from harness.students import weights_link

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "A fresh server per N; N headless sessions (`harness/st_client.py`: Streamlit's own "
    "websocket protocol, no browser) arrive over 10 s, each on its own sentence on the text "
    "page's weights view, and change the seed every 2.5–7.5 s for 60 s. Latency runs from "
    "sending a change to its `script_finished` (target p95 at most 1 s); a change is an error "
    "if the run shows an exception element, if any chart's spec is unchanged, or if no "
    "`script_finished` comes within 120 s or the connection drops. Then 200 sessions on 2 "
    "replicas behind deploy/'s nginx, each with the affinity cookie of its first page load. "
    "RSS and CPU from /proc. A smaller run: `python -m benchmarks.capacity 10 30 --duration "
    "20 --replicas 0`."
)

SESSION_COUNTS = (10, 30, 60, 100)
REPLICAS, CLUSTER_SESSIONS = 2, 200  # then 200 sessions on 2 replicas behind nginx
DURATION_S = 60.0
THINK_S = (2.5, 7.5)  # ~5 s between changes, ±50 %
ARRIVAL_S = 10.0  # sessions open spread over this long
CHANGE_TIMEOUT_S = 120.0
P95_TARGET_S = 1.0
RSS_TARGET_MB = 690.0


@dataclass
class CapacityTally:
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


def check_change(before: Run, after: Run, tally: CapacityTally) -> None:
    """Count an exception element or a chart whose numbers did not change."""
    tally.exceptions += len(after.exceptions)
    if not after.charts or any(after.charts.get(k) == v for k, v in before.charts.items()):
        tally.stale += 1


async def student(
    base: str, number: int, end: float, tally: CapacityTally, rng: random.Random, proxied: bool
) -> None:
    await asyncio.sleep(rng.uniform(0, ARRIVAL_S))
    try:
        cookies = await asyncio.to_thread(affinity_cookie, base) if proxied else ""
        session = Session(base, "text", weights_link(number), cookies=cookies)
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


async def crowd(
    base: str, n_sessions: int, duration: float, proxied: bool = False
) -> CapacityTally:
    tally = CapacityTally()
    end = time.monotonic() + ARRIVAL_S + duration
    rng = random.Random(n_sessions)
    await asyncio.gather(
        *(
            student(base, i, end, tally, random.Random(rng.random()), proxied)
            for i in range(n_sessions)
        )
    )
    return tally


@contextlib.contextmanager
def servers(replicas: int) -> Iterator[tuple[str, list[int]]]:
    """One server, or ``replicas`` behind deploy/'s nginx: (url, server pids)."""
    if replicas == 1:
        with running_server(ROOT / "app.py") as (process, url):
            yield url, [process.pid]
    else:
        with running_cluster(replicas) as cluster:
            yield cluster.url, [process.pid for process in cluster.replicas.values()]


def percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def measure(n_sessions: int, duration: float, replicas: int = 1) -> Result:
    with servers(replicas) as (url, pids):
        cpu_before, start = sum(map(cpu_seconds, pids)), time.perf_counter()
        tally = asyncio.run(crowd(url, n_sessions, duration, proxied=replicas > 1))
        wall = time.perf_counter() - start
        cpu = sum(map(cpu_seconds, pids)) - cpu_before
        rss = max(map(rss_mb, pids))
    changes = len(tally.latencies)
    where = "" if replicas == 1 else f" on {replicas} replicas behind nginx"
    return Result(
        name=f"capacity: p95 change-to-finished, {n_sessions} sessions{where}",
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
            "rss_mb": round(rss, 1),  # the largest replica's
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
    parser.add_argument(
        "--replicas",
        type=int,
        default=REPLICAS,
        help="then --cluster-sessions sessions on this many replicas behind nginx (0: skip)",
    )
    parser.add_argument("--cluster-sessions", type=int, default=CLUSTER_SESSIONS)
    args = parser.parse_args(argv)
    results = [measure(n, args.duration) for n in args.sessions]
    results.append(
        Result(
            name=f"capacity: server RSS, {args.sessions[-1]} sessions",
            figure=results[-1].details["rss_mb"],
            target=RSS_TARGET_MB,
            unit="MB",
        )
    )
    if args.replicas > 1 and nginx_available():
        results.append(measure(args.cluster_sessions, args.duration, args.replicas))
    emit(results)


if __name__ == "__main__":
    main()
