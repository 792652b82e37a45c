"""Cold start of the text page against a bare one-line Streamlit app.

Each sample starts a fresh `streamlit run` process and a fresh browser page and
measures the time until the page is fully drawn (script idle and, for the
text page, its charts on screen). The apps alternate. Target: at most 1.5x.

A third app, one plotly heatmap (benchmarks/minimal_page.py), shows how much
of the gap is the browser loading Streamlit's plotly chunk (PlotlyChart.js,
4.7 MB, served uncompressed) rather than anything this app does.
"""

from __future__ import annotations

import statistics
import time

from playwright.sync_api import sync_playwright

from benchmarks.common import Result, emit, median_result
from harness.local_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    free_port,
    start_server,
    stop,
    url_of,
    wait_healthy,
)
from harness.server import DRAWN, READY

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "Each sample starts a fresh `streamlit run` and a fresh Chromium page and times from "
    "process start to the page drawn (its charts on screen, the script idle); the text page "
    "alternates with a bare one-line app (target at most 1.5x) and with an app that draws one "
    "heatmap (reported only). The figure is the median of the per-pair ratios."
)

TARGET = 1.5
SAMPLES = 5


def _time_to_drawn(browser, script, path: str, drawn: str) -> float:
    port = free_port()
    start = time.perf_counter()
    process = start_server(script, port)
    try:
        wait_healthy(process, url_of(port))
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url_of(port)}/{path}")
        page.wait_for_selector(drawn, timeout=120_000)
        page.wait_for_selector(READY, timeout=120_000)
        elapsed = time.perf_counter() - start
        page.close()
        return elapsed
    finally:
        stop(process)


def main() -> None:
    app_times, bare_times, plotly_times = [], [], []
    plot = ".js-plotly-plot"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(SAMPLES):
            app_times.append(_time_to_drawn(browser, ROOT / "app.py", "text", DRAWN))
            bare_times.append(
                _time_to_drawn(
                    browser,
                    ROOT / "benchmarks" / "bare_app.py",
                    "",
                    "[data-testid='stMarkdownContainer']",
                )
            )
            plotly_times.append(
                _time_to_drawn(browser, ROOT / "benchmarks" / "minimal_page.py", "", plot)
            )
        browser.close()
    emit(
        [
            _ratio("cold start: text page / bare app", app_times, bare_times, TARGET),
            _ratio(
                "cold start: text page / one-heatmap app", app_times, plotly_times, float("inf")
            ),
        ]
    )


def _ratio(name: str, subject: list[float], reference: list[float], target: float) -> Result:
    ratios = [a / b for a, b in zip(subject, reference, strict=True)]
    return median_result(
        name,
        ratios,
        target,
        "x",
        digits=3,
        details={
            "subject_s": round(statistics.median(subject), 2),
            "reference_s": round(statistics.median(reference), 2),
        },
    )


if __name__ == "__main__":
    main()
