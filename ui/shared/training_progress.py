"""Live training progress: a progress bar over a growing chart of the training curves.

The learning page and the time-series page train a model while the student watches.
Both draw the same thing: a bar with the step (or the place in the training queue)
and a chart of the curves so far, redrawn at most every few tenths of a second so
the browser is not flooded. Each page brings its own words and its own figure.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from hosting.turns import TRAININGS
from ui.shared.matrix_view import chart

#: ``curves(steps (n,), first (n,), second (n,))``: the figure of the curves so far.
Curves = Callable[[np.ndarray, np.ndarray, np.ndarray], go.Figure]


class LiveProgress:
    """A progress bar and a live chart, emptied when the ``with`` block ends.

    ``chart_key`` (optional) prefixes the chart's key, followed by the number of points.
    """

    def __init__(
        self, start_text: str, curves: Curves, redraw_seconds: float, chart_key: str | None = None
    ) -> None:
        self.bar = st.progress(0.0, text=start_text)
        self.live_chart = st.empty()
        self.curves = curves
        self.redraw_seconds = redraw_seconds
        self.chart_key = chart_key
        self.history: list[tuple[int, float, float]] = []
        self.drawn = 0.0

    def __enter__(self) -> LiveProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.bar.empty()
        self.live_chart.empty()

    def say(self, text: str, fraction: float = 0.0) -> None:
        """Show ``text`` on the bar, filled to ``fraction``."""
        self.bar.progress(fraction, text=text)

    def in_queue(self, ahead: int) -> None:
        """The training waits for ``ahead`` others on this server."""
        self.say(TRAININGS.waiting_words(ahead))

    def step(self, step: int, steps: int, text: str, first: float, second: float) -> None:
        """Step ``step`` of at most ``steps``: the bar, a new point, the chart if it is time."""
        self.say(text, min(step / steps, 1.0))
        if not self.history or self.history[-1][0] != step:
            self.history.append((step, first, second))
        if time.monotonic() - self.drawn > self.redraw_seconds:
            columns = (np.array(column) for column in zip(*self.history, strict=True))
            key = None if self.chart_key is None else f"{self.chart_key}{len(self.history)}"
            chart(self.curves(*columns), key=key, place=self.live_chart)
            self.drawn = time.monotonic()
