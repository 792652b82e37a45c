"""Every matrix a chart draws, as a table a screen reader can walk cell by cell.

Pure functions (no Streamlit): they read the heatmaps of a figure (the same arrays
it draws) and return pandas frames whose row and column headers are the tokens.
Masked cells read "masked". A matrix wider than :data:`MAX_TABLE_COLUMNS` is given
as the :data:`TOP_K` largest cells of each row, with a note saying so.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.figures import build

#: Wider matrices are listed as each row's largest cells (a 128-column table is unreadable).
MAX_TABLE_COLUMNS = 16
TOP_K = 5
#: At most this many panels of a grid are tabled (the model view has 72).
MAX_TABLES = 12
MASKED_CELL = "masked"


@dataclass(frozen=True)
class MatrixTable:
    """One matrix as a table: its title, the frame, and a note when it is abridged."""

    title: str
    frame: pd.DataFrame
    note: str = ""


def trace_array(data: object) -> np.ndarray | None:
    """A trace's numbers as an array, also when plotly has stored them as base64.

    Drawing a figure may replace its arrays in place by plotly's typed-array form
    ``{"dtype": "f4", "bdata": ..., "shape": "R, C"}`` (a cached figure is drawn again).
    """
    if data is None:
        return None
    if isinstance(data, dict) and "bdata" in data:
        array = np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"]))
        shape = data.get("shape")
        if shape:
            array = array.reshape([int(n) for n in str(shape).split(",")])
        return array
    return np.asarray(data)


def axis_values(values: Iterable[object]) -> Iterable[object]:
    """A trace's axis labels as given, or as an array when plotly keeps them as base64
    (the numbered axes of a shared figure, :func:`ui.figures.build.encode_arrays`)."""
    if isinstance(values, dict):
        array = trace_array(values)
        return [] if array is None else list(array)
    return values


def _labels(values: Iterable[object] | None, count: int) -> list[str]:
    """An axis's labels as text (numbers too)."""
    if values is None:
        return [str(i) for i in range(count)]
    return [build.read_text(v) for v in axis_values(values)]


def _unique(labels: list[str]) -> list[str]:
    """Header labels made unique (a table with repeated headers is ambiguous)."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def full_table(z: np.ndarray, rows: list[str], cols: list[str], decimals: int) -> pd.DataFrame:
    """``z (R, C)`` as strings rounded to ``decimals``; NaN cells read "masked"."""
    text = np.where(np.isfinite(z), np.char.mod(f"%.{decimals}f", np.nan_to_num(z)), MASKED_CELL)
    return pd.DataFrame(text, index=_unique(rows), columns=_unique(cols))


def top_k_table(
    z: np.ndarray, rows: list[str], cols: list[str], decimals: int, k: int = TOP_K
) -> pd.DataFrame:
    """Each row's ``k`` largest finite cells of ``z (R, C)`` as "column: value", largest first."""
    k = min(k, z.shape[1])
    ranked = np.argsort(-np.where(np.isfinite(z), z, -np.inf), axis=1, kind="stable")[:, :k]
    cells = [
        [f"{cols[j]}: {z[i, j]:.{decimals}f}" if np.isfinite(z[i, j]) else "" for j in ranked[i]]
        for i in range(z.shape[0])
    ]
    header = [f"largest {n + 1}" for n in range(k)]
    return pd.DataFrame(cells, index=_unique(rows), columns=header)


def matrix_table(
    z: np.ndarray, rows: list[str], cols: list[str], *, title: str, decimals: int
) -> MatrixTable:
    """The table of one matrix: in full, or top-k per row when it is wide."""
    if z.shape[1] <= MAX_TABLE_COLUMNS:
        return MatrixTable(title, full_table(z, rows, cols, decimals))
    note = (
        f"{z.shape[1]} columns: each row's {min(TOP_K, z.shape[1])} largest values are "
        "listed, largest first."
    )
    return MatrixTable(title, top_k_table(z, rows, cols, decimals), note)


def matrix_traces(figure: go.Figure) -> list[dict]:
    """The heatmap panels ``figure`` draws (their plain dicts), without its mask overlays."""
    data, _ = build.plain(figure)
    return [t for t in data if t.get("type") == "heatmap" and t.get("name") != "masked"]


def figure_tables(figure: go.Figure, decimals: int = 2) -> list[MatrixTable]:
    """Tables of the heatmap panels ``figure`` draws (not mask overlays), the first MAX_TABLES.

    When a grid has more panels, the last table's note says how many were left out.
    """
    _, layout = build.plain(figure)
    titles = [build.read_text(a["text"]) for a in layout.get("annotations") or () if a.get("text")]
    heatmaps = matrix_traces(figure)
    tables = []
    for index, trace in enumerate(heatmaps[:MAX_TABLES]):
        z = trace_array(trace.get("z"))
        if z is None or z.ndim != 2 or not np.issubdtype(z.dtype, np.number):
            continue
        z = z.astype(float)
        title = titles[index] if len(heatmaps) > 1 and index < len(titles) else trace.get("name")
        rows, cols = _labels(trace.get("y"), z.shape[0]), _labels(trace.get("x"), z.shape[1])
        tables.append(matrix_table(z, rows, cols, title=str(title or ""), decimals=decimals))
    if len(heatmaps) > MAX_TABLES and tables:
        left_out = f"{len(heatmaps) - MAX_TABLES} more panels are not tabled here."
        last = tables[-1]
        tables[-1] = MatrixTable(last.title, last.frame, f"{last.note} {left_out}".strip())
    return tables
