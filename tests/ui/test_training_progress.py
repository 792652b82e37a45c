"""The live training progress: one point per step, the chart redrawn only when it is time."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from ui.shared import training_progress
from ui.shared.training_progress import LiveProgress


def test_a_repeated_step_adds_no_point_and_the_chart_waits_for_its_redraw_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[tuple[list[int], str | None]] = []
    clock = iter([10.0, 10.0, 10.1, 10.6, 10.6])  # each check, and each draw

    def record(figure: go.Figure, key: str | None = None, **_: object) -> None:
        drawn.append(([int(step) for step in figure.data[0].x], key))

    def curves(steps: np.ndarray, first: np.ndarray, second: np.ndarray) -> go.Figure:
        return go.Figure(go.Scatter(x=steps, y=first))

    monkeypatch.setattr(training_progress, "chart", record)
    monkeypatch.setattr(training_progress.time, "monotonic", lambda: next(clock))
    with LiveProgress("Starting", curves, redraw_seconds=0.25, chart_key="live_") as live:
        live.step(0, 10, "step 0", 1.0, 0.5)  # 10.0 - 0.0 > 0.25: drawn at 10.0
        live.step(0, 10, "step 0 again", 1.0, 0.5)  # 10.1 - 10.0: too soon
        live.step(5, 10, "step 5", 0.5, 0.9)  # 10.6 - 10.0: drawn
    assert live.history == [(0, 1.0, 0.5), (5, 0.5, 0.9)]
    assert drawn == [([0], "live_1"), ([0, 5], "live_2")]
