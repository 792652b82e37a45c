"""Helpers for benchmarks that drive the text page in-process with AppTest."""

from __future__ import annotations

import base64
import json

import numpy as np
from streamlit.testing.v1 import AppTest

from harness.local_server import ROOT
from ui.shared.walkable_data import read_sent

TEXT_PAGE = str(ROOT / "views" / "text.py")
MINIMAL_PAGE = str(ROOT / "benchmarks" / "minimal_page.py")


def sentence(n_tokens: int) -> str:
    """A sentence of ``n_tokens`` distinct words."""
    return " ".join(f"word{i}" for i in range(n_tokens))


def text_page(**params: str) -> AppTest:
    at = AppTest.from_file(TEXT_PAGE, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def chart_specs(at: AppTest) -> list[str]:
    return [element.proto.spec for element in at.get("plotly_chart")]


def matrix_components(at: AppTest) -> list[tuple[int, int]]:
    """``(bytes, cells)`` of each walkable matrix (ui/shared/walkable_matrix.py) on the page:
    the whole component message (its data and the few lines that load the code)."""
    sizes = []
    for element in at.get("bidi_component"):
        data = read_sent(element.proto.bytes)
        cells = len(data.get("rows", ())) * len(data.get("cols", ()))
        sizes.append((element.proto.ByteSize(), cells))
    return sizes


def heatmap_cells(spec: str) -> int:
    """Cells of every heatmap trace in a figure spec (typed arrays or lists)."""
    cells = 0
    for trace in json.loads(spec)["data"]:
        if trace.get("type") != "heatmap" or trace.get("name") == "masked":
            continue
        z = trace["z"]
        if isinstance(z, dict):  # plotly's typed array: {"dtype", "bdata", "shape": "64, 64"}
            cells += len(base64.b64decode(z["bdata"])) // np.dtype(z["dtype"]).itemsize
        else:
            cells += sum(len(row) for row in z)
    return cells
