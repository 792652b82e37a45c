"""What compression at the proxy saves a student's first visit.

One replica served directly, and the same replica through deploy/'s nginx
(gzip of Streamlit's static JS/CSS). Each sample is a fresh Chromium context
with its cache disabled and its network throttled to a classroom-like
20 Mbit/s down, 5 Mbit/s up, 20 ms latency (CDP
``Network.emulateNetworkConditions``), opening the text page. Reported: bytes
received (CDP ``encodedDataLength``, headers included) and time from
navigation to the first chart drawn, direct vs through nginx, alternating.
"""

from __future__ import annotations

import statistics
import time

from playwright.sync_api import sync_playwright

from benchmarks.common import Result, emit
from harness.cluster import running_cluster
from harness.local_server import CHROMIUM, CHROMIUM_ARGS

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "One replica served directly and through deploy/'s nginx (rendered on loopback by "
    "`harness/cluster.py`), alternating, 3 samples each; a fresh Chromium context per "
    "visit with its cache off and the network emulated at 20 Mbit/s down, 5 Mbit/s up, 20 ms. "
    "Bytes are the sum of every response's encoded length; time runs from navigation to the "
    "first plotly chart's SVG. Both figures are nginx over direct, reported only."
)

SAMPLES = 3
DOWN_BYTES_S = 20e6 / 8
UP_BYTES_S = 5e6 / 8
LATENCY_MS = 20
FIRST_CHART = ".js-plotly-plot .main-svg, .wm-canvas"  # a plotly chart or a walkable matrix


def _cold_visit(browser, url: str) -> tuple[float, int]:
    """Seconds to the first chart and bytes received, on a fresh throttled context."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": LATENCY_MS,
            "downloadThroughput": DOWN_BYTES_S,
            "uploadThroughput": UP_BYTES_S,
        },
    )
    received = []
    cdp.on("Network.loadingFinished", lambda event: received.append(event["encodedDataLength"]))
    start = time.perf_counter()
    page.goto(f"{url}/text", timeout=300_000, wait_until="commit")
    page.wait_for_selector(FIRST_CHART, timeout=300_000)
    elapsed = time.perf_counter() - start
    page.wait_for_load_state("networkidle", timeout=300_000)
    context.close()
    return elapsed, int(sum(received))


def main() -> None:
    direct_s, proxy_s, direct_b, proxy_b = [], [], [], []
    with running_cluster(1) as cluster, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        (port,) = cluster.replicas
        _cold_visit(browser, cluster.replica_url(port))  # the server's first run imports
        for _ in range(SAMPLES):
            seconds, size = _cold_visit(browser, cluster.replica_url(port))
            direct_s.append(seconds)
            direct_b.append(size)
            seconds, size = _cold_visit(browser, cluster.url)
            proxy_s.append(seconds)
            proxy_b.append(size)
        browser.close()
    mb = 1 / 1e6
    emit(
        [
            Result(
                name="proxy: bytes of a first visit, through nginx / direct (20 Mbit/s)",
                figure=round(statistics.median(proxy_b) / statistics.median(direct_b), 3),
                target=float("inf"),
                unit="x",
                details={
                    "direct_mb": round(statistics.median(direct_b) * mb, 2),
                    "nginx_gzip_mb": round(statistics.median(proxy_b) * mb, 2),
                },
            ),
            Result(
                name="proxy: time to first chart, through nginx / direct (20 Mbit/s)",
                figure=round(statistics.median(proxy_s) / statistics.median(direct_s), 3),
                target=float("inf"),
                unit="x",
                spread=(
                    round(min(p / d for p, d in zip(proxy_s, direct_s, strict=True)), 3),
                    round(max(p / d for p, d in zip(proxy_s, direct_s, strict=True)), 3),
                ),
                details={
                    "direct_s": round(statistics.median(direct_s), 2),
                    "nginx_gzip_s": round(statistics.median(proxy_s), 2),
                },
            ),
        ]
    )


if __name__ == "__main__":
    main()
