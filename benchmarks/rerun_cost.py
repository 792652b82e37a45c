"""Server-side cost of one rerun of the text page after a control change.

Both pages run in this process through AppTest; each sample changes the seed
(which invalidates every cached view of the text page) and times one rerun,
alternating with the same change on a minimal page that draws one 16 x 16
heatmap. Target: at most 4x at default settings; T = 128, 8 heads reported too.
"""

from __future__ import annotations

import statistics
import time

from streamlit.testing.v1 import AppTest

from benchmarks.common import Result, emit, median_result
from benchmarks.pages import MINIMAL_PAGE, sentence, text_page

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "In one process, AppTest reruns of the text page after a seed change (which invalidates "
    "every cached view) alternate with the same change on `benchmarks/minimal_page.py` (one "
    "16 × 16 heatmap through the same builder); the figure is the median of the per-pair "
    "ratios, target at most 4x at the default settings. A second row does the same at T = 128 "
    "with 8 heads on the weights tab (reported only)."
)

TARGET = 4.0
SAMPLES = 15


def _timed_seed_change(at: AppTest, seed: int) -> float:
    widget = at.number_input(key="seed")
    start = time.perf_counter()
    widget.set_value(seed).run()
    elapsed = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return elapsed


def _ratio(name: str, target: float, **params: str) -> Result:
    page = text_page(**params)
    minimal = AppTest.from_file(MINIMAL_PAGE, default_timeout=60).run()
    page_times, minimal_times = [], []
    for sample in range(1, SAMPLES + 1):
        page_times.append(_timed_seed_change(page, sample))
        minimal_times.append(_timed_seed_change(minimal, sample))
    ratios = [p / m for p, m in zip(page_times, minimal_times, strict=True)]
    return median_result(
        name,
        ratios,
        target,
        "x",
        digits=2,
        details={
            "page_ms": round(statistics.median(page_times) * 1e3, 1),
            "minimal_ms": round(statistics.median(minimal_times) * 1e3, 1),
        },
    )


def main() -> None:
    emit(
        [
            _ratio("rerun after a seed change, default settings / minimal page", TARGET),
            _ratio(
                "rerun after a seed change, T=128, 8 heads, weights tab / minimal page",
                float("inf"),
                text=sentence(128),
                d_model="64",
                heads="8",
                view="4 Weights",
            ),
        ]
    )


if __name__ == "__main__":
    main()
