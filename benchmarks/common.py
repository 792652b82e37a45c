"""Shared helpers: interleaved timing, ratio summaries, one result format.

Every figure is a ratio of two things measured side by side in the same
process and the same run (or a plain count), so it holds on a noisy machine.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field


@dataclass
class Result:
    """One benchmark figure against its target."""

    name: str
    figure: float
    target: float
    unit: str
    lower_is_better: bool = True
    spread: tuple[float, float] | None = None
    details: dict = field(default_factory=dict)

    @property
    def met(self) -> bool:
        return self.figure <= self.target if self.lower_is_better else self.figure >= self.target


def median_result(
    name: str,
    samples: list[float],
    target: float,
    unit: str,
    *,
    digits: int,
    details: dict | None = None,
) -> Result:
    """``samples``' median as the figure, their (min, max) as its spread; rounded to ``digits``."""
    return Result(
        name=name,
        figure=round(statistics.median(samples), digits),
        target=target,
        unit=unit,
        spread=(round(min(samples), digits), round(max(samples), digits)),
        details=details or {},
    )


def interleaved_ratio(
    subject: Callable[[], object], reference: Callable[[], object], repeats: int = 15
) -> tuple[float, tuple[float, float], float, float]:
    """Median of per-pair time ratios subject/reference, run alternately.

    Returns (median ratio, (min, max) ratio, median subject s, median reference s).
    """
    subject()
    reference()
    ratios, subject_times, reference_times = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        subject()
        middle = time.perf_counter()
        reference()
        end = time.perf_counter()
        subject_times.append(middle - start)
        reference_times.append(end - middle)
        ratios.append((middle - start) / (end - middle))
    return (
        statistics.median(ratios),
        (min(ratios), max(ratios)),
        statistics.median(subject_times),
        statistics.median(reference_times),
    )


def emit(results: list[Result]) -> None:
    """Print results as JSON on stdout (read by benchmarks/__main__.py)."""
    json.dump([asdict(r) | {"met": r.met} for r in results], sys.stdout)
    sys.stdout.write("\n")
