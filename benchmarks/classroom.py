"""A classroom of browser sessions on one real Streamlit server.

N = 30 Playwright browser contexts (separate sessions) each open the text page
and change the seed 10 times, all at once. Reported: p50/p95 time from a change
to the redrawn page against the same with N = 1, the server's memory (RSS) at
the end, and memory per extra session. Targets: all 30 under 690 MB of server
RSS, and no session ever sees an error.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import async_playwright

from benchmarks.common import Result, emit
from harness.local_server import CHROMIUM, CHROMIUM_ARGS, ROOT, running_server
from harness.server import DRAWN, READY, cpu_seconds, rss_mb

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "A real server and 30 Playwright contexts (separate sessions, arriving 0.5 s apart) that "
    "each open the text page and change the seed 10 times, each change as soon as the "
    "previous one is drawn (no thinking time: the worst case); then the same with one "
    "session. A change is drawn when the start of every plotly chart's first-trace data "
    "differs from before and the app is idle; one not drawn in 120 s gets 60 s more and "
    "counts as late, or lost. Server RSS and CPU time come from /proc. The Chromium pages run "
    "on the same cores as the server, so the latencies include the browsers' own rendering; "
    "`python -m benchmarks.classroom 3` runs a smaller class."
)

SESSIONS, CHANGES = 30, 10
ARRIVAL_GAP_S = 0.5
CHANGE_TIMEOUT_MS = 120_000
LATE_TIMEOUT_MS = 60_000
LOAD_TIMEOUT_MS = 300_000
RSS_TARGET_MB = 690.0
CORES = os.cpu_count() or 1
EXCEPTION = "[data-testid='stException']"


@dataclass
class BrowserTally:
    """What the sessions of one classroom run saw."""

    latencies: list[float] = field(default_factory=list)
    late: int = 0  # redrawn, but only after CHANGE_TIMEOUT_MS
    lost: int = 0  # never redrawn, even after LATE_TIMEOUT_MS more
    exceptions: int = 0
    never_loaded: int = 0
    rss_mb: float = 0.0
    server_cpu_s: float = 0.0  # the server's CPU time while the sessions ran
    wall_s: float = 0.0


# What the charts show: the start of every plotly chart's first trace data. A
# seed change redraws every chart with new numbers, so this changes exactly
# when the browser has drawn the server's new figures.
CHART_SIGNATURE = """
() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .map(chart => (chart.data && chart.data.length)
    ? JSON.stringify(chart.data[0].z ?? chart.data[0].y ?? null).slice(0, 160) : '')
  .concat(Array.from(document.querySelectorAll('*')).filter(host => host.shadowRoot)
    .flatMap(host => Array.from(host.shadowRoot.querySelectorAll('[data-matrix]')))
    .concat(Array.from(document.querySelectorAll('[data-matrix]')))
    .map(grid => grid.dataset.matrix))
  .join('|')
"""
REDRAWN = f"""
(before) => {{
  const idle = document.querySelector("{READY}") !== null;
  const now = ({CHART_SIGNATURE.strip()})();
  return idle && now !== '' && now !== before;
}}
"""


async def _signature(page) -> str:
    return await page.evaluate(CHART_SIGNATURE)


async def _redrawn(page, before: str, timeout_ms: int) -> bool:
    try:
        await page.wait_for_function(REDRAWN, arg=before, timeout=timeout_ms, polling=100)
    except PlaywrightTimeout:
        return False
    return True


async def _student(browser, url: str, number: int, tally: BrowserTally) -> None:
    await asyncio.sleep(number * ARRIVAL_GAP_S)  # students don't all click in the same ms
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(f"{url}/text", timeout=LOAD_TIMEOUT_MS)
        await page.wait_for_selector(DRAWN, timeout=LOAD_TIMEOUT_MS)
        await page.wait_for_selector(READY, timeout=LOAD_TIMEOUT_MS)
    except PlaywrightTimeout:
        tally.never_loaded += 1
        await context.close()
        return
    seed = (
        page.get_by_test_id("stSidebar")
        .get_by_test_id("stNumberInput")
        .filter(has=page.get_by_text("Seed", exact=True))
        .locator("input")
    )
    for change in range(CHANGES):
        before = await _signature(page)
        start = time.perf_counter()
        await seed.fill(str(1000 * number + change + 1))
        await seed.press("Enter")
        if await _redrawn(page, before, CHANGE_TIMEOUT_MS):
            tally.latencies.append(time.perf_counter() - start)
        elif await _redrawn(page, before, LATE_TIMEOUT_MS):
            tally.late += 1
        else:
            tally.lost += 1
        tally.exceptions += await page.locator(EXCEPTION).count()
    await context.close()


async def _classroom(n_sessions: int) -> BrowserTally:
    tally = BrowserTally()
    with running_server(ROOT / "app.py") as (process, url):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            cpu_before, start = cpu_seconds(process.pid), time.perf_counter()
            await asyncio.gather(*(_student(browser, url, i, tally) for i in range(n_sessions)))
            tally.wall_s = time.perf_counter() - start
            tally.server_cpu_s = cpu_seconds(process.pid) - cpu_before
            tally.rss_mb = rss_mb(process.pid)
            await browser.close()
    return tally


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def main(sessions: int = SESSIONS) -> None:
    alone = asyncio.run(_classroom(1))
    crowd = asyncio.run(_classroom(sessions))
    per_session = (crowd.rss_mb - alone.rss_mb) / max(1, sessions - 1)
    emit(
        [
            Result(
                name=f"classroom: server RSS with {sessions} sessions",
                figure=round(crowd.rss_mb, 1),
                target=RSS_TARGET_MB,
                unit="MB",
                details={
                    "rss_1_session_mb": round(alone.rss_mb, 1),
                    "mb_per_extra_session": round(per_session, 2),
                },
            ),
            Result(
                name=f"classroom: errors seen ({sessions} sessions x {CHANGES} changes)",
                figure=float(
                    crowd.exceptions + alone.exceptions + crowd.never_loaded + alone.never_loaded
                ),
                target=0.0,
                unit="errors",
                details={
                    "exception_elements": crowd.exceptions + alone.exceptions,
                    "pages_never_drawn": crowd.never_loaded + alone.never_loaded,
                },
            ),
            Result(
                name=f"classroom: changes not redrawn within {CHANGE_TIMEOUT_MS // 1000} s",
                figure=float(crowd.late + alone.late + crowd.lost + alone.lost),
                target=0.0,
                unit="changes",
                details={
                    "redrawn_in_time": len(crowd.latencies) + len(alone.latencies),
                    "late": crowd.late + alone.late,
                    f"lost_after_{(CHANGE_TIMEOUT_MS + LATE_TIMEOUT_MS) // 1000}_s": crowd.lost
                    + alone.lost,
                },
            ),
            Result(
                name=f"classroom: p50 change-to-redraw, N={sessions} / N=1",
                figure=round(
                    statistics.median(crowd.latencies) / statistics.median(alone.latencies), 2
                ),
                target=float("inf"),
                unit="x",
                details={
                    "p50_n1_s": round(statistics.median(alone.latencies), 3),
                    "p95_n1_s": round(_p95(alone.latencies), 3),
                    f"p50_n{sessions}_s": round(statistics.median(crowd.latencies), 3),
                    f"p95_n{sessions}_s": round(_p95(crowd.latencies), 3),
                },
            ),
            Result(
                name=f"classroom: server's share of the 2 cores while {sessions} sessions ran",
                figure=round(crowd.server_cpu_s / (crowd.wall_s * CORES), 2),
                target=float("inf"),
                unit="of the cores",
                details={
                    "server_cpu_s": round(crowd.server_cpu_s, 1),
                    "wall_s": round(crowd.wall_s, 1),
                    "server_cpu_ms_per_change_incl_loads": round(
                        1000 * crowd.server_cpu_s / max(1, len(crowd.latencies)), 1
                    ),
                },
            ),
        ]
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else SESSIONS)
