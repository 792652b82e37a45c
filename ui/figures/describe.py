"""Text alternatives for charts, computed from the numbers the chart draws.

A screen reader announces a chart by its accessible name (``st.plotly_chart(alt=...)``).
These pure functions write that name from the same arrays the figure holds: what the
chart is (its title and shape) and what a sighted student reads from it (the strongest
links of a weights matrix, the range and extremes of scores and values, the peak of each
line). User text (tokens, column names) goes in as plain text, quoted; nothing here is
markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures import build
from ui.figures.tables import axis_values, matrix_traces, trace_array

#: How many strongest cells or lines a description names.
TOP = 3


def _quoted(label: object) -> str:
    return f"'{label}'"


def _number(value: float) -> str:
    return f"{value:.2f}"


def strongest_cells(
    matrix: np.ndarray, rows: Sequence[object], cols: Sequence[object], top: int = TOP
) -> list[tuple[object, object, float]]:
    """The ``top`` largest finite cells of ``matrix (R, C)`` as (row label, column label, value).

    Ties keep reading order (row by row); masked (NaN or infinite) cells never count.
    """
    z = np.asarray(matrix, dtype=float)
    finite = np.isfinite(z)
    if not finite.any():
        return []
    flat = np.where(finite, z, -np.inf).ravel()
    order = np.argsort(-flat, kind="stable")[: min(top, int(finite.sum()))]
    width = z.shape[1]
    return [(rows[i // width], cols[i % width], float(flat[i])) for i in order]


def describe_matrix(
    matrix: np.ndarray,
    rows: Sequence[object],
    cols: Sequence[object],
    *,
    title: str,
    weights: bool,
    row_name: str = "rows",
    col_name: str = "columns",
) -> str:
    """One sentence for a heatmap of ``matrix (R, C)`` with row and column labels.

    Weights (softmax output): the strongest query → key links and how many cells are
    masked. Other matrices: the range of values and where the largest and smallest sit.
    """
    z = np.asarray(matrix, dtype=float)
    n_rows, n_cols = z.shape
    finite = np.isfinite(z)
    shape = f"{title}: {n_rows} {row_name} × {n_cols} {col_name}"
    if not finite.any():
        return f"{shape}, every cell masked."
    hidden = int((~finite).sum())
    masked = f", {hidden} cells masked" if hidden else ""
    if weights:
        links = ", ".join(
            f"{_quoted(row)} → {_quoted(col)} {_number(value)}"
            for row, col, value in strongest_cells(z, rows, cols)
        )
        return f"{shape}{masked}. Strongest links: {links}."
    (row_hi, col_hi, high), *_ = strongest_cells(z, rows, cols, 1)
    (row_lo, col_lo, low), *_ = strongest_cells(-z, rows, cols, 1)
    return (
        f"{shape}{masked}. Values from {_number(-low)} to {_number(high)}; largest at "
        f"{_quoted(row_hi)}, {_quoted(col_hi)}; smallest at {_quoted(row_lo)}, {_quoted(col_lo)}."
    )


def _place(label: object) -> str:
    """A point's position as a reader says it: dates as days, numbers as they are."""
    if isinstance(label, np.datetime64):
        return str(np.datetime_as_string(label, unit="D"))
    if isinstance(label, str) and len(label) >= 19 and label[10:11] == "T":
        return label[:10]  # an ISO timestamp: the day is what the chart shows
    return str(label)


def describe_line(name: str, x: Sequence[object], y: Sequence[float]) -> str:
    """One phrase for a line or bar series: its length, range and where it peaks."""
    values = np.asarray(y, dtype=float)
    finite = np.isfinite(values)
    if not finite.any():
        return f"{name}: no values"
    peak = int(np.argmax(np.where(finite, values, -np.inf)))
    low, high = float(values[finite].min()), float(values[finite].max())
    return (
        f"{name}: {int(finite.sum())} points from {_number(low)} to {_number(high)}, "
        f"highest at {_place(x[peak]) if peak < len(x) else peak}"
    )


def describe_head_view(
    weights: np.ndarray,
    heads: Sequence[int],
    query: int | None,
    query_labels: Sequence[object],
    key_labels: Sequence[object],
) -> str:
    """The head view in words: for each drawn head, the keys the query (or every query) reads most.

    ``weights (H, T, S)``; ``heads`` 0-based; ``query`` a row, or None for all rows.
    """
    who = "every query token" if query is None else f"query {_quoted(query_labels[query])}"
    parts = [f"Head view: lines from {who} to the keys, thicker for larger weights."]
    for head in heads:
        rows = weights[head] if query is None else weights[head][query : query + 1]
        labels = query_labels if query is None else [query_labels[query]]
        links = ", ".join(
            f"{_quoted(row)} → {_quoted(col)} {_number(value)}"
            for row, col, value in strongest_cells(rows, labels, key_labels)
        )
        parts.append(f"Head {head + 1}: {links}.")
    return " ".join(parts)


def _values(data: object) -> np.ndarray | None:
    """A trace's numbers as an array; a figure that went through a cache holds them as
    plotly's base64 typed arrays (``{"dtype", "bdata", "shape"}``), read by ``trace_array``."""
    array = trace_array(data)
    return array if array is not None and array.size else None


def _axis_names(layout: dict) -> tuple[str, str]:
    """``("query tokens", "key tokens")`` from the axis titles, else rows and columns."""
    names = []
    for axis, default in (("yaxis", "rows"), ("xaxis", "columns")):
        title = build.text_of((layout.get(axis) or {}).get("title"))
        names.append(f"{title} tokens" if title in ("query", "key") else default)
    return names[0], names[1]


def _is_weights(trace: dict, layout: dict) -> bool:
    """Softmax weights are drawn on a fixed 0..1 scale (their own, or a shared colour axis)."""
    if trace.get("zmin") == 0 and trace.get("zmax") == 1:
        return True
    axis = layout.get(trace["coloraxis"]) if trace.get("coloraxis") else None
    return axis is not None and axis.get("cmin") == 0 and axis.get("cmax") == 1


def _axis_labels(values: Iterable[object] | None, count: int) -> list[object]:
    """A trace's row or column labels as the page gave them (text unescaped), else 0 .. count-1."""
    if values is None:
        return list(range(count))
    shown = axis_values(values)  # also a shared figure's numbered axis
    return [build.read_text(value) if isinstance(value, str) else value for value in shown]


def _heatmap_title(trace: dict, layout: dict, index: int, count: int) -> str:
    titles = [a["text"] for a in layout.get("annotations") or () if a.get("text")]
    if count > 1 and index < len(titles):
        return build.read_text(titles[index])
    return str(trace.get("name") or build.text_of(layout.get("title")) or "Heatmap")


def describe_figure(figure: go.Figure, lead: str = "") -> str:
    """A text alternative for any of the app's figures, read from the numbers it draws.

    Heatmaps (one per panel) are described by :func:`describe_matrix`; weights are
    recognised by their fixed 0..1 colour range. Lines and bars by :func:`describe_line`.
    ``lead`` is a first sentence the page knows better (e.g. the mask in use).
    """
    data, layout = build.plain(figure)
    heatmaps = matrix_traces(figure)
    parts = [lead] if lead else []
    title = build.text_of(layout.get("title"))
    if title and len(heatmaps) != 1:
        parts.append(f"{title}.")
    for index, trace in enumerate(heatmaps):
        z = _values(trace.get("z"))
        if z is None or z.ndim != 2:
            continue
        rows = _axis_labels(trace.get("y"), z.shape[0])
        cols = _axis_labels(trace.get("x"), z.shape[1])
        weights = _is_weights(trace, layout)
        name = _heatmap_title(trace, layout, index, len(heatmaps))
        row_name, col_name = _axis_names(layout) if len(heatmaps) == 1 else ("rows", "columns")
        parts.append(
            describe_matrix(
                z, rows, cols, title=name, weights=weights, row_name=row_name, col_name=col_name
            )
        )
        if weights and len(heatmaps) == 1 and row_name.startswith("query"):
            parts.append("Each row sums to 1 over the keys it may see.")
    lines = [
        t
        for t in data
        if t.get("type") in ("scatter", "scattergl", "bar")
        and t.get("y") is not None
        and t.get("mode") != "text"  # numbers written on cells, not a series
    ]
    for trace in lines[:6]:
        horizontal = trace.get("orientation") == "h"
        values, places = (
            (trace.get("x"), trace["y"]) if horizontal else (trace["y"], trace.get("x"))
        )
        array = _values(values)
        if array is None or array.ndim != 1 or not np.issubdtype(array.dtype, np.number):
            continue
        where = _axis_labels(places, len(array))
        parts.append(describe_line(str(trace.get("name") or "series"), where, array) + ".")
    if len(lines) > 6:
        parts.append(f"{len(lines) - 6} more lines.")
    return " ".join(parts) or "A chart."
