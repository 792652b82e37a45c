"""Reading the plotly figures a page sent, as AppTest sees them."""

from __future__ import annotations

import base64
import json

import numpy as np
from streamlit.testing.v1 import AppTest


def figures(at: AppTest) -> list[dict]:
    """Every plotly chart of the run, as its JSON spec."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


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
