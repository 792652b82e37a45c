"""Benchmark 5: a classroom of browser sessions on one real Streamlit server.

N = 30 Playwright browser contexts (separate sessions) each open the text page
and change the seed 10 times, all at once. Reported: p50/p95 time from a change
to the redrawn page against the same with N = 1, the server's memory (RSS) at
the end, and memory per extra session. Targets: all 30 under 690 MB of server
RSS, and no session ever sees an error.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from playwright.async_api import async_playwright

from benchmarks.common import Result, emit
from benchmarks.server import CHROMIUM, CHROMIUM_ARGS, READY, ROOT, rss_mb, running_server

SESSIONS, CHANGES = 30, 10
RSS_TARGET_MB = 690.0
EXCEPTION = "[data-testid='stException']"

# Counts finished reruns: script state going from running to notRunning.
COUNT_RERUNS = """
() => {
  window.__reruns = 0;
  const app = document.querySelector("[data-testid='stApp']");
  let last = app.getAttribute('data-test-script-state');
  new MutationObserver(() => {
    const now = app.getAttribute('data-test-script-state');
    if (last === 'running' && now === 'notRunning') window.__reruns += 1;
    last = now;
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}
"""


async def _student(browser, url: str, number: int, latencies: list[float],
                   errors: list[int]) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    await page.goto(f"{url}/text", timeout=300_000)
    await page.wait_for_selector(".js-plotly-plot", timeout=300_000)
    await page.wait_for_selector(READY, timeout=300_000)
    await page.evaluate(COUNT_RERUNS)
    seed = page.get_by_label("Seed")
    for change in range(CHANGES):
        before = await page.evaluate("window.__reruns")
        start = time.perf_counter()
        await seed.fill(str(1000 * number + change + 1))
        await seed.press("Enter")
        await page.wait_for_function(f"window.__reruns > {before}", timeout=300_000)
        latencies.append(time.perf_counter() - start)
        errors.append(await page.locator(EXCEPTION).count())
    await context.close()


async def _classroom(n_sessions: int) -> tuple[list[float], list[int], float]:
    latencies: list[float] = []
    errors: list[int] = []
    with running_server(ROOT / "app.py") as (process, url):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
            await asyncio.gather(
                *(_student(browser, url, i, latencies, errors) for i in range(n_sessions))
            )
            memory = rss_mb(process.pid)
            await browser.close()
    return latencies, errors, memory


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    alone, alone_errors, alone_rss = asyncio.run(_classroom(1))
    crowd, crowd_errors, crowd_rss = asyncio.run(_classroom(SESSIONS))
    per_session = (crowd_rss - alone_rss) / (SESSIONS - 1)
    emit([
        Result(
            name=f"classroom: server RSS with {SESSIONS} sessions",
            figure=round(crowd_rss, 1), target=RSS_TARGET_MB, unit="MB",
            details={"rss_1_session_mb": round(alone_rss, 1),
                     "mb_per_extra_session": round(per_session, 2)},
        ),
        Result(
            name=f"classroom: sessions that saw an error ({SESSIONS} sessions x {CHANGES} changes)",
            figure=float(sum(1 for e in crowd_errors + alone_errors if e)), target=0.0,
            unit="errors",
        ),
        Result(
            name=f"classroom: p50 change-to-redraw, N={SESSIONS} / N=1",
            figure=round(statistics.median(crowd) / statistics.median(alone), 2),
            target=float("inf"), unit="x",
            details={"p50_n1_s": round(statistics.median(alone), 3),
                     "p95_n1_s": round(_p95(alone), 3),
                     "p50_n30_s": round(statistics.median(crowd), 3),
                     "p95_n30_s": round(_p95(crowd), 3)},
        ),
    ])


if __name__ == "__main__":
    main()
