"""A chart shared by every session: written once, read the same as the figure it was made from."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
import plotly.tools

from ui.figures.describe import describe_figure
from ui.figures.tables import figure_tables
from ui.shared.figure_cache import cached_chart, digest

WEIGHTS = np.array([[0.7, 0.2, 0.1], [0.25, 0.5, 0.25]], dtype=np.float32)


def numbered_heatmap() -> go.Figure:
    """A heatmap whose axis labels are numbers in NumPy arrays (positions, lags)."""
    return go.Figure(go.Heatmap(z=WEIGHTS, x=np.arange(3) * 10, y=np.array([5, 6]), name="weights"))


def sent(figure: go.Figure) -> dict:
    """What ``st.plotly_chart`` sends for ``figure`` (its own two steps), as JSON."""
    data = plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True)
    return json.loads(plotly.io.to_json(data, validate=False))


def test_a_shared_chart_sends_the_same_json_and_keeps_the_description_of_its_numbers() -> None:
    shared = cached_chart(numbered_heatmap())
    assert sent(shared.figure) == sent(numbered_heatmap())
    assert shared.alt == describe_figure(numbered_heatmap())
    assert cached_chart(numbered_heatmap(), alt="Given.").alt == "Given."


def test_its_tables_read_the_numbers_and_the_numbered_axes_back() -> None:
    (table,) = figure_tables(cached_chart(numbered_heatmap()).figure)
    (plain,) = figure_tables(numbered_heatmap())
    assert list(table.frame.index) == ["5", "6"] == list(plain.frame.index)
    assert list(table.frame.columns) == ["0", "10", "20"]
    assert table.frame.equals(plain.frame)
    assert table.frame.iloc[0, 0] == "0.70"


def test_a_digest_names_the_settings_and_the_bytes_of_the_arrays() -> None:
    named = ("sort", 4, None)
    assert digest(named) == digest(("sort", 4, None))
    assert digest(named) != digest(("sort", 5, None))
    assert digest(named, WEIGHTS) == digest(named, WEIGHTS.copy())
    changed = WEIGHTS.copy()
    changed[1, 2] = 0.26
    assert digest(named, WEIGHTS) != digest(named, changed)
    assert len(digest(named)) == 64


def test_a_shared_charts_numbered_axes_are_described_as_numbers() -> None:
    figure = cached_chart(numbered_heatmap()).figure
    assert describe_figure(figure) == describe_figure(numbered_heatmap())
    assert "bdata" not in describe_figure(figure)


def test_arrays_of_other_shapes_or_types_with_the_same_bytes_have_other_digests() -> None:
    zeros = np.zeros((2, 3), dtype=np.float32)
    assert digest("k", zeros) != digest("k", zeros.reshape(3, 2))
    assert digest("k", zeros) != digest("k", zeros.view(np.int32))
    assert digest("k", zeros[:1], zeros[1:]) != digest("k", zeros[:, :1].copy(), zeros[:, 1:])
