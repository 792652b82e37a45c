"""Reading the plotly figures a page sent, as AppTest sees them.

A walkable matrix (ui/shared/walkable_matrix.py) draws a heatmap too: :func:`figures` reads
it as a one-trace heatmap spec (its title, labels and the float32 values the browser
decodes), so a test of what a page plots covers both.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import plotly.io as pio
from plotly.basedatatypes import BaseFigure
from streamlit.testing.v1 import AppTest

from ui.shared.walkable_data import read_sent


def held(figure: BaseFigure) -> str:
    """The JSON of what ``figure`` holds now, read afresh: a shared figure
    (:class:`ui.figures.build.SentFigure`) answers ``to_dict()`` with the dict it made the
    first time, which would hide a change made to it since."""
    return pio.to_json(BaseFigure.to_dict(figure), validate=False)


def figures(at: AppTest) -> list[dict]:
    """Every plotly chart of the run, as its JSON spec, then every walkable matrix."""
    plotly = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return plotly + walkable_matrices(at)


def charts(at: AppTest) -> list:
    """Every chart element of the run: plotly charts, then walkable matrices."""
    return [*at.get("plotly_chart"), *at.get("bidi_component")]


def walkable_matrices(at: AppTest) -> list[dict]:
    """Every walkable matrix of the run as a plotly-like spec: ``layout.title.text``, and one
    heatmap trace with ``x`` (column labels), ``y`` (row labels) and ``z`` (float32, NaN =
    masked), plus the ``walkable`` data itself (the shared matrix's, as sent) and ``alt``,
    the chart's text alternative this run sent with it."""
    specs = []
    for element in at.get("bidi_component"):
        data = dict(read_sent(element.proto.bytes))
        if "values" not in data:
            continue
        alt = data.pop("alt", "")
        shape = f"{len(data['rows'])}, {len(data['cols'])}"
        z = {"dtype": "<f4", "bdata": data["values"], "shape": shape}
        trace = {"type": "heatmap", "name": data["title"], "x": data["cols"], "y": data["rows"]}
        specs.append(
            {
                "layout": {"title": {"text": data["title"]}},
                "data": [trace | {"z": z}],
                "walkable": data,
                "alt": alt,
            }
        )
    return specs


def figure_titled(at: AppTest, start: str) -> dict:
    """The one figure whose title starts with ``start``."""
    matches = [f for f in figures(at) if f["layout"]["title"]["text"].startswith(start)]
    assert len(matches) == 1, [f["layout"]["title"]["text"] for f in figures(at)]
    return matches[0]


def decode(data: dict | list) -> np.ndarray:
    """A plotly array: a list, or base64 ``{"dtype", "bdata", "shape": "R, C"}`` for NumPy input."""
    if isinstance(data, list):
        return np.asarray(data, dtype=float)
    values = np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"]))
    shape = data.get("shape")
    if shape:
        values = values.reshape(tuple(int(part) for part in str(shape).split(",")))
    return values
