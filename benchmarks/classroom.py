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

from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import async_playwright

from benchmarks.common import Result, emit
from benchmarks.server import CHROMIUM, CHROMIUM_ARGS, READY, ROOT, rss_mb, running_server

SESSIONS, CHANGES = 30, 10
ARRIVAL_GAP_S = 0.5
CHANGE_TIMEOUT_MS = 120_000
LOAD_TIMEOUT_MS = 300_000
RSS_TARGET_MB = 690.0
EXCEPTION = "[data-testid='stException']"

# Counts finished reruns: the script state arriving at notRunning from any other state.
COUNT_RERUNS = """
() => {
  window.__reruns = 0;
  const app = document.querySelector("[data-testid='stApp']");
  let last = app.getAttribute('data-test-script-state');
  new MutationObserver(() => {
    const now = app.getAttribute('data-test-script-state');
    if (last !== 'notRunning' && now === 'notRunning') window.__reruns += 1;
    last = now;
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}
"""


async def _student(browser, url: str, number: int, latencies: list[float],
                   errors: list[int], timeouts: list[str]) -> None:
    await asyncio.sleep(number * ARRIVAL_GAP_S)  # students don't all click in the same ms
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(f"{url}/text", timeout=LOAD_TIMEOUT_MS)
        await page.wait_for_selector(".js-plotly-plot", timeout=LOAD_TIMEOUT_MS)
        await page.wait_for_selector(READY, timeout=LOAD_TIMEOUT_MS)
    except PlaywrightTimeout:
        timeouts.extend(["page never drawn"] * CHANGES)
        await context.close()
        return
    await page.evaluate(COUNT_RERUNS)
    seed = (page.get_by_test_id("stSidebar").get_by_test_id("stNumberInput")
            .filter(has=page.get_by_text("Seed", exact=True)).locator("input"))
    for change in range(CHANGES):
        before = await page.evaluate("window.__reruns")
        start = time.perf_counter()
        value = str(1000 * number + change + 1)
        await seed.fill(value)
        await seed.press("Enter")
        try:
            await page.wait_for_function(f"window.__reruns > {before}", timeout=CHANGE_TIMEOUT_MS)
        except PlaywrightTimeout:
            # Record what the page shows: did the change reach the URL (the server)?
            state = await page.get_by_test_id("stApp").get_attribute("data-test-script-state")
            timeouts.append(f"state={state} url_has_seed={('seed=' + value) in page.url}")
            continue
        latencies.append(time.perf_counter() - start)
        errors.append(await page.locator(EXCEPTION).count())
    await context.close()


async def _classroom(n_sessions: int) -> tuple[list[float], list[int], list[str], float]:
    latencies: list[float] = []
    errors: list[int] = []
    timeouts: list[str] = []
    with running_server(ROOT / "app.py") as (process, url):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
            await asyncio.gather(
                *(_student(browser, url, i, latencies, errors, timeouts)
                  for i in range(n_sessions))
            )
            memory = rss_mb(process.pid)
            await browser.close()
    return latencies, errors, timeouts, memory


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    alone, alone_errors, alone_timeouts, alone_rss = asyncio.run(_classroom(1))
    crowd, crowd_errors, crowd_timeouts, crowd_rss = asyncio.run(_classroom(SESSIONS))
    per_session = (crowd_rss - alone_rss) / (SESSIONS - 1)
    emit([
        Result(
            name=f"classroom: server RSS with {SESSIONS} sessions",
            figure=round(crowd_rss, 1), target=RSS_TARGET_MB, unit="MB",
            details={"rss_1_session_mb": round(alone_rss, 1),
                     "mb_per_extra_session": round(per_session, 2)},
        ),
        Result(
            name=f"classroom: exception elements seen ({SESSIONS} sessions x {CHANGES} changes)",
            figure=float(sum(1 for e in crowd_errors + alone_errors if e)), target=0.0,
            unit="errors", details={"redraws_measured": len(crowd)},
        ),
        Result(
            name=f"classroom: changes not redrawn within {CHANGE_TIMEOUT_MS // 1000} s",
            figure=float(len(crowd_timeouts) + len(alone_timeouts)), target=0.0, unit="changes",
            details={"examples": sorted(set(crowd_timeouts + alone_timeouts))[:4]},
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
