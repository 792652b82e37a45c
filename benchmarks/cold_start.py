"""Benchmark 4: cold start of the text page against a bare one-line Streamlit app.

Each sample starts a fresh `streamlit run` process and a fresh browser page and
measures the time until the page is fully drawn (script idle and, for the
text page, its charts on screen). The two apps alternate. Target: at most 1.5x.
"""

from __future__ import annotations

import statistics
import time

from playwright.sync_api import sync_playwright

from benchmarks.common import Result, emit
from benchmarks.server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    READY,
    ROOT,
    free_port,
    start_server,
    wait_healthy,
)

TARGET = 1.5
SAMPLES = 5


def _time_to_drawn(browser, script, path: str, drawn: str) -> float:
    port = free_port()
    start = time.perf_counter()
    process = start_server(script, port)
    try:
        wait_healthy(port)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/{path}")
        page.wait_for_selector(drawn, timeout=120_000)
        page.wait_for_selector(READY, timeout=120_000)
        elapsed = time.perf_counter() - start
        page.close()
        return elapsed
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> None:
    app_times, bare_times = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(SAMPLES):
            app_times.append(_time_to_drawn(browser, ROOT / "app.py", "text", ".js-plotly-plot"))
            bare_times.append(
                _time_to_drawn(browser, ROOT / "benchmarks" / "bare_app.py", "",
                               "[data-testid='stMarkdownContainer']")
            )
        browser.close()
    ratios = [a / b for a, b in zip(app_times, bare_times, strict=True)]
    emit([Result(
        name="cold start: text page / bare app",
        figure=round(statistics.median(ratios), 3),
        target=TARGET,
        unit="x",
        spread=(round(min(ratios), 3), round(max(ratios), 3)),
        details={
            "text_page_s": round(statistics.median(app_times), 2),
            "bare_app_s": round(statistics.median(bare_times), 2),
        },
    )])


if __name__ == "__main__":
    main()
